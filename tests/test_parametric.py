"""The quadratic and noisy quadratic distributions, their fit, and confidence sets.

Reference values come from independent implementations written here from the
definitions (scipy quadrature of the convolution, root finding, simulation), never
from the code under test.
"""

import os
from pathlib import Path

import numpy as np
import pytest
from scipy import integrate, optimize, stats

from evp.parametric import (
    NoisyQuadraticDistribution,
    QuadraticDistribution,
    choose_threshold,
    confidence_set,
    goodness_of_fit,
)

ROOT = Path(__file__).resolve().parents[1]


# ---------------------------------------------------------------- references


def ref_cdf(y, a, b, c, convex=False):
    """Noiseless CDF from the definition."""
    u = np.clip((y - a) / (b - a), 0.0, 1.0)
    return u ** (c / 2) if convex else 1.0 - (1.0 - u) ** (c / 2)


def ref_noisy_cdf(y, a, b, c, o, convex=False):
    """P(Q + oE <= y) = E[F_Q(y - oE)] by adaptive quadrature over the noise."""
    below = stats.norm.cdf((y - b) / o)  # noise so low that Q + oE <= y surely

    def integrand(e):
        return ref_cdf(y - e, a, b, c, convex) * stats.norm.pdf(e, scale=o)

    lo, hi = max(y - b, -14 * o), min(y - a, 14 * o)
    middle = 0.0
    if lo < hi:
        middle = integrate.quad(integrand, lo, hi, epsabs=1e-14, epsrel=1e-13,
                                limit=400)[0]
    return below + middle


def ref_mean_of_best(cdf, k, lo, hi, points=()):
    """E[max of k] = lo + integral over [lo, hi] of 1 - F^k."""
    value = integrate.quad(lambda y: 1 - cdf(y) ** k, lo, hi, points=points,
                           epsabs=1e-13, epsrel=1e-12, limit=400)[0]
    return lo + value


# ------------------------------------------------------- noiseless closed forms


@pytest.mark.parametrize("c", [1, 2, 3, 7, 10])
@pytest.mark.parametrize("convex", [False, True])
def test_quadratic_cdf_pdf_ppf_match_the_definition(c, convex):
    dist = QuadraticDistribution(-1.0, 2.0, c, convex=convex)
    ys = np.linspace(-1.5, 2.5, 41)
    np.testing.assert_allclose(dist.cdf(ys), ref_cdf(ys, -1.0, 2.0, c, convex),
                               atol=1e-15)
    # The density integrates to the CDF.
    for y in (-0.5, 0.7, 1.9):
        lo, hi = (-1.0, y)
        area = integrate.quad(dist.pdf, lo, hi, limit=200)[0]
        assert area == pytest.approx(ref_cdf(y, -1.0, 2.0, c, convex), abs=1e-7)
    ps = np.array([0.0, 0.01, 0.3, 0.5, 0.99, 1.0])
    for p, y in zip(ps, dist.ppf(ps), strict=True):
        assert ref_cdf(y, -1.0, 2.0, c, convex) == pytest.approx(p, abs=1e-12)


@pytest.mark.parametrize("c", [1, 2, 5])
@pytest.mark.parametrize("convex", [False, True])
def test_quadratic_tuning_curves_match_brute_force(c, convex):
    a, b = 0.2, 0.9
    dist = QuadraticDistribution(a, b, c, convex=convex)
    ns = np.array([1, 2, 7.5, 40, 1000])
    for minimize in (False, True):
        quantiles = dist.quantile_tuning_curve(ns, q=0.3, minimize=minimize)
        means = dist.mean_tuning_curve(ns, minimize=minimize)
        for n, got_q, got_m in zip(ns, quantiles, means, strict=True):
            if minimize:  # P(min <= y) = 1 - (1 - F)^n
                def best(y, n=n):
                    return 1 - (1 - ref_cdf(y, a, b, c, convex)) ** n
            else:
                def best(y, n=n):
                    return ref_cdf(y, a, b, c, convex) ** n
            root = optimize.brentq(lambda y, f=best: f(y) - 0.3, a, b, xtol=1e-14)
            assert got_q == pytest.approx(root, abs=1e-10)
            # Break points where the best of 1000 concentrates, near either end.
            near = (b - a) * np.logspace(-12, -1, 12)
            points = np.concatenate([a + near, b - near])
            mean = a + integrate.quad(lambda y, f=best: 1 - f(y), a, b,
                                      points=points, epsabs=1e-14, limit=800)[0]
            assert got_m == pytest.approx(mean, abs=1e-9)


def test_quadratic_mean_curve_closed_form_and_huge_budgets():
    import mpmath

    mpmath.mp.dps = 40
    dist = QuadraticDistribution(0.0, 1.0, 4)
    # b - (b - a) Gamma(k+1) Gamma(1.5) / Gamma(k+1.5), in 40-digit arithmetic.
    for k in (1, 3, 1e6, 1e12):
        ratio = (mpmath.gamma(k + 1) * mpmath.gamma(1.5)
                 / mpmath.gamma(mpmath.mpf(k) + 1.5))
        assert dist.mean_tuning_curve(k) == pytest.approx(float(1 - ratio),
                                                          abs=1e-15)
    assert dist.mean_tuning_curve(1) == pytest.approx(dist.mean, abs=1e-15)
    assert dist.mean_tuning_curve(1e300) == 1.0


def test_quadratic_sampler_follows_its_distribution():
    rng = np.random.default_rng(3)
    for convex in (False, True):
        dist = QuadraticDistribution(1.0, 3.0, 3, convex=convex)
        draws = dist.sample(4000, rng=rng)
        result = stats.kstest(draws, ref_cdf, args=(1.0, 3.0, 3, convex))
        assert result.pvalue > 1e-3


# -------------------------------------------------------------- the noisy one


NOISY = [(0.0, 1.0, 1, 0.01), (0.0, 1.0, 3, 0.2), (-2.0, 5.0, 5, 0.05),
         (0.8, 0.9, 2, 0.004), (0.0, 1.0, 10, 3.0), (0.0, 1.0, 1, 1e-4)]


@pytest.mark.parametrize("a, b, c, o", NOISY)
@pytest.mark.parametrize("convex", [False, True])
def test_noisy_cdf_is_the_convolution(a, b, c, o, convex):
    dist = NoisyQuadraticDistribution(a, b, c, o, convex=convex)
    h = b - a
    ys = np.concatenate([np.linspace(a - 3 * o, b + 3 * o, 9),
                         [a + 0.01 * h, b - 0.01 * h, b - o, a + o]])
    expected = [ref_noisy_cdf(y, a, b, c, o, convex) for y in ys]
    np.testing.assert_allclose(dist.cdf(ys), expected, atol=1e-10)
    np.testing.assert_allclose(dist.sf(ys), 1 - np.array(expected), atol=1e-10)


@pytest.mark.parametrize("a, b, c, o", NOISY[:4])
def test_noisy_pdf_is_the_derivative_and_ppf_the_inverse(a, b, c, o):
    dist = NoisyQuadraticDistribution(a, b, c, o)
    ys = np.linspace(a, b + 2 * o, 7)
    step = 1e-6 * (b - a)
    slope = (np.array([ref_noisy_cdf(y + step, a, b, c, o) for y in ys])
             - np.array([ref_noisy_cdf(y - step, a, b, c, o) for y in ys])) / (2 * step)
    np.testing.assert_allclose(dist.pdf(ys), slope, rtol=1e-5, atol=1e-6)
    ps = np.array([1e-6, 0.05, 0.5, 0.95, 1 - 1e-6])
    quantiles = dist.ppf(ps)
    got = [ref_noisy_cdf(y, a, b, c, o) for y in quantiles]
    np.testing.assert_allclose(got, ps, rtol=1e-8, atol=1e-12)
    assert dist.ppf(0.0) == -np.inf and dist.ppf(1.0) == np.inf


@pytest.mark.parametrize("a, b, c, o", [(0.0, 1.0, 2, 0.05), (0.0, 1.0, 1, 0.01),
                                        (3.0, 4.0, 7, 0.3), (0.0, 1.0, 1, 1e-4)])
@pytest.mark.parametrize("convex", [False, True])
def test_noisy_mean_curve_at_one_is_the_mean(a, b, c, o, convex):
    dist = NoisyQuadraticDistribution(a, b, c, o, convex=convex)
    mean = a + (b - a) * (c if convex else 2) / (c + 2)  # the noise has mean 0
    assert dist.mean_tuning_curve(1) == pytest.approx(mean, abs=1e-8)
    assert dist.mean_tuning_curve(1, minimize=not convex) == pytest.approx(
        mean, abs=1e-8)


def test_noisy_tuning_curves_match_brute_force():
    a, b, c, o = 0.0, 1.0, 3, 0.05
    dist = NoisyQuadraticDistribution(a, b, c, o)

    def cdf(y):
        return ref_noisy_cdf(y, a, b, c, o)

    lo, hi = a - 12 * o, b + 12 * o
    for k in (2, 30):
        expected = ref_mean_of_best(cdf, k, lo, hi, points=(a, b))
        assert dist.mean_tuning_curve(k) == pytest.approx(expected, abs=1e-9)
        root = optimize.brentq(lambda y, k=k: cdf(y) ** k - 0.5, lo, hi, xtol=1e-13)
        assert dist.quantile_tuning_curve(k) == pytest.approx(root, abs=1e-9)
    # Real budgets interpolate, and the curves increase with the budget.
    curve = dist.quantile_tuning_curve(np.linspace(1, 50, 99))
    assert np.all(np.diff(curve) > 0)
    means = dist.mean_tuning_curve([1, 1.5, 2, 1e4, 1e8])
    assert np.all(np.diff(means) > 0)


def test_noisy_sampler_follows_its_distribution():
    dist = NoisyQuadraticDistribution(0.0, 1.0, 1, 0.05)
    draws = dist.sample(3000, rng=np.random.default_rng(5))
    assert stats.kstest(draws, dist.cdf).pvalue > 1e-3
    assert draws.shape == (3000,)
    assert isinstance(dist.sample(rng=np.random.default_rng(0)), float)


def test_concave_and_convex_are_mirror_images():
    concave = NoisyQuadraticDistribution(-3.0, -1.0, 3, 0.2)
    convex = NoisyQuadraticDistribution(1.0, 3.0, 3, 0.2, convex=True)
    ys = np.linspace(-4, 0, 17)
    np.testing.assert_allclose(concave.cdf(ys), convex.sf(-ys), atol=1e-14)
    ns = np.array([1, 4, 100])
    np.testing.assert_allclose(concave.quantile_tuning_curve(ns),
                               -convex.quantile_tuning_curve(ns), atol=1e-10)
    np.testing.assert_allclose(concave.mean_tuning_curve(ns),
                               -convex.mean_tuning_curve(ns), atol=1e-10)


@pytest.mark.needs("opda")
def test_noisy_cdf_agrees_with_opda_where_opda_is_exact():
    from opda.parametric import NoisyQuadraticDistribution as Theirs

    # For even c opda's CDF is a closed form (integer partial normal moments).
    for c in (2, 4, 10):
        ours = NoisyQuadraticDistribution(0.1, 0.7, c, 0.02)
        theirs = Theirs(0.1, 0.7, c, 0.02)
        ys = np.linspace(0.0, 0.8, 33)
        np.testing.assert_allclose(ours.cdf(ys), theirs.cdf(ys), atol=1e-12)


# ------------------------------------------------------------------ bad input


@pytest.mark.parametrize("args, needle", [
    ((0, 1, 0), "c must be an integer from 1 to 10"),
    ((0, 1, 11), "c must be an integer from 1 to 10"),
    ((0, 1, 1.5), "c must be an integer from 1 to 10"),
    ((1, 1, 2), "a must be less than b"),
    ((2, 1, 2), "a must be less than b"),
    ((np.nan, 1, 2), "a must be a finite number"),
])
def test_bad_parameters_raise_one_line_errors(args, needle):
    with pytest.raises(ValueError, match=needle):
        QuadraticDistribution(*args)


@pytest.mark.parametrize("o", [0.0, -1.0])
def test_noise_must_be_positive(o):
    with pytest.raises(ValueError, match="o must be positive"):
        NoisyQuadraticDistribution(0, 1, 2, o)


def test_bad_budgets_and_levels():
    dist = NoisyQuadraticDistribution(0, 1, 2, 0.1)
    with pytest.raises(ValueError, match="ns must be positive"):
        dist.quantile_tuning_curve([1, 0])
    with pytest.raises(ValueError, match="q must lie in"):
        dist.quantile_tuning_curve(1, q=1.0)
    with pytest.raises(ValueError, match="qs must lie in"):
        dist.ppf(1.5)


def test_fit_rejects_bad_input():
    ys = np.random.default_rng(0).uniform(size=50)
    fit = NoisyQuadraticDistribution.fit
    with pytest.raises(ValueError, match="leave 3 of 50 scores uncensored"):
        fit(ys, limits=(np.sort(ys)[-4], np.inf))
    with pytest.raises(ValueError, match="leave 0 of 50"):
        fit(ys, limits=(2.0, 3.0))
    with pytest.raises(ValueError, match="limits must be a pair lower < upper"):
        fit(ys, limits=(1.0, 0.0))
    with pytest.raises(ValueError, match=r"constraints\['c'\] allows no c"):
        fit(ys, constraints={"c": (11, 12)})
    with pytest.raises(ValueError, match="c must be an integer from 1 to 10"):
        fit(ys, constraints={"c": 0})
    with pytest.raises(ValueError, match="unknown parameter 'd'"):
        fit(ys, constraints={"d": 1})
    with pytest.raises(ValueError, match="ys must not contain NaN"):
        fit(np.append(ys, np.nan))
    with pytest.raises(ValueError, match="must be finite inside limits"):
        fit(np.append(ys, np.inf))
    with pytest.raises(ValueError, match=r"constraints\['b'\] must allow b above"):
        QuadraticDistribution.fit(ys, constraints={"b": 0.5})
    # Censored infinities are fine.
    NoisyQuadraticDistribution.fit(np.append(ys, -np.inf), limits=(0.2, np.inf),
                                   constraints={"convex": False, "c": 2})


# ------------------------------------------------------------------------ fit


def test_fit_recovers_a_known_noisy_quadratic():
    truth = NoisyQuadraticDistribution(0.80, 0.90, 2, 0.003)
    ys = truth.sample(3000, rng=np.random.default_rng(11))
    fitted = NoisyQuadraticDistribution.fit(ys, limits=(0.84, np.inf),
                                            constraints={"convex": False})
    assert fitted.c == 2 and fitted.convex is False
    assert fitted.b == pytest.approx(0.90, abs=0.003)
    assert fitted.o == pytest.approx(0.003, rel=0.3)
    # Maximum spacing: at least as good as the truth on its own objective.
    assert fitted.spacing_objective(ys, (0.84, np.inf)) >= truth.spacing_objective(
        ys, (0.84, np.inf))


def test_fit_of_losses_and_of_the_noiseless_form():
    truth = QuadraticDistribution(0.1, 0.6, 4, convex=True)
    ys = truth.sample(2000, rng=np.random.default_rng(2))
    fitted = QuadraticDistribution.fit(ys, limits=(-np.inf, 0.35),
                                       constraints={"convex": True})
    assert (fitted.c, fitted.convex) == (4, True)
    assert fitted.a == pytest.approx(0.1, abs=0.02)
    assert fitted.a < ys.min()  # the support holds every score


def test_fit_obeys_constraints():
    ys = NoisyQuadraticDistribution(0.0, 1.0, 3, 0.05).sample(
        400, rng=np.random.default_rng(4))
    fitted = NoisyQuadraticDistribution.fit(
        ys, constraints={"c": {1, 5}, "b": (0.0, 0.97), "o": (0.06, 0.2),
                         "convex": False})
    assert fitted.c in {1, 5}
    assert fitted.b <= 0.97 + 1e-12
    assert 0.06 - 1e-12 <= fitted.o <= 0.2 + 1e-12
    fixed = NoisyQuadraticDistribution.fit(ys, constraints={"c": 2, "o": 0.05,
                                                             "convex": True})
    assert (fixed.c, fixed.o, fixed.convex) == (2, pytest.approx(0.05), True)


@pytest.mark.needs("opda")
def test_fit_agrees_with_opda_on_debertav3(deberta_v3):
    from opda.parametric import NoisyQuadraticDistribution as Theirs

    limits = (0.89, np.inf)
    constraints = {"b": (0.0, 1.0), "c": (1, 5), "convex": False}
    ours = NoisyQuadraticDistribution.fit(deberta_v3, limits, constraints)
    theirs = Theirs.fit(deberta_v3, limits, constraints,
                        generator=np.random.default_rng(0))
    assert ours.c == theirs.c == 1
    assert ours.a == pytest.approx(theirs.a, abs=1e-3)
    assert ours.b == pytest.approx(theirs.b, abs=1e-3)
    assert ours.o == pytest.approx(theirs.o, rel=0.1)
    assert ours.sf(0.89) == pytest.approx(1 - theirs.cdf(0.89), abs=0.005)
    # Our optimum is at least as good on the common objective.
    as_ours = NoisyQuadraticDistribution(theirs.a, theirs.b, theirs.c, theirs.o)
    assert ours.spacing_objective(deberta_v3, limits) >= as_ours.spacing_objective(
        deberta_v3, limits) - 1e-12


@pytest.fixture(scope="module")
def deberta_v3():
    value = os.environ.get("EVP_DATA_DIR") or str(ROOT.parent / "shared" / "data")
    if not Path(value, "deberta").is_dir():
        pytest.skip("no offline data mirror: set EVP_DATA_DIR")
    from evp.datasets import load_deberta

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("EVP_DATA_DIR", value)
        data = load_deberta("deberta-v3-base")
    return data["best_matched"].to_numpy()


def test_fit_on_real_data_finds_one_effective_hyperparameter(deberta_v3):
    # Lourie, He and Cho (2025): c = 1 for DeBERTaV3 on MultiNLI.
    fitted = NoisyQuadraticDistribution.fit(
        deberta_v3, (0.89, np.inf), {"b": (0, 1), "c": (1, 5), "convex": False})
    assert fitted.c == 1
    assert deberta_v3.max() - 0.01 < fitted.b < deberta_v3.max() + 0.01
    assert goodness_of_fit(fitted, deberta_v3, 0.89).passed
    found = confidence_set(deberta_v3, 0.89, 0.8, constraints={"c": (1, 5)})
    assert found.c == (1,), found
    assert found.best[0] <= fitted.b <= found.best[1]


# ------------------------------------------------------------ confidence sets


def test_band_holds_the_true_tail_cdf_with_the_stated_coverage():
    """Membership of the truth: the band at the tail order statistics."""
    from evp.bands import cdf_band

    truth = NoisyQuadraticDistribution(0.0, 1.0, 2, 0.05)
    reps, n, threshold = 3000, 40, 0.6
    ys = np.sort(truth.sample((reps, n), rng=np.random.default_rng(8)), axis=1)
    band = cdf_band(ys, 0.8)
    F = truth.cdf(ys)
    tail = ys > threshold
    inside = np.all(~tail | ((band.lower <= F) & (band.upper >= F)), axis=1)
    _, high = stats.binomtest(int(inside.sum()), reps).proportion_ci(0.999)
    assert high >= 0.8  # at least the confidence (more: only the tail counts)


def test_confidence_set_covers_the_truth():
    truth = NoisyQuadraticDistribution(0.0, 1.0, 2, 0.03)
    rng = np.random.default_rng(21)
    reps, hits_best, hits_all, curve_hits = 16, 0, 0, 0
    ns = np.array([1.0, 10.0, 100.0, 1000.0])
    true_curve = truth.quantile_tuning_curve(ns)
    for _ in range(reps):
        ys = truth.sample(120, rng=rng)
        found = confidence_set(ys, 0.5, 0.8, constraints={"c": (1, 3)})
        in_best = found.best[0] <= 1.0 <= found.best[1]
        hits_best += in_best
        hits_all += in_best and found.o[0] <= 0.03 <= found.o[1] and 2 in found.c
        lower, upper = found.quantile_tuning_curve(ns)
        curve_hits += bool(np.all((lower <= true_curve) & (true_curve <= upper)))
    for hits in (hits_best, hits_all, curve_hits):
        _, high = stats.binomtest(hits, reps).proportion_ci(0.99)
        assert high >= 0.8, hits


def test_confidence_set_is_informative_and_mirrors_losses():
    truth = NoisyQuadraticDistribution(0.0, 1.0, 1, 0.01)
    ys = truth.sample(400, rng=np.random.default_rng(6))
    found = confidence_set(ys, 0.7, 0.8, constraints={"c": (1, 4)})
    assert found.best[1] - found.best[0] < 0.1
    assert "b (best score)" in repr(found)
    lost = confidence_set(-ys, -0.7, 0.8, minimize=True, constraints={"c": (1, 4)})
    assert lost.best == pytest.approx((-found.best[1], -found.best[0]))
    assert lost.c == found.c
    lower, upper = found.quantile_tuning_curve([5, 50])
    lost_lower, lost_upper = lost.quantile_tuning_curve([5, 50])
    np.testing.assert_allclose(lost_lower, -upper)
    np.testing.assert_allclose(lost_upper, -lower)
    with pytest.raises(ValueError, match="leaves 2 of 400 scores"):
        confidence_set(ys, np.sort(ys)[-3], 0.8)


def test_a_degenerate_local_fit_does_not_put_its_c_in_the_set(monkeypatch):
    # The maximum-spacing fit seeds the search over s with each c's local
    # optimum; on another processor a badly fitting c's optimum may be
    # degenerate (b <= a, so s = o/(b - a) is negative or infinite). Such a
    # seed once dropped every band constraint and let that c into the set.
    import evp.parametric as parametric

    truth = NoisyQuadraticDistribution(0.0, 1.0, 1, 0.01)
    ys = truth.sample(400, rng=np.random.default_rng(6))
    honest = confidence_set(ys, 0.7, 0.8, constraints={"c": (1, 4)})
    assert 4 not in honest.c
    solve = parametric._Problem.solve

    def degenerate(self):
        solve(self)
        self.candidates = [*self.candidates,
                           (9.0, False, 4, np.array([0.5, 0.5, 0.0])),  # b = a
                           (9.0, False, 4, np.array([0.6, 0.5, 0.0])),  # b < a
                           (9.0, False, 4, np.array([0.0, 1.0, -745.0]))]
    monkeypatch.setattr(parametric._Problem, "solve", degenerate)
    found = confidence_set(ys, 0.7, 0.8, constraints={"c": (1, 4)})
    assert found.c == honest.c
    assert found.best == honest.best and np.isfinite(found.best).all()
    for ratios in ([np.inf], [np.nan], [5e-324]):
        with pytest.raises(ValueError, match="noise_ratios must be 0 or finite"):
            confidence_set(ys, 0.7, 0.8, noise_ratios=ratios)


def test_an_empty_confidence_set_says_so_and_bounds_nothing():
    rng = np.random.default_rng(3)
    ys = np.concatenate([rng.uniform(0.5, 0.95, 150), np.ones(50)])  # a ceiling
    for scores, threshold, minimize in ((ys, 0.9, False), (-ys, -0.9, True)):
        with pytest.warns(RuntimeWarning, match="80% confidence set is empty"):
            found = confidence_set(scores, threshold, 0.8, minimize=minimize)
        assert found.empty and found.c == ()
        assert "empty, the model is rejected" in repr(found)
        assert "the model is rejected there" in found._repr_html_()
        lower, upper = found.quantile_tuning_curve([1, 10, 1000])
        assert np.isnan(lower).all() and np.isnan(upper).all()


def test_goodness_of_fit_rejects_a_wrong_model():
    truth = NoisyQuadraticDistribution(0.0, 1.0, 1, 0.01)
    ys = truth.sample(500, rng=np.random.default_rng(9))
    assert goodness_of_fit(truth, ys, 0.5).passed
    wrong = NoisyQuadraticDistribution(0.0, 1.0, 6, 0.01)
    check = goodness_of_fit(wrong, ys, 0.5)
    assert not check.passed and check.worst > 0.05


def test_choose_threshold_returns_a_fit_that_passes():
    truth = NoisyQuadraticDistribution(0.0, 1.0, 2, 0.02)
    ys = truth.sample(300, rng=np.random.default_rng(10))
    chosen = choose_threshold(ys, quantiles=(0.5, 0.7))
    assert chosen.threshold == pytest.approx(np.quantile(ys, 0.5))
    assert chosen.fit.c == 2
    assert chosen.candidates[0][1] is True
    assert "candidates passed" in repr(chosen)


def test_import_evp_does_not_import_scipy():
    import subprocess
    import sys

    code = "import sys, evp; print('scipy' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True,
                          text=True, check=True)
    assert done.stdout.strip() == "False"




def test_one_sided_kernel_and_kept_tables_give_the_same_numbers():
    # The quantile's Newton steps read F or S at each point from the one-sided
    # kernel, and bracket from a kept table: the numbers of the two-sided one,
    # bit for bit, whether the table is new or kept.
    from evp.parametric import (
        _bracket_table,
        _standard_noisy,
        _standard_noisy_side,
        _standard_quantile,
    )

    rng = np.random.default_rng(4)
    for D in (0.02, 3.0, 400.0):
        for c in (1, 2, 7):
            w = np.concatenate([rng.normal(-D / 2, D / 2 + 3, 60), [-D - 12, 12.0]])
            lower = rng.random(w.size) < 0.5
            F, S, f, _ = _standard_noisy(w, D, c, derivatives=True)
            G, g = _standard_noisy_side(w, D, c, lower)
            np.testing.assert_array_equal(G, np.where(lower, F, S))
            np.testing.assert_array_equal(g, f)
            p = np.concatenate([rng.random(40), [1e-200, 0.5, 1 - 1e-15]])
            _bracket_table.cache_clear()
            fresh = _standard_quantile(p, 1 - p, D, c)
            np.testing.assert_array_equal(_standard_quantile(p, 1 - p, D, c), fresh)
            # And the quantile is the inverse of the kernel (which is cut off
            # 10 standard deviations out, below 1e-23).
            F_w, S_w = _standard_noisy(fresh, D, c)
            inside = (p > 1e-20) & (p < 1 - 1e-20)
            np.testing.assert_allclose(np.where(p <= 0.5, F_w, S_w)[inside],
                                       np.where(p <= 0.5, p, 1 - p)[inside], rtol=1e-9)
