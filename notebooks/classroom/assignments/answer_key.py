"""The answer key: which inputs each autograded test gives the student's code,
and what the results must be.

Never released and never inside a student's kernel: ``nbgrader
generate_assignment`` copies ``source/<assignment>/`` only, the grading sandbox
(``sandbox.py``) shows no file of the course, and the notebooks hold no hidden
test. After a test cell has run (its visible ``assert`` lines are the student's
own check), ``grading.GradeEveryCell`` runs the test's *probe* (``PROBES``): a few
lines that call the student's functions on the test's inputs, read by a copy of
the kernel from a file of the sandbox and never part of the notebook's history.
The copy writes the results as plain data (numbers, text, lists, None: numpy's
scalars and arrays by their values, tuples as lists) to a file the grader reads
outside the kernel, and the check below (``KEYS``) compares them with the
teacher's references, computed here in the grader's process from the same
inputs. Nothing the student's code does in its kernel (a patched
``math.isclose``, ``operator`` tricks, an object whose ``__eq__`` is always true,
a line printed in two parts) changes these comparisons.

Values are compared, not types: ``np.int64(4)`` is the budget 4, ``(1, 2)`` the
list ``[1, 2]``, ``np.float64`` a float. Each check states its tolerance in the
code (``rel_tol``) and in its message.

A check returns None when the results are right, else one sentence for the
student's feedback: what was checked, never the expected value nor which options
are wrong.
"""

from __future__ import annotations

import itertools
import math
import random

import numpy as np

# ----------------------------------------------------------------- helpers


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _close(got, want, rel_tol=1e-9, abs_tol=0.0) -> bool:
    return (_number(got) and math.isfinite(got)
            and math.isclose(got, want, rel_tol=rel_tol, abs_tol=abs_tol))


def _whole(got, want) -> bool:
    """`got` is the whole number `want` (or both are None), whatever its type."""
    if want is None:
        return got is None
    return _number(got) and got == want


def _count_wrong(got, want, **tolerance) -> int:
    if not isinstance(got, list) or len(got) != len(want):
        return len(want)
    return sum(not _close(g, w, **tolerance) for g, w in zip(got, want))


def _letter(results, right: str, name: str) -> str | None:
    if results != right:
        return (f"{name} is not the correct statement (checked: one letter, the "
                "statement that holds); reread the question and the lecture")
    return None


# ----------------------------------------------------------------- expected_max_estimator


def expected_max_v(scores, n):
    x = np.sort(np.asarray(scores, dtype=float))
    i = np.arange(1, x.size + 1)
    return math.fsum(((i / x.size) ** n - ((i - 1) / x.size) ** n) * x)


def _one_trial_samples():
    generator = random.Random(5)
    return [[0.61, 0.72, 0.55, 0.70], [0.3], [0.9, 0.1],
            [generator.random() for _ in range(9)]]


def _brute_force_cases():
    cases = [(sample, n) for sample in ([0.61, 0.72, 0.55, 0.70],
                                        [0.5, 0.7, 0.5, 0.6, 0.7])
             for n in (1, 2, 3, 4)]
    generator = random.Random(2019)
    for size in (1, 2, 7, 50, 500):
        sample = [generator.random() for _ in range(size)]
        cases += [(sample, n) for n in (1, 2, 5, 30, 100)]
    return cases


def test_one_trial_is_the_mean(results):
    samples = _one_trial_samples()
    wrong = _count_wrong(results, [math.fsum(s) / len(s) for s in samples])
    if wrong:
        return (f"with one trial the expected best must be the mean of the scores; "
                f"checked on {len(samples)} samples (1 to 9 scores, to 9 significant "
                f"digits), wrong on {wrong}")
    return None


def test_brute_force(results):
    cases = _brute_force_cases()
    wrong = _count_wrong(results, [expected_max_v(s, n) for s, n in cases])
    if wrong:
        return (f"expected_max_v is not the expected best of n draws on {wrong} of "
                f"{len(cases)} cases checked (samples of 1 to 500 scores, some with "
                "ties; n from 1 to 100; to 9 significant digits)")
    return None


def _curve_sample():
    generator = random.Random(0)
    return [generator.random() for _ in range(40)]


def test_shape_of_the_curve(results):
    sample = _curve_sample()
    if not (isinstance(results, list) and len(results) == 2):
        return "expected_max_v's results could not be read"
    curve, far = results
    if not (isinstance(curve, list) and len(curve) == 100 and all(map(_number, curve))):
        return "expected_max_v(sample, n) for n = 1 to 100 did not give 100 numbers"
    if not _close(curve[0], math.fsum(sample) / len(sample)):
        return "the curve does not start at the mean of the scores (n = 1)"
    # With 40 distinct scores every extra trial raises the expected best, by at
    # least 5e-5 here (the reference's smallest step), and n = 100 stays below the
    # largest score by 1.6e-3: a curve that jumps to the maximum fails.
    if any(later - earlier < 1e-9 for earlier, later in zip(curve, curve[1:])):
        return ("the curve does not rise with every extra trial (checked n = 1 to "
                "100 on 40 distinct scores, where each trial raises the expected "
                "best a little)")
    if curve[-1] > max(sample) - 1e-6 or not _close(far, max(sample)):
        return ("the curve does not approach the largest score from below (checked: "
                "below it at n = 100, equal to it at n = 10,000 to 9 significant "
                "digits)")
    return None


def _reference_estimator(scores, n):
    x = sorted(scores)
    b = len(x)
    return sum(v * ((i / b) ** n - ((i - 1) / b) ** n) for i, v in enumerate(x, 1))


BUDGET_SCORES = [0.2, 0.9, 0.4, 0.6, 0.5]
BUDGET_TARGETS = (0.5, 0.7, 0.85, 0.95)
NEW_MODEL = [0.71, 0.78, 0.64, 0.83, 0.75, 0.69, 0.80, 0.73, 0.77, 0.66, 0.81, 0.74]


def test_smallest_budget(results):
    want = [4, 1, 3, None]
    for target in BUDGET_TARGETS:
        want.append(next((n for n in range(1, 201)
                          if _reference_estimator(BUDGET_SCORES, n) >= target), None))
    if not isinstance(results, list) or len(results) != len(want) + 1:
        return "smallest_budget's results could not be read"
    got, most_tried = results[:-1], results[-1]
    wrong = sum(not _whole(g, w) for g, w in zip(got, want))
    if wrong:
        return (f"smallest_budget gives a wrong budget in {wrong} of {len(want)} cases "
                "checked (a made-up and a real estimator; targets reached, reached "
                "exactly, and never reached within max_trials)")
    if not _number(most_tried) or most_tried > 200:
        return "smallest_budget tried more than max_trials budgets"
    return None


def test_budget(results):
    want = next(n for n in range(1, 10_001) if expected_max_v(NEW_MODEL, n) >= 0.80)
    if not _whole(results, want):
        return ("budget is not the smallest number of trials at which the expected "
                "best of the new model reaches 0.80 (checked: the whole number)")
    return None


# ----------------------------------------------------------------- randomization_test


def exact_p(a, b):
    d = np.asarray(b, dtype=float) - np.asarray(a, dtype=float)
    signs = np.array(list(itertools.product([1, -1], repeat=d.size)))
    return float(np.mean(np.abs(signs @ d / d.size) >= abs(d.mean()) - 1e-12))


LECTURE_A = [0.2, 0.3, 0.1, 0.4, 1, 0.8, 0.3, 0.1, 0, 0.9]
LECTURE_B = [0.5, 0.3, 0.1, 0.4, 1, 0.9, 0.1, 0.2, 0.5, 0.8]


def test_lecture_table(results):
    want = [exact_p(LECTURE_A, LECTURE_B), exact_p(LECTURE_B, LECTURE_A), 1.0]
    wrong = _count_wrong(results, want)
    if wrong:
        return ("randomization_test is not the exact p-value on the lecture's table "
                "(checked: A against B, B against A, A against itself, to 9 "
                "significant digits; the table has folds with d_i = 0 and decimal "
                "scores)")
    return None


def _enumeration_cases():
    generator = random.Random(1935)
    a = [generator.gauss(0, 1) for _ in range(8)]
    b = [generator.gauss(0, 1) for _ in range(8)]
    cases = [(a, b)]
    generator = random.Random(1935)
    for size in (2, 5, 12):
        for shift in (0.0, 0.5, 2.0):
            a = [generator.gauss(0, 1) + shift for _ in range(size)]
            b = [generator.gauss(0, 1) for _ in range(size)]
            cases.append((a, b))
    return cases


def test_against_enumeration(results):
    cases = _enumeration_cases()
    wrong = _count_wrong(results, [exact_p(a, b) for a, b in cases])
    if wrong:
        return (f"randomization_test is not the exact p-value on {wrong} of "
                f"{len(cases)} random paired samples checked (2 to 12 pairs, A behind, "
                "level with and far ahead of B; to 9 significant digits)")
    return None


def _monte_carlo_pair():
    generator = random.Random(14)
    a = [generator.gauss(0, 1) + 0.4 for _ in range(14)]
    b = [generator.gauss(0, 1) for _ in range(14)]
    return a, b


def test_monte_carlo(results):
    exact = exact_p(*_monte_carlo_pair())
    if not (isinstance(results, list) and len(results) == 2):
        return "randomization_test_monte_carlo's results could not be read"
    small, large = results
    if not _close(small, 1 / 101):
        return ("with 20 pairs all equal to 1 and 100 draws the Monte Carlo p-value "
                "should count the observed pattern: (1 + as extreme) / (1 + draws)")
    if not (_number(large) and 0 < large <= 1
            and abs(large - exact) < 4 * math.sqrt(exact * (1 - exact) / 20_000) + 1e-4):
        return ("on 14 random pairs the Monte Carlo p-value from 20,000 draws is more "
                "than 4 standard errors from the exact one (checked two-sided)")
    return None


def test_answer(results):
    return _letter(results, "B", "answer")


# ----------------------------------------------------------------- reading_tuning_curves


def _curves():
    import evp

    rng = np.random.default_rng(2024)
    model_a = 0.70 + 0.20 * rng.beta(0.8, 1.6, size=60)
    model_b = 0.78 + 0.06 * rng.beta(4.0, 4.0, size=60)
    budgets = np.arange(1, 21)
    band_a = evp.tuning_curve_band(model_a, budgets, confidence=0.8)
    verdict = evp.compare(model_b, model_a, budgets, confidence=0.8)
    return budgets, band_a, verdict


def test_median_a_at_10(results):
    budgets, band_a, _ = _curves()
    if not _close(results, float(band_a.estimate[budgets == 10][0])):
        return ("median_a_at_10 is not model A's estimated median tuning curve at "
                "k = 10 (checked to 9 significant digits)")
    return None


def test_strong_budgets(results):
    budgets, _, verdict = _curves()
    want = budgets[np.asarray(verdict.evidence) == "strong"].tolist()
    if not (isinstance(results, list) and len(results) == len(want)
            and all(_whole(g, w) for g, w in zip(results, want))):
        return ("strong_budgets is not the list of budgets where the evidence that B "
                "beats A is strong (checked: every budget from 1 to 20)")
    return None


def test_answer_band(results):
    return _letter(results, "B", "answer_band")


def test_answer_upper(results):
    return _letter(results, "C", "answer_upper")


# ----------------------------------------------------------------- bootstrap_and_cross_validation


def k_fold_indices(n, k):
    sizes = [n // k + (fold < n % k) for fold in range(k)]
    starts = np.cumsum([0, *sizes])
    return [list(range(starts[f], starts[f + 1])) for f in range(k)]


def cross_validated_mse(x, y, k):
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    errors = []
    for test in k_fold_indices(x.size, k):
        train = np.setdiff1d(np.arange(x.size), test)
        slope, intercept = np.polyfit(x[train], y[train], 1)
        errors.extend((y[test] - (slope * x[test] + intercept)) ** 2)
    return math.fsum(errors) / len(errors)


def bootstrap_interval(scores, n_resamples, seed, level):
    scores = np.asarray(scores, dtype=float)
    rng = np.random.default_rng(seed)
    means = scores[rng.integers(0, scores.size, size=(n_resamples, scores.size))].mean(1)
    tail = (1 - level) / 2
    return [float(v) for v in np.quantile(means, [tail, 1 - tail])]


def paired_t(a, b):
    d = np.asarray(b, dtype=float) - np.asarray(a, dtype=float)
    return float(d.mean() / (d.std(ddof=1) / math.sqrt(d.size)))


FOLD_CASES = [(10, 5), (10, 3), (7, 7), (23, 4), (100, 10), (5, 2)]


def test_k_fold_indices(results):
    if not isinstance(results, list) or len(results) != len(FOLD_CASES):
        return "k_fold_indices' results could not be read"
    for (n, k), folds in zip(FOLD_CASES, results):
        want = k_fold_indices(n, k)
        if not (isinstance(folds, list) and len(folds) == len(want) and all(
                isinstance(f, list) and len(f) == len(w)
                and all(_whole(g, v) for g, v in zip(f, w))
                for f, w in zip(folds, want))):
            return ("k_fold_indices is not the k contiguous folds, in order, whose "
                    "sizes differ by at most one, larger first (checked: n from 5 "
                    "to 100, k from 2 to n)")
    return None


def _regression_cases():
    generator = random.Random(7)
    cases = []
    for n, k in ((12, 3), (20, 5), (31, 4), (40, 40)):
        x = [generator.uniform(0, 10) for _ in range(n)]
        y = [2 - 0.5 * v + generator.gauss(0, 1) for v in x]
        cases.append((x, y, k))
    return cases


def test_cross_validated_mse(results):
    cases = _regression_cases()
    wrong = _count_wrong(results, [cross_validated_mse(*c) for c in cases],
                         rel_tol=1e-7)
    if wrong:
        return (f"cross_validated_mse is wrong on {wrong} of {len(cases)} data sets "
                "checked (12 to 40 points, 3 folds to leave-one-out, to 7 "
                "significant digits): fit on the "
                "training folds only, and average the squared errors of all held-out "
                "points")
    return None


BOOTSTRAP_CASES = [([0.61, 0.72, 0.55, 0.70, 0.66], 2000, 0, 0.95),
                   ([0.3, 0.9, 0.5, 0.4, 0.8, 0.7, 0.2, 0.6], 5000, 1, 0.9),
                   ([1.0, 2.0], 1000, 2, 0.5)]


def test_bootstrap_interval(results):
    wrong = 0
    if not isinstance(results, list) or len(results) != len(BOOTSTRAP_CASES):
        return "bootstrap_interval's results could not be read"
    for case, got in zip(BOOTSTRAP_CASES, results):
        wrong += _count_wrong(got, bootstrap_interval(*case), rel_tol=1e-9) > 0
    if wrong:
        return (f"bootstrap_interval is wrong on {wrong} of {len(BOOTSTRAP_CASES)} "
                "samples checked (levels 0.5 to 0.95, to 9 significant digits): "
                "resample as the text says, "
                "with the rng given, and take the percentiles of the means")
    return None


def _t_cases():
    generator = random.Random(1908)
    cases = [(LECTURE_A, LECTURE_B)]
    for size in (3, 10, 30):
        a = [generator.gauss(0, 1) for _ in range(size)]
        cases.append((a, [v + 0.3 + generator.gauss(0, 0.5) for v in a]))
    return cases


def test_paired_t(results):
    cases = _t_cases()
    wrong = _count_wrong(results, [paired_t(*c) for c in cases])
    if wrong:
        return (f"paired_t_statistic is wrong on {wrong} of {len(cases)} paired "
                "samples checked (3 to 30 pairs, to 9 significant digits): the mean "
                "difference over its "
                "standard error, with the sample standard deviation (n - 1)")
    return None


def test_t_answer(results):
    return _letter(results, "C", "t_answer")


KEYS = {
    "expected_max_estimator": {
        "test_one_trial_is_the_mean": test_one_trial_is_the_mean,
        "test_brute_force": test_brute_force,
        "test_shape_of_the_curve": test_shape_of_the_curve,
        "test_smallest_budget": test_smallest_budget,
        "test_budget": test_budget,
    },
    "randomization_test": {
        "test_lecture_table": test_lecture_table,
        "test_against_enumeration": test_against_enumeration,
        "test_monte_carlo": test_monte_carlo,
        "test_answer": test_answer,
    },
    "reading_tuning_curves": {
        "test_median_a_at_10": test_median_a_at_10,
        "test_strong_budgets": test_strong_budgets,
        "test_answer_band": test_answer_band,
        "test_answer_upper": test_answer_upper,
    },
    "bootstrap_and_cross_validation": {
        "test_k_fold_indices": test_k_fold_indices,
        "test_cross_validated_mse": test_cross_validated_mse,
        "test_bootstrap_interval": test_bootstrap_interval,
        "test_paired_t": test_paired_t,
        "test_t_answer": test_t_answer,
    },
}


# ----------------------------------------------------------------- the probes
# What runs in (a copy of) the student's kernel after each test cell: `needs`, the
# names of the student's that the probe calls; `code`, Python that sets `results`
# from them. The inputs are written out here from the same functions the checks
# use, so that the probe and its check cannot drift apart.


def _calls(function: str, cases) -> dict:
    """A probe that calls `function` on each of `cases` (argument tuples)."""
    cases = [list(case) for case in cases]
    return {"needs": [function],
            "code": f"results = [{function}(*case) for case in {cases!r}]"}


def _value(name: str) -> dict:
    """A probe that reads the value the student stored in `name`."""
    return {"needs": [name], "code": f"results = {name}"}


SMALLEST_BUDGET_PROBE = f"""
def tenths(scores, n):
    return n / 10


calls = []


def reference(scores, n):
    calls.append(n)
    x = sorted(scores)
    b = len(x)
    return sum(v * ((i / b) ** n - ((i - 1) / b) ** n) for i, v in enumerate(x, 1))


results = [smallest_budget(tenths, [], 0.35), smallest_budget(tenths, [], 0.05),
           smallest_budget(tenths, [], 0.3),
           smallest_budget(tenths, [], 2.0, max_trials=5)]
results += [smallest_budget(reference, {BUDGET_SCORES!r}, target, max_trials=200)
            for target in {BUDGET_TARGETS!r}]
results.append(max(calls, default=0))
"""

PROBES = {
    "expected_max_estimator": {
        "test_one_trial_is_the_mean": _calls(
            "expected_max_v", [(sample, 1) for sample in _one_trial_samples()]),
        "test_brute_force": _calls("expected_max_v", _brute_force_cases()),
        "test_shape_of_the_curve": {
            "needs": ["expected_max_v"],
            "code": f"sample = {_curve_sample()!r}\n"
                    "results = [[expected_max_v(sample, n) for n in range(1, 101)], "
                    "expected_max_v(sample, 10_000)]"},
        "test_smallest_budget": {"needs": ["smallest_budget"],
                                 "code": SMALLEST_BUDGET_PROBE},
        "test_budget": _value("budget"),
    },
    "randomization_test": {
        "test_lecture_table": _calls("randomization_test", [
            (LECTURE_A, LECTURE_B), (LECTURE_B, LECTURE_A), (LECTURE_A, LECTURE_A)]),
        "test_against_enumeration": _calls("randomization_test", _enumeration_cases()),
        "test_monte_carlo": {
            "needs": ["randomization_test_monte_carlo"],
            "code": "import numpy as np\n"
                    f"a, b = {[list(v) for v in _monte_carlo_pair()]!r}\n"
                    "results = [randomization_test_monte_carlo(np.ones(20), "
                    "np.zeros(20), 100, np.random.default_rng(0)), "
                    "randomization_test_monte_carlo(a, b, 20_000, "
                    "np.random.default_rng(1))]"},
        "test_answer": _value("answer"),
    },
    "reading_tuning_curves": {
        "test_median_a_at_10": _value("median_a_at_10"),
        "test_strong_budgets": _value("strong_budgets"),
        "test_answer_band": _value("answer_band"),
        "test_answer_upper": _value("answer_upper"),
    },
    "bootstrap_and_cross_validation": {
        "test_k_fold_indices": _calls("k_fold_indices", FOLD_CASES),
        "test_cross_validated_mse": _calls("cross_validated_mse", _regression_cases()),
        "test_bootstrap_interval": {
            "needs": ["bootstrap_interval"],
            "code": "import numpy as np\n"
                    f"cases = {[list(c) for c in BOOTSTRAP_CASES]!r}\n"
                    "results = [bootstrap_interval(scores, n_resamples, "
                    "np.random.default_rng(seed), level) "
                    "for scores, n_resamples, seed, level in cases]"},
        "test_paired_t": _calls("paired_t_statistic", _t_cases()),
        "test_t_answer": _value("t_answer"),
    },
}
