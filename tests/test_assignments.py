"""The classroom assignments survive nbgrader's round trip, and their checks check.

A teacher generates the student versions with ``nbgrader generate_assignment`` and
grades submissions with ``nbgrader autograde``. Here three students submit every
assignment: one hands in the teacher's solutions (full marks on every autograder
cell), one hands in the student version untouched (no marks on any cell), and one
makes typical mistakes (marks exactly where the answers are right).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.needs("nbgrader", "nbformat")

ROOT = Path(__file__).resolve().parents[1]
COURSE = ROOT / "notebooks" / "classroom" / "assignments"
ASSIGNMENTS = sorted(p.name for p in (COURSE / "source").iterdir() if p.is_dir())

# Typical mistakes, by the grade_id of the solution cell they replace.
MISTAKES = {
    # Forgets to sort: the weights no longer line up with the order statistics.
    "expected_max_v": '''
def expected_max_v(scores, n):
    x = np.asarray(scores, dtype=float)
    i = np.arange(1, x.size + 1)
    return float(np.sum(((i / x.size) ** n - ((i - 1) / x.size) ** n) * x))
''',
    "answer": 'answer = "A"  # reads the p-value as the probability of the null',
    "strong_budgets": 'strong_budgets = budgets[b_beats_a.evidence != "none"].tolist()',
    "answer_band": 'answer_band = "A"  # reads a simultaneous band as pointwise',
}
# Autograder cells the mistaken student still passes; every other one must fail.
# The mean of one draw does not depend on the order of the scores.
MISTAKEN_STILL_PASSES = {
    "test_one_trial_is_the_mean",
    "test_lecture_table", "test_against_enumeration", "test_monte_carlo",
    "test_median_a_at_10", "test_answer_upper",
}


def _nbgrader(course: Path, *args: str) -> None:
    # nbgrader runs the `alembic` command of its own environment to set up the
    # gradebook, so that environment's scripts must come first on PATH.
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}"
                                f"{os.environ.get('PATH', '')}")
    done = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=course,
                          env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr


def _submit(course: Path, student: str, assignment: str, notebook: Path,
            mistakes: dict[str, str] | None = None) -> None:
    import nbformat

    nb = nbformat.read(notebook, as_version=4)
    for cell in nb.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if mistakes and grade_id in mistakes:
            cell.source = mistakes[grade_id].strip()
    folder = course / "submitted" / student / assignment
    folder.mkdir(parents=True)
    nbformat.write(nb, folder / notebook.name)


def _grade_cells(notebook: Path) -> list[str]:
    import nbformat

    nb = nbformat.read(notebook, as_version=4)
    return [c.metadata["nbgrader"]["grade_id"] for c in nb.cells
            if c.metadata.get("nbgrader", {}).get("grade")]


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """Generate, submit and autograde every assignment; return the scores."""
    from nbgrader.api import Gradebook

    course = tmp_path_factory.mktemp("course")
    shutil.copytree(COURSE / "source", course / "source")
    shutil.copy(COURSE / "nbgrader_config.py", course)
    for assignment in ASSIGNMENTS:
        _nbgrader(course, "generate_assignment", assignment)
        for source in sorted((course / "source" / assignment).glob("*.ipynb")):
            release = course / "release" / assignment / source.name
            _submit(course, "solution", assignment, source)
            _submit(course, "blank", assignment, release)
            _submit(course, "mistaken", assignment, source, MISTAKES)
    _nbgrader(course, "autograde", "*")

    scores = {}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        for assignment in ASSIGNMENTS:
            for source in sorted((course / "source" / assignment).glob("*.ipynb")):
                for student in ("solution", "blank", "mistaken"):
                    submission = gradebook.find_submission_notebook(
                        source.stem, assignment, student)
                    for grade in submission.grades:
                        scores[student, grade.name] = (grade.score, grade.max_score)
    return course, scores


def test_there_are_at_least_three_assignments_with_autograder_cells():
    assert len(ASSIGNMENTS) >= 3
    for assignment in ASSIGNMENTS:
        notebooks = list((COURSE / "source" / assignment).glob("*.ipynb"))
        assert notebooks, assignment
        assert all(_grade_cells(nb) for nb in notebooks), assignment


def test_student_version_hides_solutions_and_hidden_tests(graded):
    course, _ = graded
    for assignment in ASSIGNMENTS:
        for source in (course / "source" / assignment).glob("*.ipynb"):
            solution_lines = _solution_lines(source)
            release = (course / "release" / assignment / source.name).read_text()
            for marker in ("BEGIN SOLUTION", "END SOLUTION", "HIDDEN TESTS"):
                assert marker not in release, (assignment, marker)
            assert "raise NotImplementedError()" in release
            leaked = [line for line in solution_lines if line in release]
            assert not leaked, (assignment, leaked)


def _solution_lines(notebook: Path) -> list[str]:
    """Lines inside solution and hidden-test regions, which students must not see."""
    lines, inside = [], False
    import nbformat

    for cell in nbformat.read(notebook, as_version=4).cells:
        for line in cell.source.splitlines():
            if "### BEGIN" in line:
                inside = True
            elif "### END" in line:
                inside = False
            elif inside and line.strip() and not line.strip().startswith("#"):
                lines.append(line.strip())
    return lines


@pytest.mark.parametrize("student", ["solution", "blank", "mistaken"])
def test_autograder_scores(graded, student):
    _, scores = graded
    cells = {name for (who, name) in scores if who == student}
    expected_cells = {name for assignment in ASSIGNMENTS
                      for nb in (COURSE / "source" / assignment).glob("*.ipynb")
                      for name in _grade_cells(nb)}
    assert cells == expected_cells
    for name in sorted(cells):
        score, max_score = scores[student, name]
        assert max_score > 0, name
        passes = (student == "solution"
                  or (student == "mistaken" and name in MISTAKEN_STILL_PASSES))
        assert score == (max_score if passes else 0), (student, name, score)
