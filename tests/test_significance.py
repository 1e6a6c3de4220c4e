"""Tests of the paired permutation and bootstrap significance tests."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from scipy import stats

from evp.significance import (
    BootstrapTestResult,
    PermutationTestResult,
    bootstrap_shift_test,
    paired_permutation_test,
)

ALTERNATIVES = ("two-sided", "greater", "less")

# The lecture example: 10 folds, System A beats System B by 0.07 on average.
SYSTEM_A = np.array([0.84, 0.79, 0.88, 0.76, 0.83, 0.81, 0.86, 0.78, 0.82, 0.80])
SYSTEM_B = np.array([0.72, 0.74, 0.73, 0.78, 0.75, 0.75, 0.76, 0.74, 0.75, 0.75])


def _mean_difference(x, y, axis):
    return np.mean(x - y, axis=axis)


def _scipy_exact(x, y, alternative):
    return stats.permutation_test(
        (x, y), _mean_difference, permutation_type="samples", n_resamples=np.inf,
        vectorized=True, alternative=alternative,
    )


def _binomial_error(p, size):
    return np.sqrt(p * (1 - p) / size)


# ------------------------------------------------------------ permutation test


def test_hand_computed_example():
    # d = x - y = (1, 2, -1), T = 2/3. The sums of ±1 ±2 ±1 over all 8 sign
    # patterns, flipping (d1, d2, d3):
    #   (+,+,+)  1+2-1 =  2      (+,+,-)  1+2+1 =  4
    #   (-,+,+) -1+2-1 =  0      (-,+,-) -1+2+1 =  2
    #   (+,-,+)  1-2-1 = -2      (+,-,-)  1-2+1 =  0
    #   (-,-,+) -1-2-1 = -4      (-,-,-) -1-2+1 = -2
    # greater: sums >= 2 are {2, 4, 2}: 3/8. less: sums <= 2 are all but 4: 7/8.
    # two-sided: |sum| >= 2 are {2, -2, -4, 4, 2, -2}: 6/8.
    x, y = [3.0, 5.0, 2.0], [2.0, 3.0, 3.0]
    expected = {"greater": 3 / 8, "less": 7 / 8, "two-sided": 6 / 8}
    for alternative, pvalue in expected.items():
        res = paired_permutation_test(x, y, alternative=alternative)
        assert res.statistic == pytest.approx(2 / 3, abs=1e-15)
        assert res.pvalue == pvalue
        assert res.n_resamples is None
        assert res.alternative == alternative
        np.testing.assert_allclose(
            np.sort(res.null_distribution),
            np.array([-4, -2, -2, 0, 0, 2, 2, 4]) / 3, atol=1e-15,
        )


@pytest.mark.parametrize("alternative", ALTERNATIVES)
@pytest.mark.parametrize("seed", range(4))
def test_exact_agrees_with_scipy(alternative, seed):
    rng = np.random.default_rng(seed)
    n = 6 + 2 * seed
    if seed % 2:  # lattice scores, with many ties in the null distribution
        x = rng.integers(0, 20, n) / 20
        y = rng.integers(0, 20, n) / 20
    else:
        x = rng.normal(0.3, 1.0, n)
        y = rng.normal(0.0, 1.0, n)
    ours = paired_permutation_test(x, y, alternative=alternative)
    theirs = _scipy_exact(x, y, alternative)
    assert ours.statistic == pytest.approx(theirs.statistic, abs=1e-12)
    assert ours.pvalue == pytest.approx(theirs.pvalue, abs=1e-12)
    assert ours.null_distribution.size == 2**n
    np.testing.assert_allclose(
        np.sort(ours.null_distribution), np.sort(theirs.null_distribution),
        atol=1e-12,
    )


def test_zero_statistic_gives_pvalue_one():
    x = [0.5, 0.7, 0.6, 0.4]
    y = [0.6, 0.6, 0.5, 0.5]
    assert paired_permutation_test(x, y).pvalue == 1.0


@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_monte_carlo_within_binomial_error_of_exact(alternative):
    rng = np.random.default_rng(7)
    x = rng.normal(0.25, 1.0, 14)
    y = rng.normal(0.0, 1.0, 14)
    exact = paired_permutation_test(x, y, alternative=alternative).pvalue
    size = 50_000
    res = paired_permutation_test(
        x, y, alternative=alternative, n_resamples=size, rng=np.random.default_rng(3)
    )
    assert res.n_resamples == size
    assert res.null_distribution.shape == (size,)
    assert abs(res.pvalue - exact) <= 4 * _binomial_error(exact, size) + 1 / size


def test_monte_carlo_never_zero_and_reproducible():
    x, y = np.ones(30), np.zeros(30)
    res = paired_permutation_test(x, y, n_resamples=999, rng=0)
    assert res.pvalue == pytest.approx(1 / 1000)
    again = paired_permutation_test(x, y, n_resamples=999, rng=0)
    np.testing.assert_array_equal(res.null_distribution, again.null_distribution)


def test_exact_refuses_many_pairs():
    with pytest.raises(ValueError, match="n_resamples"):
        paired_permutation_test(np.ones(21), np.zeros(21))
    # 20 pairs is still exact.
    res = paired_permutation_test(np.ones(20), np.zeros(20), alternative="greater")
    assert res.pvalue == 2.0**-20


def test_lecture_example():
    res = paired_permutation_test(SYSTEM_A, SYSTEM_B)
    assert res.statistic == pytest.approx(0.07, abs=1e-12)
    # Differences 0.12, 0.05, 0.15, -0.02, 0.08, 0.06, 0.10, 0.04, 0.07, 0.05: of
    # the 1024 sign patterns only the observed one and the one flipping -0.02
    # reach a mean of 0.07 or more, so p = 2 * 2/1024.
    assert res.pvalue == pytest.approx(4 / 1024, abs=1e-12)
    assert res.pvalue == pytest.approx(
        _scipy_exact(SYSTEM_A, SYSTEM_B, "two-sided").pvalue, abs=1e-12
    )
    assert paired_permutation_test(
        SYSTEM_A, SYSTEM_B, alternative="greater"
    ).pvalue == pytest.approx(2 / 1024, abs=1e-12)
    # The bootstrap test agrees that the difference is significant.
    boot = bootstrap_shift_test(SYSTEM_A, SYSTEM_B, rng=0)
    assert boot.statistic == pytest.approx(0.07, abs=1e-12)
    assert boot.pvalue < 0.01


def _null_rejection_rate(test, n_pairs, n_datasets=2000, **kwargs):
    rng = np.random.default_rng(12345)
    x = rng.normal(size=(n_datasets, n_pairs))
    y = rng.normal(size=(n_datasets, n_pairs))
    pvalues = np.array([test(a, b, **kwargs).pvalue for a, b in zip(x, y, strict=True)])
    return np.mean(pvalues <= 0.05)


@pytest.mark.parametrize("alternative", ["two-sided", "greater"])
def test_permutation_test_holds_level_under_null(alternative):
    rate = _null_rejection_rate(
        paired_permutation_test, 10, alternative=alternative
    )
    assert rate <= 0.05 + 3 * _binomial_error(0.05, 2000)
    assert rate >= 0.05 - 4 * _binomial_error(0.05, 2000)  # not trivially small


@pytest.mark.parametrize("alternative", ["two-sided", "greater"])
def test_bootstrap_test_holds_level_under_null(alternative):
    rate = _null_rejection_rate(
        bootstrap_shift_test, 50, alternative=alternative, n_resamples=2000,
        rng=np.random.default_rng(0),
    )
    assert rate <= 0.05 + 3 * _binomial_error(0.05, 2000)


def test_bootstrap_test_is_liberal_for_few_pairs():
    # Documented: with 10 pairs the bootstrap test rejects too often; the
    # permutation test on the same null datasets does not.
    rate = _null_rejection_rate(
        bootstrap_shift_test, 10, n_resamples=2000, rng=np.random.default_rng(0)
    )
    assert rate > 0.05 + 3 * _binomial_error(0.05, 2000)


# -------------------------------------------------------------- bootstrap test


@pytest.mark.parametrize("alternative", ALTERNATIVES)
@pytest.mark.parametrize("shift", ["observed", "mean"])
def test_bootstrap_matches_reference_loop(alternative, shift):
    rng = np.random.default_rng(11)
    x = rng.normal(0.2, 1.0, 9)
    y = rng.normal(0.0, 1.0, 9)
    size = 500
    res = bootstrap_shift_test(
        x, y, alternative=alternative, n_resamples=size, rng=np.random.default_rng(5),
        shift=shift,
    )
    # Reference: one resample at a time, drawn from the same stream.
    d = x - y
    index = np.random.default_rng(5).integers(0, d.size, size=(size, d.size))
    boot = np.array([d[row].mean() for row in index])
    observed = d.mean()
    null = boot - (observed if shift == "observed" else boot.mean())
    if alternative == "greater":
        extreme = np.sum(null >= observed)
    elif alternative == "less":
        extreme = np.sum(null <= observed)
    else:
        extreme = np.sum(np.abs(null) >= abs(observed))
    # evp's one convention for Monte Carlo p-values: (c + 1) / (R + 1).
    assert res.pvalue == pytest.approx((extreme + 1) / (size + 1), abs=1e-12)
    np.testing.assert_allclose(res.null_distribution, null, atol=1e-12)
    assert res.n_resamples == size
    assert res.alternative == alternative


def test_bootstrap_observed_shift_is_berg_kirkpatrick_test():
    # For "greater", T* - T >= T is the test T* >= 2T of Berg-Kirkpatrick et al.
    x, y = SYSTEM_A, SYSTEM_B
    res = bootstrap_shift_test(x, y, alternative="greater", n_resamples=20_000, rng=1)
    boot = res.null_distribution + res.statistic
    extreme = np.sum(boot >= 2 * res.statistic - 1e-12)
    assert res.pvalue == pytest.approx((extreme + 1) / (boot.size + 1))


def test_bootstrap_chunks_and_shift_mean():
    rng = np.random.default_rng(2)
    x = rng.normal(0.1, 1.0, 40)
    y = rng.normal(0.0, 1.0, 40)
    # 300,000 resamples of 40 pairs span several chunks.
    res = bootstrap_shift_test(x, y, n_resamples=300_000, rng=0, shift="mean")
    assert res.null_distribution.shape == (300_000,)
    assert abs(res.null_distribution.mean()) < 1e-12
    observed = bootstrap_shift_test(x, y, n_resamples=300_000, rng=0)
    assert observed.pvalue == pytest.approx(res.pvalue, abs=0.01)


def test_shift_mean_drops_one_boundary_lattice_point():
    # 0/1 correctness per query: every bootstrap mean is a multiple of 1/n. With the
    # same resamples, shifting by the Monte-Carlo mean moves the cut-off slightly
    # off the lattice, so exactly one of the boundary points T* = 2T, T* = 0 leaves
    # the two-sided tail (the docstring's claim).
    rng = np.random.default_rng(7)
    x = (rng.uniform(size=300) < 0.80).astype(float)
    y = (rng.uniform(size=300) < 0.77).astype(float)
    for seed in range(5):
        observed = bootstrap_shift_test(x, y, n_resamples=20_000, rng=seed)
        mean = bootstrap_shift_test(x, y, n_resamples=20_000, rng=seed, shift="mean")
        boot = observed.null_distribution + observed.statistic  # the T*
        t = observed.statistic
        at_zero = np.mean(np.isclose(boot, 0.0, atol=1e-9))
        at_2t = np.mean(np.isclose(boot, 2 * t, atol=1e-9))
        assert min(at_zero, at_2t) > 0.005
        # p = (c + 1)/(R + 1): a point of mass m moves p by m R/(R + 1).
        dropped = (observed.pvalue - mean.pvalue) * (20_001 / 20_000)
        assert min(abs(dropped - at_zero), abs(dropped - at_2t)) < 1e-12


# ----------------------------------------------------------------- bad input


def test_results_are_frozen():
    res = paired_permutation_test([1.0, 2.0], [0.0, 0.0])
    assert isinstance(res, PermutationTestResult)
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.pvalue = 0.0
    boot = bootstrap_shift_test([1.0, 2.0], [0.0, 0.0], n_resamples=10, rng=0)
    assert isinstance(boot, BootstrapTestResult)
    with pytest.raises(dataclasses.FrozenInstanceError):
        boot.pvalue = 0.0


@pytest.mark.parametrize("test", [paired_permutation_test, bootstrap_shift_test])
@pytest.mark.parametrize(
    ("x", "y", "kwargs", "argument"),
    [
        ([1.0, 2.0, 3.0], [1.0, 2.0], {}, "equal length"),
        ([1.0, np.nan, 3.0], [1.0, 2.0, 3.0], {}, "x must be finite"),
        ([1.0, 2.0, 3.0], [1.0, 2.0, np.inf], {}, "y must be finite"),
        ([1.0], [0.0], {}, "at least 2 pairs"),
        ([], [], {}, "x must not be empty"),
        ([[1.0, 2.0]], [[0.0, 1.0]], {}, "x must be 1-D"),
        ([1.0, 2.0], [0.0, 1.0], {"alternative": "both"}, "alternative"),
        ([1.0, 2.0], [0.0, 1.0], {"n_resamples": 0}, "n_resamples"),
        ([1.0, 2.0], [0.0, 1.0], {"n_resamples": 2.5}, "n_resamples"),
    ],
)
def test_bad_input(test, x, y, kwargs, argument):
    with pytest.raises(ValueError, match=argument):
        test(x, y, **kwargs)


def test_bad_shift():
    with pytest.raises(ValueError, match="shift"):
        bootstrap_shift_test([1.0, 2.0], [0.0, 1.0], shift="median")
