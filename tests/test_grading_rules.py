"""The classroom grader's parts that need no kernel: the answer key, the rules,
the installs, what a release leaves out.

- The answer key's references agree with brute force and with independent
  formulas, the teacher's solutions pass every check and a student with no real
  code passes none (each notebook's code run here, each test's probe after it,
  its results made plain data by the probe runner, as in the grader).
- Values are compared, not types: numpy's scalars and arrays, tuples for lists.
- A wrong estimator that used to pass a test (V = mean if n = 1, else max) fails.
- The rules (``grading.find_problems``): only a real cheat zeroes a notebook;
  honest code with unusual names costs nothing.
- The classroom extra installs every package the assignments import.
- The sandbox refuses in one line, naming the option to grade without it.
"""

from __future__ import annotations

import ast
import contextlib
import importlib.util
import io
import itertools
import json
import math
import os
import random
import re
import statistics
import sys
import tomllib
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
COURSE = ROOT / "notebooks" / "classroom" / "assignments"
ASSIGNMENTS = sorted(p.name for p in (COURSE / "source").iterdir() if p.is_dir())


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"course_{name}",
                                                  COURSE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def key():
    return _load("answer_key")


@pytest.fixture(scope="module")
def grading():
    pytest.importorskip("nbgrader", reason="pip install -e '.[classroom]'")
    sys.path.insert(0, str(COURSE))
    try:
        yield _load("grading")
    finally:
        sys.path.remove(str(COURSE))


def _cells(assignment: str):
    import nbformat

    path = COURSE / "source" / assignment / f"{assignment}.ipynb"
    return nbformat.read(path, as_version=4).cells


def _meta(cell) -> dict:
    return cell.metadata.get("nbgrader", {})


# ----------------------------------------------------------------- the key's references


def test_expected_max_reference_is_the_average_best_of_every_draw(key):
    generator = random.Random(3)
    for size in (1, 2, 4, 5):
        scores = [round(generator.random(), 1) for _ in range(size)]  # ties too
        for n in (1, 2, 3):
            draws = list(itertools.product(scores, repeat=n))
            brute = math.fsum(max(d) for d in draws) / len(draws)
            assert math.isclose(key.expected_max_v(scores, n), brute, rel_tol=1e-12)


def test_exact_p_reference_counts_every_sign_pattern(key):
    generator = random.Random(4)
    for size in (1, 3, 6):
        a = [generator.choice([0.1, 0.2, 0.3]) for _ in range(size)]
        b = [generator.choice([0.1, 0.2, 0.3]) for _ in range(size)]
        d = [y - x for x, y in zip(a, b, strict=True)]
        observed = abs(math.fsum(d))
        count = sum(abs(math.fsum(s * v for s, v in zip(signs, d, strict=True)))
                    >= observed - 1e-9
                    for signs in itertools.product([1, -1], repeat=size))
        assert key.exact_p(a, b) == count / 2 ** size
    assert key.exact_p(key.LECTURE_A, key.LECTURE_B) == 26 / 64  # the lecture's table


def test_fold_and_cross_validation_references(key):
    for n, k in ((10, 3), (7, 7), (23, 4)):
        folds = key.k_fold_indices(n, k)
        assert sorted(i for f in folds for i in f) == list(range(n))
        sizes = [len(f) for f in folds]
        assert sizes == sorted(sizes, reverse=True) and max(sizes) - min(sizes) <= 1
    x = [0.0, 1.0, 2.0]  # leave-one-out of three points, by hand: lines through two
    y = [0.0, 1.0, 0.0]
    held_out = [(0 - 2) ** 2, (1 - 0) ** 2, (0 - 2) ** 2]
    assert math.isclose(key.cross_validated_mse(x, y, 3), sum(held_out) / 3)


def test_t_and_bootstrap_references(key):
    a, b = key.LECTURE_A, key.LECTURE_B
    d = [y - x for x, y in zip(a, b, strict=True)]
    t = statistics.mean(d) / (statistics.stdev(d) / math.sqrt(len(d)))
    assert math.isclose(key.paired_t(a, b), t, rel_tol=1e-12)
    scores = [0.3, 0.9, 0.5]
    rng = np.random.default_rng(5)
    draws = rng.integers(0, 3, size=(400, 3))
    means = sorted(statistics.mean(scores[i] for i in row) for row in draws)
    low, high = key.bootstrap_interval(scores, 400, 5, 0.9)
    # numpy's default quantile: linear between order statistics (Hyndman & Fan 7).
    position = 0.05 * (len(means) - 1)
    lower = means[int(position)] + (position % 1) * (means[int(position) + 1]
                                                      - means[int(position)])
    assert math.isclose(low, lower, rel_tol=1e-12) and low <= high


# ----------------------------------------------------------------- the key on notebooks


@pytest.fixture(scope="module")
def runner():
    return _load("probe_runner")


def _results(cells, overrides: dict[str, str], probes: dict, plain) -> dict:
    """Run a notebook's code cells here, and each test's probe after its cell;
    {grade_id: the probe's results as plain data, or the exception raised}."""
    namespace: dict = {}
    found = {}
    for cell in cells:
        if cell.cell_type != "code":
            continue
        grade_id = _meta(cell).get("grade_id")
        source = overrides.get(grade_id, cell.source)
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                exec(compile(source, grade_id or "cell", "exec"), namespace)
                if grade_id in probes:
                    probe = probes[grade_id]
                    scope = {name: namespace[name] for name in probe["needs"]}
                    exec(compile(probe["code"], "<grader>", "exec"), scope)
                    found[grade_id] = json.loads(json.dumps(plain(scope["results"])))
        except Exception as error:
            found[grade_id] = error
    return found


def _agg(assignment):
    if assignment == "reading_tuning_curves":
        pytest.importorskip("matplotlib")
        import matplotlib

        matplotlib.use("agg")


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_the_teachers_solutions_pass_every_check(key, runner, assignment):
    _agg(assignment)
    checks = key.KEYS[assignment]
    tests = {_meta(c)["grade_id"] for c in _cells(assignment)
             if _meta(c).get("grade") and c.cell_type == "code"}
    assert set(checks) == tests  # every autograded test has its check, and no more
    assert set(key.PROBES[assignment]) == tests  # and its probe
    results = _results(_cells(assignment), {}, key.PROBES[assignment], runner.plain)
    for grade_id, check in checks.items():
        assert not isinstance(results.get(grade_id), Exception), results.get(grade_id)
        assert check(results[grade_id]) is None, (grade_id, check(results[grade_id]))


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_numpy_values_score_as_python_values(key, runner, assignment):
    _agg(assignment)
    """The teacher's solutions with answers in numpy's types, tuples or arrays
    (grading_run's numpy_types student): the same values, the same marks, and
    the visible asserts pass too."""
    numpy_types = _load("grading_run").NUMPY_TYPES
    results = _results(_cells(assignment), numpy_types[assignment],
                       key.PROBES[assignment], runner.plain)
    for grade_id, check in key.KEYS[assignment].items():
        assert not isinstance(results.get(grade_id), Exception), (
            grade_id, results.get(grade_id))
        assert check(results[grade_id]) is None, (grade_id, check(results[grade_id]))


def test_plain_data_is_the_values_not_the_student_classes(runner):
    class Anything(float):
        def __eq__(self, other):
            return True

        __hash__ = float.__hash__

    class Sneaky(list):
        def __iter__(self):
            return iter([1, 2, 3])

    plain = runner.plain
    assert plain(np.int64(4)) == 4 and type(plain(np.int64(4))) is int
    assert plain([np.int64(1), np.int64(2)]) == [1, 2]
    assert plain((np.float64(0.5), 1)) == [0.5, 1]
    assert plain(np.array([[1, 2], [3, 4]])) == [[1, 2], [3, 4]]
    assert plain(np.array(0.25)) == 0.25
    assert plain(np.bool_(True)) is True
    assert plain(np.str_("B")) == "B" and type(plain(np.str_("B"))) is str
    assert type(plain(Anything(0.5))) is float and plain(Anything(0.5)) == 0.5
    assert plain(Sneaky([7])) == [7]  # what the list holds, not what it says
    assert plain(range(1, 3)) == [1, 2] and plain({3, 1}) == [1, 3]
    from fractions import Fraction

    assert plain(Fraction(1, 4)) == 0.25
    assert plain(object())["unreadable"] == "object"
    assert plain({"a": 1}) == {"unreadable": "dict"}


def test_a_flat_curve_fails_the_shape_test(key, runner):
    """V = mean if n = 1 else max: the right start and end, the wrong curve."""
    wrong = """
def expected_max_v(scores, n):
    return float(np.mean(scores)) if n == 1 else float(np.max(scores))
"""
    cells = _cells("expected_max_estimator")
    results = _results(cells, {"expected_max_v": wrong},
                       key.PROBES["expected_max_estimator"], runner.plain)
    # The visible asserts fail, and so does the check outside the kernel.
    assert isinstance(results["test_shape_of_the_curve"], AssertionError)
    sample = key._curve_sample()
    curve = [float(np.mean(sample))] + [max(sample)] * 99
    message = key.test_shape_of_the_curve([curve, max(sample)])
    assert message and "rise with every extra trial" in message
    assert key.test_one_trial_is_the_mean(  # n = 1 is still right
        results["test_one_trial_is_the_mean"]) is None


def test_the_judge_says_why_without_the_answer(grading, key):
    check = key.test_budget
    assert grading.judge(check, {"results": 5}, ["budget"]) is None
    assert grading.judge(check, {"results": 5.0}, ["budget"]) is None  # a value
    assert "budget is not" in grading.judge(check, {"results": 4}, ["budget"])
    assert "not defined" in grading.judge(check, {"missing": ["budget"]}, ["budget"])
    assert "raised ZeroDivisionError" in grading.judge(
        check, {"raised": "ZeroDivisionError"}, ["budget"])
    assert "time limit" in grading.judge(check, {"stopped": "time"}, ["budget"])
    assert "could not report" in grading.judge(check, None, ["budget"])
    assert "could not be read" in grading.judge(
        key.test_smallest_budget, {"results": {"unreadable": "Anything"}},
        ["smallest_budget"])

    def broken(results):
        raise TypeError("a check that meets results of another shape")

    assert "not of the kind" in grading.judge(broken, {"results": [1]}, ["f"])


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_answers_of_no_real_code_fail_every_check(key, assignment):
    """Constants, wrong letters, objects that equal anything: each check says no,
    with a sentence that gives no expected value away."""
    checks = key.KEYS[assignment]
    for grade_id, check in checks.items():
        for wrong in (0.5, "A", [0.5] * 3, None, {"type": "Anything"}, [[0, 1]], 3):
            message = check(wrong)
            assert isinstance(message, str) and message, (grade_id, wrong)
            for answer in ("26 / 64", "0.406", "0.8276", '"B"', '"C"', "[1, 2]"):
                assert answer not in message, (grade_id, message)


def test_no_expected_value_reaches_the_students_kernel(key):
    """The notebooks hold no hidden test; the probes call the student's code on
    inputs and return its results; the reference values live in answer_key.py's
    checks, which no kernel can read."""
    for assignment in ASSIGNMENTS:
        code = "\n".join(c.source for c in _cells(assignment) if _meta(c).get("grade"))
        code += "\n".join(p["code"] for p in key.PROBES[assignment].values())
        assert "HIDDEN TESTS" not in code and "[evp-grading]" not in code
        for answer in ("26 / 64", "0.40625", "0.8276174076181604", '== "B"', '== "C"',
                       "budget == 5", "== [1, 2]"):
            assert answer not in code, (assignment, answer)


# ----------------------------------------------------------------- the rules

HONEST = """
import itertools
from math import fsum

import numpy as np


class Helper:
    def __init__(self, scores):
        self.x = np.sort(scores)


def expected_max_v(scores, n):
    best = [max(draw) for draw in itertools.product(Helper(scores).x, repeat=1)]
    return float(fsum(best) / len(best))


for round in range(3):
    print(round)
"""


@pytest.mark.parametrize(("source", "kind", "phrase"), [
    (HONEST, "notes", "built-in round (no points lost"),
    ("import evp\np = evp.paired_permutation_test(x, y)", "forbidden", "imports evp"),
    ("p = paired_permutation_test", "forbidden", "uses paired_permutation_test"),
    ("from scipy import stats", "forbidden", "imports scipy"),
    ("import ctypes", "forbidden", "imports ctypes"),
    ("np.isclose = lambda *a, **k: True", "cheats", "changes np.isclose"),
    ("m = np\nm.isclose = max", "cheats", "changes m.isclose"),
    ("from numpy import *", "notes", "imports everything from numpy"),
    ("all = lambda x: True", "notes", "built-in all"),
    ("def f():\n    global max\n    max = min", "notes", "declares max global"),
    ("import numpy as itertools", "notes", "rebinds itertools"),
    ("x = np.fromfile('../../../source/a/a.ipynb')", "cheats", "course's files"),
    ("x = np.fromfile('gradebook.db')", "cheats", "course's files"),
    ("np.__dict__['isclose'] = 1", "cheats", "internals"),
    ("f = getattr(np, 'isclose')", "cheats", "uses getattr"),
    ("exec('import evp')", "cheats", "uses exec"),
    ("import operator\nrun = operator.attrgetter('exec')", "cheats", "'exec'"),
    ("import pkgutil\nf = pkgutil.resolve_name('sci' + 'py.stats:ttest_rel')", "cheats",
     "imports pkgutil"),
    ("import importlib\nevp = importlib.import_module('e' + 'vp')", "cheats",
     "imports importlib"),
    ("from importlib import import_module", "cheats", "imports importlib"),
    ("import pickle\npickle.loads(b'')", "cheats", "imports pickle"),
    ("import site\nsite.addsitedir('/usr/lib/python3/dist-packages')", "cheats",
     "imports site"),
    ("x = np.load('x.npy', allow_pickle=True)", "cheats", "allow_pickle"),
    ("x = open('/evp-probe/request.json').read()", "cheats", "course's files"),
    ("class A:\n    def __eq__(self, other):\n        return True", "cheats",
     "ignores what it compares"),
])
def test_the_rules_read_the_code(grading, source, kind, phrase):
    """What EnforceRules finds in one student cell of the randomization test."""
    cheats, forbidden, notes = grading.find_problems(
        source, grading.RULES["randomization_test"],
        {"np": "numpy", "itertools": "itertools"}, {"np", "itertools"})
    found = {"cheats": cheats, "forbidden": forbidden, "notes": notes}
    assert any(phrase in reason for reason in found[kind]), found
    if kind != "cheats":
        assert not cheats, cheats  # honest or merely forbidden: never the notebook


def test_honest_unusual_code_breaks_no_rule(grading):
    cheats, forbidden, _ = grading.find_problems(
        HONEST, grading.RULES["expected_max_estimator"], {"np": "numpy"}, {"np"})
    assert not cheats and not forbidden, (cheats, forbidden)


# ----------------------------------------------------------------- installs


def _imports(assignment: str) -> set[str]:
    names = set()
    for cell in _cells(assignment):
        if cell.cell_type != "code":
            continue
        for node in ast.walk(ast.parse(cell.source)):
            if isinstance(node, ast.Import):
                names.update(a.name.split(".")[0] for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module:
                names.add(node.module.split(".")[0])
    return names - set(sys.stdlib_module_names)


def test_the_classroom_extra_installs_what_the_assignments_import():
    """pip install -e ".[classroom]" is enough to grade every assignment."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    installed = {"evp"}  # the package itself
    for requirement in (*project["dependencies"],
                        *project["optional-dependencies"]["classroom"]):
        name = re.split(r"[<>=!~\[; ]", requirement)[0]
        installed.add(name.lower().replace("-", "_"))
    needed = set().union(*(_imports(a) for a in ASSIGNMENTS))
    assert needed >= {"numpy", "matplotlib", "evp"}, needed  # the test can fail
    assert needed <= installed, needed - installed
    assert {"nbgrader", "ipykernel"} <= installed


def test_the_classroom_extra_installs_what_the_lecture_notebooks_import():
    """The teacher's one install line runs the lecture notebooks too."""
    import nbformat

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    installed = {"evp", "sklearn", "ipython"}  # scikit-learn's import name; IPython
    for requirement in (*project["dependencies"],
                        *project["optional-dependencies"]["classroom"]):
        name = re.split(r"[<>=!~\[; ]", requirement)[0]
        installed.add(name.lower().replace("-", "_"))
    needed = set()
    for path in (ROOT / "notebooks" / "classroom").glob("*.ipynb"):
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type != "code":
                continue
            source = "\n".join(line for line in cell.source.splitlines()
                               if not line.lstrip().startswith(("%", "!")))
            for node in ast.walk(ast.parse(source)):
                if isinstance(node, ast.Import):
                    needed.update(a.name.split(".")[0].lower() for a in node.names)
                elif isinstance(node, ast.ImportFrom) and node.module:
                    needed.add(node.module.split(".")[0].lower())
    needed -= {m.lower() for m in sys.stdlib_module_names}
    assert {"seaborn", "sklearn", "pandas"} <= needed, needed  # the test can fail
    assert needed <= installed, needed - installed
    assert "jupyterlab" in installed


def test_the_guide_installs_evp_by_its_distribution_name():
    guide = (ROOT / "notebooks" / "classroom" / "GUIDE.md").read_text()
    assert "evp-tuning-curves" in guide
    commands = [line.split("#")[0].split() for line in guide.splitlines()
                if line.strip().startswith("pip install")]
    assert commands and all("evp" not in words for words in commands), commands


# ----------------------------------------------------------------- the sandbox refuses


def test_without_namespaces_grading_refuses_in_one_line(monkeypatch, tmp_path):
    sandbox = _load("sandbox")
    monkeypatch.setenv("PATH", str(tmp_path))  # no unshare here
    reason = sandbox.check()
    assert reason and "unshare" in reason
    line = sandbox.refusal(reason)
    assert "\n" not in line
    assert "--SandboxKernelManager.unsafe_no_sandbox=True" in line


# ----------------------------------------------------------------- the submission


def test_only_a_notebook_of_the_students_own_is_graded(grading, tmp_path):
    folder = tmp_path / "submitted" / "mallory" / "randomization_test"
    folder.mkdir(parents=True)
    notebook = folder / "randomization_test.ipynb"
    notebook.write_text("{}")
    assert grading.refuse_notebook(str(notebook)) is None
    teacher = tmp_path / "answer_key.py"
    teacher.write_text("KEYS = {}")
    link = folder / "link.ipynb"
    link.symlink_to(teacher)
    assert "symbolic link" in grading.refuse_notebook(str(link))
    hard = folder / "hard.ipynb"
    hard.hardlink_to(teacher)
    assert "hard link" in grading.refuse_notebook(str(hard))
    pipe = folder / "pipe.ipynb"
    os.mkfifo(pipe)
    assert "named pipe" in grading.refuse_notebook(str(pipe))  # never opened
    big = folder / "big.ipynb"
    with open(big, "wb") as file:
        file.truncate(grading.MAX_NOTEBOOK_BYTES + 1)
    assert "MiB" in grading.refuse_notebook(str(big))
    (folder / "notes.txt").write_text("mine")
    (folder / "timestamp.txt").write_text("2026-01-01 00:00:00")  # nbgrader's
    found = grading.left_out(str(folder), {"randomization_test.ipynb"})
    assert "notes.txt (a file)" in found and "link.ipynb (a symbolic link)" in found
    assert "pipe.ipynb (a named pipe)" in found
    assert not [f for f in found if f.startswith(("timestamp", "randomization_test"))]
    # A student folder that is itself a link to another folder.
    other = tmp_path / "submitted" / "eve"
    other.mkdir()
    (other / "randomization_test").symlink_to(folder)
    assert "folder handed in" in grading.refuse_notebook(
        str(other / "randomization_test" / "randomization_test.ipynb"))


def test_a_students_html_is_shown_as_text(grading):
    import nbformat

    cell = nbformat.v4.new_code_cell("display(HTML(...))")
    cell.outputs = [nbformat.v4.new_output(
        "display_data", data={"text/html": "<script>alert(1)</script>",
                              "application/javascript": "alert(2)",
                              "text/plain": "<IPython.core.display.HTML object>"})]
    answer = nbformat.v4.new_markdown_cell("<script>alert(3)</script> *mine*")
    answer.metadata["nbgrader"] = {"solution": True, "grade": True, "locked": False,
                                   "grade_id": "why", "points": 2}
    teacher = nbformat.v4.new_markdown_cell("<b>the question</b>")
    teacher.metadata["nbgrader"] = {"locked": True, "grade_id": "text"}
    nb = nbformat.v4.new_notebook(cells=[cell, answer, teacher])
    nb, _ = grading.EscapeStudentHTML().preprocess(nb, {})
    assert set(nb.cells[0].outputs[0].data) == {"text/plain"}
    assert "<script>" not in nb.cells[1].source
    assert "&lt;script&gt;" in nb.cells[1].source
    assert nb.cells[2].source == "<b>the question</b>"  # the teacher's, restored


def test_the_late_policy_halves_a_day_late_and_zeroes_later(grading):
    policy = grading.HalfUpToADay()
    assert policy.late_submission_penalty("s", 8.0, 0) is None
    assert policy.late_submission_penalty("s", 8.0, 3600) == 4.0
    assert policy.late_submission_penalty("s", 8.0, 24 * 3600) == 4.0
    assert policy.late_submission_penalty("s", 8.0, 24 * 3600 + 1) == 8.0
