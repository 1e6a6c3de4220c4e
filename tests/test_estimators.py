"""Estimators V, U, W against brute-force enumeration, exact rationals and opda."""

import itertools
import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import evp
from evp.estimators import _weights

# ---------------------------------------------------------------- brute force


def brute_v(x, n):
    """Mean of the max over all B**n ordered draws with replacement."""
    idx = np.indices((len(x),) * n).reshape(n, -1)
    return np.asarray(x)[idx].max(axis=0).mean()


def brute_u(x, n):
    """Mean of the max over all C(B, n) subsets."""
    return np.mean([max(c) for c in itertools.combinations(x, n)])


def brute_w(x, n):
    """Mean of the max over all multisets of size n, each equally likely."""
    return np.mean([max(c) for c in itertools.combinations_with_replacement(x, n)])


BRUTE = {"v": brute_v, "u": brute_u, "w": brute_w}

SAMPLES = [
    [0.3],
    [0.7, 0.1],
    [0.62, 0.58, 0.71, 0.55],
    [0.4, 0.4, 0.9, 0.1, 0.4],  # ties
    [3.0, -1.0, 2.5, 2.5, 0.0, 7.0],  # ties, negatives
    [0.81, 0.79, 0.83, 0.80, 0.85, 0.77, 0.84],
    [1.0, 1.0, 1.0, 2.0, 2.0, 0.5, 0.5],  # many ties
]


@pytest.mark.parametrize("estimator", ["v", "u", "w"])
@pytest.mark.parametrize("sample", SAMPLES, ids=lambda s: f"B{len(s)}")
def test_matches_brute_force_enumeration(sample, estimator):
    size = len(sample)
    ns = list(range(1, size + 1))
    expected = [BRUTE[estimator](sample, n) for n in ns]
    got = evp.expected_max(sample, ns, estimator=estimator)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("sample", SAMPLES[1:], ids=lambda s: f"B{len(s)}")
def test_std_matches_brute_force_enumeration(sample):
    for n in range(1, len(sample) + 1):
        idx = np.indices((len(sample),) * n).reshape(n, -1)
        maxima = np.asarray(sample)[idx].max(axis=0)
        np.testing.assert_allclose(
            evp.expected_max_std(sample, n), maxima.std(), rtol=1e-10, atol=1e-12
        )


def exact_weight(estimator, i, n, size):
    """F(i) - F(i-1) in exact rational arithmetic, from DESIGN's definitions."""
    if estimator == "v":
        return Fraction(i**n - (i - 1) ** n, size**n)
    if estimator == "u":
        return Fraction(math.comb(i, n) - math.comb(i - 1, n), math.comb(size, n))
    return Fraction(
        math.comb(i + n - 1, n) - math.comb(i + n - 2, n), math.comb(size + n - 1, n)
    )


@pytest.mark.parametrize("estimator", ["v", "u", "w"])
def test_weights_match_exact_rationals(estimator):
    size = 60
    ns = np.array([1, 2, 3, 7, 20, 59, 60] + ([100, 1000] if estimator != "u" else []))
    got = _weights(estimator, ns, size)
    for row, n in zip(got, ns.tolist(), strict=True):
        exact = np.array([float(exact_weight(estimator, i, n, size))
                          for i in range(1, size + 1)])
        np.testing.assert_allclose(row, exact, rtol=1e-11, atol=1e-300)
        assert (row >= 0).all()


# ------------------------------------------------------------- properties

finite = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)
samples_2d = st.integers(1, 12).flatmap(
    lambda size: arrays(np.float64, st.tuples(st.integers(1, 4), st.just(size)),
                        elements=finite)
)


@settings(max_examples=200, deadline=None)
@given(samples_2d)
def test_ordering_mean_max_and_monotone(x):
    size = x.shape[1]
    ns = np.arange(1, size + 1)
    v = evp.expected_max(x, ns, estimator="v")
    u = evp.expected_max(x, ns, estimator="u")
    w = evp.expected_max(x, ns, estimator="w")
    scale = 1e-12 * (1 + np.abs(x).max())
    assert (w <= v + scale).all() and (v <= u + scale).all()
    for curve in (v, u, w):
        np.testing.assert_allclose(curve[:, 0], x.mean(axis=1), atol=scale)
        assert (np.diff(curve, axis=1) >= -scale).all()
    np.testing.assert_allclose(u[:, -1], x.max(axis=1), atol=scale)


@settings(max_examples=100, deadline=None)
@given(samples_2d, st.sampled_from(["v", "u", "w"]))
def test_minimize_and_batch(x, estimator):
    ns = np.arange(1, x.shape[1] + 1)
    batch = evp.expected_max(x, ns, estimator=estimator, minimize=True)
    negated = -evp.expected_max(-x, ns, estimator=estimator)
    np.testing.assert_allclose(batch, negated, rtol=1e-14, atol=1e-14)
    for row, result in zip(x, batch, strict=True):
        np.testing.assert_allclose(
            evp.expected_max(row, ns, estimator=estimator, minimize=True), result,
            rtol=1e-13, atol=1e-9)


@settings(max_examples=100, deadline=None)
@given(samples_2d)
def test_std_batch_and_bounds(x):
    ns = np.arange(1, x.shape[1] + 1)
    std = evp.expected_max_std(x, ns)
    assert (std >= 0).all()
    # The std of a variable with values in [min, max] is at most half the range.
    assert (std <= (np.ptp(x, axis=1)[:, None] / 2) * (1 + 1e-9) + 1e-9).all()
    np.testing.assert_allclose(std[:, 0], x.std(axis=1), rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("size", [10_000, 100_000])
@pytest.mark.parametrize("estimator", ["v", "u", "w"])
def test_large_samples_are_finite_and_monotone(size, estimator):
    x = np.random.default_rng(size).normal(0.6, 0.07, size=size)
    ns = np.unique(np.geomspace(1, size, 60).astype(int))
    if estimator != "u":
        ns = np.concatenate([ns, [10 * size, 10**9]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        curve = evp.expected_max(x, ns, estimator=estimator)
    assert np.isfinite(curve).all()
    assert (np.diff(curve) >= -1e-12).all()
    assert x.mean() - 1e-9 <= curve[0] and curve[-1] <= x.max() + 1e-12
    if estimator == "u":
        assert curve[-1] == pytest.approx(x.max(), abs=1e-12)


HUGE = np.array([1, 2, 10, 1e3, 1e9, 1e15, 1e16, 1e17, 1e18, 1e19, 1e50, 1e100,
                 1e200, 1e300])


@pytest.mark.parametrize("estimator", ["v", "w"])
@pytest.mark.parametrize("size", [5, 100, 10_000])
def test_any_budget_up_to_1e300_is_exact_monotone_and_silent(estimator, size):
    x = np.random.default_rng(size).random(size)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        curve = evp.expected_max(x, HUGE, estimator=estimator)
        lowest = evp.expected_max(x, HUGE, estimator=estimator, minimize=True)
        spread = evp.expected_max_std(x, HUGE)
        median = evp.quantile_tuning_curve(x, HUGE)
        median_low = evp.quantile_tuning_curve(x, HUGE, minimize=True)
    assert (np.diff(curve) >= -1e-12).all() and (np.diff(lowest) <= 1e-12).all()
    assert (np.diff(median) >= 0).all() and (np.diff(median_low) <= 0).all()
    # The best of 1e300 rounds is the sample's best, and nothing is left to vary.
    assert curve[-1] == x.max() and lowest[-1] == x.min()
    assert median[-1] == x.max() and median_low[-1] == x.min()
    assert spread[-1] == 0
    # At n = 1e17, 1 - (1 - 1/B)^n is 1 to double precision: the max already.
    assert curve[HUGE == 1e17][0] == pytest.approx(x.max(), abs=1e-12)


def test_w_agrees_with_log_gamma_where_log_gamma_is_exact():
    from scipy.special import gammaln

    size, ns = 60, np.array([1.0, 2.0, 7.0, 60.0, 1e4])
    i = np.arange(1, size + 1)
    log_w = gammaln(i + ns[:, None] - 1) - gammaln(i)
    expected = np.exp(log_w - log_w.max(axis=1, keepdims=True))
    expected /= expected.sum(axis=1, keepdims=True)
    from evp.estimators import _weights

    np.testing.assert_allclose(_weights("w", ns, size), expected, rtol=1e-9,
                               atol=1e-300)


@pytest.mark.parametrize("n", [1e8, 1e12, 1e16, 1e20])
def test_w_weights_keep_their_exact_ratios_at_huge_n(n):
    # C(i+n-2, n-1) grows from i to i+1 by (i+n-1)/i: check it where the weights
    # are not negligible, the three largest scores.
    from evp.estimators import _weights

    size = 60
    w = _weights("w", np.array([n]), size)[0]
    i = np.arange(size - 3, size)  # 1-based i of the 2nd- to 4th-largest score
    np.testing.assert_allclose(w[i] / w[i - 1], (i + n - 1) / i, rtol=1e-12)
    assert w.sum() == pytest.approx(1.0, rel=1e-15)


def test_large_sample_std_is_finite():
    x = np.random.default_rng(1).normal(size=100_000)
    std = evp.expected_max_std(x, [1, 10, 1000, 10**6])
    assert np.isfinite(std).all() and (std >= 0).all()
    assert std[0] == pytest.approx(x.std(), rel=1e-9)


# --------------------------------------------------------- against opda


@pytest.mark.needs("opda")
def test_v_and_u_agree_with_opda():
    import opda.nonparametric as opda_np

    x = np.random.default_rng(3).uniform(size=40)
    ns = np.arange(1, 41)
    dist = opda_np.EmpiricalDistribution(x)
    np.testing.assert_allclose(evp.expected_max(x, ns), dist.v_tuning_curve(ns),
                               rtol=1e-12)
    np.testing.assert_allclose(evp.expected_max(x, ns, estimator="u"),
                               dist.u_tuning_curve(ns), rtol=1e-12)
    np.testing.assert_allclose(
        evp.expected_max(x, ns, minimize=True),
        dist.v_tuning_curve(ns, minimize=True), rtol=1e-12)


# ----------------------------------------------------- quantile tuning curve


def brute_quantile(x, k, q):
    """q-quantile of the max of k draws with replacement, by exact enumeration."""
    values = np.sort(np.unique(x))
    cdf = [Fraction(int(np.sum(np.asarray(x) <= v)), len(x)) ** k for v in values]
    return next(v for v, c in zip(values, cdf, strict=True) if c >= Fraction(q))


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda s: f"B{len(s)}")
@pytest.mark.parametrize("q", [0.1, 0.25, 0.5, 0.75, 0.9])
def test_quantile_curve_matches_enumeration(sample, q):
    ks = [1, 2, 3, 4]
    got = evp.quantile_tuning_curve(sample, ks, q=q)
    assert list(got) == [brute_quantile(sample, k, q) for k in ks]


def test_quantile_curve_exact_ties_do_not_step_past():
    # q = (j/B)**k puts the quantile exactly on X_(j); rounding of q**(1/k) must
    # not move it to X_(j+1).
    for size in (3, 7, 10, 48, 100):
        x = np.arange(1.0, size + 1)
        for k in (1, 2, 3, 5):
            for j in range(1, size + 1):
                q = (j / size) ** k
                if Fraction(j, size) ** k != Fraction(q):
                    continue  # q itself is not exactly representable
                assert evp.quantile_tuning_curve(x, k, q=q) == j, (size, k, j)
    # The classic: 0.1 added up five times is 0.49999999999999994.
    assert evp.quantile_tuning_curve(np.arange(1.0, 11), 1, q=0.5) == 5.0


@pytest.mark.needs("opda")
def test_quantile_curve_agrees_with_opda_on_continuous_data():
    import opda.nonparametric as opda_np

    x = np.random.default_rng(4).normal(size=33)
    ks = np.array([1, 1.5, 2, 3.7, 10, 100])
    dist = opda_np.EmpiricalDistribution(x)
    for q in (0.2, 0.5, 0.8):
        for minimize in (False, True):
            np.testing.assert_array_equal(
                evp.quantile_tuning_curve(x, ks, q=q, minimize=minimize),
                dist.quantile_tuning_curve(ks, q=q, minimize=minimize))


def test_quantile_curve_minimize_is_quantile_of_minimum():
    x = [0.9, 0.2, 0.5, 0.7, 0.4]
    # Median of the min of 2 draws: P(min <= x_(i)) = 1 - (1 - i/5)**2 >= 1/2 first at
    # i = 2 (1 - 0.36 = 0.64).
    assert evp.quantile_tuning_curve(x, 2, minimize=True) == 0.4
    assert evp.quantile_tuning_curve(x, 1, minimize=True) == 0.5


# --------------------------------------------------------- budget to reach


def test_budget_to_reach_matches_brute_force():
    sample = SAMPLES[5]
    for estimator in "vuw":
        curve = [BRUTE[estimator](sample, n) for n in range(1, len(sample) + 1)]
        for target in (0.79, 0.8, 0.82, 0.84):
            expected = next((n for n, c in enumerate(curve, 1) if c >= target), None)
            assert evp.budget_to_reach(sample, target, estimator=estimator) == expected
    assert evp.budget_to_reach(sample, 0.86) is None
    assert evp.budget_to_reach(sample, min(sample)) == 1


def test_budget_to_reach_with_cost_and_minimize():
    scores = [0.5, 0.6, 0.7, 0.8]
    cost = [10.0, 20.0, 30.0, 40.0]
    budget = evp.budget_to_reach(scores, 0.8, estimator="u", cost=cost)
    assert budget == 4 and budget.n == 4 and budget.expected_cost == 100.0
    # One return type: without costs the same Budget, its cost unknown.
    plain = evp.budget_to_reach(scores, 0.8, estimator="u")
    assert isinstance(plain, evp.Budget) and plain == 4
    assert np.isnan(plain.expected_cost)
    assert repr(budget) == "Budget(n=4, expected_cost=100)"
    losses = [0.5, 0.4, 0.3, 0.2]
    assert evp.budget_to_reach(losses, 0.2, estimator="u", minimize=True) == 4
    assert evp.budget_to_reach(losses, 0.1, minimize=True) is None


# ------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"scores": [0.1, np.nan]}, "scores must be finite.*nan at index 1"),
        ({"scores": [0.1, np.inf]}, "scores must be finite.*inf"),
        ({"scores": []}, "scores must not be empty"),
        ({"scores": np.zeros((2, 2, 2))}, "scores must be 1-D or 2-D"),
        ({"scores": ["a", "b"]}, "scores must be numeric"),
        ({"ns": [0, 1]}, "ns must be at least 1.*0"),
        ({"ns": [1.5]}, "ns must be whole numbers.*1.5"),
        ({"ns": [4], "estimator": "u"}, "ns must not exceed.*B = 3.*n = 4"),
        ({"estimator": "x"}, "estimator must be one of"),
        ({"minimize": "yes"}, "minimize must be True or False"),
    ],
)
def test_bad_input_names_the_argument(kwargs, message):
    args = {"scores": [0.1, 0.2, 0.3], "ns": [1, 2]} | kwargs
    with pytest.raises(ValueError, match=message):
        evp.expected_max(**args)


def test_bad_input_elsewhere():
    with pytest.raises(ValueError, match="q must lie in"):
        evp.quantile_tuning_curve([1.0, 2.0], 1, q=1.5)
    with pytest.raises(ValueError, match="ns must be at least 1"):
        evp.quantile_tuning_curve([1.0, 2.0], 0.5)
    with pytest.raises(ValueError, match="cost must have one value per score"):
        evp.budget_to_reach([1.0, 2.0], 1.5, cost=[1.0])
    with pytest.raises(ValueError, match="target must be finite"):
        evp.budget_to_reach([1.0, 2.0], np.nan)
    with pytest.raises(ValueError, match="scores must be 1-D"):
        evp.budget_to_reach([[1.0, 2.0]], 1.5)


def test_pandas_series_accepted():
    import pandas as pd

    x = pd.Series([0.2, 0.9, 0.4], name="accuracy")
    np.testing.assert_allclose(evp.expected_max(x, [1, 3], estimator="u"),
                               [0.5, 0.9])
    with pytest.raises(ValueError, match="one column"):
        evp.expected_max(pd.DataFrame({"a": [1.0], "b": [2.0]}), [1])


def test_estimator_names_in_either_case():
    x = np.random.default_rng(9).random(20)
    for name in "vuw":
        np.testing.assert_array_equal(
            evp.expected_max(x, [1, 5], estimator=name.upper()),
            evp.expected_max(x, [1, 5], estimator=name))
    with pytest.raises(ValueError, match="estimator must be one of"):
        evp.expected_max(x, [1], estimator="x")


@settings(max_examples=100, deadline=None)
@given(samples_2d, st.sampled_from(["v", "u", "w"]), st.booleans())
def test_sorted_and_shuffled_rows_give_the_same_numbers(x, estimator, minimize):
    # Rows already in order skip the sort: the numbers must be those of any other
    # order, bit for bit, and the caller's array is left as it was.
    ns = np.arange(1, x.shape[1] + 1)
    ordered = np.sort(x, axis=1)
    if minimize:
        ordered = ordered[:, ::-1].copy()  # in order once negated
    kept = ordered.copy()
    shuffled = np.random.default_rng(0).permuted(x, axis=1)
    for scores in (ordered, shuffled):
        np.testing.assert_array_equal(
            evp.expected_max(scores, ns, estimator=estimator, minimize=minimize),
            evp.expected_max(x, ns, estimator=estimator, minimize=minimize))
    np.testing.assert_array_equal(ordered, kept)
