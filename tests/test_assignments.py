"""The classroom assignments graded as GUIDE.md says, with the grades deserved.

A teacher makes a course folder, releases the assignments (``nbgrader
generate_assignment``), grades the class (``nbgrader autograde``, each notebook in
the sandbox) and returns ``nbgrader generate_feedback``, all with the course's own
``nbgrader_config.py``. ``notebooks/classroom/assignments/grading_run.py`` says
what each student writes and deserves; here its class hands in (every kind once,
most on the randomization test alone, to keep the suite's time):

- ``right``, ``honest`` (unusual code), ``numpy_types`` (answers as numpy values,
  tuples and arrays) and ``mistaken`` on every assignment: full marks, or the
  mistaken parts lost;
- ``flat_curve`` (V = mean if n = 1, else max): the curve's shape test fails;
- ``crash``, ``loop``, and the disruptions (600 MB of output, memory over three
  processes, cells that sleep past the notebook's limit, shared memory and a
  process left behind): the tests before keep their marks, with the reason;
- cheats with no real code: the course's config appended to, ``exec`` through
  ``operator``, the teacher's files read with numpy, links to the key beside the
  notebook, the notebook a symbolic or hard link, the tests printed from the
  kernel, a test cell made into an answer, scipy and evp through ``site``,
  ``pkgutil`` and ``importlib``; a notebook that is not JSON: no points, every
  notebook graded, ``autograde`` exits 0;
- a student's ``<script>``: shown as text; the neighbour graded after the
  disruptions finds nothing they left.

Then one student of each kind (honest, partly wrong, broken, cheating) is graded
again under a CPU hog: the same grades. And a
small class is graded as an ordinary user (``nobody``). The grading needs the
sandbox, and skips with the reason where this machine cannot set it up.
"""

from __future__ import annotations

import ast
import csv
import os
import re
import shutil
import subprocess
import sys

import pytest
from test_grading_rules import ASSIGNMENTS, COURSE, ROOT
from test_grading_rules import _load as _course_module

pytestmark = pytest.mark.needs("nbgrader", "nbformat")

# grading_run's class, each case once where it shows (its --one-each), less two
# cheats that the rules catch as they catch cheat_operator (objects equal to
# anything, evp by exec), to keep the suite's time.
HANDS_IN = {student: assignments for student, assignments in
            _course_module("grading_run").ONE_EACH.items()
            if student not in ("cheat_equal", "cheat_evp")}
STUDENTS = tuple(HANDS_IN)
# A cell may run 30 s, as in the course: on a loaded machine the reading
# assignment's set-up cell (evp, matplotlib, a figure) takes more than 5 s, and
# a tighter limit would grade the machine's load. A notebook may run 120 s in all
# (the course's: 300 s), and 30 s in the fast expected_max_estimator, where the
# sleeping student is cut.
TIME_LIMIT = 30
NOTEBOOK_LIMITS = {"expected_max_estimator": 30, "randomization_test": 120,
                   "reading_tuning_curves": 120, "bootstrap_and_cross_validation": 120}
# Two notebooks at a time (grading_run --jobs, two autograde processes sharing the
# gradebook) where the sleeping student waits out its limit: the others are graded
# meanwhile, and the sleeper's half-minute costs the suite nothing. The rest one at
# a time: on a machine of two cores, busy with the other tests, two at once would
# only wait on each other.
JOBS = {"expected_max_estimator": 2}


@pytest.fixture(scope="module")
def grading_run():
    return _course_module("grading_run")


@pytest.fixture(scope="module")
def run(tmp_path_factory, grading_run):
    """The class graded once: grading_run.grade_class's record."""
    reason = _course_module("sandbox").check()
    if reason:
        pytest.skip(f"the grading sandbox cannot be set up here: {reason}")
    course = tmp_path_factory.mktemp("classroom") / "course"
    return grading_run.grade_class(course, STUDENTS, ASSIGNMENTS, TIME_LIMIT,
                                   notebook_timeout=NOTEBOOK_LIMITS, hands_in=HANDS_IN,
                                   jobs=JOBS)


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


def test_every_submission_gets_the_grade_it_deserves(run, grading_run):
    wrong = [line for line in grading_run.problems(run)
             if not line.startswith(("changed by grading", "feedback leaks",
                                     "left on the machine"))]
    assert not wrong, "\n".join(wrong)
    print(grading_run.table(run))


def test_every_notebook_got_a_grade_and_autograde_said_so(run):
    """Not JSON, links, edited grading settings: 0 with the reason, and each
    autograde exited 0 (grade_class fails otherwise)."""
    for log in run["logs"].values():
        assert "There was an error processing assignment" not in log
    assert re.search(r"Not graded, 0 points: .*broken_json.*not a notebook",
                     run["logs"]["randomization_test"])


def test_no_student_code_changed_a_byte_of_the_course(run):
    """SHA-256 of every file of the course folder before and after autograde: only
    what autograde writes changed; the config was not appended to, nothing added."""
    assert run["changed"] == []
    assert not (run["course"] / "PWNED").exists()
    config = (run["course"] / "nbgrader_config.py").read_text()
    assert config == (COURSE / "nbgrader_config.py").read_text()


def test_no_notebook_left_anything_for_the_next(run, grading_run):
    """No process outlived its sandbox, no shared memory stayed on the machine,
    and the neighbour graded after the disruptions found none of theirs."""
    assert run["leftovers"] == []
    said = grading_run.outputs(run["course"], "neighbour", "randomization_test")
    assert "left by others: nothing" in said
    left = grading_run.outputs(run["course"], "disrupt_leftovers", "randomization_test")
    assert "shared memory segment: -1" not in left  # it did make one, in its sandbox


def test_the_cheats_attempts_failed_in_the_sandbox(run, grading_run):
    said = {student: grading_run.outputs(run["course"], student, "randomization_test")
            for student in ("cheat_config", "cheat_disk", "cheat_side_files",
                            "cheat_routes")}
    assert "could not append" in said["cheat_config"]
    assert "appended to" not in said["cheat_config"]
    assert "could not read" in said["cheat_disk"]
    assert "read from the teacher's files: {}" in said["cheat_disk"]
    assert "visible: True" not in said["cheat_side_files"]
    assert said["cheat_side_files"].count("visible: False") == 4
    routes = said["cheat_routes"]
    assert "no scipy" in routes and "scipy loaded" not in routes
    assert "no evp" in routes and "evp loaded" not in routes


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


def test_feedback_holds_the_students_page_only(run, grading_run):
    """One page per notebook handed in, nothing else in the folder (no link to the
    key), no probe, no hidden test, no answer, no student script."""
    assert grading_run.feedback_leaks(run["course"]) == []
    pages = list((run["course"] / "feedback").glob("*/*/*.html"))
    assert len(pages) == sum(len(a) for a in run["hands_in"].values())
    import html

    for page in pages:
        text = html.unescape(re.sub(r"<[^>]+>", "", page.read_text()))
        for answer in ("26 / 64", '== "B"', '== "C"', "0.8276174", "budget == 5",
                       "rules out", "neither the probability"):
            assert answer not in text, (page, answer)
    side = run["course"] / "feedback" / "cheat_side_files" / "randomization_test"
    assert sorted(p.name for p in side.iterdir()) == ["randomization_test.html"]
    page = (side / "randomization_test.html").read_text()
    assert "Left out" in page and "answer_key.py (a symbolic link)" in page


def test_a_students_html_is_text_in_the_feedback(run):
    page = (run["course"] / "feedback" / "html" / "randomization_test"
            / "randomization_test.html").read_text()
    assert "<script>alert" not in page and "<img src=x" not in page
    assert "&lt;script&gt;alert(&#x27;printed&#x27;)" in page or (
        "&lt;script&gt;alert('printed')" in page)


def test_feedback_says_what_was_checked(run):
    page = (run["course"] / "feedback" / "mistaken" / "randomization_test"
            / "randomization_test.html").read_text()
    assert "not the exact p-value on the lecture" in page
    page = (run["course"] / "feedback" / "honest" / "expected_max_estimator"
            / "expected_max_estimator.html").read_text()
    assert "no points lost" in page  # the note on `round`, at no cost
    page = (run["course"] / "feedback" / "cheat_link" / "randomization_test"
            / "randomization_test.html").read_text()
    assert "symbolic link" in page and "not graded" in page


def test_the_lms_export_has_a_row_per_student_and_assignment(run, grading_run):
    assert grading_run._lms_problems(run) == []
    with open(run["course"] / "lms_grades.csv", newline="") as file:
        rows = list(csv.reader(file))
    assert rows[0] == ["student", "assignment", "score", "max"]
    assert ["right", "randomization_test", "8", "8"] in rows
    assert ["cheat_link", "randomization_test", "0", "8"] in rows


def test_no_checksum_warning_on_untouched_cells(run):
    """nbgrader warns on a locked cell that changed: only the student who edited
    one (cheat_metadata) gets the warning."""
    for log in run["logs"].values():
        for line in re.findall(r".*checksum.*has changed.*", log):
            assert "test_" in line  # the edited test cell of cheat_metadata


def test_graded_again_under_a_cpu_hog_the_grades_are_the_same(run, grading_run):
    """Part of the class graded again, with two processes keeping both cores
    busy: every grade is the same (the results are read from a file, not from
    printed text a busy kernel may split). One of each kind the issue names:
    right, numpy_types (honest), mistaken (partly wrong), crash (broken) and
    cheat_operator, a cheat whose code runs in the kernel and patches the
    comparisons there (it scores nothing only because the checks run outside);
    and right again on the slowest notebook, whose set-up must stay inside its
    cell's limit on a busy machine. Only these are graded again."""
    again = {student: ["randomization_test"] for student in (
        "right", "numpy_types", "mistaken", "crash", "cheat_operator")}
    again["right"].append("reading_tuning_curves")
    regraded = grading_run.regrade(run, again, hogs=2)
    first = {key: value for key, value in grading_run.grades(run).items()
             if key[1] in again.get(key[0], ())}
    assert len(first) == 6 and regraded == first
    assert first["right", "randomization_test"] > 0  # the test can fail
    assert first["cheat_operator", "randomization_test"] == 0


def _closed_ancestor(path: str) -> str | None:
    """The highest folder above `path` that other users cannot enter."""
    parts = os.path.realpath(path).split(os.sep)
    for depth in range(2, len(parts)):
        folder = os.sep.join(parts[:depth])
        if not os.stat(folder).st_mode & 0o001:
            return folder
    return None


@pytest.mark.skipif(os.geteuid() != 0, reason="the suite runs as an ordinary user "
                    "already: the class above was graded as one")
def test_an_ordinary_user_grades_as_the_guide_says(grading_run):
    """As root, the tests grade a small class again as ``nobody``, with the
    guide's commands (grading_run.py): the kernels then run in user namespaces.
    Where root's home holds the Python installation, closed to others, a mount
    namespace of the test's own opens that installation to them, as an ordinary
    user's own installation would be."""
    import tempfile

    if shutil.which("setpriv") is None or shutil.which("unshare") is None:
        pytest.skip("needs setpriv and unshare (util-linux)")
    if _course_module("sandbox").check(user_namespace=True):
        pytest.skip("this machine allows no user namespaces")
    home = tempfile.mkdtemp(prefix="evp-ordinary-user-")
    try:
        os.chmod(home, 0o777)
        lines, opened = ["set -e"], {}
        for prefix in sorted({sys.base_prefix, sys.prefix}):
            closed = _closed_ancestor(prefix)
            if closed:
                opened.setdefault(closed, []).append(prefix)
        for number, (closed, prefixes) in enumerate(sorted(opened.items())):
            keeps = [os.path.join(home, f"keep{number}-{i}")
                     for i in range(len(prefixes))]
            for prefix, keep in zip(prefixes, keeps, strict=True):
                lines += [f"mkdir -p {keep}", f"mount --bind {prefix} {keep}"]
            lines.append(f"mount -t tmpfs -o mode=0755 none {closed}")
            for prefix, keep in zip(prefixes, keeps, strict=True):
                lines += [f"mkdir -p {prefix}", f"mount --bind {keep} {prefix}"]
        course = os.path.join(home, "course")
        lines.append(
            f"exec setpriv --reuid=65534 --regid=65534 --clear-groups "
            f"env HOME={home} PYTHONPATH={ROOT} {sys.executable} "
            f"{COURSE / 'grading_run.py'} --course {course} --timeout {TIME_LIMIT} "
            "--notebook-timeout 120 --assignments randomization_test "
            "--students right,cheat_side_files")
        done = subprocess.run(["unshare", "--mount", "--propagation", "private",
                               "sh", "-c", "\n".join(lines)], capture_output=True,
                              text=True, timeout=1800)
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        assert "all grades as deserved" in done.stdout
        assert "| right | 8/8 |" in done.stdout
    finally:
        shutil.rmtree(home, ignore_errors=True)
