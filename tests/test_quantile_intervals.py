"""Exact intervals at the budgets read: each order statistic's miss against a
simulation of uniform order statistics, the family-wise error of compare_all and
the best set's coverage with each construction (continuous scores, ties, and
near-ties with atoms at the quantile read), and the choice between them made
from the counts alone."""

import numpy as np
import pytest

import evp
from evp import analyses
from evp._order_statistics import quantile_ranks
from evp.analyses import wording
from evp.comparison import _sharper
from evp.multiple import simulate_many

CONFIDENCE = 0.8
BUDGETS = [1, 2, 5, 10]
WORLDS = 2000
SLACK = 3 * np.sqrt(0.2 * 0.8 / WORLDS)


@pytest.mark.parametrize("size", [5, 12, 40])
def test_each_rank_misses_at_most_its_share_and_the_next_would_miss_more(size):
    """Simulated uniform order statistics against the p-quantile p: the chosen
    ranks miss at most alpha (within simulation error), and one rank further in
    would miss more than alpha, so the ranks are the sharpest that hold."""
    rng = np.random.default_rng(0)
    u = np.sort(rng.random((200_000, size)), axis=1)
    padded = np.concatenate((np.zeros((u.shape[0], 1)), u,
                             np.ones((u.shape[0], 1))), axis=1)
    levels = 0.5 ** (1 / np.array([1.0, 2.0, 3.0]))
    alpha = 0.05
    low, high = quantile_ranks(size, levels, alpha, alpha)
    tolerance = 4 * np.sqrt(alpha / u.shape[0])
    for p, s, r in zip(levels, low, high, strict=True):
        assert np.mean(padded[:, r] < p) <= alpha + tolerance
        assert np.mean(padded[:, s] > p) <= alpha + tolerance
        if r - 1 >= 1:
            assert np.mean(padded[:, r - 1] < p) > alpha - tolerance
        if s + 1 <= size:
            assert np.mean(padded[:, s + 1] > p) > alpha - tolerance


def _atom_law(below: float, above: float, shift: float = 0.0,
              size: int = 100_000) -> np.ndarray:
    """Uniform scores with an atom at 0.5 covering the levels 0.5 − below to
    0.5 + above (the quantile read at n = 1 sits on it), scores above the atom
    shifted by `shift`: laws whose median curves tie at n = 1, differ above."""
    levels = (np.arange(size) + 0.5) / size
    values = levels.copy()
    values[(levels >= 0.5 - below) & (levels <= 0.5 + above)] = 0.5
    return np.where(levels > 0.5 + above, values + shift, values)


LAWS = {
    "continuous null": [np.random.default_rng(1).normal(size=100_000)] * 6,
    "tied null": [np.round(np.random.default_rng(1).normal(size=100_000), 1)] * 6,
    "atoms at the quantile": [_atom_law(b, a, s) for b, a, s in (
        (0.0, 0.0, 0.0), (0.001, 0.0, 0.0), (0.0, 0.001, 0.02), (0.05, 0.0, 0.0),
        (0.0, 0.05, 0.01), (0.02, 0.02, 0.03))],
}


@pytest.mark.parametrize("construction", ["band", "top_band", "budgets"])
@pytest.mark.parametrize("case", list(LAWS))
def test_familywise_error_of_each_construction(case, construction):
    """Six models of 20 rounds: any strong verdict against the truth, at any
    pair and budget, comes at most 1 − confidence of the time, and the bounds
    hold together at least `confidence` of the time."""
    found = simulate_many(LAWS[case], 20, BUDGETS, CONFIDENCE, worlds=WORLDS,
                          construction=construction, rng=3)
    print(f"{case}, {construction}: wrong strong {found['wrong_strong']:.3f}, "
          f"hold {found['bands_hold']:.3f}, covered {found['covered']:.3f}, "
          f"power {found['strong_right']}")
    assert found["wrong_strong"] <= 1 - CONFIDENCE + SLACK
    assert found["bands_hold"] >= CONFIDENCE - SLACK
    assert found["covered"] >= CONFIDENCE - SLACK


def test_the_intervals_are_valid_only_with_their_adjustment():
    """Unadjusted, the intervals of ten identical models hold together well below
    `confidence`: the test above can fail."""
    laws = [np.random.default_rng(1).normal(size=100_000)] * 10
    plain = simulate_many(laws, 20, BUDGETS, CONFIDENCE, worlds=WORLDS,
                          construction="budgets", adjust=None, rng=3)
    assert plain["bands_hold"] < CONFIDENCE - SLACK


def test_the_intervals_find_more_at_few_budgets():
    """Separated models: the intervals at the budgets read give at least as many
    strong verdicts as the bands, and more somewhere."""
    laws = [np.random.default_rng(m).normal(0.4 * m, 1, 100_000) for m in range(5)]
    band, budgets = (simulate_many(laws, 50, BUDGETS, CONFIDENCE, worlds=300,
                                   construction=c, rng=4)
                     for c in ("band", "budgets"))
    assert budgets["strong_right"] > band["strong_right"]


def test_the_choice_reads_the_counts_not_the_scores():
    """auto gives the same construction for any scores of the same counts, the
    intervals for a few budgets and the top band for every budget up to the
    rounds (never with a KS band, which has no top band)."""
    rng = np.random.default_rng(5)
    few = [evp.compare(rng.normal(size=40), rng.normal(size=40), [1, 5])
           .construction for _ in range(3)]
    assert few == ["budgets"] * 3
    every = evp.compare(rng.normal(size=40), rng.normal(size=40),
                        list(range(1, 41)))
    assert every.construction == "top_band"
    assert _sharper(40, np.arange(1.0, 41), band_confidence=0.8,
                    method="ld_highest_density", q=0.5, minimize=False,
                    alpha_worse=0.1 / 40, alpha_better=0.1 / 40) == "top_band"
    assert _sharper(40, np.arange(1.0, 41), band_confidence=0.8, method="ks",
                    q=0.5, minimize=False, alpha_worse=0.1 / 40,
                    alpha_better=0.1 / 40) != "top_band"


def test_named_budgets_choose_and_left_out_budgets_keep_the_band():
    rng = np.random.default_rng(6)
    scores = {m: rng.normal(mu, 1, 60) for m, mu in zip("abc", (1, 0, 0),
                                                        strict=True)}
    assert set(evp.compare_all(scores)["construction"]) == {"band"}
    assert set(evp.compare_all(scores, [1, 5])["construction"]) == {"budgets"}
    uneven = {**scores, "d": rng.normal(size=6)}  # too few rounds to choose alike
    ns = np.unique(np.round(np.geomspace(1, 60, 8))).tolist()
    table = evp.compare_all(uneven, ns)
    assert set(table["construction"]) == {"both"}
    family = analyses.Family("both", tuple(ns), 0.8,
                             table["band confidence"].iloc[0], models=4)
    assert "bounds" in " ".join(wording.verdicts(
        evp.ranking.as_verdicts(table), evp.ranking.open_budgets(uneven, ns,
                                        table["band confidence"].iloc[0],
                                        construction="both"), family))
    assert evp.best_set(scores, [1, 5]).construction == "budgets"
    assert evp.best_set(scores).construction == "band"
    assert evp.best_set(scores, [1, 5], construction="band").construction == "band"
    said = analyses.describe_best_set(evp.best_set(scores, [1, 5]))
    assert all("exact intervals at 93.33% each (80% family-wise over 3 models), "
               "simultaneous over n = 1, 5." in s for s in said)
    with pytest.raises(ValueError, match="construction"):
        evp.compare(scores["a"], scores["b"], [1], construction="sharpest")


def test_losses_bound_the_same_quantile_from_the_other_side():
    """For losses the curve is the 1 − (1 − q)^(1/n) quantile: negated scores
    give the negated, mirrored intervals."""
    rng = np.random.default_rng(7)
    a, b = rng.normal(size=30), rng.normal(0.5, 1, 30)
    up = evp.compare(a, b, [1, 3], construction="budgets")
    down = evp.compare(-a, -b, [1, 3], construction="budgets", minimize=True)
    np.testing.assert_allclose(down.band_a.lower, -up.band_a.upper)
    np.testing.assert_allclose(down.band_a.upper, -up.band_a.lower)
    np.testing.assert_array_equal(down.evidence, up.evidence)
