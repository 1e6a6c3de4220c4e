"""The bands on discrete scores (ties): what deberta_coverage's ties study rests on.

For a step CDF F the band holds when F lies between the band's two step functions at
every score, both sides of each jump: l_i <= F(Y_(i)) and F(Y_(i)-) <= u_i. Then

* drawing Y = F^-1(U) from sorted uniforms U, the band holds whenever the uniforms lie
  in it (F(Y-) <= U <= F(Y)), so no band under-covers on discrete scores; and
* the quantile band of `evp.tuning_curve_band` holds at every level p in (0, 1)
  exactly when the CDF band holds, with or without ties.

Both are checked search by search against evp's own bands, so a change in how evp
builds the bands' step functions from tied scores, or which tied score a quantile
picks, fails here.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import evp

# A discrete score distribution with a heavy atom at the bottom (diverged runs) and
# uneven masses above it; bounds (0, 1).
SUPPORT = np.array([0.35, 0.80, 0.84, 0.86, 0.87, 0.88, 0.90])
MASS = np.array([0.15, 0.05, 0.10, 0.25, 0.20, 0.15, 0.10])
CUM = np.cumsum(MASS)
CUM[-1] = 1.0
BOUNDS = (0.0, 1.0)


def discrete_searches(searches: int, rounds: int, seed: int = 0):
    """Sorted uniforms, the scores F^-1(U) and F, F- at each of them."""
    draws = np.random.default_rng(seed).uniform(size=(searches, rounds))
    uniforms = np.sort(draws, axis=1)
    index = np.searchsorted(CUM, uniforms, side="left")  # min{j : F(v_j) >= U}
    at = CUM[index]
    before = np.r_[0.0, CUM][index]
    return uniforms, SUPPORT[index], at, before


def band_bounds(scores, confidence, method):
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="scores contain ties")
        band = evp.cdf_band(scores, confidence, method=method)
    return band.lower, band.upper


@pytest.mark.parametrize("method",
                         ["ld_highest_density", "ld_equal_tailed", "ks", "dkw"])
def test_quantile_band_at_every_level_holds_exactly_when_the_cdf_band_does(method):
    _, scores, at, before = discrete_searches(300, 12)
    confidence = 0.8
    lower_cdf, upper_cdf = band_bounds(scores, confidence, method)
    cdf_hit = ((lower_cdf <= at) & (before <= upper_cdf)).all(axis=1)
    # Every level p in (0, 1): one inside each gap between the band's bounds and F's
    # values, where all the step functions involved are constant; the band of the
    # p-quantile of the best of one round is evp's band at that level.
    cut = np.unique(np.r_[0.0, lower_cdf, upper_cdf, CUM, 1.0])
    levels = (cut[:-1] + cut[1:]) / 2
    curve_hit = np.ones(len(scores), dtype=bool)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="scores contain ties")
        for p in levels:
            band = evp.tuning_curve_band(scores, [1.0], confidence, method=method, q=p,
                                         bounds=BOUNDS)
            truth = SUPPORT[min(np.searchsorted(CUM, p, side="left"), SUPPORT.size - 1)]
            curve_hit &= (band.lower[:, 0] <= truth) & (truth <= band.upper[:, 0])
    # Neither always nor never: the comparison has something to compare.
    assert 0 < cdf_hit.sum() < len(scores)
    np.testing.assert_array_equal(curve_hit, cdf_hit)


@pytest.mark.parametrize("method", ["ld_highest_density", "ks"])
def test_no_band_under_covers_on_discrete_scores(method):
    uniforms, scores, at, before = discrete_searches(2_000, 20, seed=1)
    confidence = 0.9
    lower_cdf, upper_cdf = band_bounds(scores, confidence, method)
    continuous_hit = ((lower_cdf <= uniforms) & (uniforms <= upper_cdf)).all(axis=1)
    cdf_hit = ((lower_cdf <= at) & (before <= upper_cdf)).all(axis=1)
    # Search by search: the uniforms in the band => the discrete band holds.
    assert not (continuous_hit & ~cdf_hit).any()
    # The uniforms' coverage is the confidence (KS and LD are exact): within 4
    # standard errors, and the discrete coverage at least as high.
    se = np.sqrt(confidence * (1 - confidence) / len(scores))
    assert abs(continuous_hit.mean() - confidence) < 4 * se
    assert cdf_hit.mean() >= continuous_hit.mean()
    # Read with the right limits alone, the heavy atom at the bottom (a jump of 0.15)
    # would make the band fail far more often than 1 - confidence.
    right_only = ((lower_cdf <= at) & (at <= upper_cdf)).all(axis=1)
    assert right_only.mean() < confidence - 4 * se
