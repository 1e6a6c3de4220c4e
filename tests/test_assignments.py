"""The classroom assignments graded as GUIDE.md says, with the grades deserved.

A teacher makes a course folder, releases the assignments (``nbgrader
generate_assignment``), grades the class (``nbgrader autograde``, each notebook in
the sandbox) and returns ``nbgrader generate_feedback``, all with the course's own
``nbgrader_config.py``. ``notebooks/classroom/assignments/grading_run.py`` says
what each student writes and deserves; here nine of its students hand in every
assignment:

- ``right`` full marks; ``blank`` none; ``mistaken`` loses the mistaken parts only;
- ``crash`` (the kernel dies) and ``loop`` (a cell never ends): every test cell is
  graded, zero with the reason where the code could not run;
- ``honest`` writes right answers in unusual code (a loop variable ``round``, a
  helper class setting ``self.x``, a scipy cross-check cell): full marks, notes;
- three cheats with no real code of their own: appending to the course's config
  with numpy, patching ``isclose`` through ``operator`` and ``exec``, reading the
  teacher's notebook and the gradebook with ``np.fromfile``: no points, and not a
  byte of the course folder changed.

The full class, with the other two cheats (objects equal to anything, evp's answers
imported by ``exec``), is ``python grading_run.py``. The grading runs once per
module (a kernel per notebook); it needs the sandbox, and skips with the reason
where this machine cannot set it up.
"""

from __future__ import annotations

import ast
import re

import pytest
from test_grading_rules import ASSIGNMENTS, COURSE
from test_grading_rules import _load as _course_module

pytestmark = pytest.mark.needs("nbgrader", "nbformat")

STUDENTS = ("right", "blank", "mistaken", "crash", "loop", "honest", "cheat_config",
            "cheat_operator", "cheat_disk")
# The suite stops a running cell after a few seconds (the course's setting is 30 s).
TIME_LIMIT = 5


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """The class graded once: grading_run.grade_class's record."""
    reason = _course_module("sandbox").check()
    if reason:
        pytest.skip(f"the grading sandbox cannot be set up here: {reason}")
    grading_run = _course_module("grading_run")
    course = tmp_path_factory.mktemp("classroom") / "course"
    record = grading_run.grade_class(course, STUDENTS, ASSIGNMENTS, TIME_LIMIT)
    record["module"] = grading_run
    return record


def _meta(cell) -> dict:
    return cell.metadata.get("nbgrader", {})


def test_there_are_four_assignments_with_autograder_cells():
    import nbformat

    assert len(ASSIGNMENTS) >= 4
    for assignment in ASSIGNMENTS:
        notebooks = list((COURSE / "source" / assignment).glob("*.ipynb"))
        assert notebooks, assignment
        for notebook in notebooks:
            cells = nbformat.read(notebook, as_version=4).cells
            assert any(_meta(c).get("grade") for c in cells), notebook


def test_every_assert_in_a_test_cell_carries_a_message():
    import nbformat

    for notebook in (COURSE / "source").glob("*/*.ipynb"):
        for cell in nbformat.read(notebook, as_version=4).cells:
            if not _meta(cell).get("grade") or cell.cell_type != "code":
                continue
            for node in ast.walk(ast.parse(cell.source)):
                if isinstance(node, ast.Assert):
                    assert node.msg is not None, (notebook.name, ast.unparse(node))


def test_every_submission_gets_the_grade_it_deserves(run):
    grading_run = run["module"]
    wrong = [line for line in grading_run.problems(run)
             if not line.startswith(("changed by grading", "feedback leaks"))]
    assert not wrong, "\n".join(wrong)
    print(grading_run.table(run))


def test_no_student_code_changed_a_byte_of_the_course(run):
    """SHA-256 of every file of the course folder before and after autograde: only
    what autograde writes changed; the config was not appended to, nothing added."""
    assert run["changed"] == []
    assert not (run["course"] / "PWNED").exists()
    config = (run["course"] / "nbgrader_config.py").read_text()
    assert config == (COURSE / "nbgrader_config.py").read_text()


def test_the_cheats_attempts_failed_in_the_sandbox(run):
    import nbformat

    said = {}
    for student in ("cheat_config", "cheat_disk"):
        path = (run["course"] / "autograded" / student / "randomization_test"
                / "randomization_test.ipynb")
        said[student] = " ".join(o.get("text", "") for c in
                                 nbformat.read(path, as_version=4).cells
                                 for o in c.get("outputs", []))
    assert "could not append" in said["cheat_config"]
    assert "appended to" not in said["cheat_config"]
    assert "could not read" in said["cheat_disk"]
    assert "read from the teacher's files: {}" in said["cheat_disk"]


def test_the_release_keeps_out_solutions_hidden_tests_and_the_key(run):
    """What nbgrader generate_assignment gives students: no solution, no hidden test,
    no key for teaching assistants, no grader file."""
    course = run["course"]
    for assignment in ASSIGNMENTS:
        folder = course / "release" / assignment
        assert {p.name for p in folder.iterdir()} == {f"{assignment}.ipynb"}
        release = (folder / f"{assignment}.ipynb").read_text()
        for marker in ("BEGIN SOLUTION", "HIDDEN TESTS", "[evp-grading]",
                       "Key for teaching assistants", "Rubric"):
            assert marker not in release, (assignment, marker)
        source = (course / "source" / assignment / f"{assignment}.ipynb").read_text()
        if "Key for teaching assistants" in source:
            assert "YOUR ANSWER HERE" in release
    assert "Key for teaching assistants" in (
        course / "source" / "bootstrap_and_cross_validation"
        / "bootstrap_and_cross_validation.ipynb").read_text()  # the test can fail


def test_feedback_holds_no_hidden_test_and_no_answer(run):
    grading_run = run["module"]
    assert grading_run.feedback_leaks(run["course"]) == []
    pages = list((run["course"] / "feedback").glob("*/*/*.html"))
    assert len(pages) == len(STUDENTS) * len(ASSIGNMENTS)
    import html

    for page in pages:
        text = html.unescape(re.sub(r"<[^>]+>", "", page.read_text()))
        for answer in ("26 / 64", '== "B"', '== "C"', "0.8276174", "budget == 5",
                       "rules out", "neither the probability"):
            assert answer not in text, (page, answer)


def test_feedback_says_what_was_checked(run):
    page = (run["course"] / "feedback" / "mistaken" / "randomization_test"
            / "randomization_test.html").read_text()
    assert "not the exact p-value on the lecture" in page
    page = (run["course"] / "feedback" / "honest" / "expected_max_estimator"
            / "expected_max_estimator.html").read_text()
    assert "no points lost" in page  # the note on `round`, at no cost


def test_no_checksum_warning_on_untouched_cells(run):
    """nbgrader warns on a locked cell that changed: no student edited one."""
    for log in run["logs"].values():
        assert not re.search(r"checksum.*has changed", log), log
