# nbgrader settings for the evp classroom assignments; run nbgrader from this folder.
# GUIDE.md (one folder up) says how to release, collect, grade and return feedback.
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import nbgrader.apps.autogradeapp
from grading import (
    EnforceRules,
    EscapeStudentHTML,
    GradeEveryCell,
    GradeEverySubmission,
    RestoreLockedCells,
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
# Several autograde processes may grade at once (grading_run.py --jobs): each
# waits for the gradebook's lock instead of failing.
c.CourseDirectory.db_url = f"sqlite:///{os.path.join(HERE, 'gradebook.db')}?timeout=300"

# Each cell runs in seconds; one still running after 30 s is stopped (its tests
# score zero, "ran past the time limit"), so an endless loop costs at most 30 s a
# cell, and a notebook at most 5 minutes in all (the rest is not run).
c.Execute.timeout = 30
c.GradeEveryCell.timeout = 30
c.ExecutePreprocessor.timeout = 30
c.GradeEveryCell.notebook_timeout = 300
# A graded kernel is stopped at once: its sandbox, and every process in it, end
# with it (nothing of the student's needs a graceful exit).
c.GradeEveryCell.shutdown_kernel = "immediate"

# Every student notebook runs in the sandbox (sandbox.py; GradeEveryCell starts
# its kernels there): its own scratch folder, no course file, no network, an
# import path with only what the assignment allows, limits on time, memory,
# processes and output. Where this machine cannot set the sandbox up, autograde
# stops here in one line, naming the option that grades without it.
if (len(sys.argv) > 1 and sys.argv[1] == "autograde"
        and not any(arg.startswith(UNSAFE_OPTION.split("=")[0]) for arg in sys.argv)):
    _reason = check()
    if _reason:
        sys.exit(refusal(_reason))

# autograde gives every notebook a grade (GradeEverySubmission: a notebook that
# cannot be graded scores 0 with the reason, and grading goes on) and takes only
# the notebooks from a student's folder. nbgrader's command creates its
# converter by this name.
nbgrader.apps.autogradeapp.Autograde = GradeEverySubmission

# nbgrader's own steps, with some replaced or added (grading.py says why):
# RestoreLockedCells for OverwriteCells (a change to the cells' grading settings
# leaves the notebook ungraded, with the reason), GradeEveryCell for Execute (the
# sandbox, each test's probe checked against answer_key.py outside the kernel, a
# grade for every cell), EnforceRules after it (forbidden imports and changes to
# what the tests rely on cost the tests' points, with a message),
# EscapeStudentHTML (a student's HTML shown as text).
c.Autograde.sanitize_preprocessors = [
    ClearOutput, DeduplicateIds, OverwriteKernelspec, RestoreLockedCells,
    CheckCellMetadata]
c.Autograde.autograde_preprocessors = [
    GradeEveryCell, EnforceRules, EscapeStudentHTML, IgnorePattern,
    ClearMetadataPreprocessor, LimitOutput, SaveAutoGrades, AssignLatePenalties,
    CheckCellMetadata]

# Feedback goes to students: no tracebacks quoting the tests, no student HTML.
c.GenerateFeedback.preprocessors = [GetGrades, StripAnswerKey, EscapeStudentHTML,
                                    CSSHTMLHeaderPreprocessor]
