"""A class graded as GUIDE.md says, to check that the grades are the ones deserved.

    python grading_run.py [--course DIR] [--students a,b] [--assignments x,y]
                          [--one-each] [--jobs N] [--hog N] [--twice]
                          [--timeout SECONDS] [--notebook-timeout SECONDS]
    python grading_run.py --grade ASSIGNMENT [--jobs N]   # your own class

makes a new course folder (a copy of this one: ``source/`` and the grader's
``.py`` files), releases every assignment (``nbgrader generate_assignment``),
hands in the students' notebooks (and what some put beside them), grades the
class (``nbgrader autograde``, one assignment at a time, ``--jobs`` notebooks at
once, timed, with ``--hog`` processes keeping cores busy), writes the feedback
(``nbgrader generate_feedback``) and the grades (``nbgrader export``, and the
export for a learning platform), then checks

- every grade against what each student deserves (``expected``), and the reason
  given where one is expected (``REASONS``);
- that no student code changed a byte of the course folder outside what
  ``autograde`` itself writes (``autograded/``, ``gradebook.db``, nbgrader's log):
  SHA-256 of every file before and after, and no file added;
- that no notebook left a process or shared memory on the machine, and that the
  neighbour graded after the disruptions found nothing of theirs;
- that each feedback folder holds its page only, with no probe, hidden test, key
  or student script in it, and that ``autograded/`` holds no file handed in
  beside a notebook;
- ``lms_grades.csv``; with ``--twice``, that a second grading gives the same
  grades.

It prints the grades (submission × assignment), the seconds per notebook, and
exits non-zero on any difference. ``--grade ASSIGNMENT`` grades a real class
instead (every student in ``submitted/``, ``--jobs`` at once). The students
(``STUDENTS``; ``--one-each`` hands in each case once where it shows):

- ``right``: the teacher's solutions; ``blank``: the release untouched;
- ``mistaken``: honest mistakes, each costing its own part; ``flat_curve``: V =
  mean if n = 1, else max; ``numpy_types``: right answers as numpy values,
  tuples and arrays;
- ``crash``: a cell that ends Python (``os._exit``); ``loop``: a cell that never
  ends (stopped at the time limit); ``deleted_test``: a test cell deleted by
  mistake (put back);
- ``honest``: right answers in unusual code: a loop variable named ``round``, a
  helper class that sets ``self.x``, an extra cell that cross-checks with scipy;
  ``html``: right answers and a ``<script>`` in outputs and Markdown;
- cheats, each with no real code of its own: ``cheat_config`` appends code to
  ``nbgrader_config.py`` with numpy (no ``open``); ``cheat_operator`` reaches
  ``exec`` through ``operator`` from strings and makes ``math.isclose`` and
  ``np.isclose`` always true; ``cheat_equal`` returns objects whose ``__eq__``
  is always true; ``cheat_evp`` imports the answers from evp by ``exec``;
  ``cheat_disk`` reads the teacher's source notebook and the gradebook with
  ``np.fromfile``; ``cheat_side_files`` hands in links to the key and the
  teacher's notebook, a file and a named pipe beside the notebook; ``cheat_link``
  and ``cheat_hardlink`` hand in the teacher's notebook as a link;
  ``cheat_peek`` prints the kernel's history, Python's line cache and every file
  it can read; ``cheat_metadata`` makes a test cell an answer cell and edits
  points; ``cheat_routes`` loads scipy and evp through ``site``, ``pkgutil`` and
  ``importlib``; ``broken_json`` hands in a truncated file;
- disruptions, with right answers: ``disrupt_output`` prints 600 MB,
  ``disrupt_memory`` holds 900 MB over three processes, ``disrupt_sleep`` sleeps
  in cell after cell, ``disrupt_leftovers`` leaves shared memory, a process and a
  file; ``neighbour``, graded after them, looks for what they left.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
GRADER_FILES = ("nbgrader_config.py", "grading.py", "sandbox.py", "answer_key.py",
                "probe_runner.py")
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

# ----------------------------------------------------------------- the class
# Students whose answers are right but given in numpy's types, tuples or arrays:
# the same values, the same marks.
NUMPY_TYPES = {
    "expected_max_estimator": {
        "expected_max_v": '''
def expected_max_v(scores, n):
    x = np.sort(np.asarray(scores, dtype=float))
    i = np.arange(1, x.size + 1)
    return np.sum(((i / x.size) ** n - ((i - 1) / x.size) ** n) * x)  # np.float64
''',
        "smallest_budget": '''
def smallest_budget(estimator, scores, target, max_trials=10_000):
    for n in np.arange(1, max_trials + 1):
        if estimator(scores, int(n)) >= target:
            return n  # np.int64
    return None
''',
        "budget": "budget = np.int64(smallest_budget(expected_max_v, new_model, 0.80))",
    },
    "randomization_test": {
        "randomization_test": '''
def randomization_test(a, b):
    d = np.asarray(b, dtype=float) - np.asarray(a, dtype=float)
    signs = np.array(list(itertools.product([1, -1], repeat=d.size)))
    return np.mean(np.abs(signs @ d / d.size) >= abs(d.mean()) - 1e-12)
''',
        "answer": 'answer = np.str_("B")',
    },
    "reading_tuning_curves": {
        "median_a_at_10": "median_a_at_10 = band_a.estimate[budgets == 10][0]",
        "strong_budgets": 'strong_budgets = list(budgets[b_beats_a.evidence == "strong"])',
    },
    "bootstrap_and_cross_validation": {
        "k_fold_indices": '''
def k_fold_indices(n, k):
    sizes = [n // k + (fold < n % k) for fold in range(k)]
    ends = np.cumsum(sizes)
    return [np.arange(end - size, end) for size, end in zip(sizes, ends)]
''',
        "bootstrap_interval": '''
def bootstrap_interval(scores, n_resamples, rng, level=0.95):
    scores = np.asarray(scores, dtype=float)
    means = scores[rng.integers(0, scores.size, size=(n_resamples, scores.size))].mean(1)
    return tuple(np.quantile(means, [(1 - level) / 2, (1 + level) / 2]))
''',
        "paired_t_statistic": '''
def paired_t_statistic(a, b):
    d = np.asarray(b, dtype=float) - np.asarray(a, dtype=float)
    return d.mean() / (d.std(ddof=1) / np.sqrt(d.size))
''',
    },
}

# A wrong estimator that the shape test used to pass: right at n = 1, the maximum
# after. The other assignments: the teacher's solutions.
FLAT_CURVE = {"expected_max_estimator": {"expected_max_v": '''
def expected_max_v(scores, n):
    return float(np.mean(scores)) if n == 1 else float(np.max(scores))
'''}}

# Files handed in beside the notebook: links to the answer key and the teacher's
# notebook, a file of the student's, a named pipe. None is graded or returned.
SIDE_FILES = '''
import os

for name in ("answer_key.py", "teacher.ipynb", "notes.txt", "pipe"):
    print(name, "visible:", os.path.exists(name))
'''

# What a student might print to see the tests: the kernel's history, Python's
# cache of source lines, every file of the sandbox's root folders.
PEEK = '''
import linecache
import os

print("history:", In)
print("cached lines:", [line for lines in list(linecache.cache.values())
                        for line in (lines[2] if len(lines) > 2 else [])])
for top in os.listdir("/"):
    try:
        for name in os.listdir("/" + top):
            path = os.path.join("/", top, name)
            if os.path.isfile(path) and os.path.getsize(path) < 100_000:
                print(path, open(path, errors="replace").read()[:2000])
    except OSError:
        pass
'''

# What one notebook leaves behind for the next: System V shared memory holding a
# message, a process that outlives the kernel, a file in its scratch folder. The
# neighbour, graded after it, looks for each.
SHM_KEY = 0x45565021
LEAVE_BEHIND = f'''
import ctypes
import os
import subprocess

libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
segment = libc.shmget({SHM_KEY}, 64 << 20, 0o1666)
if segment >= 0:
    address = libc.shmat(segment, None, 0)
    ctypes.memmove(address, b"left by the previous student", 28)
    ctypes.memset(address + 4096, 1, (64 << 20) - 4096)  # 64 MiB of real memory
print("shared memory segment:", segment)
subprocess.Popen(["sleep", "600"], start_new_session=True)
open("left_behind.txt", "w").write("a file of the previous student")
'''
LOOK_AROUND = f'''
import ctypes
import os

libc = ctypes.CDLL(None, use_errno=True)
found = []
if libc.shmget({SHM_KEY}, 0, 0) >= 0:
    found.append("shared memory")
if os.path.exists("left_behind.txt"):
    found.append("a scratch file")
others = [p for p in os.listdir("/proc") if p.isdigit() and int(p) > 1]
print("left by others:", found or "nothing", "| processes here:", len(others))
'''

# Disruptions that stop the notebook at a limit, placed after the first test:
# that test keeps its marks, every later one scores 0 with the reason.
FLOOD = '''
import sys

chunk = "x" * (1 << 20)
for _ in range(600):  # 600 MB of output
    sys.stdout.write(chunk)
'''
SLEEPS = "import time\n\ntime.sleep(4)"  # one of 8 cells; the notebook's limit cuts in
MEMORY = '''
import os
import time

import numpy as np

children = []
for _ in range(3):  # three processes of 300 MB each: 900 MB together
    pid = os.fork()
    if pid == 0:
        block = np.ones(300 << 17)  # 300 MB of float64 ones, touched
        time.sleep(30)
        os._exit(0)
    children.append(pid)
for pid in children:
    os.waitpid(pid, 0)
'''

# Cheats on the grader's side of the notebook: a test cell made into an answer
# cell (its test replaced by `pass`), and a test's points edited.
def _edit_metadata(nb) -> None:
    tests = [c for c in nb.cells if _meta(c).get("grade") and c.cell_type == "code"]
    tests[0].metadata["nbgrader"].update(grade=False, solution=True, locked=False)
    tests[0].source = "pass"
    tests[-1].metadata["nbgrader"]["points"] = 100


# A student's HTML and JavaScript: shown as text in the feedback, never run.
HTML = '''
from IPython.display import HTML, Javascript, display

display(HTML("<script>alert('html output')</script><b>bold</b>"))
display(Javascript("alert('javascript output')"))
print("<script>alert('printed')</script>")
'''
HTML_MARKDOWN = "My notes <script>alert('markdown')</script> <img src=x onerror=alert(1)>"

# The routes around the rules: scipy from the base interpreter's packages through
# site and pkgutil, evp through importlib, exec through pickle.
ROUTES = '''
import importlib
import pickle
import pkgutil
import site
import sys

for folder in list(sys.path):
    site.addsitedir(folder.replace("/evp-site", "/lib/python3/dist-packages"))
site.addsitedir(sys.base_prefix + "/lib/python3.%d/site-packages" % sys.version_info[1])
try:
    ttest_rel = pkgutil.resolve_name("sci" + "py.stats:ttest_rel")
    print("scipy loaded:", ttest_rel)
except ImportError as error:
    print("no scipy:", error)
try:
    answers = importlib.import_module("e" + "vp")
    print("evp loaded")
except ImportError as error:
    print("no evp:", error)
'''

# The first test of each assignment: a disruption placed after it leaves it its
# marks.
FIRST_TEST = {"expected_max_estimator": "test_one_trial_is_the_mean",
              "randomization_test": "test_lecture_table",
              "reading_tuning_curves": "test_median_a_at_10",
              "bootstrap_and_cross_validation": "test_k_fold_indices"}
LAST_TEST = {"expected_max_estimator": "test_budget",
             "randomization_test": "test_answer",
             "reading_tuning_curves": "test_answer_upper",
             "bootstrap_and_cross_validation": "test_t_answer"}


def _after(where: dict, code) -> dict:
    return {assignment: {f"after:{test}": code} for assignment, test in where.items()}


# {kind: {assignment: {grade_id or "after:<grade_id>": source or [sources]}}}
WRITES = {
    "honest": HONEST, "mistaken": MISTAKEN, "crash": CRASH, "loop": LOOP,
    "numpy_types": NUMPY_TYPES, "flat_curve": FLAT_CURVE,
    "cheat_side_files": _after(FIRST_TEST, SIDE_FILES),
    "cheat_peek": _after(LAST_TEST, PEEK),
    "cheat_routes": _after(FIRST_TEST, ROUTES),
    "html": _after(LAST_TEST, HTML),
    "disrupt_leftovers": _after(LAST_TEST, LEAVE_BEHIND),
    "neighbour": _after(LAST_TEST, LOOK_AROUND),
    "disrupt_output": _after(FIRST_TEST, FLOOD),
    "disrupt_memory": _after(FIRST_TEST, MEMORY),
    "disrupt_sleep": {"expected_max_estimator": {
        "after:test_one_trial_is_the_mean": "SLEEPS"}},  # as many as the limit needs
}
# Kinds that write no real code (NO_CODE, plus their cheat): they deserve nothing.
NO_REAL_CODE = {"blank", *CHEATS, "cheat_side_files", "cheat_peek", "cheat_routes",
                "cheat_link", "cheat_hardlink"}
# Kinds whose notebook cannot be graded: 0 on every test, with the reason.
NOT_GRADED = {"cheat_link": "symbolic link", "cheat_hardlink": "hard link",
              "cheat_metadata": "grading settings", "broken_json": "not a notebook"}
STUDENTS = ("right", "blank", "mistaken", "crash", "loop", "honest", *CHEATS,
            "numpy_types", "flat_curve", "cheat_side_files", "cheat_link",
            "cheat_hardlink", "cheat_peek", "cheat_metadata", "cheat_routes",
            "broken_json", "html", "disrupt_leftovers", "disrupt_memory",
            "disrupt_output", "disrupt_sleep", "neighbour", "deleted_test")

# The class, each case once where it shows: the honest kinds on every
# assignment, the others on one ({student: assignments}; --one-each).
EVERY_ASSIGNMENT = ("right", "honest", "numpy_types", "mistaken")
ONE_EACH = {
    **{kind: ["bootstrap_and_cross_validation", "expected_max_estimator",
              "randomization_test", "reading_tuning_curves"]
       for kind in EVERY_ASSIGNMENT},
    **{kind: ["randomization_test"] for kind in (
        "blank", "crash", "loop", "cheat_config", "cheat_operator", "cheat_disk",
        "cheat_side_files", "cheat_link", "cheat_hardlink", "cheat_metadata",
        "cheat_peek", "cheat_routes", "broken_json", "html", "disrupt_leftovers",
        "disrupt_output", "disrupt_memory", "neighbour", "deleted_test")},
    **{kind: ["expected_max_estimator"] for kind in ("cheat_equal", "cheat_evp",
                                                       "flat_curve", "disrupt_sleep")},
}

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
# Points a teaching assistant gives (not autograded; part of the maximum).
BY_HAND = {"bootstrap_and_cross_validation": 6}
# The tests each kind loses (right, honest, numpy_types, html, the leftovers and
# the neighbour lose none; blank, the cheats and the ungraded lose all).
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
    "flat_curve": {"expected_max_estimator": {"test_brute_force",
                                              "test_shape_of_the_curve", "test_budget"}},
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
    # Stopped at a limit after the first test: every later test.
    **{kind: {assignment: set(FULL[assignment]) - {FIRST_TEST[assignment]}
              for assignment in FULL}
       for kind in ("disrupt_output", "disrupt_memory")},
    "disrupt_sleep": {"expected_max_estimator":
                      set(FULL["expected_max_estimator"]) - {"test_one_trial_is_the_mean"}},
}
# Why, in the autograded notebook (a phrase of the test cell's error).
REASONS = {
    ("crash", "expected_max_estimator", "test_budget"): "kernel died",
    ("loop", "randomization_test", "test_monte_carlo"): "time limit",
    ("cheat_equal", "expected_max_estimator", "test_budget"): "ignores what it compares",
    ("cheat_evp", "expected_max_estimator", "test_brute_force"): "uses exec",
    ("mistaken", "randomization_test", "test_lecture_table"): "exact p-value",
    ("flat_curve", "expected_max_estimator", "test_shape_of_the_curve"):
        "stays flat somewhere",
    ("cheat_routes", "expected_max_estimator", "test_budget"): "imports pkgutil",
    # Whichever limit the flood meets first: its output, or the memory the
    # kernel holds to send it.
    ("disrupt_output", "randomization_test", "test_answer"):
        ("output passed its limit", "of memory together"),
    ("disrupt_memory", "bootstrap_and_cross_validation", "test_t_answer"): "memory",
    ("disrupt_sleep", "expected_max_estimator", "test_budget"): "total time limit",
    **{(kind, "randomization_test", "test_answer"): phrase
       for kind, phrase in NOT_GRADED.items()},
}


def kind_of(student: str) -> str:
    """The kind of a student: `student` itself, or KIND in ``s012_KIND`` (a
    class made of kinds, as the benchmark makes one)."""
    match = re.fullmatch(r"s\d+_(.+)", student)
    return match.group(1) if match else student


def expected(student: str, assignment: str) -> dict[str, float]:
    kind = kind_of(student)
    full = FULL[assignment]
    if kind in NO_REAL_CODE or kind in NOT_GRADED:
        return dict.fromkeys(full, 0)
    lost = LOSES.get(kind, {}).get(assignment, set())
    return {test: 0 if test in lost else points for test, points in full.items()}


# ----------------------------------------------------------------- the run


def _meta(cell) -> dict:
    return cell.metadata.get("nbgrader", {})


def writes(student: str, assignment: str, course: Path,
           sleeps: int = 0) -> dict[str, str | list[str]]:
    """{grade_id or 'after:<grade_id>': source(s)} for this student's notebook."""
    kind = kind_of(student)
    code: dict = {}
    if kind in NO_REAL_CODE:
        code.update(NO_CODE.get(assignment, {}))
        code.update(CHEAT_ANSWERS.get(kind, {}).get(assignment, {}))
    if kind in CHEATS:
        code[f"after:{SETUP[assignment]}"] = CHEATS[kind].format(
            course=course, assignment=assignment)
    for key, source in WRITES.get(kind, {}).get(assignment, {}).items():
        code[key] = [SLEEPS] * sleeps if source == "SLEEPS" else source
    return code


def submit(course: Path, student: str, assignment: str, sleeps: int = 12) -> None:
    """Write what `student` hands in: the release with their code filled in (and,
    for some kinds, what they put beside it or instead of it)."""
    import nbformat

    kind = kind_of(student)
    code = writes(student, assignment, course, sleeps)
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
            elif grade_id in solutions and kind not in NO_REAL_CODE:
                cell.source = solutions[grade_id]
            cells.append(cell)
            after = code.get(f"after:{grade_id}", [])
            for extra in [after] if isinstance(after, str) else after:
                cells.append(nbformat.v4.new_code_cell(extra.strip()))
        if kind == "html":
            cells.append(nbformat.v4.new_markdown_cell(HTML_MARKDOWN))
        release.cells = cells
        if kind == "cheat_metadata":
            _edit_metadata(release)
        if kind == "deleted_test":  # by mistake: the grader puts it back
            release.cells = [c for c in release.cells
                             if _meta(c).get("grade_id") != FIRST_TEST[assignment]]
        folder = course / "submitted" / student / assignment
        folder.mkdir(parents=True, exist_ok=True)
        target = folder / source_path.name
        if kind == "cheat_link":
            target.symlink_to(source_path)
        elif kind == "cheat_hardlink":
            os.link(source_path, target)
        elif kind == "broken_json":
            target.write_text(nbformat.writes(release)[:5000])
        else:
            nbformat.write(release, target)
        if kind == "cheat_side_files":
            (folder / "answer_key.py").symlink_to(course / "answer_key.py")
            (folder / "teacher.ipynb").symlink_to(source_path)
            (folder / "notes.txt").write_text("my notes")
            os.mkfifo(folder / "pipe")


def nbgrader(course: Path, *args: str, check: bool = True) -> str:
    """Run nbgrader in `course` as the guide says; its log."""
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}"
                                f"{os.environ.get('PATH', '')}")
    done = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=course,
                          env=env, capture_output=True, text=True, timeout=7200)
    if check and done.returncode != 0:
        raise RuntimeError(f"nbgrader {' '.join(args)} failed (exit "
                           f"{done.returncode}):\n{done.stdout}{done.stderr}")
    return done.stdout + done.stderr


def autograde(course: Path, assignment: str, students: list[str], jobs: int = 1,
              options: tuple[str, ...] = ()) -> str:
    """``nbgrader autograde assignment`` for `students` (and no one else who
    handed it in), in `jobs` processes at once (each grades every `jobs`-th
    student; they share the gradebook, each waiting for its lock); their logs.
    Every process must exit 0: every notebook got a grade."""
    from concurrent.futures import ThreadPoolExecutor

    handed_in = {folder.parent.name
                 for folder in (course / "submitted").glob(f"*/{assignment}")}
    jobs = max(1, min(jobs, len(students)))
    chunks = [students[i::jobs] for i in range(jobs)]

    def grade(chunk):
        others = sorted((handed_in | set(students)) - set(chunk))
        return nbgrader(course, "autograde", assignment, *options,
                        *([f"--CourseDirectory.student_id_exclude={','.join(others)}"]
                          if others else []))

    if jobs == 1:
        return grade(chunks[0])
    with ThreadPoolExecutor(jobs) as pool:
        return "\n".join(pool.map(grade, chunks))


def checksums(folder: Path) -> dict[str, str]:
    """{relative path: SHA-256} of every file under `folder` (links and special
    files by what they are, not followed)."""
    sums = {}
    for path in sorted(folder.rglob("*")):
        if path.is_symlink():
            sums[path.relative_to(folder).as_posix()] = f"link to {os.readlink(path)}"
        elif path.is_file():
            sums[path.relative_to(folder).as_posix()] = hashlib.sha256(
                path.read_bytes()).hexdigest()
        elif not path.is_dir():
            sums[path.relative_to(folder).as_posix()] = "special file"
    return sums


def new_course(course: Path) -> None:
    """A course folder as a teacher makes one: source/ and the grader's files."""
    course.mkdir(parents=True, exist_ok=True)
    shutil.copytree(HERE / "source", course / "source")
    for name in GRADER_FILES:
        shutil.copy(HERE / name, course / name)


def _hogs(count: int) -> list[subprocess.Popen]:
    """`count` processes that keep a core busy each (a loaded machine)."""
    return [subprocess.Popen([sys.executable, "-c", "while True:\n    pass"])
            for _ in range(count)]


def _leftovers() -> list[str]:
    """What graded notebooks left on this machine: a process that outlived its
    sandbox, the shared memory segment of LEAVE_BEHIND."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if cmdline[:2] == [b"sleep", b"600"]:
            found.append(f"process {entry} (sleep 600) outlived its sandbox")
    try:
        lines = Path("/proc/sysvipc/shm").read_text().splitlines()[1:]
    except OSError:
        lines = []
    for line in lines:
        if line.split() and int(line.split()[0]) == SHM_KEY:
            found.append("a notebook's shared memory segment stayed on the machine")
    return found


def grade_class(course: Path, students=STUDENTS, assignments=None,
                timeout: int | None = None, options: tuple[str, ...] = (),
                jobs: int | dict = 1, notebook_timeout: float | dict | None = 120,
                hogs: int = 0, hands_in: dict[str, list[str]] | None = None,
                memory_limit: int | None = 512 << 20, progress: bool = False) -> dict:
    """Release, hand in, grade, return feedback; what happened, as a dict.
    `hands_in` ({student: assignments}) says who hands in what (default: every
    student every assignment); `jobs`, the notebooks graded at once, for every
    assignment or per assignment ({assignment: jobs}, 1 where not named);
    `memory_limit`, the memory a notebook's processes may hold together
    (default 512 MiB, light on the machine; None: the course's own, 4 GiB)."""
    assignments = list(assignments or sorted(FULL))
    students = list(students)
    hands_in = {s: [a for a in (hands_in or {}).get(s, assignments)
                    if a in assignments] for s in students}
    new_course(course)
    # The seconds a notebook may run, per assignment (None: the course's, 300).
    limits = (dict(notebook_timeout) if isinstance(notebook_timeout, dict)
              else dict.fromkeys(assignments, notebook_timeout))
    sleeps = int((limits.get("expected_max_estimator") or 300) // 4) + 4
    at_once = jobs if isinstance(jobs, dict) else dict.fromkeys(assignments, jobs)
    for assignment in assignments:
        nbgrader(course, "generate_assignment", assignment)
        for student in students:
            if assignment in hands_in[student]:
                submit(course, student, assignment, sleeps)
    before = checksums(course)
    extra = [*([f"--GradeEveryCell.timeout={timeout}"] if timeout else []),
             *([f"--SandboxKernelManager.limits=memory_bytes={memory_limit}"]
               if memory_limit else []), *options]
    seconds, logs = {}, {}
    hogging = _hogs(hogs)
    try:
        for assignment in assignments:
            start = time.perf_counter()
            logs[assignment] = autograde(
                course, assignment, [s for s in students if assignment in hands_in[s]],
                at_once.get(assignment, 1), (*extra, *_limit(limits.get(assignment))))
            seconds[assignment] = time.perf_counter() - start
            if progress:
                print(f"autograde {assignment}: {seconds[assignment]:.1f} s, "
                      f"{time.strftime('%H:%M:%S')}, load {os.getloadavg()[0]:.1f}",
                      flush=True)
    finally:
        for hog in hogging:
            hog.kill()
            hog.wait()
    after = checksums(course)
    changed = sorted(path for path in set(before) | set(after)
                     if before.get(path) != after.get(path)
                     and not path.startswith(AUTOGRADE_WRITES))
    leftovers = _leftovers()
    for assignment in assignments:
        nbgrader(course, "generate_feedback", assignment)
    nbgrader(course, "export")
    nbgrader(course, "export", "--exporter=grading.LmsExport", "--to=lms_grades.csv")
    return {"course": course, "scores": read_scores(course, hands_in),
            "seconds": seconds, "logs": logs, "changed": changed,
            "students": students, "leftovers": leftovers, "assignments": assignments,
            "hands_in": hands_in, "jobs": jobs, "hogs": hogs, "extra": extra,
            "limits": limits}


def _limit(seconds: float | None) -> list[str]:
    return [f"--GradeEveryCell.notebook_timeout={seconds}"] if seconds else []


def read_scores(course: Path, hands_in: dict[str, list[str]]) -> dict:
    """{(student, assignment, test): score} from the course's gradebook."""
    from nbgrader.api import Gradebook, MissingEntry

    scores = {}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        for student, assignments in hands_in.items():
            for assignment in assignments:
                for notebook in (course / "source" / assignment).glob("*.ipynb"):
                    try:
                        submission = gradebook.find_submission_notebook(
                            notebook.stem, assignment, student)
                    except MissingEntry:
                        continue
                    for grade in submission.grades:
                        if grade.name in FULL[assignment]:
                            scores[student, assignment, grade.name] = grade.score
    return scores


def regrade(run: dict, hands_in: dict[str, list[str]], hogs: int = 0,
            jobs: int = 1) -> dict:
    """Grade again (``autograde --force``) what `hands_in` names ({student:
    assignments} of `run`), with `hogs` busy processes beside; the totals
    {(student, assignment): score}."""
    students = list(hands_in)
    hogging = _hogs(hogs)
    try:
        for assignment in run["assignments"]:
            again = [s for s in students if assignment in hands_in[s]]
            if again:
                autograde(run["course"], assignment, again, jobs,
                          (*run["extra"], *_limit(run["limits"].get(assignment)),
                           "--force"))
    finally:
        for hog in hogging:
            hog.kill()
            hog.wait()
    return grades({**run, "scores": read_scores(run["course"], hands_in),
                   "hands_in": hands_in, "students": students})


def outputs(course: Path, student: str, assignment: str) -> str:
    """The text of every output of the autograded notebook."""
    import nbformat

    text = []
    for path in (course / "autograded" / student / assignment).glob("*.ipynb"):
        for cell in nbformat.read(path, as_version=4).cells:
            for o in cell.get("outputs", []):
                text.append(o.get("text", "") or f"{o.get('ename')}: {o.get('evalue')}")
                text.extend(str(v) for v in (o.get("data") or {}).values())
    return "\n".join(text)


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


@functools.lru_cache(maxsize=None)
def _probe_phrases(assignment: str) -> tuple[str, ...]:
    """Lines of the assignment's probes that no notebook holds: a probe seen in a
    notebook or a feedback page would show one."""
    spec = importlib.util.spec_from_file_location("grading_run_key",
                                                  HERE / "answer_key.py")
    key = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(key)
    phrases = []
    for probe in key.PROBES[assignment].values():
        phrases += [line.strip()[:40] for line in probe["code"].splitlines()
                    if len(line.strip()) > 25]
    return tuple(phrases)


def feedback_leaks(course: Path) -> list[str]:
    """Feedback pages that hold a hidden test, a probe, the key, or a student's
    script; feedback folders that hold more than the student's own page."""
    leaks = []
    for folder in sorted((course / "feedback").glob("*/*")):
        phrases = _probe_phrases(folder.name) if (HERE / "source" / folder.name).is_dir() \
            else []
        for path in sorted(folder.rglob("*")):
            relative = path.relative_to(course)
            if path.is_symlink() or not path.is_file() or path.suffix != ".html":
                leaks.append(f"{relative}: not the student's feedback page")
                continue
            text = path.read_text()
            for marker in ("HIDDEN TESTS", "[evp-grading]", "Key for teaching",
                           "<script>alert", "<img src=x onerror", *phrases):
                if marker in text:
                    leaks.append(f"{relative}: {marker}")
    return leaks


def problems(run: dict) -> list[str]:
    """Every way the run differs from what the students deserve."""
    found = []
    course = run["course"]
    for student in run["students"]:
        for assignment in run["hands_in"][student]:
            for test, points in expected(student, assignment).items():
                got = run["scores"].get((student, assignment, test))
                if got != points:
                    found.append(f"{student} {assignment} {test}: {got}, "
                                 f"deserves {points}")
    kinds = {kind_of(s): s for s in run["students"]}
    for (kind, assignment, test), phrase in REASONS.items():
        if kind in kinds and assignment in run["hands_in"][kinds[kind]]:
            text = errors(course, kinds[kind], assignment).get(test, "")
            if not any(p in text for p in ((phrase,) if isinstance(phrase, str)
                                           else phrase)):
                found.append(f"{kinds[kind]} {assignment} {test}: no '{phrase}' in "
                             f"{text!r}")
    for assignment in run["assignments"]:
        handed = {k: s for k, s in kinds.items() if assignment in run["hands_in"][s]}
        if "neighbour" in handed:
            said = outputs(course, kinds["neighbour"], assignment)
            if "left by others: nothing" not in said:
                found.append(f"the neighbour found what another left: {said[-300:]!r}")
        if "cheat_side_files" in handed:
            said = outputs(course, kinds["cheat_side_files"], assignment)
            if "visible: True" in said:
                found.append(f"a file handed in beside the notebook reached the kernel "
                             f"({assignment})")
        for student in run["students"]:
            graded = course / "autograded" / student / assignment
            extra = sorted(p.name for p in graded.iterdir()
                           if p.suffix != ".ipynb") if graded.is_dir() else []
            if extra:
                found.append(f"autograded/{student}/{assignment} holds {extra}")
        for student in [handed[k] for k in ("cheat_peek",) if k in handed]:
            said = outputs(course, student, assignment)
            for phrase in _probe_phrases(assignment):
                if phrase in said:
                    found.append(f"{student} printed a probe: {phrase!r}")
                    break
    found += [f"changed by grading: {path}" for path in run["changed"]]
    found += [f"feedback leaks: {leak}" for leak in feedback_leaks(course)]
    found += [f"left on the machine: {what}" for what in run["leftovers"]]
    if (course / "PWNED").exists():
        found.append("a student's code ran in the teacher's nbgrader")
    found += _lms_problems(run)
    return found


def _lms_problems(run: dict) -> list[str]:
    import csv

    path = run["course"] / "lms_grades.csv"
    if not path.exists():
        return ["no lms_grades.csv"]
    with open(path, newline="") as file:
        rows = list(csv.DictReader(file))
    got = {(r["student"], r["assignment"]): (float(r["score"]), float(r["max"]))
           for r in rows}
    found = []
    for student in run["students"]:
        for assignment in run["hands_in"][student]:
            want = (float(sum(expected(student, assignment).values())),
                    float(sum(FULL[assignment].values()) + BY_HAND.get(assignment, 0)))
            if got.get((student, assignment)) != want:
                found.append(f"lms_grades.csv: {student} {assignment}: "
                             f"{got.get((student, assignment))}, not {want}")
    return found


def grades(run: dict) -> dict[tuple[str, str], float]:
    """{(student, assignment): total score} of a run."""
    return {(s, a): sum(run["scores"].get((s, a, t), 0) for t in FULL[a])
            for s in run["students"] for a in run["hands_in"][s]}


def table(run: dict) -> str:
    """The grades, one row per student, one column per assignment (Markdown)."""
    assignments = run["assignments"]
    totals = grades(run)
    rows = ["| submission | " + " | ".join(assignments) + " |",
            "|---|" + "---|" * len(assignments)]
    for student in run["students"]:
        cells = [f"{totals[student, a]:g}/{sum(FULL[a].values())}"
                 if (student, a) in totals else "—" for a in assignments]
        rows.append(f"| {student} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def grade_own_class(course: Path, assignment: str, jobs: int,
                    options: tuple[str, ...] = ()) -> int:
    """``nbgrader autograde assignment`` for every student who handed it in,
    `jobs` notebooks at once; 0 when every notebook got a grade."""
    submitted = course / "submitted"
    students = sorted(p.name for p in submitted.iterdir()
                      if (p / assignment).is_dir()) if submitted.is_dir() else []
    if not students:
        print(f"no student in {submitted} handed in {assignment}", file=sys.stderr)
        return 1
    start = time.perf_counter()
    try:
        log = autograde(course, assignment, students, jobs, options)
    except RuntimeError as error:
        print(error, file=sys.stderr)
        return 1
    seconds = time.perf_counter() - start
    print("\n".join(line for line in log.splitlines()
                    if "Not graded" in line or "WARNING" in line))
    print(f"autograde {assignment}: {len(students)} students, {jobs} at once, "
          f"{seconds:.0f} s ({seconds / len(students):.1f} s a notebook)")
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--course", type=Path,
                        help="a new folder for the course (default: a temporary one)")
    parser.add_argument("--students", help="comma-separated, of: " + ", ".join(STUDENTS))
    parser.add_argument("--assignments", help="comma-separated (default: all)")
    parser.add_argument("--timeout", type=int,
                        help="seconds a cell may run (default: the course's, 30)")
    parser.add_argument("--notebook-timeout", type=float, default=120,
                        help="seconds a notebook may run in all (default 120 here, "
                             "so that the sleeping student is cut in two minutes; "
                             "the course's is 300)")
    parser.add_argument("--jobs", type=int, default=1,
                        help="notebooks graded at once (autograde processes; "
                             "default 1)")
    parser.add_argument("--hog", type=int, default=0,
                        help="processes that keep a core busy each while grading")
    parser.add_argument("--grade", metavar="ASSIGNMENT",
                        help="grade your own class instead, in this folder: "
                             "nbgrader autograde ASSIGNMENT for every student in "
                             "submitted/, --jobs notebooks at once")
    parser.add_argument("--one-each", action="store_true",
                        help="each student on the assignments that show their case "
                             "(the honest kinds on all four, the others on one)")
    parser.add_argument("--twice", action="store_true",
                        help="grade the class twice, in two course folders, and "
                             "compare the grades")
    parser.add_argument("--option", action="append", default=[],
                        help="an option for nbgrader autograde, e.g. --option="
                             "--SandboxKernelManager.unsafe_no_sandbox=True to time "
                             "grading without the sandbox (honest students only!)")
    args = parser.parse_args(argv)
    if args.grade:
        return grade_own_class(Path.cwd(), args.grade, args.jobs, tuple(args.option))
    students = args.students.split(",") if args.students else STUDENTS
    assignments = args.assignments.split(",") if args.assignments else None
    with tempfile.TemporaryDirectory() as scratch:
        course = args.course or Path(scratch) / "course"
        if course.exists() and any(course.iterdir()):
            parser.error(f"--course {course}: not empty; name a new folder")
        runs = []
        for number in range(2 if args.twice else 1):
            folder = course if number == 0 else course.with_name(course.name + "-again")
            runs.append(grade_class(folder, students, assignments, args.timeout,
                                    tuple(args.option), args.jobs,
                                    args.notebook_timeout, args.hog,
                                    ONE_EACH if args.one_each else None,
                                    progress=True))
        run = runs[0]
        print(table(run))
        for number, each in enumerate(runs, 1):
            total = sum(each["seconds"].values())
            count = {a: sum(a in v for v in each["hands_in"].values())
                     for a in each["seconds"]}
            print(f"run {number}: {total:.0f} s for {sum(count.values())} notebooks "
                  f"({args.jobs} at once, {args.hog} busy processes beside, load "
                  f"{os.getloadavg()[1]:.1f} over the last 5 minutes)")
            for assignment, seconds in each["seconds"].items():
                print(f"  autograde {assignment}: {seconds:.1f} s for "
                      f"{count[assignment]} notebooks, "
                      f"{seconds / max(1, count[assignment]):.1f} s a notebook")
        found = [p for each in runs for p in problems(each)]
        if len(runs) == 2 and grades(runs[0]) != grades(runs[1]):
            found += [f"graded twice, {key}: {grades(runs[0])[key]:g} then "
                      f"{grades(runs[1])[key]:g}" for key in grades(runs[0])
                      if grades(runs[0])[key] != grades(runs[1])[key]]
        for line in found:
            print("PROBLEM:", line)
        print("all grades as deserved" if not found else f"{len(found)} problems")
        return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
