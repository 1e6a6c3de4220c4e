"""The classroom grader's parts that need no kernel: the answer key, the rules,
the installs, what a release leaves out.

- The answer key's references agree with brute force and with independent
  formulas, the teacher's solutions pass every check and a student with no real
  code passes none (each notebook's code run here, the results read from the
  lines the hidden tests print, as the grader reads them).
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


def _results(cells, overrides: dict[str, str]) -> dict:
    """Run a notebook's code cells here; {grade_id: the results a test printed,
    or the exception it raised}."""
    namespace: dict = {}
    found = {}
    for cell in cells:
        if cell.cell_type != "code":
            continue
        grade_id = _meta(cell).get("grade_id")
        source = overrides.get(grade_id, cell.source)
        output = io.StringIO()
        try:
            with contextlib.redirect_stdout(output):
                exec(compile(source, grade_id or "cell", "exec"), namespace)
        except Exception as error:
            found[grade_id] = error
            continue
        for line in output.getvalue().splitlines():
            if line.startswith("[evp-grading]"):
                found[grade_id] = json.loads(line[len("[evp-grading]"):])
    return found


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_the_teachers_solutions_pass_every_check(key, assignment):
    if assignment == "reading_tuning_curves":
        pytest.importorskip("matplotlib")
        import matplotlib

        matplotlib.use("agg")
    checks = key.KEYS[assignment]
    tests = {_meta(c)["grade_id"] for c in _cells(assignment)
             if _meta(c).get("grade") and c.cell_type == "code"}
    assert set(checks) == tests  # every autograded test has its check, and no more
    results = _results(_cells(assignment), {})
    for grade_id, check in checks.items():
        assert not isinstance(results.get(grade_id), Exception), results.get(grade_id)
        assert check(results[grade_id]) is None, (grade_id, check(results[grade_id]))


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


def test_no_expected_value_reaches_the_students_kernel():
    """The hidden tests run the student's code and print its results; the
    reference values live in answer_key.py, which no kernel can read."""
    for assignment in ASSIGNMENTS:
        code = "\n".join(c.source for c in _cells(assignment) if _meta(c).get("grade"))
        for answer in ("26 / 64", "0.8276174076181604", '== "B"', '== "C"',
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
