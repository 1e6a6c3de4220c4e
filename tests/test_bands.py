"""CDF and tuning-curve bands: exact coverage, simulation, opda, compare()."""

import math
import warnings

import numpy as np
import pytest
from scipy import integrate, stats

import evp
from evp._step_cdf import first_reaching as _first_reaching
from evp.analyses import describe_comparison
from evp.bands import band_coverage

METHODS = ["dkw", "ks", "ld_equal_tailed", "ld_highest_density"]
EXACT = ["ks", "ld_equal_tailed", "ld_highest_density"]


def clopper_pearson(successes, trials, level=0.999):
    return stats.binomtest(successes, trials).proportion_ci(level, method="exact")


# ----------------------------------------------------- the exact coverage


@pytest.mark.parametrize("lower, upper", [(0.1, 0.9), (0.0, 0.3), (0.25, 1.0),
                                          (0.5, 0.5)])
def test_coverage_of_one_uniform_is_the_interval_length(lower, upper):
    assert band_coverage([lower], [upper]) == pytest.approx(upper - lower, abs=1e-14)


def two_uniforms_by_integration(l1, u1, l2, u2):
    """2 × area of {x < y : l1 ≤ x ≤ u1, l2 ≤ y ≤ u2} (density of (U_(1), U_(2)))."""
    def length(x):
        return max(0.0, u2 - max(x, l2))
    area, _ = integrate.quad(length, l1, u1, points=[l2, u2], epsabs=1e-13)
    return 2 * area


def test_coverage_of_two_uniforms_matches_integration():
    rng = np.random.default_rng(11)
    for _ in range(50):
        l1, u1 = np.sort(rng.random(2))
        l2, u2 = np.sort(rng.random(2))
        got = band_coverage([l1, l2], [u1, u2])
        assert got == pytest.approx(two_uniforms_by_integration(l1, u1, l2, u2),
                                    abs=1e-10)


def test_coverage_of_three_uniforms_matches_monte_carlo():
    rng = np.random.default_rng(12)
    u = np.sort(rng.random((1_000_000, 3)), axis=1)
    for lower, upper in [([0.0, 0.1, 0.3], [0.5, 0.8, 1.0]),
                         ([0.05, 0.2, 0.6], [0.3, 0.7, 0.95]),
                         ([0.2, 0.2, 0.2], [0.6, 0.6, 0.6])]:
        inside = np.all((u >= lower) & (u <= upper), axis=1)
        p = inside.mean()
        error = math.sqrt(p * (1 - p) / len(inside))
        assert abs(band_coverage(lower, upper) - p) < 5 * error + 1e-6


@pytest.mark.parametrize("n", [1, 2, 3, 7, 20, 64, 140])
@pytest.mark.parametrize("confidence", [0.5, 0.8, 0.95, 0.999])
def test_coverage_of_ks_band_is_the_kolmogorov_distribution(n, confidence):
    # scipy evaluates the Kolmogorov distribution exactly for n <= 140.
    epsilon = stats.kstwo(n).ppf(confidence)
    i = np.arange(1, n + 1)
    lower = np.clip(i / n - epsilon, 0, 1)
    upper = np.clip((i - 1) / n + epsilon, 0, 1)
    assert band_coverage(lower, upper) == pytest.approx(
        stats.kstwo(n).cdf(epsilon), abs=1e-11)


def test_coverage_of_impossible_bounds_is_zero():
    assert band_coverage([0.5, 0.1], [0.6, 0.4]) == 0.0  # U_(2) ≤ 0.4 < U_(1)
    assert band_coverage([0.0, 0.0], [0.0, 1.0]) == 0.0


# ------------------------------------------------------------- CDF bands


def test_dkw_and_ks_bands_have_the_closed_form():
    scores = np.random.default_rng(0).normal(size=37)
    n = len(scores)
    i = np.arange(1, n + 1)
    epsilon = {"dkw": math.sqrt(math.log(2 / 0.1) / (2 * n)),
               "ks": stats.kstwo(n).ppf(0.9)}
    for method, eps in epsilon.items():
        band = evp.cdf_band(scores, 0.9, method=method)
        np.testing.assert_allclose(band.lower, np.clip(i / n - eps, 0, 1), atol=1e-15)
        np.testing.assert_allclose(band.upper, np.clip((i - 1) / n + eps, 0, 1),
                                   atol=1e-15)
        np.testing.assert_array_equal(band.scores, np.sort(scores))


@pytest.mark.parametrize("method", ["ld_equal_tailed", "ld_highest_density"])
@pytest.mark.parametrize("confidence", [0.3, 0.8, 0.99])
def test_ld_band_with_one_score_is_the_central_interval(method, confidence):
    band = evp.cdf_band([4.2], confidence, method=method)
    assert band.level == pytest.approx(confidence, abs=1e-15)
    assert band.lower[0] == pytest.approx((1 - confidence) / 2)
    assert band.upper[0] == pytest.approx((1 + confidence) / 2)


@pytest.mark.parametrize("n", [2, 3, 10, 48, 301])
def test_ld_intervals_are_equal_tailed_or_highest_density(n):
    i = np.arange(1, n + 1)
    beta = stats.beta(i, n + 1 - i)
    et = evp.cdf_band(np.arange(n), 0.8, method="ld_equal_tailed")
    alpha = 1 - et.level
    np.testing.assert_allclose(beta.cdf(et.lower), alpha / 2, rtol=1e-9)
    np.testing.assert_allclose(beta.sf(et.upper), alpha / 2, rtol=1e-9)

    hd = evp.cdf_band(np.arange(n), 0.8, method="ld_highest_density")
    np.testing.assert_allclose(beta.cdf(hd.upper) - beta.cdf(hd.lower), hd.level,
                               rtol=1e-10)
    # Equal density at both ends, except the monotone densities at i = 1 and n.
    assert hd.lower[0] == 0 and hd.upper[-1] == 1
    inner = slice(1, n - 1)
    np.testing.assert_allclose(beta.logpdf(hd.lower)[inner],
                               beta.logpdf(hd.upper)[inner], atol=1e-7)
    # At the same level, highest density is the shorter interval.
    tail = (1 - hd.level) / 2
    assert np.all(hd.upper - hd.lower <= beta.isf(tail) - beta.ppf(tail) + 1e-12)


@pytest.mark.needs("opda")
@pytest.mark.parametrize("n", [2, 3, 10, 48, 301])
def test_hd_intervals_equal_opdas_bisection(n):
    # The same intervals as opda's (an independent bisection) at the same level.
    from opda.utils import beta_highest_density_interval

    i = np.arange(1, n + 1)
    hd = evp.cdf_band(np.arange(n), 0.8, method="ld_highest_density")
    lo, hi = beta_highest_density_interval(i, n + 1 - i, hd.level)
    np.testing.assert_allclose(hd.lower[1:], lo[1:], atol=1e-9)
    np.testing.assert_allclose(hd.upper[:-1], hi[:-1], atol=1e-9)


@pytest.mark.parametrize("method", EXACT)
@pytest.mark.parametrize("n", [2, 5, 48, 200])
def test_ld_level_is_solved_to_the_confidence(method, n):
    for confidence in [0.5, 0.8, 0.95]:
        band = evp.cdf_band(np.arange(n), confidence, method=method)
        tolerance = 1e-6 if method == "ks" else 1e-8  # scipy's kstwo beyond n = 140
        assert band_coverage(band.lower, band.upper) == pytest.approx(
            confidence, abs=tolerance)


@pytest.mark.parametrize("n", [5, 48, 200])
def test_cdf_bands_cover_uniform_order_statistics_by_simulation(n):
    trials = 20_000
    rng = np.random.default_rng(n)
    u = np.sort(rng.random((trials, n)), axis=1)
    for confidence in [0.5, 0.8, 0.95]:
        for method in METHODS:
            band = evp.cdf_band(np.arange(n), confidence, method=method)
            covered = np.all((band.lower <= u) & (u <= band.upper), axis=1).sum()
            interval = clopper_pearson(int(covered), trials)
            if method == "dkw":  # conservative
                assert interval.high >= confidence, (method, confidence)
            else:
                assert interval.low <= confidence <= interval.high, (
                    method, confidence, covered / trials)


def test_ld_band_at_ten_thousand_scores():
    n = 10_000
    band = evp.cdf_band(np.arange(n), 0.8)
    assert np.all(np.diff(band.lower) > 0) and np.all(np.diff(band.upper) > 0)
    assert np.all(band.lower < band.upper)
    # The first interval of the highest-density band is [0, 1 - alpha**(1/n)].
    assert band.upper[0] == pytest.approx(1 - (1 - band.level) ** (1 / n), rel=1e-9)
    assert band_coverage(band.lower, band.upper) == pytest.approx(0.8, abs=1e-8)


def test_bounds_are_cached_and_read_only():
    first = evp.cdf_band(np.random.default_rng(1).random(64), 0.77)
    second = evp.cdf_band(np.random.default_rng(2).random(64), 0.77)
    assert first.lower is second.lower and first.upper is second.upper
    with pytest.raises(ValueError):
        first.lower[0] = 0.5


def test_cdf_band_of_several_samples_sorts_each_row():
    scores = np.random.default_rng(3).random((4, 9))
    band = evp.cdf_band(scores, 0.8, method="ks")
    np.testing.assert_array_equal(band.scores, np.sort(scores, axis=1))
    assert band.lower.shape == (9,)


# ---------------------------------------------------- tuning-curve bands


def median_curve_of_max(ppf, ks):
    return ppf(0.5 ** (1 / ks))


def test_median_band_covers_the_true_exponential_curve_by_simulation():
    n, trials, confidence = 30, 4_000, 0.8
    ks = np.concatenate([np.arange(1, 41), np.linspace(1.5, 60, 25)])
    truth = median_curve_of_max(stats.expon.ppf, ks)
    scores = np.random.default_rng(4).exponential(size=(trials, n))
    band = evp.tuning_curve_band(scores, ks, confidence)
    assert band.lower.shape == (trials, len(ks))
    covered = np.all((band.lower <= truth) & (truth <= band.upper), axis=1).sum()
    # The curve band follows from the CDF band, so it covers at least as often.
    assert clopper_pearson(int(covered), trials).high >= confidence
    # And the band is informative: it does not cover every time.
    assert covered < trials


def test_median_band_for_losses_covers_the_true_curve_by_simulation():
    n, trials, confidence = 25, 4_000, 0.8
    ks = np.arange(1, 30)
    truth = stats.uniform.ppf(1 - 0.5 ** (1 / ks))  # median of the min of k
    losses = np.random.default_rng(5).random((trials, n))
    band = evp.tuning_curve_band(losses, ks, confidence, method="ld_equal_tailed",
                                 minimize=True)
    covered = np.all((band.lower <= truth) & (truth <= band.upper), axis=1).sum()
    assert clopper_pearson(int(covered), trials).high >= confidence


def test_mean_band_covers_the_true_uniform_curve_by_simulation():
    n, trials, confidence = 40, 3_000, 0.8
    ks = np.arange(1, 50)
    truth = ks / (ks + 1)  # E max of k Uniform(0, 1)
    scores = np.random.default_rng(6).random((trials, n))
    band = evp.tuning_curve_band(scores, ks, confidence, statistic="mean",
                                 bounds=(0, 1))
    covered = np.all((band.lower <= truth) & (truth <= band.upper), axis=1).sum()
    assert clopper_pearson(int(covered), trials).high >= confidence


def test_rows_of_a_2d_call_equal_1d_calls():
    scores = np.random.default_rng(7).normal(size=(3, 15))
    ks = [1, 2.5, 7]
    for statistic, bounds in [("median", (None, None)), ("mean", (-9, 9))]:
        both = evp.tuning_curve_band(scores, ks, statistic=statistic, bounds=bounds)
        for row, sample in enumerate(scores):
            one = evp.tuning_curve_band(sample, ks, statistic=statistic,
                                        bounds=bounds)
            for field in ["lower", "estimate", "upper"]:
                np.testing.assert_allclose(getattr(both, field)[row],
                                           getattr(one, field), rtol=1e-14)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("statistic", ["median", "mean"])
def test_band_contains_its_estimate_and_grows_with_k(method, statistic):
    rng = np.random.default_rng(8)
    ks = np.linspace(1, 80, 60)
    for n in [1, 2, 9, 50]:
        for minimize in [False, True]:
            scores = rng.beta(2, 5, size=n)
            band = evp.tuning_curve_band(scores, ks, method=method,
                                         statistic=statistic, bounds=(0, 1),
                                         minimize=minimize)
            assert np.all(band.lower <= band.estimate)
            assert np.all(band.estimate <= band.upper)
            direction = -1 if minimize else 1
            for curve in [band.lower, band.estimate, band.upper]:
                assert np.all(direction * np.diff(curve) >= -1e-12)


def test_median_estimate_is_the_quantile_tuning_curve_and_mean_is_v():
    scores = np.random.default_rng(9).normal(size=21)
    ks = np.arange(1, 30)
    band = evp.tuning_curve_band(scores, ks, q=0.3)
    np.testing.assert_array_equal(band.estimate,
                                  evp.quantile_tuning_curve(scores, ks, q=0.3))
    for minimize in [False, True]:
        mean = evp.tuning_curve_band(scores, ks, statistic="mean", bounds=(-5, 5),
                                     minimize=minimize)
        np.testing.assert_allclose(
            mean.estimate, evp.expected_max(scores, ks, minimize=minimize),
            rtol=1e-12)


def test_vacuous_ends_are_the_bounds_or_infinite():
    scores = np.random.default_rng(10).random(6)
    ks = [1, 50]
    band = evp.tuning_curve_band(scores, ks, 0.95)
    assert band.lower[0] == -np.inf and band.upper[-1] == np.inf
    bounded = evp.tuning_curve_band(scores, ks, 0.95, bounds=(-1, 2))
    assert bounded.lower[0] == -1 and bounded.upper[-1] == 2


def test_band_rule_does_not_step_past_a_rounded_tie():
    # A CDF of 100 equal masses, normalised as opda does, lands a hair under 1/2
    # at the 50th point.
    cdf = np.cumsum(np.full(100, 0.01))
    cdf /= cdf[-1]
    assert cdf[49] < 0.5
    assert _first_reaching(cdf, np.array([0.5]))[0] == 49
    assert _first_reaching(cdf, np.array([0.5 + 1e-9]))[0] == 50


@pytest.mark.parametrize("statistic, q", [("median", 0.5), ("median", 0.3),
                                          ("mean", None)])
def test_minimize_is_the_same_band_on_negated_scores(statistic, q):
    losses = np.random.default_rng(13).gamma(2.0, size=33)
    ks = np.linspace(1, 40, 30)
    options = dict(method="ld_highest_density", statistic=statistic)
    if q is None:
        loss_band = evp.tuning_curve_band(losses, ks, bounds=(0, 40), minimize=True,
                                          **options)
        score_band = evp.tuning_curve_band(-losses, ks, bounds=(-40, 0), **options)
        np.testing.assert_allclose(loss_band.lower, -score_band.upper, rtol=1e-12)
        np.testing.assert_allclose(loss_band.upper, -score_band.lower, rtol=1e-12)
    else:
        loss_band = evp.tuning_curve_band(losses, ks, q=q, minimize=True, **options)
        score_band = evp.tuning_curve_band(-losses, ks, q=1 - q, **options)
        np.testing.assert_array_equal(loss_band.lower, -score_band.upper)
        np.testing.assert_array_equal(loss_band.upper, -score_band.lower)


# ------------------------------------------------------------ against opda


def opda_curves(scores, ns, method, a, b, minimize, statistic="median"):
    from opda.nonparametric import EmpiricalDistribution

    lower_cdf, point_cdf, upper_cdf = EmpiricalDistribution.confidence_bands(
        scores, 0.8, a, b, method=method)
    curve = ("quantile_tuning_curve" if statistic == "median"
             else "average_tuning_curve")
    return tuple(getattr(d, curve)(ns, minimize=minimize)
                 for d in (upper_cdf, point_cdf, lower_cdf))


@pytest.mark.needs("opda")
@pytest.mark.parametrize("method", ["dkw", "ks"])
@pytest.mark.parametrize("n", [1, 2, 7, 48, 100])
def test_dkw_and_ks_median_bands_equal_opdas(method, n):
    scores = np.random.default_rng(n).normal(size=n)
    ns = np.concatenate([np.arange(1, 60), np.linspace(1.1, 100, 23)])
    for a, b in [(None, None), (-10.0, 10.0), (scores.min(), scores.max())]:
        for minimize in [False, True]:
            ours = evp.tuning_curve_band(scores, ns, method=method, bounds=(a, b),
                                         minimize=minimize)
            lower, estimate, upper = opda_curves(
                scores, ns, method, -np.inf if a is None else a,
                np.inf if b is None else b, minimize)
            np.testing.assert_array_equal(ours.lower, lower)
            np.testing.assert_array_equal(ours.upper, upper)
            # opda's cumulative sums of 1/n can land a hair under i/n (e.g.
            # 0.49999999999999994 for 50/100) and step one score too far; compare
            # the estimate where n·p is not a whole number.
            p = (1 - 0.5 ** (1 / ns)) if minimize else 0.5 ** (1 / ns)
            clean = np.abs(n * p - np.round(n * p)) > 1e-9
            np.testing.assert_array_equal(ours.estimate[clean], estimate[clean])


@pytest.mark.needs("opda")
@pytest.mark.parametrize("method", ["dkw", "ks"])
def test_mean_bands_equal_opdas(method):
    scores = np.random.default_rng(14).beta(3, 2, size=40)
    ns = np.linspace(1, 60, 40)
    for minimize in [False, True]:
        ours = evp.tuning_curve_band(scores, ns, method=method, statistic="mean",
                                     bounds=(0, 1), minimize=minimize)
        lower, estimate, upper = opda_curves(scores, ns, method, 0.0, 1.0, minimize,
                                             statistic="mean")
        np.testing.assert_allclose(ours.lower, lower, rtol=1e-12)
        np.testing.assert_allclose(ours.estimate, estimate, rtol=1e-12)
        np.testing.assert_allclose(ours.upper, upper, rtol=1e-12)


@pytest.mark.needs("opda")
@pytest.mark.parametrize("kind", ["equal_tailed", "highest_density"])
def test_ld_bands_agree_with_opda_within_its_simulation_error(kind):
    # opda's band weights are private; this test follows them where they are.
    from opda.nonparametric import _ld_band_weights

    n, confidence = 20, 0.8
    lo, hi = _ld_band_weights(n, confidence, kind, np.random.default_rng(15),
                              n_jobs=1)
    opda_lower, opda_upper = lo[1:], hi[:-1]
    # opda's 100,000 simulated samples leave about ±10% error in 1 - confidence
    # (its own comment); our exact computation tells how far its band is off.
    opda_miss = 1 - band_coverage(opda_lower, opda_upper)
    assert opda_miss == pytest.approx(1 - confidence, rel=0.15)
    ours = evp.cdf_band(np.arange(n), confidence, method=f"ld_{kind}")
    np.testing.assert_allclose(ours.lower, opda_lower, atol=5e-3)
    np.testing.assert_allclose(ours.upper, opda_upper, atol=5e-3)


# --------------------------------------------------------------- compare


def test_compare_separated_samples_is_strong_where_the_bands_are_informative():
    rng = np.random.default_rng(16)
    good, bad = rng.normal(1.0, 0.1, 200), rng.normal(0.0, 0.1, 200)
    result = evp.compare(good, bad, [1, 5, 20, 60])
    # At k = 60 the 200 scores cannot bound the median of the best of k from
    # above (b's upper band is +inf), so only the estimate's side is evidence.
    np.testing.assert_array_equal(result.band_b.upper[-1], np.inf)
    np.testing.assert_array_equal(result.evidence,
                                  ["strong", "strong", "strong", "weak"])
    np.testing.assert_array_equal(evp.compare(bad, good, [1, 5, 20, 60]).evidence,
                                  ["none"] * 4)


def test_compare_identical_samples_is_none():
    scores = np.random.default_rng(17).random(50)
    result = evp.compare(scores, scores.copy(), np.arange(1, 30))
    assert set(result.evidence) == {"none"}


def expected_labels(a, b):
    """The §2 heuristic written out from the bands, for "a beats b"."""
    labels = []
    for k in range(len(a.ns)):
        if a.lower[k] > b.upper[k]:
            labels.append("strong")
        elif a.lower[k] > b.estimate[k] and a.estimate[k] > b.upper[k]:
            labels.append("fair")
        elif a.lower[k] > b.estimate[k] or a.estimate[k] > b.upper[k]:
            labels.append("weak")
        else:
            labels.append("none")
    return labels


def test_compare_labels_shifted_samples_by_each_rule():
    base = np.random.default_rng(18).normal(size=100)
    ks = np.array([1.0, 3.0, 10.0])
    band = evp.tuning_curve_band(base, ks)
    below, above = band.estimate - band.lower, band.upper - band.estimate
    width = band.upper - band.lower
    seen = set()
    # Shifting a sample shifts its band: a = base + delta beats b = base when
    # delta clears min(below, above) (weak), max(...) (fair), the width (strong).
    for delta in np.concatenate([np.minimum(below, above), np.maximum(below, above),
                                 width]):
        for shift in [delta * 0.99, delta * 1.01]:
            result = evp.compare(base + shift, base, ks, construction="band")
            np.testing.assert_allclose(result.band_a.lower, band.lower + shift)
            assert list(result.evidence) == expected_labels(result.band_a,
                                                            result.band_b)
            seen |= set(result.evidence)
    assert seen == {"none", "weak", "fair", "strong"}


def test_compare_is_antisymmetric():
    rng = np.random.default_rng(19)
    ks = np.arange(1, 40)
    for _ in range(30):
        a = rng.normal(rng.normal(0, 0.3), 1, size=rng.integers(5, 60))
        b = rng.normal(0, 1, size=rng.integers(5, 60))
        forward = evp.compare(a, b, ks).evidence
        backward = evp.compare(b, a, ks).evidence
        assert np.all((forward == "none") | (backward == "none"))


def test_compare_losses_prefers_the_lower_one():
    rng = np.random.default_rng(20)
    low, high = rng.normal(0.2, 0.05, 200), rng.normal(0.5, 0.05, 200)
    ks = [1, 4, 16]
    assert set(evp.compare(low, high, ks, minimize=True).evidence) == {"strong"}
    assert set(evp.compare(high, low, ks, minimize=True).evidence) == {"none"}
    a, b = rng.normal(0.3, 0.1, 30), rng.normal(0.35, 0.1, 30)
    # The band's verdicts mirror exactly (the intervals' too, but for the
    # estimate of an even count's median, which picks the lower middle score).
    np.testing.assert_array_equal(
        evp.compare(a, b, ks, minimize=True, construction="band").evidence,
        evp.compare(-a, -b, ks, construction="band").evidence)


def test_compare_of_several_samples_equals_row_by_row():
    rng = np.random.default_rng(21)
    a, b = rng.normal(0.3, 1, (5, 40)), rng.normal(0, 1, (5, 30))
    ks = [1, 2, 5]
    both = evp.compare(a, b, ks).evidence
    assert both.shape == (5, 3)
    for row in range(5):
        np.testing.assert_array_equal(both[row], evp.compare(a[row], b[row],
                                                             ks).evidence)
    single = evp.compare(a, b[0], ks).evidence  # one b against every a
    for row in range(5):
        np.testing.assert_array_equal(single[row], evp.compare(a[row], b[0],
                                                               ks).evidence)
    with pytest.raises(ValueError, match="scores_a and scores_b"):
        evp.compare(a, b[:3], ks)


# ------------------------------------------------------------ bad input


@pytest.mark.parametrize("call, argument", [
    (lambda: evp.cdf_band([1, 2], 0.0), "confidence"),
    (lambda: evp.cdf_band([1, 2], 1.0), "confidence"),
    (lambda: evp.cdf_band([1, 2], float("nan")), "confidence"),
    (lambda: evp.cdf_band([1, 2], "0.8"), "confidence"),
    (lambda: evp.cdf_band([1, 2], 0.8, method="bootstrap"), "method"),
    (lambda: evp.cdf_band([1, float("nan")]), "scores"),
    (lambda: evp.cdf_band([]), "scores"),
    (lambda: evp.tuning_curve_band([1, 2], [0.5]), "ns"),
    (lambda: evp.tuning_curve_band([1, 2], [1], statistic="mode"), "statistic"),
    (lambda: evp.tuning_curve_band([1, 2], [1], q=1.5), "q"),
    (lambda: evp.tuning_curve_band([1, 2], [1], bounds=(1.5, None)), "bounds"),
    (lambda: evp.tuning_curve_band([1, 2], [1], bounds=(None, 1.5)), "bounds"),
    (lambda: evp.tuning_curve_band([1, 2], [1], bounds=(0, float("nan"))),
     "bounds"),
    (lambda: evp.tuning_curve_band([1, 2], [1], bounds=3), "bounds"),
    (lambda: evp.tuning_curve_band([1, 2], [1], statistic="mean"), "bounds"),
    (lambda: evp.tuning_curve_band([1, 2], [1], statistic="mean",
                                   bounds=(0, None)), "bounds"),
    (lambda: evp.tuning_curve_band([1, 2], [1], minimize="yes"), "minimize"),
    (lambda: evp.compare([1, 2], [1, float("inf")], [1]), "scores_b"),
    (lambda: band_coverage([0.1, 0.2], [0.5]), "lower and upper"),
    (lambda: band_coverage([-0.1], [0.5]), "lower"),
])
def test_bad_input_raises_naming_the_argument(call, argument):
    with pytest.raises(ValueError, match=argument):
        call()


def test_mean_without_bounds_explains_why():
    with pytest.raises(ValueError, match="inf"):
        evp.tuning_curve_band([0.1, 0.5], [1, 2], statistic="mean")


@pytest.mark.parametrize("method", EXACT)
def test_ties_warn_for_exact_methods(method):
    tied = [0.1, 0.5, 0.5, 0.9]
    for call in [lambda: evp.cdf_band(tied, method=method),
                 lambda: evp.tuning_curve_band(tied, [1, 2], method=method),
                 lambda: evp.compare(tied, [0.2, 0.3], [1], method=method)]:
        with pytest.warns(RuntimeWarning, match="continuous") as record:
            call()
        assert record[0].filename == __file__  # points at the caller


def test_ties_do_not_warn_for_dkw():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        evp.cdf_band([0.1, 0.5, 0.5, 0.9], method="dkw")


def test_compare_answers_both_directions():
    # The reverse evidence is the §2 heuristic for "b beats a", written out from
    # the same two bands; it is what compare(b, a) says.
    rng = np.random.default_rng(21)
    ks = np.arange(1, 30)
    for _ in range(20):
        a = rng.normal(0, 1, size=rng.integers(5, 60))
        b = rng.normal(rng.normal(0, 0.5), 1, size=rng.integers(5, 60))
        result = evp.compare(a, b, ks)
        assert list(result.reverse_evidence) == expected_labels(result.band_b,
                                                                result.band_a)
        np.testing.assert_array_equal(result.reverse_evidence,
                                      evp.compare(b, a, ks).evidence)


def test_the_second_model_wholly_above_is_strong_evidence_for_it():
    rng = np.random.default_rng(22)
    worse, better = rng.normal(0.0, 0.1, 100), rng.normal(1.0, 0.1, 100)
    result = evp.compare(worse, better, [1, 2, 5], construction="band")
    assert result.band_b.lower.min() > result.band_a.upper.max()
    assert list(result.evidence) == ["none"] * 3
    assert list(result.reverse_evidence) == ["strong"] * 3
    assert list(result.winner(("worse", "better"))) == ["better"] * 3
    assert describe_comparison(result, ("worse", "better")) == [
        "n = 1–5: strong evidence that better beats worse: better's band lies wholly "
        "on the better side of worse's; read from 80% LD highest-density bands, "
        "simultaneous over n = 1, 2, 3, … (every budget)."]
    table = result.to_frame(("worse", "better"))
    assert list(table["n"]) == [1, 2, 5]
    assert list(table["better beats worse"]) == ["strong"] * 3
    assert "b beats a: strong at 3" in repr(result)


def test_symmetric_bands_walk_half_way_to_the_same_coverage():
    # A band with u_i = 1 - l_{n+1-i} is walked to 1/2 only; breaking the symmetry
    # by one ulp sends it the whole way. Both must agree, grid points at 1/2 too.
    from evp._order_statistics import coverage as _coverage

    rng = np.random.default_rng(23)
    for _ in range(300):
        n = int(rng.integers(2, 80))
        lower = np.minimum(np.sort(rng.random(n)) * rng.uniform(0.2, 1.0), 0.5)
        if rng.random() < 0.3:
            lower[rng.integers(n)] = 0.5
            lower.sort()
        upper = 1.0 - lower[::-1]
        asymmetric = upper.copy()
        asymmetric[0] = np.nextafter(asymmetric[0], -1.0)
        assert _coverage(lower, upper) == pytest.approx(
            _coverage(lower, asymmetric), abs=1e-12)
