# nbgrader settings for the evp classroom assignments; run nbgrader from this folder.
# GUIDE.md (one folder up) says how to release, collect, grade and return feedback.
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from grading import (
    CheckResults,
    EnforceRules,
    GradeEveryCell,
    RestoreHiddenTests,
    StripAnswerKey,
)
from nbconvert.preprocessors import ClearMetadataPreprocessor, CSSHTMLHeaderPreprocessor
from nbgrader.preprocessors import (
    AssignLatePenalties,
    CheckCellMetadata,
    ClearOutput,
    DeduplicateIds,
    GetGrades,
    IgnorePattern,
    LimitOutput,
    OverwriteKernelspec,
    SaveAutoGrades,
)
from sandbox import UNSAFE_OPTION, check, refusal

c = get_config()  # noqa: F821 (nbgrader defines get_config when it reads this file)

c.CourseDirectory.course_id = "evp-classroom"

# Each cell runs in seconds; one still running after 30 s is stopped (its tests
# score zero, "ran past the time limit"), so an endless loop costs at most 30 s a cell.
c.Execute.timeout = 30
c.GradeEveryCell.timeout = 30
c.ExecutePreprocessor.timeout = 30

# Every student notebook runs in the sandbox (sandbox.py; GradeEveryCell starts
# its kernels there): its own scratch folder,
# no course file, no network, limits on CPU time, memory and processes, and
# without the packages that answer the assignment. Where this machine cannot set
# the sandbox up, autograde stops here in one line, naming the option that grades
# without it.
if (len(sys.argv) > 1 and sys.argv[1] == "autograde"
        and not any(arg.startswith(UNSAFE_OPTION.split("=")[0]) for arg in sys.argv)):
    _reason = check()
    if _reason:
        sys.exit(refusal(_reason))

# nbgrader's own steps, with three replaced or added (grading.py says why):
# RestoreHiddenTests for OverwriteCells (no checksum warning on untouched cells),
# GradeEveryCell for Execute (a killed kernel or a timeout is graded zero with the
# reason, not dropped), EnforceRules after it (forbidden helpers and changes to
# what the tests rely on cost the tests' points, with a message), CheckResults
# after it (each test's results, printed by the sandbox as plain data, compared
# with answer_key.py here, outside the student's kernel).
c.Autograde.sanitize_preprocessors = [
    ClearOutput, DeduplicateIds, OverwriteKernelspec, RestoreHiddenTests,
    CheckCellMetadata]
c.Autograde.autograde_preprocessors = [
    GradeEveryCell, CheckResults, EnforceRules, IgnorePattern, ClearMetadataPreprocessor,
    LimitOutput, SaveAutoGrades, AssignLatePenalties, CheckCellMetadata]

# Feedback goes to students: no hidden tests, and no tracebacks quoting them.
c.GenerateFeedback.preprocessors = [GetGrades, StripAnswerKey,
                                    CSSHTMLHeaderPreprocessor]
