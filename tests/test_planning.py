"""Planning the next rounds: rounds_needed, checked against the bands themselves."""

import numpy as np
import pytest

import evp
from evp.bands import METHODS


def _informative(n, k, confidence, method, minimize):
    """Whether the band from n (distinct, arbitrary) scores says something at k."""
    scores = np.random.default_rng(n).normal(size=n)
    band = evp.tuning_curve_band(scores, [k], confidence, method=method,
                                 minimize=minimize)
    edge = band.lower[0] if minimize else band.upper[0]
    return bool(np.isfinite(edge))


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("confidence", [0.5, 0.8, 0.95])
def test_rounds_needed_is_where_the_band_first_says_something(method, confidence):
    ks = np.array([1, 1.5, 2, 3, 5, 8, 13])
    needed = evp.rounds_needed(ks, confidence, method=method)
    assert needed.shape == ks.shape and needed.dtype.kind == "i"
    for k, n in zip(ks, needed, strict=True):
        assert _informative(n, k, confidence, method, minimize=False), (k, n)
        if n > 1:
            assert not _informative(n - 1, k, confidence, method, False), (k, n)


@pytest.mark.parametrize("method", METHODS)
def test_rounds_needed_for_losses_is_about_the_lower_edge(method):
    for k in (1, 4, 10):
        n = evp.rounds_needed(k, method=method, minimize=True)
        assert _informative(n, k, 0.8, method, minimize=True)
        assert not _informative(n - 1, k, 0.8, method, minimize=True)
        # The bands are symmetric, so the count is the same as for scores.
        assert n == evp.rounds_needed(k, method=method)


def test_rounds_needed_is_the_fewest_by_a_linear_scan():
    # Bisection assumes the band's reach grows with n; a scan does not.
    for method in METHODS:
        for k in (1, 2, 3, 4, 6):
            scan = next(n for n in range(1, 500)
                        if _informative(n, k, 0.8, method, minimize=False))
            assert evp.rounds_needed(k, method=method) == scan


def test_rounds_needed_grows_with_the_budget_and_the_confidence():
    ks = np.arange(1, 40)
    needed = evp.rounds_needed(ks)
    assert np.all(np.diff(needed) >= 0)
    assert np.all(evp.rounds_needed(ks, 0.95) >= needed)
    # Scalars in, a Python int out; order of the budgets does not matter.
    assert isinstance(evp.rounds_needed(3), int)
    assert evp.rounds_needed(ks[::-1]).tolist() == needed[::-1].tolist()


@pytest.mark.parametrize("bad, match", [
    (dict(k=0), "k"), (dict(k=-1), "k"), (dict(k=1, confidence=1.2), "confidence"),
    (dict(k=1, method="bootstrap"), "method"), (dict(k=1e9), "rounds"),
])
def test_rounds_needed_refuses_bad_input(bad, match):
    with pytest.raises(ValueError, match=match):
        evp.rounds_needed(**bad)
