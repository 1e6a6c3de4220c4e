"""The reflected KDE: sampler, CDF and density describe one distribution."""

import tracemalloc

import numpy as np
import pytest
from scipy import integrate, stats

from evp.simulate import ReflectedKDE


@pytest.fixture(params=[0.0125, 0.05, 0.3])
def kde(request):
    data = np.random.default_rng(0).beta(8, 2, size=60)  # mass near the upper end
    return ReflectedKDE(data, request.param)


def test_cdf_matches_sampler(kde):
    draws = kde.sample(20_000, rng=np.random.default_rng(1))
    assert draws.min() >= 0 and draws.max() <= 1
    result = stats.kstest(draws, kde.cdf)
    assert result.pvalue > 0.001


def test_density_integrates_to_one_and_is_the_cdf_derivative(kde):
    total = integrate.quad(kde.pdf, 0, 1, limit=1000, points=np.sort(kde.data))[0]
    assert total == pytest.approx(1.0, abs=1e-8)
    x = np.linspace(0.05, 0.95, 7)
    step = 1e-6
    derivative = (kde.cdf(x + step) - kde.cdf(x - step)) / (2 * step)
    np.testing.assert_allclose(derivative, kde.pdf(x), rtol=1e-5, atol=1e-6)
    assert kde.cdf(0.0) == 0.0 and kde.cdf(1.0) == pytest.approx(1.0, abs=1e-14)


def test_tuning_curves_match_simulation(kde):
    rng = np.random.default_rng(2)
    ns = np.array([1, 4, 16])
    draws = kde.sample((40_000, 16), rng=rng)
    for n, mean, median in zip(ns, kde.mean_tuning_curve(ns),
                               kde.quantile_tuning_curve(ns), strict=True):
        best = draws[:, :n].max(axis=1)
        assert mean == pytest.approx(best.mean(), abs=4 * best.std() / 200)
        assert np.mean(best <= median) == pytest.approx(0.5, abs=0.01)
    assert kde.mean_tuning_curve(1) == pytest.approx(
        integrate.quad(lambda x: x * kde.pdf(x), 0, 1, limit=1000)[0], abs=1e-9)


def test_bad_input():
    with pytest.raises(ValueError, match="bounds"):
        ReflectedKDE([0.5, 1.5], 0.1)
    with pytest.raises(ValueError, match="bandwidth"):
        ReflectedKDE([0.5], 0.0)


def test_cdf_and_pdf_memory_stays_bounded_for_many_points():
    # 445 kernels (the DeBERTaV3 search's size) at 100,000 points: all points times
    # all images at once would take over a gigabyte per array.
    rng = np.random.default_rng(3)
    kde = ReflectedKDE(rng.uniform(0.6, 0.95, 445), 0.01)
    x = rng.uniform(0, 1, 100_000)
    tracemalloc.start()
    try:
        cdf, pdf = kde.cdf(x), kde.pdf(x)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 150 * 2**20, f"peak {peak / 2**20:.0f} MiB"
    # Same values as one point at a time, summing every image by brute force.
    centres = np.concatenate([kde.data + s for s in (-2.0, 0.0, 2.0)]
                             + [-kde.data + s for s in (-2.0, 0.0, 2.0)])
    for i in rng.integers(0, x.size, 20):
        brute = np.sum(stats.norm.cdf(x[i], centres, 0.01)
                       - stats.norm.cdf(0.0, centres, 0.01)) / kde.data.size
        assert cdf[i] == pytest.approx(brute, abs=1e-13)
        assert pdf[i] == pytest.approx(
            np.sum(stats.norm.pdf(x[i], centres, 0.01)) / kde.data.size, rel=1e-12)


@pytest.mark.parametrize("bandwidth", [0.002, 0.05, 0.4])
def test_quantiles_are_brentqs_bit_for_bit(bandwidth):
    # ppf runs Brent's method on every level at once: each level must land where
    # scipy's brentq lands, step for step, tiny and near-one levels included.
    from scipy import optimize

    rng = np.random.default_rng(7)
    data = np.round(rng.beta(2, 5, 120), 2)
    for bounds in ((0.0, 1.0), (data.min() - 0.1, data.max() + 0.2)):
        kde = ReflectedKDE(data, bandwidth, bounds=bounds)
        a, b = kde.bounds
        levels = np.concatenate([rng.random(60), 10.0 ** -rng.integers(5, 320, 12),
                                 1 - rng.random(6) * 1e-13, [0.0, 1.0, 0.5]])
        expected = [optimize.brentq(lambda x, t=t, k=kde: k.cdf(x) - t, a, b,
                                    xtol=1e-14)
                    if 0 < t < 1 else (a if t <= 0 else b) for t in levels]
        np.testing.assert_array_equal(kde.ppf(levels), expected)
        np.testing.assert_array_equal(kde.ppf(levels.reshape(3, -1)),
                                      np.reshape(expected, (3, -1)))
        assert kde.ppf(0.3) == kde.ppf([0.3])[0]
