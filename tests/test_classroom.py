"""The classroom notebooks as a course: exercises with solutions for the teacher,
student versions built by the project, one sign convention, and a guide.

The student versions come from ``docs/build.py`` (``--students DIR``, and the
site), which clears the exercises' solutions and every output, and leaves out the
cells tagged ``teacher-only`` (running on one's own results, the claims tables).
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CLASSROOM = ROOT / "notebooks" / "classroom"
NOTEBOOKS = sorted(CLASSROOM.glob("*.ipynb"))

pytestmark = pytest.mark.needs("nbformat")


def _build():
    spec = importlib.util.spec_from_file_location("site_build",
                                                  ROOT / "docs" / "build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def students(tmp_path_factory):
    """{stem: the student version's notebook} for the two classroom notebooks."""
    import nbformat

    out = tmp_path_factory.mktemp("students")
    _build().student_versions(out)
    return {p.stem: nbformat.read(out / f"{p.stem}-student.ipynb", as_version=4)
            for p in NOTEBOOKS}


def _read(path):
    import nbformat

    return nbformat.read(path, as_version=4)


def test_there_are_two_classroom_notebooks():
    assert {p.stem for p in NOTEBOOKS} == {"significance_tests",
                                           "tuning_and_cross_validation"}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_each_notebook_has_a_handful_of_exercises_with_solutions(path):
    nb = _read(path)
    exercises = [c for c in nb.cells if c.cell_type == "markdown"
                 and re.search(r"\*\*Exercise \d+\.\*\*", c.source)]
    solutions = [c for c in nb.cells if c.cell_type == "code"
                 and "### BEGIN SOLUTION" in c.source]
    assert 4 <= len(exercises) <= 8, len(exercises)
    assert len(solutions) == len(exercises)
    for cell in solutions:  # the teacher's solutions ran, without an error
        assert cell.outputs, cell.source[:60]
        assert not [o for o in cell.outputs if o.output_type == "error"], cell.source


@pytest.mark.needs("nbgrader")
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_the_student_version_has_no_solutions_outputs_or_teacher_cells(students, path):
    teacher = _read(path)
    student = students[path.stem]
    text = "\n".join(c.source for c in student.cells)
    assert "BEGIN SOLUTION" not in text and "END SOLUTION" not in text
    solution_lines, elsewhere = [], set()
    for cell in teacher.cells:
        inside = False
        for line in cell.source.splitlines():
            if "BEGIN SOLUTION" in line:
                inside = True
            elif "END SOLUTION" in line:
                inside = False
            elif inside and line.strip() and not line.strip().startswith("#"):
                solution_lines.append(line.strip())
            else:
                elsewhere.add(line.strip())
    solution_lines = [line for line in solution_lines if line not in elsewhere]
    leaked = [line for line in solution_lines
              if any(line == s.strip() for c in student.cells
                     for s in c.source.splitlines())]
    assert not leaked, leaked
    exercises = sum("### BEGIN SOLUTION" in c.source for c in teacher.cells)
    assert text.count("raise NotImplementedError()") == exercises
    assert all(not c.get("outputs") for c in student.cells if c.cell_type == "code")
    assert not [c for c in student.cells
                if "teacher-only" in c.metadata.get("tags", [])]
    # No set-up code for one's own results, no claims table.
    assert "load_results(" not in text and "report_claims(" not in text
    assert "results_path" not in text and "evp run" not in text
    assert student.cells[0].source.splitlines()[0].endswith("(student version)")
    # The parameters cell stays first among the code cells, tagged, for papermill.
    first_code = next(c for c in student.cells if c.cell_type == "code")
    assert "parameters" in first_code.metadata.get("tags", [])


def test_one_sign_convention_b_minus_a():
    """d = b − a (B's score minus A's, as the lecture's table) in the notebook and
    the assignment, and what they print says so."""
    notebook = _read(CLASSROOM / "significance_tests.ipynb")
    printed = "\n".join(o.get("text", "") for c in notebook.cells
                        if c.cell_type == "code" for o in c.outputs)
    sources = "\n".join(c.source for c in notebook.cells)
    assert "A − B" not in printed and "A - B" not in printed
    assert "B − A" in printed
    assert "d_i = b_i - a_i" in sources
    assignment = _read(CLASSROOM / "assignments" / "source" / "randomization_test"
                       / "randomization_test.ipynb")
    text = "\n".join(c.source for c in assignment.cells)
    assert "d_i = b_i - a_i" in text and "mean difference d = b − a" in text
    assert "a_i - b_i" not in text and "B − A:" not in text


def test_feature_ablation_section():
    notebook = _read(CLASSROOM / "significance_tests.ipynb")
    heading = [i for i, c in enumerate(notebook.cells) if c.cell_type == "markdown"
               and c.source.startswith("## 8. Feature-ablation studies")]
    assert heading
    table = notebook.cells[heading[0] + 1]
    printed = "".join(o.get("text", "") for o in table.outputs)
    for group in ("mean", "standard error", "worst"):
        assert group in printed, group


@pytest.mark.needs("nbgrader")
def test_the_student_versions_print_no_wide_tables(students):
    """The teacher's notebooks print no line wider than 150 characters outside the
    cells the student versions leave out (the claims tables, some 250 wide)."""
    for path in NOTEBOOKS:
        for cell in _read(path).cells:
            tags = cell.metadata.get("tags", [])
            if cell.cell_type != "code" or "teacher-only" in tags:
                continue
            for output in cell.outputs:
                for line in output.get("text", "").splitlines():
                    assert len(line) <= 150, (path.stem, line)


def test_the_guide_says_what_a_teacher_needs():
    guide = (CLASSROOM / "GUIDE.md").read_text()
    for phrase in ("pip install numpy", "nbgrader generate_assignment",
                   "nbgrader autograde", "nbgrader generate_feedback",
                   "feedback/", "How long grading takes", "Adding an assignment",
                   "--student", "autograded/"):
        assert phrase in guide, phrase
    assert not re.search(r"S_AUTOGRADE|PER_NOTEBOOK|S_FEEDBACK", guide)
