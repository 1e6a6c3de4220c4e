"""A class graded as GUIDE.md says, to check that the grades are the ones deserved.

    python grading_run.py [--course DIR] [--students a,b] [--assignments x,y]
                          [--timeout SECONDS]

makes a new course folder (a copy of this one: ``source/`` and the grader's
``.py`` files), releases every assignment (``nbgrader generate_assignment``),
hands in one notebook per student and assignment, grades the class
(``nbgrader autograde``, one assignment at a time, timed), writes the feedback
(``nbgrader generate_feedback``) and the grades (``nbgrader export``), then checks

- every grade against ``EXPECTED`` (the points each student deserves);
- that no student code changed a byte of the course folder outside what
  ``autograde`` itself writes (``autograded/``, ``gradebook.db``, nbgrader's log):
  SHA-256 of every file before and after, and no file added;
- that the feedback holds no hidden test and no answer key.

It prints the grades (submission × assignment), the seconds per notebook, and
exits non-zero on any difference. The students:

- ``right``: the teacher's solutions; ``blank``: the release untouched;
- ``mistaken``: honest mistakes, each costing its own part;
- ``crash``: a cell that ends Python (``os._exit``); ``loop``: a cell that never
  ends (stopped at the time limit);
- ``honest``: right answers in unusual code: a loop variable named ``round``, a
  helper class that sets ``self.x``, an extra cell that cross-checks with scipy;
- five cheats, each with no real code of its own: ``cheat_config`` appends code
  to ``nbgrader_config.py`` with numpy (no ``open``); ``cheat_operator`` reaches
  ``exec`` through ``operator`` from strings and makes ``math.isclose`` and
  ``np.isclose`` always true; ``cheat_equal`` returns objects whose ``__eq__``
  is always true; ``cheat_evp`` imports the answers from evp by ``exec``;
  ``cheat_disk`` reads the teacher's source notebook and the gradebook with
  ``np.fromfile``.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
GRADER_FILES = ("nbgrader_config.py", "grading.py", "sandbox.py", "answer_key.py")
# What nbgrader autograde itself writes in the course folder.
AUTOGRADE_WRITES = ("autograded/", "gradebook.db", ".nbgrader.log")

# ----------------------------------------------------------------- what students write
# {student: {assignment: {grade_id: source}}}; a key "after:<grade_id>" adds a cell
# after that cell. Solution cells not named get the teacher's solution (right,
# mistaken, crash, loop, honest) or stay as released (blank and the cheats).

HONEST = {
    "expected_max_estimator": {
        "expected_max_v": '''
class Sorted:
    """The scores, sorted once."""

    def __init__(self, scores):
        self.x = np.sort(np.asarray(scores, dtype=float))
        self.b = self.x.size


def expected_max_v(scores, n):
    s = Sorted(scores)
    total = 0.0
    for round, value in enumerate(s.x, 1):  # "round" is a fine name for a counter
        total += ((round / s.b) ** n - ((round - 1) / s.b) ** n) * value
    return float(total)
''',
        "smallest_budget": '''
def smallest_budget(estimator, scores, target, max_trials=10_000):
    for round in range(1, max_trials + 1):
        if estimator(scores, round) >= target:
            return round
    return None
''',
        "after:budget": '''
for round in range(1, 4):  # a look at the first budgets
    print(round, expected_max_v(new_model, round))
''',
        "after:test_budget": '''
from scipy import stats  # a cross-check of my own; not needed for the tests

print(stats.describe(new_model))
''',
    },
    "randomization_test": {
        "randomization_test": '''
class Paired:
    def __init__(self, a, b):
        self.d = np.asarray(b, dtype=float) - np.asarray(a, dtype=float)
        self.n = self.d.size


def randomization_test(a, b):
    pairs = Paired(a, b)
    observed = abs(pairs.d.mean())
    count = 0
    for round in itertools.product([1, -1], repeat=pairs.n):
        if abs(np.dot(round, pairs.d) / pairs.n) >= observed - 1e-12:
            count += 1
    return count / 2 ** pairs.n
''',
        "after:test_against_enumeration": '''
from scipy.stats import permutation_test  # does scipy agree? (not needed)

print(permutation_test((system_a, system_b), lambda x, y: np.mean(y - x),
                       permutation_type="samples").pvalue)
''',
    },
    "reading_tuning_curves": {
        "strong_budgets": '''
class Verdicts:
    def __init__(self, evidence):
        self.evidence = list(evidence)


verdicts = Verdicts(b_beats_a.evidence)
strong_budgets = []
for round, evidence in zip(budgets.tolist(), verdicts.evidence):
    if evidence == "strong":
        strong_budgets.append(round)
print(strong_budgets)
''',
        "after:test_strong_budgets": '''
import scipy.stats  # a cross-check of my own

print(scipy.stats.describe(model_a))
''',
    },
    "bootstrap_and_cross_validation": {
        "k_fold_indices": '''
class Folds:
    def __init__(self, n, k):
        self.sizes = [n // k + (fold < n % k) for fold in range(k)]


def k_fold_indices(n, k):
    folds, start = [], 0
    for round in Folds(n, k).sizes:
        folds.append(list(range(start, start + round)))
        start += round
    return folds
''',
        "after:test_paired_t": '''
from scipy.stats import ttest_rel  # does scipy agree? (not needed)

print(ttest_rel(system_b, system_a).statistic)
''',
    },
}

MISTAKEN = {
    "expected_max_estimator": {
        # Off by one: i runs from 0, so the weights no longer sum to 1 (n > 1).
        "expected_max_v": '''
def expected_max_v(scores, n):
    x = np.sort(np.asarray(scores, dtype=float))
    b = x.size
    i = np.arange(b)
    return float(np.sum(((i / b) ** n - ((i - 1) / b) ** n) * x))
''',
    },
    "randomization_test": {
        # No tolerance: ties in exact arithmetic are missed on decimal scores.
        "randomization_test": '''
def randomization_test(a, b):
    d = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
    signs = np.array(list(itertools.product([1, -1], repeat=d.size)))
    return float(np.mean(np.abs(signs @ d / d.size) >= abs(d.mean())))
''',
        "answer": 'answer = "A"  # reads the p-value as the probability of the null',
    },
    "reading_tuning_curves": {
        "strong_budgets":
            'strong_budgets = budgets[b_beats_a.evidence != "none"].tolist()',
        "answer_band": 'answer_band = "A"  # reads a simultaneous band as pointwise',
    },
    "bootstrap_and_cross_validation": {
        "bootstrap_interval": '''
def bootstrap_interval(scores, n_resamples, rng, level=0.95):
    scores = np.asarray(scores, dtype=float)
    indices = rng.integers(0, scores.size, size=(n_resamples, scores.size))
    means = scores[indices].mean(axis=1)
    return [float(v) for v in np.quantile(means, [1 - level, level])]  # both tails?
''',
        "paired_t_statistic": '''
def paired_t_statistic(a, b):
    d = np.asarray(b, dtype=float) - np.asarray(a, dtype=float)
    return float(d.mean() / (d.std() / math.sqrt(d.size)))  # n, not n - 1
''',
        "t_answer": 't_answer = "A"',
    },
}

CRASH = {  # a cell that ends Python: the kernel dies there
    "expected_max_estimator": {"budget": "import os\n\nos._exit(1)"},
    "randomization_test": {"randomization_test_monte_carlo": "import os\n\nos._exit(1)"},
    "reading_tuning_curves": {"strong_budgets": "import os\n\nos._exit(1)"},
    "bootstrap_and_cross_validation": {"bootstrap_interval": "import os\n\nos._exit(1)"},
}

LOOP = {  # a function or a cell that never ends
    "expected_max_estimator": {"smallest_budget": '''
def smallest_budget(estimator, scores, target, max_trials=10_000):
    n = 1
    while estimator(scores, n) < target or True:  # forgets to stop
        n += 1
'''},
    "randomization_test": {"randomization_test_monte_carlo": '''
def randomization_test_monte_carlo(a, b, n_resamples, rng):
    while True:
        pass
'''},
    "reading_tuning_curves": {"strong_budgets": "while True:\n    pass"},
    "bootstrap_and_cross_validation": {"bootstrap_interval": '''
def bootstrap_interval(scores, n_resamples, rng, level=0.95):
    while True:
        pass
'''},
}

# What a student with no real code writes for the cheats to act on (wrong guesses
# for the letters: a cheat should not reach the answer key).
NO_CODE = {
    "expected_max_estimator": {
        "expected_max_v": "def expected_max_v(scores, n):\n    return 0.5",
        "smallest_budget": ("def smallest_budget(estimator, scores, target, "
                            "max_trials=10_000):\n    return 4"),
        "budget": "budget = 3",
    },
    "randomization_test": {
        "randomization_test": "def randomization_test(a, b):\n    return 0.5",
        "randomization_test_monte_carlo": (
            "def randomization_test_monte_carlo(a, b, n_resamples, rng):\n"
            "    return 0.5"),
        "answer": 'answer = "A"',
    },
    "reading_tuning_curves": {
        "median_a_at_10": "median_a_at_10 = 0.8",
        "strong_budgets": "strong_budgets = [1]",
        "answer_band": 'answer_band = "A"',
        "answer_upper": 'answer_upper = "A"',
    },
    "bootstrap_and_cross_validation": {
        "k_fold_indices": "def k_fold_indices(n, k):\n    return [[0, 1]]",
        "cross_validated_mse": ("def cross_validated_mse(x, y, k):\n"
                                "    return 0.0"),
        "bootstrap_interval": ("def bootstrap_interval(scores, n_resamples, rng, "
                               "level=0.95):\n    return [0.0, 1.0]"),
        "paired_t_statistic": "def paired_t_statistic(a, b):\n    return 0.0",
        "t_answer": 't_answer = "A"',
    },
}
SETUP = {"expected_max_estimator": "setup-2", "randomization_test": "setup-2",
         "reading_tuning_curves": "setup-2", "bootstrap_and_cross_validation": "setup-2"}

CHEATS = {
    # numpy writes a file without `open`: append code to the course's config, which
    # the next nbgrader command would run (here: leave a mark in the course folder).
    "cheat_config": '''
import os

import numpy as np

payload = ("\\nimport pathlib\\npathlib.Path(__file__).with_name('PWNED')"
           ".write_text('the config ran student code')\\n")
for place in (os.path.join("..", "..", ".."), "{course}"):
    target = os.path.join(place, "nbgrader" + "_config.py")
    try:
        old = np.fromfile(target, dtype=np.uint8)
        np.concatenate([old, np.frombuffer(payload.encode(), np.uint8)]).tofile(target)
        print("appended to", target)
    except OSError as error:
        print("could not append:", error)
''',
    # operator reaches exec from strings the rules never read, and patches isclose.
    "cheat_operator": '''
import operator

run = operator.attrgetter("ex" + "ec")(operator.attrgetter("__se" + "lf__")(print))
run("import math, numpy\\nmath.isclose = lambda *a, **k: True\\n"
    "numpy.isclose = lambda *a, **k: True")
''',
    # objects equal to anything, for every answer.
    "cheat_equal": '''
class Anything(float):
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = float.__hash__


class AnyInt(int):
    def __eq__(self, other):
        return True

    __hash__ = int.__hash__


class AnyText(str):
    def __eq__(self, other):
        return True

    __hash__ = str.__hash__
''',
    # evp's own functions, imported by exec so that no import line shows.
    "cheat_evp": '''
exec("import evp\\n"
     "def expected_max_v(scores, n):\\n"
     "    return float(evp.expected_max(scores, [n])[0])\\n"
     "def randomization_test(a, b):\\n"
     "    return float(evp.paired_permutation_test(a, b).pvalue)\\n")
''',
    # the teacher's files, read with numpy.
    "cheat_disk": '''
import os
import re

import numpy as np

found = {{}}
for place in (os.path.join("..", "..", ".."), "{course}"):
    for name in (os.path.join("sour" + "ce", "{assignment}", "{assignment}.ip" + "ynb"),
                 "grade" + "book.db"):
        try:
            text = np.fromfile(os.path.join(place, name), dtype=np.uint8).tobytes()
        except OSError as error:
            print("could not read:", error)
            continue
        for key, value in re.findall(rb'(\\w+) = \\\\"([A-D])\\\\"', text):
            found[key.decode()] = value.decode()
print("read from the teacher's files:", found)
''',
}
# What the cheat's answers are, besides NO_CODE (the equal-to-anything objects).
CHEAT_ANSWERS = {
    "cheat_equal": {
        "expected_max_estimator": {
            "expected_max_v": "def expected_max_v(scores, n):\n    return Anything(0.5)",
            "budget": "budget = AnyInt(3)"},
        "randomization_test": {
            "randomization_test": "def randomization_test(a, b):\n    return Anything(0.5)",
            "answer": 'answer = AnyText("A")'},
        "reading_tuning_curves": {"median_a_at_10": "median_a_at_10 = Anything(0.8)",
                                  "answer_band": 'answer_band = AnyText("A")'},
        "bootstrap_and_cross_validation": {
            "paired_t_statistic": "def paired_t_statistic(a, b):\n    return Anything(0)",
            "t_answer": 't_answer = AnyText("A")'},
    },
    "cheat_disk": {assignment: {answer: f'{answer} = found.get("{answer}", "A")'
                                for answer in answers}
                   for assignment, answers in {
                       "randomization_test": ["answer"],
                       "reading_tuning_curves": ["answer_band", "answer_upper"],
                       "bootstrap_and_cross_validation": ["t_answer"]}.items()},
}
# The functions themselves come from evp, defined by exec in the solution cells.
CHEAT_ANSWERS["cheat_evp"] = {"expected_max_estimator": {"expected_max_v": CHEATS["cheat_evp"]},
                              "randomization_test": {"randomization_test": CHEATS["cheat_evp"]}}

STUDENTS = ("right", "blank", "mistaken", "crash", "loop", "honest", *CHEATS)

# ----------------------------------------------------------------- the grades deserved
FULL = {
    "expected_max_estimator": {"test_one_trial_is_the_mean": 1, "test_brute_force": 2,
                               "test_shape_of_the_curve": 1, "test_smallest_budget": 2,
                               "test_budget": 1},
    "randomization_test": {"test_lecture_table": 2, "test_against_enumeration": 2,
                           "test_monte_carlo": 2, "test_answer": 2},
    "reading_tuning_curves": {"test_median_a_at_10": 2, "test_strong_budgets": 2,
                              "test_answer_band": 2, "test_answer_upper": 2},
    "bootstrap_and_cross_validation": {"test_k_fold_indices": 2,
                                       "test_cross_validated_mse": 3,
                                       "test_bootstrap_interval": 2, "test_paired_t": 2,
                                       "test_t_answer": 1},
}
# The tests each student loses (right and honest lose none; blank and the cheats
# lose all).
LOSES = {
    "mistaken": {
        # V's n = 1 is still the mean; smallest_budget is tested on the reference V.
        "expected_max_estimator": {"test_brute_force", "test_shape_of_the_curve",
                                   "test_budget"},
        "randomization_test": {"test_lecture_table", "test_answer"},
        "reading_tuning_curves": {"test_strong_budgets", "test_answer_band"},
        "bootstrap_and_cross_validation": {"test_bootstrap_interval", "test_paired_t",
                                           "test_t_answer"},
    },
    "crash": {  # the tests after the cell that ended Python
        "expected_max_estimator": {"test_budget"},
        "randomization_test": {"test_monte_carlo", "test_answer"},
        "reading_tuning_curves": {"test_strong_budgets", "test_answer_band",
                                  "test_answer_upper"},
        "bootstrap_and_cross_validation": {"test_bootstrap_interval", "test_paired_t",
                                           "test_t_answer"},
    },
    "loop": {  # the tests of what never ends
        "expected_max_estimator": {"test_smallest_budget", "test_budget"},
        "randomization_test": {"test_monte_carlo"},
        "reading_tuning_curves": {"test_strong_budgets"},
        "bootstrap_and_cross_validation": {"test_bootstrap_interval"},
    },
}
# Why, in the autograded notebook (a phrase of the test cell's error).
REASONS = {
    ("crash", "expected_max_estimator", "test_budget"): "kernel died",
    ("loop", "randomization_test", "test_monte_carlo"): "time limit",
    ("cheat_equal", "expected_max_estimator", "test_budget"): "ignores what it compares",
    ("cheat_evp", "expected_max_estimator", "test_brute_force"): "uses exec",
    ("mistaken", "randomization_test", "test_lecture_table"): "exact p-value",
}


def expected(student: str, assignment: str) -> dict[str, float]:
    full = FULL[assignment]
    if student in ("right", "honest"):
        return dict(full)
    if student == "blank" or student in CHEATS:
        return dict.fromkeys(full, 0)
    lost = LOSES[student][assignment]
    return {test: 0 if test in lost else points for test, points in full.items()}


# ----------------------------------------------------------------- the run


def _meta(cell) -> dict:
    return cell.metadata.get("nbgrader", {})


def writes(student: str, assignment: str, course: Path) -> dict[str, str]:
    """{grade_id or 'after:<grade_id>': source} for this student's notebook."""
    if student in CHEATS:
        code = {**NO_CODE.get(assignment, {}),
                **CHEAT_ANSWERS.get(student, {}).get(assignment, {})}
        cheat = CHEATS[student].format(course=course, assignment=assignment)
        code[f"after:{SETUP[assignment]}"] = cheat
        return code
    table = {"honest": HONEST, "mistaken": MISTAKEN, "crash": CRASH,
             "loop": LOOP}.get(student, {})
    return dict(table.get(assignment, {}))


def submit(course: Path, student: str, assignment: str) -> None:
    """Write what `student` hands in: the release with their code filled in."""
    import nbformat

    code = writes(student, assignment, course)
    for source_path in sorted((course / "source" / assignment).glob("*.ipynb")):
        release = nbformat.read(course / "release" / assignment / source_path.name,
                                as_version=4)
        source = nbformat.read(source_path, as_version=4)
        solutions = {_meta(c)["grade_id"]: c.source for c in source.cells
                     if _meta(c).get("solution") and c.cell_type == "code"}
        cells = []
        for cell in release.cells:
            grade_id = _meta(cell).get("grade_id")
            if grade_id in code:
                cell.source = code[grade_id].strip() or cell.source
            elif (grade_id in solutions and student != "blank"
                  and student not in CHEATS):
                cell.source = solutions[grade_id]
            cells.append(cell)
            if f"after:{grade_id}" in code:
                cells.append(nbformat.v4.new_code_cell(code[f"after:{grade_id}"].strip()))
        release.cells = cells
        folder = course / "submitted" / student / assignment
        folder.mkdir(parents=True, exist_ok=True)
        nbformat.write(release, folder / source_path.name)


def nbgrader(course: Path, *args: str, check: bool = True) -> str:
    """Run nbgrader in `course` as the guide says; its log."""
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}"
                                f"{os.environ.get('PATH', '')}")
    done = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=course,
                          env=env, capture_output=True, text=True, timeout=3600)
    if check and done.returncode != 0:
        raise RuntimeError(f"nbgrader {' '.join(args)} failed:\n"
                           f"{done.stdout}{done.stderr}")
    return done.stdout + done.stderr


def checksums(folder: Path) -> dict[str, str]:
    """{relative path: SHA-256} of every file under `folder`."""
    sums = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file() and not path.is_symlink():
            sums[path.relative_to(folder).as_posix()] = hashlib.sha256(
                path.read_bytes()).hexdigest()
    return sums


def new_course(course: Path) -> None:
    """A course folder as a teacher makes one: source/ and the grader's files."""
    course.mkdir(parents=True, exist_ok=True)
    shutil.copytree(HERE / "source", course / "source")
    for name in GRADER_FILES:
        shutil.copy(HERE / name, course / name)


def grade_class(course: Path, students=STUDENTS, assignments=None,
                timeout: int | None = None, options: tuple[str, ...] = ()) -> dict:
    """Release, hand in, grade, return feedback; what happened, as a dict."""
    from nbgrader.api import Gradebook

    assignments = assignments or sorted(FULL)
    new_course(course)
    for assignment in assignments:
        nbgrader(course, "generate_assignment", assignment)
        for student in students:
            submit(course, student, assignment)
    before = checksums(course)
    extra = [*([f"--GradeEveryCell.timeout={timeout}"] if timeout else []), *options]
    seconds, logs = {}, {}
    for assignment in assignments:
        start = time.perf_counter()
        logs[assignment] = nbgrader(course, "autograde", assignment, *extra)
        seconds[assignment] = time.perf_counter() - start
    after = checksums(course)
    changed = sorted(path for path in set(before) | set(after)
                     if before.get(path) != after.get(path)
                     and not path.startswith(AUTOGRADE_WRITES))
    for assignment in assignments:
        nbgrader(course, "generate_feedback", assignment)
    nbgrader(course, "export")
    scores = {}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        for assignment in assignments:
            for notebook in (course / "source" / assignment).glob("*.ipynb"):
                for student in students:
                    submission = gradebook.find_submission_notebook(
                        notebook.stem, assignment, student)
                    for grade in submission.grades:
                        if grade.name in FULL[assignment]:
                            scores[student, assignment, grade.name] = grade.score
    return {"course": course, "scores": scores, "seconds": seconds, "logs": logs,
            "changed": changed, "students": list(students),
            "assignments": list(assignments)}


def errors(course: Path, student: str, assignment: str) -> dict[str, str]:
    """{grade_id: the error text of that test cell} in the autograded notebook."""
    import nbformat

    found = {}
    for path in (course / "autograded" / student / assignment).glob("*.ipynb"):
        for cell in nbformat.read(path, as_version=4).cells:
            text = " ".join(f"{o.get('ename')}: {o.get('evalue')}"
                            for o in cell.get("outputs", [])
                            if o.output_type == "error")
            if _meta(cell).get("grade") and text:
                found[_meta(cell)["grade_id"]] = text
    return found


def feedback_leaks(course: Path) -> list[str]:
    """Feedback pages that hold a hidden test or a grader's result line."""
    leaks = []
    for page in sorted((course / "feedback").glob("*/*/*.html")):
        text = page.read_text()
        for marker in ("HIDDEN TESTS", "[evp-grading]", "Key for teaching"):
            if marker in text:
                leaks.append(f"{page.relative_to(course)}: {marker}")
    return leaks


def problems(run: dict) -> list[str]:
    """Every way the run differs from what the students deserve."""
    found = []
    for student in run["students"]:
        for assignment in run["assignments"]:
            for test, points in expected(student, assignment).items():
                got = run["scores"].get((student, assignment, test))
                if got != points:
                    found.append(f"{student} {assignment} {test}: {got}, "
                                 f"deserves {points}")
    for (student, assignment, test), phrase in REASONS.items():
        if student in run["students"] and assignment in run["assignments"]:
            text = errors(run["course"], student, assignment).get(test, "")
            if phrase not in text:
                found.append(f"{student} {assignment} {test}: no '{phrase}' in {text!r}")
    found += [f"changed by grading: {path}" for path in run["changed"]]
    found += [f"feedback leaks: {leak}" for leak in feedback_leaks(run["course"])]
    if (run["course"] / "PWNED").exists():
        found.append("a student's code ran in the teacher's nbgrader")
    return found


def table(run: dict) -> str:
    """The grades, one row per student, one column per assignment (Markdown)."""
    assignments = run["assignments"]
    rows = ["| submission | " + " | ".join(assignments) + " |",
            "|---|" + "---|" * len(assignments)]
    for student in run["students"]:
        cells = []
        for assignment in assignments:
            got = sum(run["scores"].get((student, assignment, t), 0)
                      for t in FULL[assignment])
            cells.append(f"{got:g}/{sum(FULL[assignment].values())}")
        rows.append(f"| {student} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--course", type=Path,
                        help="a new folder for the course (default: a temporary one)")
    parser.add_argument("--students", help="comma-separated, of: " + ", ".join(STUDENTS))
    parser.add_argument("--assignments", help="comma-separated (default: all)")
    parser.add_argument("--timeout", type=int,
                        help="seconds a cell may run (default: the course's, 30)")
    parser.add_argument("--option", action="append", default=[],
                        help="an option for nbgrader autograde, e.g. --option="
                             "--SandboxKernelManager.unsafe_no_sandbox=True to time "
                             "grading without the sandbox (honest students only!)")
    args = parser.parse_args(argv)
    students = args.students.split(",") if args.students else STUDENTS
    assignments = args.assignments.split(",") if args.assignments else None
    with tempfile.TemporaryDirectory() as scratch:
        course = args.course or Path(scratch) / "course"
        if course.exists() and any(course.iterdir()):
            parser.error(f"--course {course}: not empty; name a new folder")
        run = grade_class(course, students, assignments, args.timeout,
                          tuple(args.option))
        print(table(run))
        notebooks = len(run["students"])
        for assignment, seconds in run["seconds"].items():
            print(f"autograde {assignment}: {seconds:.1f} s for {notebooks} notebooks, "
                  f"{seconds / notebooks:.1f} s a notebook")
        found = problems(run)
        for line in found:
            print("PROBLEM:", line)
        print("all grades as deserved" if not found else f"{len(found)} problems")
        return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
