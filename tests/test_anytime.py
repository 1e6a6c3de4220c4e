"""Tuning curves of adaptive tuners from repeated runs: the bands hold, at every
budget at once, by simulation against known truths."""

import numpy as np
import pandas as pd
import pytest
from scipy.stats import beta

import evp
from evp import cli, tables
from evp.anytime import anytime_band, best_so_far, compare_runs, median_rank

NS = [1, 2, 5, 10, 20, 50]


def clopper_pearson(hits: int, trials: int, level: float = 0.99):
    alpha = 1 - level
    low = beta.ppf(alpha / 2, hits, trials - hits + 1) if hits else 0.0
    high = beta.ppf(1 - alpha / 2, hits + 1, trials - hits) if hits < trials else 1.0
    return low, high


def coverage(make_runs, truth, runs, replications, ns, confidence, rng):
    hits = 0
    for _ in range(replications):
        band = anytime_band(make_runs(runs, rng), ns, confidence)
        hits += bool(np.all((band.lower <= truth) & (truth <= band.upper)))
    return hits


def uniform_runs(runs, rng):
    return rng.random((runs, max(NS)))


@pytest.mark.parametrize("runs", [5, 10, 20])
def test_random_search_runs_are_covered_at_every_budget_at_once(runs):
    # Random search on U(0, 1): the best of n is the max of n uniforms, whose
    # median is 0.5 ** (1 / n).
    rng = np.random.default_rng(runs)
    truth = 0.5 ** (1 / np.asarray(NS))
    hits = coverage(uniform_runs, truth, runs, 1500, NS, 0.8, rng)
    low, high = clopper_pearson(hits, 1500)
    assert high >= 0.8, (hits, low, high)


def test_one_budget_is_the_exact_order_statistic_interval():
    # At one budget nothing is spent on simultaneity: the coverage is the
    # binomial 1 - 2 P(K <= l - 1), exactly, for a continuous best-so-far.
    rng = np.random.default_rng(1)
    truth = 0.5 ** (1 / 10)
    band = anytime_band(uniform_runs(15, rng), [10], 0.8)
    hits = coverage(uniform_runs, truth, 15, 4000, [10], 0.8, rng)
    low, high = clopper_pearson(hits, 4000)
    assert low <= band.pointwise <= high
    assert band.pointwise >= 0.8 and band.rank == median_rank(15, 0.2)


def adaptive_runs(runs, rng, trials=50):
    """A tuner that learns: each run has its own skill, later trials aim better,
    and the spread narrows; failed trials (-inf) now and then."""
    t = np.arange(1, trials + 1)
    skill = rng.normal(0, 0.03, size=(runs, 1))
    centre = 0.6 + 0.3 * (1 - np.exp(-t / 15)) + skill
    spread = 0.1 * np.exp(-t / 40)
    scores = centre + spread * rng.standard_normal((runs, trials))
    return np.where(rng.random((runs, trials)) < 0.05, -np.inf, scores)


def test_an_adaptive_tuner_is_covered_against_a_large_simulation():
    rng = np.random.default_rng(2)
    many = best_so_far(adaptive_runs(40_000, rng))[:, np.asarray(NS) - 1]
    truth = np.sort(many, axis=0)[(many.shape[0] + 1) // 2 - 1]
    hits = coverage(adaptive_runs, truth, 10, 1500, NS, 0.8, rng)
    low, high = clopper_pearson(hits, 1500)
    assert high >= 0.8, (hits, low, high)


def test_losses_are_the_negated_band():
    rng = np.random.default_rng(3)
    runs = rng.random((12, 30))
    scores = anytime_band(runs, [1, 5, 30], 0.8)
    losses = anytime_band(-runs, [1, 5, 30], 0.8, minimize=True)
    np.testing.assert_array_equal(losses.lower, -scores.upper)
    np.testing.assert_array_equal(losses.estimate, -scores.estimate)
    np.testing.assert_array_equal(losses.upper, -scores.lower)


def test_runs_of_unequal_length():
    runs = np.array([[0.1, 0.5, 0.3, np.nan],
                     [0.2, 0.2, 0.6, 0.9],
                     [0.4, np.nan, np.nan, np.nan]])
    np.testing.assert_array_equal(best_so_far(runs)[0], [0.1, 0.5, 0.5, np.nan])
    band = anytime_band(runs, [1], 0.5)
    assert band.estimate[0] == 0.2  # the lower median of 0.1, 0.2, 0.4
    with pytest.raises(ValueError, match=r"ns: n = 2 exceeds the shortest run \(1 "):
        anytime_band(runs, [1, 2])


def test_few_runs_leave_the_band_open():
    band = anytime_band(np.random.default_rng(4).random((4, 10)), [1, 5, 10], 0.8)
    assert band.rank == 0 and np.isneginf(band.lower).all()
    assert np.isposinf(band.upper).all() and "too few" in repr(band)


@pytest.mark.parametrize("runs, message", [
    ([[0.1, 0.2, 0.3]], "a band needs repeated runs"),
    ([[0.1, np.nan, 0.3], [0.2, 0.3, 0.4]], "run 0 has a missing score at trial 2"),
    ([[0.1, np.inf], [0.2, 0.3]], "must not hold inf"),
    ([0.1, 0.2], "must be 2-D"),
])
def test_bad_runs_are_refused(runs, message):
    with pytest.raises(ValueError, match=message):
        anytime_band(runs, [1])


def test_compare_runs_speaks_the_scale_of_compare():
    rng = np.random.default_rng(5)
    good = rng.normal(0.9, 0.01, (20, 30))
    bad = rng.normal(0.7, 0.01, (20, 30))
    found = compare_runs(good, bad, [1, 10, 30])
    assert found.evidence.tolist() == ["strong"] * 3
    assert found.reverse_evidence.tolist() == ["none"] * 3
    as_losses = compare_runs(good, bad, [1, 10, 30], minimize=True)
    assert as_losses.evidence.tolist() == ["none"] * 3  # lower is better now
    assert as_losses.reverse_evidence.tolist() == ["strong"] * 3


# ------------------------------------------------------------------ reading runs


@pytest.fixture
def runs_file(tmp_path):
    rng = np.random.default_rng(6)
    rows = []
    for tuner, drift in (("tpe", 0.004), ("random", 0.0)):
        for seed in range(12):
            trials = 40 if seed else 30  # one shorter run
            for t, v in enumerate(rng.normal(0.7, 0.05, trials)
                                  + drift * np.arange(trials)):
                rows.append({"tuner": tuner, "seed": seed, "step": t, "acc": v})
    frame = pd.DataFrame(rows).sample(frac=1, random_state=0)  # rows shuffled
    path = tmp_path / "runs.csv"
    frame.to_csv(path, index=False)
    return path, frame


def test_a_file_of_runs_reads_into_trajectories(runs_file):
    path, frame = runs_file
    results = evp.read_results(path, score="acc", group="tuner", runs="seed")
    assert results.order == "step" and not results.exchangeability
    by_run = results.by_run()
    assert by_run["tpe"].shape == (12, 40) and np.isnan(by_run["tpe"][0, 30:]).all()
    first = frame[(frame["tuner"] == "tpe") & (frame["seed"] == 0)].sort_values("step")
    np.testing.assert_array_equal(by_run["tpe"][0, :30], first["acc"])
    table = tables.anytime_table(results)
    assert table.groupby("model")["n"].max().to_dict() == {"random": 30, "tpe": 30}
    band = anytime_band(by_run["random"], [1, 2, 3, 5, 10, 20, 30])
    np.testing.assert_array_equal(table.loc[table["model"] == "random", "band_lower"],
                                  band.lower)


def test_runs_in_file_order_are_said(runs_file, capsys):
    path, frame = runs_file
    plain = path.with_name("plain.csv")
    frame.sort_values(["tuner", "seed", "step"]).drop(columns="step").to_csv(
        plain, index=False)
    status = cli.main(["curve", str(plain), "--score", "acc", "--group", "tuner",
                       "--runs", "seed", "--ns", "1,30"])
    out, err = capsys.readouterr()
    assert status == 0, err
    assert "trials in order from the file's order (no order column" in err
    assert out.splitlines()[0].split() == ["model", "n", "runs", "median",
                                           "band_lower", "band_upper", "mean", "std"]


def test_the_command_line_compares_tuners_from_their_runs(runs_file, capsys, tmp_path):
    path, _ = runs_file
    status = cli.main(["compare", str(path), "--score", "acc", "--group", "tuner",
                       "--runs", "seed", "tpe", "random"])
    out, err = capsys.readouterr()
    assert status == 0, err
    last = out.strip().splitlines()[-1].split()
    assert last[0] == "30" and last[-2:] == ["strong", "none"]
    pytest.importorskip("matplotlib")
    for command in ("curve", "compare"):
        figure = tmp_path / f"{command}.png"
        extra = ["tpe", "random"] if command == "compare" else []
        assert cli.main([command, str(path), "--score", "acc", "--group", "tuner",
                         "--runs", "seed", *extra, "--out", str(figure)]) == 0
        assert figure.read_bytes()[:4] == b"\x89PNG"
    capsys.readouterr()
    report = tmp_path / "runs.md"
    assert cli.main(["report", str(path), "--score", "acc", "--group", "tuner",
                     "--runs", "seed", "--out", str(report)]) == 0
    text = report.read_text()
    assert "12 runs of 30 to 40 trials" in text and "12 repeated runs" in text


@pytest.mark.needs("optuna")
def test_several_optuna_studies_are_runs_of_their_tuners(tmp_path, capsys):
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    url = f"sqlite:///{tmp_path / 'seeds.db'}"

    def objective(trial):
        return -(trial.suggest_float("x", -2, 2) - 0.5) ** 2

    for seed in range(6):
        for name, sampler in (("tpe", optuna.samplers.TPESampler(seed=seed)),
                              ("random", optuna.samplers.RandomSampler(seed=seed))):
            study = optuna.create_study(study_name=f"{name}-{seed}", storage=url,
                                        direction="maximize", sampler=sampler)
            study.optimize(objective, n_trials=25)
    results = evp.read_results(url, study="tpe-*,random-*", runs="study")
    assert results.group == "tuner" and results.models == ["tpe", "random"]
    assert results.by_run()["tpe"].shape == (6, 25)
    status = cli.main(["compare", url, "--study", "tpe-*,random-*", "--runs", "study",
                       "tpe", "random", "--confidence", "0.5"])
    out, err = capsys.readouterr()
    assert status == 0, err
    assert "warning:" not in err  # runs assume nothing of the tuner
    assert out.splitlines()[0].split()[:2] == ["n", "tpe"]


def test_a_ray_tune_experiment_per_seed(tmp_path):
    import json

    for seed in range(4):
        exp = tmp_path / "sweep" / f"asha-{seed}"
        for trial in range(6):
            folder = exp / f"train_{trial:05d}"
            folder.mkdir(parents=True)
            (folder / "params.json").write_text(json.dumps({"lr": 0.1 * trial}))
            reports = [{"acc": 0.5 + 0.01 * trial + 0.001 * seed + 0.01 * i,
                        "trial_id": f"x_{trial:05d}", "training_iteration": i}
                       for i in range(3)]
            (folder / "result.json").write_text(
                "".join(json.dumps(r) + "\n" for r in reports))
    results = evp.read_results(tmp_path / "sweep", metric="acc", mode="max",
                               runs="experiment")
    assert results.runs == "experiment" and results.models == ["asha"]
    runs = results.by_run()["asha"]
    assert runs.shape == (4, 6)
    np.testing.assert_allclose(runs[1], 0.52 + 0.001 + 0.01 * np.arange(6))
