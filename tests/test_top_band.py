"""The band exact over the better end of the order statistics (the top band):
its coverage against simulated uniform order statistics, that it is narrower
than the full band where it constrains, that every edge a quantile curve reads
at a budget of one round or more lies where it constrains, and that the
median curve it gives holds at every budget at once, scores or losses, ties or
not."""

import numpy as np
import pytest

import evp
from evp._order_statistics import band_bounds
from evp.analyses import describe_comparison
from evp.comparison import _band_ranks, _top_cdf_band, _top_first

METHOD = "ld_highest_density"


@pytest.mark.parametrize("size, confidence", [(12, 0.8), (40, 0.8), (40, 0.95)])
def test_the_constrained_ranks_hold_together_with_exactly_the_confidence(
        size, confidence):
    """Simulated sorted uniforms: all ranks from `first` up lie in their bounds
    with the confidence (equality, within simulation error), the full band's
    bounds over the same ranks hold more often, so the top band spends its
    error on fewer constraints, and the mirror image for losses holds the
    same."""
    rng = np.random.default_rng(0)
    u = np.sort(rng.random((200_000, size)), axis=1)
    first = _top_first(size, confidence, METHOD, 0.5)
    assert 1 < first < size
    lower, upper, _, _ = band_bounds(size, confidence, METHOD, first)
    part = slice(first - 1, size)
    held = np.all((u[:, part] >= lower[part]) & (u[:, part] <= upper[part]),
                  axis=1).mean()
    tolerance = 4 * np.sqrt(confidence * (1 - confidence) / u.shape[0])
    assert abs(held - confidence) <= tolerance
    full_lower, full_upper, _, _ = band_bounds(size, confidence, METHOD)
    full = np.all((u[:, part] >= full_lower[part]) & (u[:, part] <= full_upper[part]),
                  axis=1).mean()
    assert full > confidence + tolerance
    assert np.all(upper[part] - lower[part] < full_upper[part] - full_lower[part])
    # Below `first` only the implied bounds: they hold whenever rank `first` does.
    assert np.all(lower[: first - 1] == 0)
    assert np.all(upper[: first - 1] == upper[first - 1])
    # Losses: the mirror image, over the ranks up to size + 1 − first.
    mirrored = _top_cdf_band(np.arange(float(size)), confidence, METHOD, 0.5, True)
    part = slice(0, size + 1 - first)
    held = np.all((u[:, part] >= mirrored.lower[part])
                  & (u[:, part] <= mirrored.upper[part]), axis=1).mean()
    assert abs(held - confidence) <= tolerance


@pytest.mark.parametrize("size", [8, 20, 50, 200])
@pytest.mark.parametrize("confidence", [0.5, 0.8, 0.99])
def test_every_edge_a_curve_reads_lies_where_the_band_constrains(size, confidence):
    """At budgets from 1 up, the median curve's lower edge is an order
    statistic at a rank the top band constrains (never the vacuous bound
    below it), and no edge is wider than the full band's."""
    k = np.array([1.0, 1.5, 2.0, 3.0, 5.0, 10.0, 50.0])
    first = _top_first(size, confidence, METHOD, 0.5)
    low, high = _band_ranks(size, k, confidence, METHOD, 0.5, False, top=True)
    full_low, full_high = _band_ranks(size, k, confidence, METHOD, 0.5, False)
    assert np.all((low >= first) | (first == 1))
    assert np.all(low >= full_low) and np.all(high <= full_high)


def _true_median_curve(truth: np.ndarray, k: np.ndarray, minimize: bool):
    """The median of the best of k draws from `truth`'s scores, exactly: the
    0.5^(1/k) quantile (the 1 − 0.5^(1/k) one for losses), by the definition
    min{x : F(x) ≥ p}."""
    values = np.sort(truth)
    cdf = np.arange(1, values.size + 1) / values.size
    p = 1 - 0.5 ** (1 / k) if minimize else 0.5 ** (1 / k)
    return values[np.searchsorted(cdf, p - 1e-12)]


@pytest.mark.filterwarnings("ignore::evp.TiesWarning")  # resampled rounds tie
@pytest.mark.parametrize("minimize", [False, True])
@pytest.mark.parametrize("tied", [False, True])
def test_the_curve_holds_at_every_budget_at_once(tied, minimize):
    """2,000 samples of 30 rounds: the top band's median curve covers the true
    curve at every budget 1..30 at once at least 80% of the time, with ties
    too; and it is narrower than the full band's on average."""
    rng = np.random.default_rng(1)
    truth = rng.normal(size=50_000)
    if tied:
        truth = np.round(truth, 1)
    k = np.arange(1.0, 31.0)
    curve = _true_median_curve(truth, k, minimize)
    samples = rng.choice(truth, size=(2000, 30))
    top = evp.compare(samples, samples, k, construction="top_band",
                      minimize=minimize, bounds=(-10, 10)).band_a
    full = evp.compare(samples, samples, k, construction="band",
                       minimize=minimize, bounds=(-10, 10)).band_a
    assert top.construction == "top_band"
    held = np.all((top.lower <= curve) & (curve <= top.upper), axis=1).mean()
    print(f"tied={tied}, minimize={minimize}: held {held:.3f}")
    assert held >= 0.8 - 3 * np.sqrt(0.16 / 2000)
    assert np.mean(top.upper - top.lower) < np.mean(full.upper - full.lower)


def test_the_top_band_is_refused_where_it_does_not_exist():
    rng = np.random.default_rng(2)
    a, b = rng.normal(size=20), rng.normal(size=20)
    with pytest.raises(ValueError, match="construction='top_band' needs an LD"):
        evp.compare(a, b, [1, 2], method="ks", construction="top_band")
    with pytest.raises(ValueError, match="quantile curves only"):
        evp.compare(a, b, [1, 2], statistic="mean", bounds=(-9, 9),
                    construction="top_band")


def test_its_verdicts_say_what_they_were_read_from():
    rng = np.random.default_rng(3)
    said = " ".join(describe_comparison(evp.compare(
        rng.normal(1, 0.2, 40), rng.normal(size=40), np.arange(1, 41),
        construction="top_band")))
    assert "exact over the better half of the order statistics" in said
    assert "simultaneous over n = 1, 2, 3, … (every budget)" in said
    assert "strong evidence that a beats b" in said


@pytest.mark.parametrize("q, minimize, share", [
    (0.8, False, "about the better 20%"), (0.8, True, "about the better 80%"),
    (0.2, False, "about the better 80%"), (0.5, True, "the better half")])
def test_its_sentence_names_the_order_statistics_of_the_quantile_read(
        q, minimize, share):
    """A q-quantile curve reads CDF levels q^(1/k) ≥ q (for losses 1 − (1 −
    q)^(1/k) ≤ q): the better 1 − q of the order statistics for scores, q for
    losses, not the better half whatever q; checked against the ranks the top
    band constrains."""
    from evp.comparison import _top_first

    rng = np.random.default_rng(4)
    a, b = rng.normal(1, 0.2, 60), rng.normal(size=60)
    said = " ".join(describe_comparison(evp.compare(
        a, b, np.arange(1, 61), q=q, minimize=minimize, construction="top_band")))
    assert f"exact over {share} of the order statistics" in said
    if q != 0.5:  # the median's is the one every analysis reads: said short
        assert f"the ones a {q:g}-quantile curve reads" in said
    # The ranks it is exact over, as a share of the 60: within a few ranks of
    # the share said (the top band adds the ranks whose bounds reach the level).
    first = _top_first(60, 0.8, METHOD, 1 - q if minimize else q)
    constrained = (60 - first + 1) / 60
    expected = q if minimize else 1 - q
    assert expected <= constrained <= expected + 0.2
