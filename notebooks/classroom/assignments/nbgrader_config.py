# nbgrader settings for the evp classroom assignments; run nbgrader from this folder.
# GUIDE.md (one folder up) says how to release, collect, grade and return feedback.
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from grading import EnforceRules, GradeEveryCell, RestoreHiddenTests, StripAnswerKey
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

c = get_config()  # noqa: F821 (nbgrader defines get_config when it reads this file)

c.CourseDirectory.course_id = "evp-classroom"

# Each cell runs in seconds; one still running after 30 s is stopped (its tests
# score zero, "ran past the time limit"), so an endless loop costs at most 30 s a cell.
c.Execute.timeout = 30
c.GradeEveryCell.timeout = 30
c.ExecutePreprocessor.timeout = 30

# nbgrader's own steps, with three replaced or added (grading.py says why):
# RestoreHiddenTests for OverwriteCells (no checksum warning on untouched cells),
# GradeEveryCell for Execute (a killed kernel or a timeout is graded zero with the
# reason, not dropped), EnforceRules after it (forbidden helpers and changes to
# what the tests rely on cost the tests' points, with a message).
c.Autograde.sanitize_preprocessors = [
    ClearOutput, DeduplicateIds, OverwriteKernelspec, RestoreHiddenTests,
    CheckCellMetadata]
c.Autograde.autograde_preprocessors = [
    GradeEveryCell, EnforceRules, IgnorePattern, ClearMetadataPreprocessor,
    LimitOutput, SaveAutoGrades, AssignLatePenalties, CheckCellMetadata]

# Feedback goes to students: no hidden tests, and no tracebacks quoting them.
c.GenerateFeedback.preprocessors = [GetGrades, StripAnswerKey,
                                    CSSHTMLHeaderPreprocessor]
