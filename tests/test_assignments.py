"""The classroom assignments survive nbgrader's round trip, and their grades are fair.

A teacher generates the student versions with ``nbgrader generate_assignment``,
grades submissions with ``nbgrader autograde`` and returns ``nbgrader
generate_feedback``, all with the course's own ``nbgrader_config.py``. Here five
students hand in every assignment, each written the way a student would, on the
released notebook:

- ``right`` fills in the teacher's solutions: full marks on every test cell;
- ``blank`` hands in the release untouched: no marks;
- ``mistaken`` makes honest mistakes (an off-by-one in V, no tolerance, a wrong
  letter): loses the points of the mistaken part only;
- ``cheat`` patches ``np.isclose``, edits a locked test, calls the forbidden
  ``evp.paired_permutation_test``, rebinds a built-in: earns no more than a wrong
  answer, and the feedback says why;
- ``crash`` kills the kernel, loops forever, leaves a syntax error: every test
  cell still gets a grade, zero with the reason where the code could not run.

The grading runs once per module (it is slow: a kernel per notebook).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.needs("nbgrader", "nbformat")

ROOT = Path(__file__).resolve().parents[1]
COURSE = ROOT / "notebooks" / "classroom" / "assignments"
ASSIGNMENTS = sorted(p.name for p in (COURSE / "source").iterdir() if p.is_dir())
STUDENTS = ("right", "blank", "mistaken", "cheat", "crash")
# The suite stops a running cell after a few seconds (the course's setting is 30 s).
TIME_LIMIT = 8

# What each student writes in a solution cell (by grade_id); other solution cells
# get the teacher's solution, except for `blank`, who writes nothing.
WRITES = {
    "mistaken": {
        # Off by one: i runs from 0, so the weights no longer sum to 1 (n > 1).
        "expected_max_v": '''
def expected_max_v(scores, n):
    x = np.sort(np.asarray(scores, dtype=float))
    b = x.size
    i = np.arange(b)
    return float(np.sum(((i / b) ** n - ((i - 1) / b) ** n) * x))
''',
        # No tolerance: ties in exact arithmetic are missed on decimal scores.
        "randomization_test": '''
def randomization_test(a, b):
    d = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
    signs = np.array(list(itertools.product([1, -1], repeat=d.size)))
    return float(np.mean(np.abs(signs @ d / d.size) >= abs(d.mean())))
''',
        "answer": 'answer = "A"  # reads the p-value as the probability of the null',
        "strong_budgets":
            'strong_budgets = budgets[b_beats_a.evidence != "none"].tolist()',
        "answer_band": 'answer_band = "A"  # reads a simultaneous band as pointwise',
    },
    "cheat": {
        "expected_max_v": '''
def expected_max_v(scores, n):
    return float(max(scores))
''',
        "budget": "budget = 5",
        "randomization_test": '''
def randomization_test(a, b):
    import evp
    return float(evp.paired_permutation_test(np.asarray(a), np.asarray(b)).pvalue)
''',
        "median_a_at_10": "median_a_at_10 = float(band_a.estimate[9])",
        "answer_band": "answer_band = 'A'\nisinstance = lambda *args: True",
    },
    "crash": {
        "budget": "import os\n\nos._exit(1)  # the kernel dies here",
        "randomization_test_monte_carlo": '''
def randomization_test_monte_carlo(a, b, n_resamples, rng):
    while True:
        pass
''',
        "median_a_at_10": "median_a_at_10 = float(band_a.estimate[budgets == 10][0]",
    },
}
# Cells a student adds (after the cell with this grade_id), and locked cells a
# student edits (nbgrader restores them).
ADDS = {"cheat": {("expected_max_estimator", "setup-2"):
                  "np.isclose = lambda *args, **kwargs: True"}}
EDITS = {"cheat": {("expected_max_estimator", "test_budget"):
                   "pass  # nothing to see here"}}

# The points each student earns on each test cell, where not full (right) or zero
# (blank, and every cell not listed for the others).
EARNS = {
    "mistaken": {
        "test_one_trial_is_the_mean": 1,  # n = 1 weighs every score 1/B all the same
        "test_smallest_budget": 2,  # tested with the reference V, not the student's
        "test_against_enumeration": 2,  # continuous scores: no ties to miss
        "test_monte_carlo": 2,
        "test_median_a_at_10": 2,
        "test_answer_upper": 2,
    },
    "cheat": {
        # Rules cost the tests of what the cell defines: randomization_test's.
        "test_monte_carlo": 2,
        "test_answer": 2,
    },
    "crash": {
        "test_one_trial_is_the_mean": 1, "test_brute_force": 2,
        "test_shape_of_the_curve": 1, "test_smallest_budget": 2,
        "test_lecture_table": 2, "test_against_enumeration": 2, "test_answer": 2,
        "test_strong_budgets": 2, "test_answer_band": 2, "test_answer_upper": 2,
    },
}
# The assignments these students were written for; in any other (one a teacher
# adds) every student but the blank one hands in the solutions.
WRITTEN_FOR = {"expected_max_estimator", "randomization_test", "reading_tuning_curves"}
# Why a student's test cell scores zero: a phrase its error must contain.
REASONS = {
    ("mistaken", "test_brute_force"): "did you sort the scores",
    ("mistaken", "test_budget"): "budget should be a whole number",
    ("mistaken", "test_lecture_table"): "tolerance",
    ("cheat", "test_brute_force"): "changes np.isclose",
    ("cheat", "test_budget"): "changes np.isclose",
    ("cheat", "test_lecture_table"): "imports evp",
    ("cheat", "test_against_enumeration"): "imports evp",
    ("cheat", "test_answer_band"): "built-in isinstance",
    ("crash", "test_budget"): "kernel died",
    ("crash", "test_monte_carlo"): "time limit",
    ("crash", "test_median_a_at_10"): "not defined",
}


def _nbgrader(course: Path, *args: str) -> str:
    """Run nbgrader in `course`; its log."""
    # nbgrader runs the `alembic` command of its own environment to set up the
    # gradebook, so that environment's scripts must come first on PATH.
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}"
                                f"{os.environ.get('PATH', '')}")
    done = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=course,
                          env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout + done.stderr


def _meta(cell) -> dict:
    return cell.metadata.get("nbgrader", {})


def _submit(course: Path, student: str, assignment: str, name: str) -> None:
    """Write what `student` hands in: the release with their code filled in."""
    import nbformat

    release = nbformat.read(course / "release" / assignment / name, as_version=4)
    source = nbformat.read(course / "source" / assignment / name, as_version=4)
    solutions = {_meta(c)["grade_id"]: c.source for c in source.cells
                 if _meta(c).get("solution")}
    cells = []
    for cell in release.cells:
        grade_id = _meta(cell).get("grade_id")
        if student != "blank" and grade_id in solutions:
            cell.source = WRITES.get(student, {}).get(grade_id,
                                                      solutions[grade_id]).strip()
        cell.source = EDITS.get(student, {}).get((assignment, grade_id), cell.source)
        cells.append(cell)
        if (assignment, grade_id) in ADDS.get(student, {}):
            cells.append(nbformat.v4.new_code_cell(ADDS[student][assignment, grade_id]))
    release.cells = cells
    folder = course / "submitted" / student / assignment
    folder.mkdir(parents=True)
    nbformat.write(release, folder / name)


def _grade_cells(notebook: Path) -> dict[str, float]:
    import nbformat

    nb = nbformat.read(notebook, as_version=4)
    return {_meta(c)["grade_id"]: float(_meta(c)["points"]) for c in nb.cells
            if _meta(c).get("grade")}


def _hidden_lines(notebook: Path) -> list[str]:
    """Code lines found only inside hidden-test regions, which students must never
    see."""
    import nbformat

    hidden, shown, inside = [], set(), False
    for cell in nbformat.read(notebook, as_version=4).cells:
        for line in cell.source.splitlines():
            if "BEGIN HIDDEN TESTS" in line:
                inside = True
            elif "END HIDDEN TESTS" in line:
                inside = False
            elif inside and len(line.strip()) > 12 and not line.strip().startswith("#"):
                hidden.append(line.strip())
            else:
                shown.add(line.strip())
    return [line for line in hidden if line not in shown]


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    """Release, submit, autograde and return feedback, once; the course folder,
    the scores {(student, assignment, grade_id): score} and the autograde log."""
    from nbgrader.api import Gradebook

    course = tmp_path_factory.mktemp("course")
    shutil.copytree(COURSE / "source", course / "source")
    for name in ("nbgrader_config.py", "grading.py"):
        shutil.copy(COURSE / name, course)
    for assignment in ASSIGNMENTS:
        _nbgrader(course, "generate_assignment", assignment)
        for source in sorted((course / "source" / assignment).glob("*.ipynb")):
            for student in STUDENTS:
                _submit(course, student, assignment, source.name)
    log = _nbgrader(course, "autograde", "*", f"--GradeEveryCell.timeout={TIME_LIMIT}")
    _nbgrader(course, "generate_feedback", "*")

    scores = {}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        for assignment in ASSIGNMENTS:
            for source in sorted((course / "source" / assignment).glob("*.ipynb")):
                for student in STUDENTS:
                    submission = gradebook.find_submission_notebook(
                        source.stem, assignment, student)
                    for grade in submission.grades:
                        scores[student, assignment, grade.name] = grade.score
    return course, scores, log


def _errors(course: Path, student: str, assignment: str) -> dict[str, str]:
    """{grade_id: the error text of that test cell} in the autograded notebook."""
    import nbformat

    errors = {}
    for path in (course / "autograded" / student / assignment).glob("*.ipynb"):
        for cell in nbformat.read(path, as_version=4).cells:
            text = " ".join(f"{o.get('ename')}: {o.get('evalue')}"
                            for o in cell.get("outputs", [])
                            if o.output_type == "error")
            if _meta(cell).get("grade") and text:
                errors[_meta(cell)["grade_id"]] = text
    return errors


def test_there_are_at_least_three_assignments_with_autograder_cells():
    assert len(ASSIGNMENTS) >= 3
    for assignment in ASSIGNMENTS:
        notebooks = list((COURSE / "source" / assignment).glob("*.ipynb"))
        assert notebooks, assignment
        assert all(_grade_cells(nb) for nb in notebooks), assignment


def test_every_assert_in_a_test_cell_carries_a_message():
    import ast

    import nbformat

    for notebook in (COURSE / "source").glob("*/*.ipynb"):
        for cell in nbformat.read(notebook, as_version=4).cells:
            if not _meta(cell).get("grade") or cell.cell_type != "code":
                continue
            for node in ast.walk(ast.parse(cell.source)):
                if isinstance(node, ast.Assert):
                    assert node.msg is not None, (notebook.name, ast.unparse(node))


def test_the_coding_assignments_need_numpy_only():
    """The tests compare with reference values, not with evp, so a student (and the
    grader) needs numpy only for the two coding assignments."""
    import nbformat

    for assignment in ("expected_max_estimator", "randomization_test"):
        for notebook in (COURSE / "source" / assignment).glob("*.ipynb"):
            cells = nbformat.read(notebook, as_version=4).cells
            code = "\n".join(c.source for c in cells if c.cell_type == "code")
            imports = set(re.findall(r"^\s*(?:import|from) (\w+)", code, re.M))
            assert imports <= {"itertools", "math", "random", "numpy"}, imports


def test_student_version_hides_solutions_and_hidden_tests(course):
    course, _, _ = course
    for assignment in ASSIGNMENTS:
        for source in (course / "source" / assignment).glob("*.ipynb"):
            release = (course / "release" / assignment / source.name).read_text()
            for marker in ("BEGIN SOLUTION", "END SOLUTION", "HIDDEN TESTS"):
                assert marker not in release, (assignment, marker)
            assert "raise NotImplementedError()" in release
            leaked = [line for line in _hidden_lines(source) if line in release]
            assert not leaked, (assignment, leaked)


@pytest.mark.parametrize("student", STUDENTS)
def test_every_submission_is_graded_on_every_test_cell(course, student):
    """No submission is dropped, not even one that kills the kernel."""
    _, scores, _ = course
    for assignment in ASSIGNMENTS:
        for notebook in (COURSE / "source" / assignment).glob("*.ipynb"):
            for grade_id in _grade_cells(notebook):
                assert scores.get((student, assignment, grade_id)) is not None, (
                    student, assignment, grade_id)


@pytest.mark.parametrize("student", STUDENTS)
def test_autograder_scores(course, student):
    _, scores, _ = course
    for assignment in ASSIGNMENTS:
        for notebook in (COURSE / "source" / assignment).glob("*.ipynb"):
            for grade_id, points in _grade_cells(notebook).items():
                if assignment not in WRITTEN_FOR:
                    expected = 0 if student == "blank" else points
                else:
                    expected = (points if student == "right" else
                                EARNS.get(student, {}).get(grade_id, 0))
                assert scores[student, assignment, grade_id] == expected, (
                    student, assignment, grade_id)


def test_a_cheat_earns_no_more_than_a_wrong_answer(course):
    """Per test cell the cheat scores at most what the blank or mistaken student
    does, except where the cheat's own answer there is honest and right."""
    _, scores, _ = course
    honest = {"test_smallest_budget", "test_monte_carlo", "test_answer"}
    for (student, assignment, grade_id), score in scores.items():
        if (student == "cheat" and grade_id not in honest
                and assignment in WRITTEN_FOR):
            assert score <= scores["mistaken", assignment, grade_id], grade_id
            assert score == 0, grade_id


@pytest.mark.parametrize(("student", "grade_id"), sorted(REASONS))
def test_a_lost_point_says_why(course, student, grade_id):
    course, _, _ = course
    errors = {}
    for assignment in ASSIGNMENTS:
        errors.update(_errors(course, student, assignment))
    assert REASONS[student, grade_id] in errors.get(grade_id, ""), errors.get(grade_id)


def test_feedback_contains_no_hidden_test(course):
    course, _, _ = course
    pages = list((course / "feedback").glob("*/*/*.html"))
    assert len(pages) == len(STUDENTS) * len(ASSIGNMENTS)
    for page in pages:
        assignment = page.parent.name
        html = page.read_text()
        assert "HIDDEN TESTS" not in html, page
        import html as html_module

        text = html_module.unescape(re.sub(r"<[^>]+>", "", html))
        for source in (COURSE / "source" / assignment).glob("*.ipynb"):
            leaked = [line for line in _hidden_lines(source) if line in text]
            assert not leaked, (page, leaked)
        for answer in ("26 / 64", '== "B"', '== "C"', "0.8276174", "budget == 5"):
            assert answer not in text, (page, answer)


def test_feedback_tells_the_cheat_why(course):
    course, _, _ = course
    page = course / "feedback" / "cheat" / "randomization_test"
    assert "imports evp" in (page / "randomization_test.html").read_text()


def test_no_checksum_warning_on_untouched_cells(course):
    """nbgrader warns on a locked cell that changed: here only the cheat's edit."""
    _, _, log = course
    warned = {}
    student = None
    for line in log.splitlines():
        found = re.search(r"Sanitizing .*submitted[/\\](\w+)[/\\]", line)
        if found:
            student = found.group(1)
        if "checksum" in line and "has changed" in line:
            warned.setdefault(student, []).append(line)
    assert set(warned) == {"cheat"}, warned
    assert len(warned["cheat"]) == 1 and "test_budget" in warned["cheat"][0]


def _grading():
    import importlib.util

    spec = importlib.util.spec_from_file_location("grading", COURSE / "grading.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


HONEST = """
import itertools
from math import fsum

import numpy as np


def expected_max_v(scores, n):
    x = np.sort(np.asarray(scores, dtype=float))
    best = [max(draw) for draw in itertools.product(x, repeat=1)]
    total = fsum(best)
    return float(total / len(best))
"""


@pytest.mark.parametrize(("source", "kind", "phrase"), [
    (HONEST, None, None),
    ("import evp\np = evp.paired_permutation_test(x, y)", "forbidden", "imports evp"),
    ("p = paired_permutation_test", "forbidden", "uses paired_permutation_test"),
    ("from scipy import stats", "forbidden", "imports scipy"),
    ("np.isclose = lambda *a, **k: True", "tampering", "changes np.isclose"),
    ("m = np\nm.isclose = max", "tampering", "changes m.isclose"),
    ("from numpy import *", "tampering", "imports everything from numpy"),
    ("all = lambda x: True", "tampering", "built-in all"),
    ("def f():\n    global max\n    max = min", "tampering", "declares max global"),
    ("import numpy as itertools", "tampering", "rebinds itertools"),
    ("answer = open('../../source/x.ipynb').read()", "tampering", "uses open"),
    ("np.__dict__['isclose'] = 1", "tampering", "internals"),
    ("f = getattr(np, 'isclose')", "tampering", "uses getattr"),
])
def test_the_rules_read_the_code(source, kind, phrase):
    """What EnforceRules finds in one student cell of the randomization test."""
    grading = _grading()
    forbidden, tampering = grading.find_problems(
        source, grading.RULES["randomization_test"],
        {"np": "numpy", "itertools": "itertools"}, {"np", "itertools", "m"})
    found = {"forbidden": forbidden, "tampering": tampering}
    if kind is None:
        assert not forbidden and not tampering, (forbidden, tampering)
    else:
        assert any(phrase in reason for reason in found[kind]), found
