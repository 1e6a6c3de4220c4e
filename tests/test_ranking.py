"""Many models and many tasks: the family-wise error of compare_all's strong verdicts
under the null, the best set's simultaneous coverage, on continuous and tied scores;
the pieces against peers (statsmodels' Holm and Wilson, scipy's Wilcoxon) and brute
force; the task role."""

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import evp
from evp.analyses import wording
from evp.multiple import (
    best_set_mask,
    holm,
    model_bands,
    oriented_edges,
    ranks,
    simulate_many,
    true_median_curves,
    wilcoxon_holm,
    win_rate,
)
from evp.ranking import (
    first_alone,
    leaders,
    pairs_across_tasks,
    profile_table,
    rank_table,
    target_table,
    task_curves,
)

BUDGETS = [1, 2, 3, 5, 10]
WORLDS = 2000
CONFIDENCE = 0.8
# Three standard errors of a rate near the nominal 0.2.
SLACK = 3 * np.sqrt(0.2 * 0.8 / WORLDS)


def _true_median_best(mu: float, k: int, step: float = 0) -> float:
    """The median of the best of k draws of N(mu, 1), or of N(mu, 1) rounded to
    multiples of `step` (the smallest x with F(x)^k ≥ 1/2), computed exactly."""
    if not step:
        return mu + stats.norm.ppf(0.5 ** (1 / k))
    grid = step * np.arange(np.floor((mu - 10) / step), np.ceil((mu + 10) / step))
    cdf = stats.norm.cdf(grid + step / 2 - mu)
    return float(grid[np.argmax(cdf ** k >= 0.5)])


def _law(mu: float, step: float = 0, size: int = 200_000) -> np.ndarray:
    """A truth as simulate_many takes it: many draws of N(mu, 1) (rounded)."""
    draws = np.random.default_rng(int(1000 * mu) % 997).normal(mu, 1, size)
    return np.round(draws / step) * step if step else draws


@pytest.mark.parametrize("step", [0, 0.1, 1])
def test_true_median_curves_match_the_formulas(step):
    got = true_median_curves([_law(0.3, step)], BUDGETS)[0]
    expected = [_true_median_best(0.3, k, step) for k in BUDGETS]
    np.testing.assert_allclose(got, expected, atol=0.02 if not step else 1e-9)


@pytest.mark.parametrize("step", [0, 0.1], ids=["continuous", "tied"])
def test_familywise_error_under_the_null(step):
    """Ten models of 12 rounds, one distribution: any strong verdict, at any pair
    and budget, is an error, at most 1 - confidence of the time once adjusted.
    The event behind the promise, every band holding at every budget, is at least
    nominal adjusted, and below nominal without the adjustment: the test can
    tell the two apart."""
    law = _law(0.0, step)
    adjusted = simulate_many([law] * 10, 12, BUDGETS, CONFIDENCE, worlds=WORLDS,
                             rng=1)
    plain = simulate_many([law] * 10, 12, BUDGETS, CONFIDENCE, worlds=WORLDS,
                          rng=1, adjust=None)
    print(f"null, step {step}: any wrong strong {adjusted['wrong_strong']:.3f} "
          f"(unadjusted {plain['wrong_strong']:.3f}); bands hold "
          f"{adjusted['bands_hold']:.3f} (unadjusted {plain['bands_hold']:.3f})")
    assert adjusted["wrong_strong"] <= 1 - CONFIDENCE + SLACK
    assert adjusted["bands_hold"] >= CONFIDENCE - SLACK
    assert plain["bands_hold"] < CONFIDENCE - SLACK
    assert plain["wrong_strong"] > adjusted["wrong_strong"]


@pytest.mark.parametrize("step", [0, 1], ids=["continuous", "tied"])
def test_best_set_covers_the_best_model_at_every_budget_at_once(step):
    """Four models, two sharing the best distribution, one close behind: every
    truly best model lies in the set at all budgets at once at least
    `confidence` of the time, and the set does leave models out."""
    laws = [_law(mu, step) for mu in (0.0, 0.0, -0.3, -1.0)]
    laws[1] = laws[0].copy()  # exactly the same truth: both are best
    found = simulate_many(laws, 40, BUDGETS, CONFIDENCE, worlds=WORLDS, rng=2)
    print(f"best set, step {step}: coverage {found['covered']:.3f}, size "
          f"{found['set_size']:.2f}, bands hold {found['bands_hold']:.3f}")
    assert found["covered"] >= CONFIDENCE - SLACK
    assert found["bands_hold"] >= CONFIDENCE - SLACK
    assert found["set_size"] < 4


def test_the_public_functions_read_the_same_bands():
    """best_set and compare_all on one world each agree with the cores that
    simulate_many measures: the same adjusted bands, the same set, the same
    strong verdicts."""
    rng = np.random.default_rng(3)
    for _ in range(10):
        scores = {m: rng.normal(mu, 1, 30)
                  for m, mu in zip("abcd", (0, 0.5, 1, 1.5), strict=True)}
        found = evp.best_set(scores, BUDGETS, CONFIDENCE)
        bands = model_bands(scores, BUDGETS, 1 - (1 - CONFIDENCE) / 4,
                            construction="auto")
        lower, _, upper = oriented_edges(bands)
        np.testing.assert_array_equal(found.frame.to_numpy().T,
                                      best_set_mask(lower, upper))
        table = evp.compare_all(scores, BUDGETS, CONFIDENCE)
        for (i, a), (j, b) in itertools.permutations(enumerate("abcd"), 2):
            rows = table[(table.a == a) & (table.b == b)]
            np.testing.assert_array_equal(rows.evidence == "strong",
                                          lower[i] > upper[j])


def test_a_pairs_verdict_depends_on_its_own_scores_and_the_count_only():
    rng = np.random.default_rng(3)
    a, b = rng.normal(0.5, 1, 60), rng.normal(0, 1, 60)
    one = evp.compare_all({"a": a, "b": b, "c": rng.normal(-3, 1, 60)}, BUDGETS)
    two = evp.compare_all({"a": a, "b": b, "c": rng.normal(3, 5, 60)}, BUDGETS)
    pick = ["a", "b", "n", "evidence"]
    first = one[(one.a == "a") & (one.b == "b")][pick].reset_index(drop=True)
    second = two[(two.a == "a") & (two.b == "b")][pick].reset_index(drop=True)
    pd.testing.assert_frame_equal(first, second)


def test_unadjusted_labels_are_compares_and_adjusted_ones_are_at_bonferroni():
    rng = np.random.default_rng(4)
    scores = {m: rng.normal(mu, 1, 50)
              for m, mu in zip("abc", (0.8, 0, -0.2), strict=True)}
    table = evp.compare_all(scores, BUDGETS, adjust=None)
    adjusted = evp.compare_all(scores, BUDGETS)
    for a, b in [("a", "b"), ("c", "a")]:
        rows = table[(table.a == a) & (table.b == b)]
        assert list(rows.evidence) == list(evp.compare(scores[a], scores[b],
                                                       BUDGETS).evidence)
        rows = adjusted[(adjusted.a == a) & (adjusted.b == b)]
        assert list(rows.evidence) == list(evp.compare(
            scores[a], scores[b], BUDGETS, 1 - 0.2 / 3).evidence)
    np.testing.assert_allclose(adjusted["band confidence"], 1 - 0.2 / 3)


def test_baseline_mode_gives_the_pairs_with_the_baseline_only():
    rng = np.random.default_rng(5)
    scores = {m: rng.normal(size=30) for m in "abcd"}
    table = evp.compare_all(scores, [1, 2], baseline="b")
    assert set(zip(table.a, table.b, strict=True)) == {
        ("a", "b"), ("b", "a"), ("c", "b"), ("b", "c"), ("d", "b"), ("b", "d")}
    with pytest.raises(ValueError, match="baseline='z' is not one of"):
        evp.compare_all(scores, [1], baseline="z")


def _compare_all_one_pair_at_a_time(scores, ns, confidence, *, adjust, baseline,
                                    minimize, construction="band"):
    """compare_all's table as it was built before it was vectorised: a frame per
    ordered pair, from the same bands (the reference for the vectorised one)."""
    from evp.multiple import (
        band_confidence,
        model_bands,
        oriented_edges,
        pair_evidence,
    )

    models = list(scores)
    each = band_confidence(confidence, len(models), adjust)
    bands = model_bands(scores, ns, each, minimize=minimize,
                        construction=construction)
    edges = oriented_edges(bands)
    budgets = next(iter(bands.values())).ns
    pairs = [(i, j) for i, j in itertools.permutations(range(len(models)), 2)
             if baseline is None or str(baseline) in (models[i], models[j])]
    rows = []
    for i, j in pairs:
        rows.append(pd.DataFrame({
            "a": models[i], "b": models[j], "n": budgets,
            "evidence": pair_evidence(edges, i, j),
            "a median": bands[models[i]].estimate,
            "b median": bands[models[j]].estimate}))
    table = pd.concat(rows, ignore_index=True)
    if np.all(budgets == np.round(budgets)):
        table["n"] = table["n"].astype(int)
    return table


@pytest.mark.parametrize("seed", range(6))
def test_the_vectorised_verdicts_are_the_pairwise_loops(seed):
    rng = np.random.default_rng(seed)
    models = [f"m{i}" for i in range(rng.integers(2, 9))]
    # Few distinct values: ties within and between models, and equal models.
    scores = {m: np.round(rng.normal(rng.normal(0, 0.3), 1, rng.integers(5, 40)), 1)
              for m in models}
    scores[models[-1]] = scores[models[0]].copy()
    ns = [1, 2, 3, 5, 8][: rng.integers(1, 6)]
    adjust = [None, "holm"][seed % 2]
    baseline = models[1] if seed % 3 == 0 else None
    minimize = seed % 4 == 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # ties are said
        table = evp.compare_all(scores, ns, adjust=adjust, baseline=baseline,
                                minimize=minimize)
        reference = _compare_all_one_pair_at_a_time(
            scores, ns, CONFIDENCE, adjust=adjust, baseline=baseline,
            minimize=minimize, construction={"both": "auto"}.get(
                table["construction"].iloc[0], table["construction"].iloc[0]))
        pd.testing.assert_frame_equal(
            table.drop(columns=["band confidence", "adjust", "construction"]),
            reference)
        if adjust is None:  # each pair alone: evp.compare's own verdicts
            for (a, b), rows in table.groupby(["a", "b"], sort=False):
                alone = evp.compare(scores[a], scores[b], ns, CONFIDENCE,
                                    minimize=minimize)
                assert rows["evidence"].tolist() == list(alone.evidence)


def test_losses_flip_the_verdicts_and_the_set():
    rng = np.random.default_rng(6)
    low, high = rng.normal(0, 0.1, 80), rng.normal(1, 0.1, 80)
    table = evp.compare_all({"low": low, "high": high}, [3], minimize=True)
    assert table.set_index(["a", "b"]).loc[("low", "high"), "evidence"] == "strong"
    found = evp.best_set({"low": low, "high": high}, [3], minimize=True)
    assert found.frame.loc[3].tolist() == [True, False]


def test_best_set_mask_against_brute_force():
    rng = np.random.default_rng(7)
    lower = rng.normal(size=(6, 9))
    upper = lower + rng.exponential(size=(6, 9))
    mask = best_set_mask(lower, upper)
    for m in range(6):
        for n in range(9):
            excluded = any(lower[j, n] > upper[m, n] for j in range(6))
            assert mask[m, n] == (not excluded)


def test_holm_matches_statsmodels():
    multitest = pytest.importorskip("statsmodels.stats.multitest")
    p = np.random.default_rng(8).uniform(0, 0.2, 15)
    expected = multitest.multipletests(p, method="holm")[1]
    np.testing.assert_allclose(holm(p), expected)


def test_win_rate_interval_matches_statsmodels_wilson():
    proportion = pytest.importorskip("statsmodels.stats.proportion")
    a = np.array([0.9, 0.8, 0.7, 0.6, 0.95, 0.5, 0.85])
    b = np.array([0.5, 0.8, 0.9, 0.4, 0.90, 0.6, 0.80])
    est, low, high, tasks = win_rate(a, b, 0.8)
    wins = 4 + 0.5  # one tie
    assert est == pytest.approx(wins / 7) and tasks == 7
    expected = proportion.proportion_confint(wins, 7, alpha=0.2, method="wilson")
    np.testing.assert_allclose([low, high], expected)


def test_wilcoxon_matches_scipy_and_skips_missing_tasks():
    rng = np.random.default_rng(9)
    curves = rng.normal(size=(9, 3, 2))
    curves[0, 2, :] = np.nan  # model 2 has no rounds on task 0
    pairs, p, adjusted, tasks = wilcoxon_holm(curves)
    assert pairs == [(0, 1), (0, 2), (1, 2)] and list(tasks) == [9, 8, 8]
    expected = stats.wilcoxon(curves[1:, 0, 1] - curves[1:, 2, 1]).pvalue
    assert p[1, 1] == pytest.approx(expected)
    np.testing.assert_allclose(adjusted[:, 0], holm(p[:, 0]))


@pytest.mark.parametrize("tasks", [5, 8, 14, 30, 50, 60])
def test_each_pair_is_tested_as_scipy_tests_it_alone(tasks):
    """Columns with zeros, ties among the absolute differences, both or
    neither, side by side: each p-value is scipy's for that column alone."""
    from evp.multiple import _wilcoxon

    rng = np.random.default_rng(tasks)
    d = rng.normal(size=(tasks, 6))
    d[0, 1] = 0.0                     # a zero
    d[1, 2] = -d[2, 2]                # a tie in |d|
    d[:3, 3] = [0.0, 0.5, -0.5]       # both
    d[:, 4] = np.round(d[:, 4], 1)    # coarse scores: ties
    got = _wilcoxon(d)
    for column in range(d.shape[1]):
        alone = stats.wilcoxon(d[:, column], zero_method="wilcox").pvalue
        assert got[column] == pytest.approx(alone, rel=1e-12), column


def test_one_pairs_ties_change_nothing_for_another_pair():
    """At 14 tasks, model c's curves tie model a's on some tasks (zero
    differences); the pair (a, b), whose differences have neither zeros nor
    ties, keeps its exact p-value: scipy given every column at once would
    have sent it to the normal approximation."""
    rng = np.random.default_rng(3)
    curves = rng.normal(size=(14, 3, 2))
    clean = wilcoxon_holm(curves)[1]
    curves[:4, 2, :] = curves[:4, 0, :]  # c ties a on four tasks
    tied = wilcoxon_holm(curves)[1]
    np.testing.assert_array_equal(tied[0], clean[0])  # (a, b) untouched
    exact = stats.wilcoxon(curves[:, 0, :] - curves[:, 1, :], axis=0,
                           method="exact").pvalue
    np.testing.assert_allclose(tied[0], exact, rtol=1e-12)
    # What one call for every column gives (the mechanism removed): not that.
    together = stats.wilcoxon((curves[:, [0, 0, 1], :] - curves[:, [1, 2, 2], :]
                               ).reshape(14, -1), axis=0,
                              zero_method="wilcox").pvalue.reshape(3, 2)
    assert not np.allclose(together[0], exact, rtol=1e-6)


def test_ranks_within_tasks_ignore_missing_models():
    got = ranks(np.array([[3.0, 1.0, 2.0], [np.nan, 5.0, 5.0]]))
    np.testing.assert_array_equal(got, [[1, 3, 2], [np.nan, 1.5, 1.5]])


def _many_tasks(rng, tasks=6, missing=True):
    rows = []
    for t in range(tasks):
        shift = rng.normal(0, 0.05)
        for model, mu in (("fast", 0.70), ("slow", 0.60), ("flat", 0.65)):
            if missing and t == 0 and model == "flat":
                continue  # an incomplete block
            # "slow" has a long right tail: worse at 1 round, better at many.
            draws = (rng.normal(mu, 0.02, 40) if model != "slow"
                     else mu + rng.exponential(0.08, 40))
            rows += [{"task": f"t{t}", "model": model, "acc": v + shift}
                     for v in draws]
    return pd.DataFrame(rows)


def test_views_across_tasks():
    rng = np.random.default_rng(10)
    results = evp.read_results(_many_tasks(rng), score="acc", group="model",
                               task="task")
    assert results.tasks == [f"t{t}" for t in range(6)]
    parts = results.by_task()
    assert parts["t0"].models == ["fast", "slow"] and parts["t1"].task is None
    curves = task_curves(results, [1, 5, 20])
    assert not ((curves.task == "t0") & (curves.model == "flat")).any()
    scaled = curves["scaled median"]
    assert scaled.between(-10, 1).all()  # the best observed score is 1
    ranked = rank_table(curves)
    first = ranked.groupby("n").head(1).set_index("n")["model"]
    assert first[1] == "fast" and first[20] == "slow"
    assert "The budget changes the answer" in " ".join(
        wording.budget_changes(leaders(ranked), first_alone(ranked)))
    flat = ranked[ranked.model == "flat"]
    assert set(flat["tasks"]) == {5}
    pairs = pairs_across_tasks(curves)
    fast_slow = pairs[(pairs.a == "fast") & (pairs.b == "slow")].set_index("n")
    assert fast_slow.loc[1, "a wins"] == 1 and fast_slow.loc[20, "a wins"] == 0
    assert (pairs["low"] <= pairs["a wins"] + 1e-12).all()
    profile = profile_table(curves, 20)
    assert profile.groupby("model")["share of tasks"].apply(
        lambda s: s.is_monotonic_decreasing).all()
    targets = target_table(curves, 0.5)
    assert set(targets.columns) >= {"task", "model", "budget"}
    with pytest.raises(ValueError, match="hold 6 tasks"):
        evp.best_set(results, [1])
    assert evp.best_set(parts["t1"], [1, 5]).frame.shape == (2, 3)


def test_task_role_tests_exchangeability_task_by_task():
    rng = np.random.default_rng(11)
    frame = _many_tasks(rng, tasks=2, missing=False)
    frame["trial"] = frame.groupby(["task", "model"]).cumcount()
    results = evp.read_results(frame, score="acc", group="model", task="task")
    assert set(results.exchangeability) == {(f"t{t}", m) for t in range(2)
                                            for m in ("fast", "slow", "flat")}
    assert set(results.by_task()["t1"].exchangeability) == {"fast", "slow", "flat"}


def test_exchangeability_is_keyed_by_task_and_model_never_a_joined_name():
    # Task "x" with model "y/z" and task "x/y" with model "z" joined by a slash
    # are both "x/y/z": one search's p-value overwrote the other's.
    climbing = np.linspace(0.5, 0.9, 40)  # each trial better: adaptive
    shuffled = np.random.default_rng(3).permutation(climbing)
    frame = pd.DataFrame({"task": ["x"] * 40 + ["x/y"] * 40,
                          "model": ["y/z"] * 40 + ["z"] * 40,
                          "trial": [*range(40), *range(40)],
                          "acc": [*climbing, *shuffled]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = evp.read_results(frame, score="acc", group="model", task="task")
    assert set(results.exchangeability) == {("x", "y/z"), ("x/y", "z")}
    assert results.exchangeability[("x", "y/z")] < 0.01
    assert results.exchangeability[("x/y", "z")] > 0.05
    parts = results.by_task()
    assert parts["x"].exchangeability.keys() == {"y/z"}
    assert parts["x"].exchangeability["y/z"] < 0.01
    assert parts["x/y"].exchangeability["z"] > 0.05
    assert any("y/z on task x look adaptive" in w for w in results.warnings)
    assert not any("z on task x/y look adaptive" in w for w in results.warnings)


def test_one_optuna_study_per_task(tmp_path):
    optuna = pytest.importorskip("optuna")
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    url = f"sqlite:///{tmp_path / 'studies.db'}"
    for task in ("iris", "wine"):
        study = optuna.create_study(study_name=task, storage=url,
                                    direction="maximize",
                                    sampler=optuna.samplers.RandomSampler(seed=0))
        study.optimize(lambda t: t.suggest_float("x", 0, 1) + (
            0.3 if t.suggest_categorical("model", ["a", "b"]) == "a" else 0),
            n_trials=12)
    results = evp.read_results(url, study="all", task="study", group="params_model")
    assert results.tasks == ["iris", "wine"]
    assert {t: sorted(r.models) for t, r in results.by_task().items()} == {
        "iris": ["a", "b"], "wine": ["a", "b"]}


def test_compare_command_with_many_models_and_tasks(tmp_path):
    from evp.cli import main

    rng = np.random.default_rng(12)
    path = tmp_path / "study.csv"
    _many_tasks(rng).to_csv(path, index=False)
    assert main(["compare", str(path), "--score", "acc", "--group", "model",
                 "--task", "task", "--ns", "1,5,20",
                 "--out", str(tmp_path / "ranks.csv")]) == 0
    ranked = pd.read_csv(tmp_path / "ranks.csv")
    assert list(ranked.groupby("n").head(1)["model"]) == ["fast", "slow", "slow"]
    one = tmp_path / "one.csv"
    frame = pd.read_csv(path)
    frame[frame.task == "t1"].to_csv(one, index=False)
    assert main(["compare", str(one), "--score", "acc", "--group", "model",
                 "--all", "--ns", "1,5", "--out", str(tmp_path / "pairs.csv")]) == 0
    pairs = pd.read_csv(tmp_path / "pairs.csv")
    assert set(pairs.columns) >= {"a", "b", "n", "evidence", "band confidence"}
    assert len(pairs) == 3 * 2 * 2  # ordered pairs × budgets


def test_tasks_pooled_without_a_task_role_are_said():
    frame = pd.DataFrame({"acc": [0.1, 0.2, 0.3, 0.4], "model": list("abab"),
                          "dataset": ["x", "x", "y", "y"]})
    pooled = evp.read_results(frame, score="acc", group="model")
    assert any("pass task='dataset'" in w for w in pooled.warnings)
    judged = evp.read_results(frame, score="acc", group="model", task="dataset")
    assert not judged.warnings


@pytest.mark.needs("papermill")
def test_every_command_takes_task(tmp_path, capsys):
    from evp.cli import main

    path = tmp_path / "study.csv"
    _many_tasks(np.random.default_rng(13)).to_csv(path, index=False)
    common = [str(path), "--score", "acc", "--group", "model", "--task", "task"]
    assert main(["curve", *common, "--ns", "1,5", "--out",
                 str(tmp_path / "curves.csv")]) == 0
    curves = pd.read_csv(tmp_path / "curves.csv")
    assert list(curves.columns[:2]) == ["task", "model"]
    assert set(curves["task"]) == {f"t{t}" for t in range(6)}
    capsys.readouterr()
    for command in (["curve", *common, "--out", str(tmp_path / "c.png")],
                    ["plan", *common, "fast", "slow", "--budget", "3"],
                    ["run", "mean_vs_median", *common]):
        assert main(command) != 0
        error = capsys.readouterr().err.strip().splitlines()
        assert len(error) == 1 and "task" in error[0]


def test_one_mlflow_experiment_per_task(tmp_path):
    pytest.importorskip("mlflow")
    import logging

    from mlflow.tracking import MlflowClient

    logging.getLogger("mlflow").setLevel(logging.WARNING)
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # MLflow's own
        client = MlflowClient(tracking_uri=uri)
        for task in ("iris", "wine"):
            experiment = client.create_experiment(task)
            for i in range(6):
                run = client.create_run(experiment, start_time=1_700_000_000_000 + i)
                client.log_param(run.info.run_id, "model", "ab"[i % 2])
                client.log_metric(run.info.run_id, "val_acc", 0.5 + 0.01 * i)
                client.set_terminated(run.info.run_id, "FINISHED")
    results = evp.read_results(uri, experiment="iris,wine", score="val_acc",
                               task="experiment", group="params.model")
    assert results.tasks == ["iris", "wine"]
    assert {t: r.models for t, r in results.by_task().items()} == {
        "iris": ["a", "b"], "wine": ["a", "b"]}
    # Without a task role, each experiment is a model.
    pooled = evp.read_results(uri, experiment=["iris", "wine"], score="val_acc")
    assert pooled.models == ["iris", "wine"]


@pytest.mark.parametrize("models", [3, 12])
def test_the_many_model_figures_draw_without_overlaps(models):
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    from evp.plot import (
        plot_aggregate,
        plot_best_set,
        plot_critical_difference,
        plot_profiles,
        plot_ranks,
        plot_verdict_matrix,
        text_overlaps,
    )

    rng = np.random.default_rng(14)
    frame = pd.DataFrame([
        {"task": f"data-set-{t}", "model": f"model_number_{m}",
         "acc": 0.6 + 0.01 * m + rng.normal(0, 0.05)}
        for t in range(5) for m in range(models) for _ in range(30)])
    results = evp.read_results(frame, score="acc", group="model", task="task")
    curves = task_curves(results, [1, 3, 10])
    ranked = rank_table(curves)
    one = results.by_task()["data-set-0"]
    figures = {
        "ranks": plot_ranks(ranked, highlight="model_number_1"),
        "aggregate": plot_aggregate(ranked),
        "profiles": plot_profiles(profile_table(curves, 3)),
        "critical difference": plot_critical_difference(
            ranked, pairs_across_tasks(curves), 10),
        "best set": plot_best_set(evp.best_set(one, [1, 3, 10]).frame),
        "verdicts": plot_verdict_matrix(evp.compare_all(one, [1, 3, 10])),
    }
    for name, ax in figures.items():
        assert text_overlaps(ax.figure) == [], name
        plt.close(ax.figure)


def test_compare_all_prints_a_summary_and_every_row_when_asked(tmp_path, capsys):
    from evp.cli import main

    rng = np.random.default_rng(0)
    path = tmp_path / "four.csv"
    # a far above three equal models: a beats each strongly, none beats another.
    pd.DataFrame({"model": np.repeat(list("abcd"), 30),
                  "acc": np.r_[rng.normal(1, .1, 30), rng.normal(0, .1, 90)]}
                 ).to_csv(path, index=False)
    common = ["compare", str(path), "--score", "acc", "--group", "model", "--all",
              "--ns", "1,5"]
    assert main(common) == 0
    out, err = capsys.readouterr()
    lines = out.strip().splitlines()
    assert lines[0].split() == ["model", "may", "be", "best", "at", "n", "=", "5",
                                "strongly", "beats", "strongly", "beaten", "by"]
    assert [line.split()[0] for line in lines[1:]] == ["a", "b", "c", "d"]
    assert [line.split()[-2:] for line in lines[1:]] == [
        ["3", "0"], ["0", "1"], ["0", "1"], ["0", "1"]]
    assert "--rows prints them" in err
    assert main([*common, "--rows"]) == 0
    assert len(capsys.readouterr().out.strip().splitlines()) == 1 + 4 * 3 * 2
    assert main([*common, "--out", str(tmp_path / "pairs.csv")]) == 0
    assert len(capsys.readouterr().out.split("wrote")[0].strip().splitlines()) == 1 + 4
    assert len(pd.read_csv(tmp_path / "pairs.csv")) == 4 * 3 * 2
