"""The one core under the estimators and the bands: distributions on finitely many
points and the best of k draws from them, checked against enumeration; and the
structure around it (inputs checked once, one warning, private modules kept
private)."""

import itertools
import warnings
from pathlib import Path

import numpy as np
import pytest

import evp
from evp import _step_cdf

ROOT = Path(__file__).resolve().parents[1]


def enumerate_best(points, mass, k, minimize):
    """Every k-tuple of draws with its probability: (best value, probability)."""
    best, probability = [], []
    for draw in itertools.product(range(len(points)), repeat=k):
        values = points[list(draw)]
        best.append(values.min() if minimize else values.max())
        probability.append(np.prod(mass[list(draw)]))
    return np.array(best), np.array(probability)


@pytest.mark.parametrize("minimize", [False, True])
@pytest.mark.parametrize("seed", range(4))
def test_mean_and_quantiles_of_the_best_match_enumeration(seed, minimize):
    rng = np.random.default_rng(seed)
    m = int(rng.integers(2, 6))
    points = np.sort(rng.normal(size=m))
    mass = rng.dirichlet(np.ones(m))
    if seed == 0:
        mass[1] = 0.0  # a point without mass
        mass /= mass.sum()
    cdf = np.cumsum(mass)
    cdf[-1] = 1.0
    ks = np.arange(1, 5)
    means = _step_cdf.mean_of_best(points, cdf, mass, ks.astype(float),
                                   minimize=minimize)
    for j, k in enumerate(ks):
        best, probability = enumerate_best(points, mass, int(k), minimize)
        assert means[j] == pytest.approx(best @ probability, rel=1e-12, abs=1e-12)
        for q in (0.1, 0.5, 0.9):
            quantile = _step_cdf.quantile_of_best(points, cdf, np.array([float(k)]),
                                                  q, minimize=minimize)[0]
            # min{x : P(best ≤ x) ≥ q}, with a margin against rounding in the sum
            below = np.array([probability[best <= x].sum() for x in points])
            assert quantile == points[np.argmax(below >= q - 1e-12)]


def test_the_v_estimator_is_the_best_of_n_from_the_empirical_distribution():
    scores = np.random.default_rng(5).normal(size=7)
    best, probability = enumerate_best(scores, np.full(7, 1 / 7), 3, False)
    assert evp.expected_max(scores, 3) == pytest.approx(best @ probability,
                                                         rel=1e-13)


def test_the_mean_band_estimate_is_the_v_estimator_exactly():
    losses = np.random.default_rng(6).gamma(2.0, size=40)
    ks = [1, 2, 7, 40]
    for minimize in (False, True):
        band = evp.tuning_curve_band(losses, ks, statistic="mean",
                                     bounds=(0, 100), minimize=minimize)
        np.testing.assert_array_equal(
            band.estimate, evp.expected_max(losses, ks, minimize=minimize))


def test_one_tie_rule_for_the_empirical_quantile_and_the_bands():
    # 0.5 ** (1/k) raised back to the k-th power is not exactly 1/2; both the
    # empirical median curve and the band's estimate must still pick the m-th of
    # 2m scores at k = 1 and the same order statistic for every k.
    scores = np.arange(1.0, 101.0)
    ks = np.array([1.0, 2.0, 3.0, 7.0])
    curve = evp.quantile_tuning_curve(scores, ks)
    band = evp.tuning_curve_band(scores, ks)
    np.testing.assert_array_equal(curve, band.estimate)
    assert curve[0] == 50.0
    expected = [np.ceil(100 * 0.5 ** (1 / k) - 1e-9) for k in ks]
    np.testing.assert_array_equal(curve, expected)


def test_inputs_are_checked_once_per_public_call(monkeypatch):
    from evp import _validation, bands, comparison

    calls = []

    def counting(scores, name="scores", **options):
        calls.append(name)
        return _validation.as_scores(scores, name, **options)

    monkeypatch.setattr(bands, "as_scores", counting)
    monkeypatch.setattr(comparison, "as_scores", counting)
    x = np.random.default_rng(7).normal(size=30)
    evp.compare(x, x + 1, [1, 5])
    assert calls == ["scores_a", "scores_b"]
    calls.clear()
    evp.tuning_curve_band(x, [1, 5])
    assert calls == ["scores"]


def test_compare_warns_about_ties_once_at_the_callers_line():
    tied = np.array([0.1, 0.2, 0.2, 0.4, 0.5, 0.5, 0.7])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        evp.compare(tied, tied + 1, [1, 2])
        evp.tuning_curve_band(tied, [1, 2])
        evp.cdf_band(tied)
    assert [str(w.message).split(".")[0] for w in caught] == [
        "scores contain ties (in scores_a and scores_b)", "scores contain ties",
        "scores contain ties"]
    assert {Path(w.filename).name for w in caught} == {"test_step_cdf.py"}


def test_result_objects_have_a_short_repr():
    x = np.random.default_rng(8).uniform(size=(3, 2000))
    band = evp.tuning_curve_band(x, np.arange(1, 500))
    text = repr(band)
    assert len(text) < 200 and "499 budgets" in text and "3 samples" in text
    assert repr(band.cdf).startswith("CDFBand(n=2000, 3 samples")


def test_a_frame_of_many_columns_is_refused_in_one_short_line():
    import pandas as pd

    frame = pd.DataFrame(np.zeros((3, 120)),
                         columns=[f"a_rather_long_column_{i}" for i in range(120)])
    with pytest.raises(ValueError) as error:
        evp.expected_max(frame, 2)
    message = str(error.value)
    assert len(message) < 250 and "120 columns" in message and "116 more" in message
