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


# ----------------------------------------------------------------- verdict_power


def _world(rng, size, gap):  # model a (gap ahead), model b
    return rng.normal(gap, 1.0, size), rng.normal(0.0, 1.0, size)


def test_verdict_power_is_calibrated_on_simulated_pairs():
    # Worlds with random gaps: the predicted chance of a strong verdict after 20
    # more rounds against whether the truth's 20 more rounds gave one.
    from evp.planning import calibration, reliability

    predicted, _, realised = calibration(
        lambda rng, size, gap: rng.normal(gap, 1.0, size), 2.0, 12, more=[20],
        worlds=150, replications=200, rng=1)
    assert abs(predicted.mean() - realised.mean()) < 0.08
    bins = reliability(predicted, realised, bins=2)
    assert len(bins) == 2
    for _, _, count, mean_predicted, share in bins:
        assert count >= 20 and abs(mean_predicted - share) < 0.15


def test_verdict_power_without_more_rounds_is_todays_verdict():
    rng = np.random.default_rng(2)
    for gap in (0.0, 0.8, 3.0):
        a, b = _world(rng, 30, gap)
        today = evp.compare(a, b, [3])
        plan = evp.verdict_power(a, b, 3, 0, replications=50, rng=0)
        assert plan.strong_a[0] == float(today.evidence[0] == "strong")
        assert plan.strong_b[0] == float(today.reverse_evidence[0] == "strong")


def test_verdict_power_reads_both_directions_and_losses():
    rng = np.random.default_rng(3)
    better, worse = rng.normal(1.0, 0.3, 15), rng.normal(0.0, 0.3, 15)
    ahead = evp.verdict_power(better, worse, 2, [0, 40], replications=300, rng=0)
    behind = evp.verdict_power(worse, better, 2, [0, 40], replications=300, rng=0)
    assert ahead.strong_a[1] > 0.9 and ahead.strong_b[1] == 0
    assert behind.strong_b[1] > 0.9 and behind.strong_a[1] == 0
    np.testing.assert_allclose(ahead.strong, ahead.strong_a + ahead.strong_b)
    # Losses: the lower one is better, read with minimize=True.
    losses = evp.verdict_power(-better, -worse, 2, 40, replications=300, rng=0,
                               minimize=True)
    assert losses.strong_a[0] > 0.9 and losses.strong_b[0] == 0
    wrong_way = evp.verdict_power(-better, -worse, 2, 40, replications=300, rng=0)
    assert wrong_way.strong_b[0] > 0.9


def test_verdict_power_grows_with_more_rounds_and_takes_pairs():
    rng = np.random.default_rng(4)
    a, b = _world(rng, 10, 1.2)
    plan = evp.verdict_power(a, b, 4, [0, 10, 50, 200], replications=400, rng=0)
    assert plan.strong[-1] > plan.strong[0]
    assert np.all(np.diff(plan.strong) > -3 * plan.strong_error[1:] - 0.02)
    assert np.all(plan.strong_error <= 0.5 / np.sqrt(400) + 1e-12)
    pairs = evp.verdict_power(a, b, 4, [(10, 0), (0, 10)], replications=50, rng=0)
    assert pairs.more_rounds.tolist() == [[10, 0], [0, 10]]
    frame = pairs.to_frame(("A", "B"))
    assert list(frame["more rounds of A"]) == [10, 0]
    assert "strong: B better" in frame


@pytest.mark.parametrize("change, match", [
    (dict(more_rounds=-1), "more_rounds"), (dict(more_rounds=2.5), "more_rounds"),
    (dict(more_rounds=[[1, 2, 3]]), "more_rounds"), (dict(n=0), "n must be"),
    (dict(n="four"), "n must be"), (dict(scores_b="same"), "identical"),
    (dict(scores_a=[0.5, 0.5, 0.5]), "distinct"),
    (dict(replications=1), "replications"),
    (dict(confidence=0), "confidence"),
])
def test_verdict_power_refuses_bad_input(change, match):
    a = [0.1, 0.4, 0.35, 0.8]
    arguments = dict(scores_a=a, scores_b=[0.2, 0.3, 0.5, 0.6], n=2, more_rounds=5)
    arguments.update(change)
    if arguments["scores_b"] == "same":
        arguments["scores_b"] = list(a)
    with pytest.raises(ValueError, match=match):
        evp.verdict_power(**arguments)


@pytest.mark.parametrize("method", METHODS)
def test_bounded_budget_inverts_rounds_needed(method):
    for n in (1, 3, 4, 12, 48, 200):
        k = evp.bounded_budget(n, method=method)
        if k == 0:
            assert evp.rounds_needed(1, method=method) > n
            continue
        assert evp.rounds_needed(k, method=method) <= n
        assert evp.rounds_needed(k + 1, method=method) > n
        # The band from n rounds agrees.
        assert _informative(n, k, 0.8, method, minimize=False)
        assert not _informative(n, k + 1, 0.8, method, minimize=False)
    with pytest.raises(ValueError, match="n must be"):
        evp.bounded_budget(0)


def test_verdict_power_keeps_new_rounds_inside_known_bounds():
    # Two failed rounds at 0.33 among accuracies near 0.9 give the lower tail a
    # wide scale; simulated rounds far below 0 must fold back inside [0, 1].
    rng = np.random.default_rng(5)
    a = np.r_[0.33, 0.34, rng.uniform(0.85, 0.9, 10)]
    b = np.r_[0.33, rng.uniform(0.84, 0.88, 11)]
    plan = evp.verdict_power(a, b, 4, [50, 500], bounds=(0, 1), replications=300,
                             rng=0)
    assert np.all((plan.strong >= 0) & (plan.strong <= 1))
    from evp.planning import _future_rounds

    new, light = _future_rounds(np.sort(a), 500, 300, (0.0, 1.0),
                                np.random.default_rng(0))
    assert new.min() >= 0 and new.max() <= 1 and np.isfinite(new).all()
    # The light reading never leaves the observed range.
    assert light.min() >= a.min() and light.max() <= a.max()


def test_verdict_power_says_which_tail_each_model_got():
    from evp.parametric import NoisyQuadraticDistribution

    rng = np.random.default_rng(6)
    ceiling = NoisyQuadraticDistribution(0.3, 0.9, 1, 0.01)
    a, b = ceiling.sample(40, rng=rng) + 0.05, ceiling.sample(40, rng=rng)
    plain = evp.verdict_power(a, b, 4, 20, replications=100, rng=0)
    assert plain.tails == ("exponential", "exponential")
    fitted = evp.verdict_power(a, b, 4, 20, replications=100, rng=0,
                               tail="quadratic")
    assert all(t.startswith("noisy quadratic (c = ") for t in fitted.tails)
    # New rounds beyond a model's best follow its fitted tail: never past the
    # fitted ceiling (b plus a few noise widths), unlike an exponential tail.
    from evp.planning import _best_tail, _future_rounds

    chosen = _best_tail(np.sort(a), minimize=False)
    new, _ = _future_rounds(np.sort(a), 200, 200, (-np.inf, np.inf),
                            np.random.default_rng(0), chosen.fit)
    assert new.max() <= chosen.fit.b + 8 * chosen.fit.o + 1e-9
    with pytest.raises(ValueError, match="tail"):
        evp.verdict_power(a, b, 4, 20, tail="pareto")
