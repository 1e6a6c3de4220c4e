"""evp.Monitor, the watch analysis, `evp watch`, and the tuners' hooks that stop
a search when its comparison is settled (real Optuna and Ray Tune runs on
small scikit-learn models, marked slow)."""

import os
import threading

import numpy as np
import pandas as pd
import pytest

import evp
from evp.cli import main
from evp.results import Results
from evp.sequential import rounds_to_settle, settled_budgets
from evp.watching import watch


def _apart(rounds=60, gap=1.0, seed=0):
    rng = np.random.default_rng(seed)
    return {"A": rng.normal(gap, 0.3, rounds), "B": rng.normal(0, 0.3, rounds)}


def test_a_monitor_settles_when_one_model_is_far_ahead():
    scores = _apart()
    monitor = evp.Monitor(ns=[1, 4], max_rounds=150)
    assert not monitor.settled and monitor.sentence == "No look yet."
    looks = [monitor.update({m: s[:t] for m, s in scores.items()}).settled
             for t in (5, 20, 60)]
    assert looks == [False, False, True]
    assert monitor.looks == 3 and monitor.done and not monitor.exhausted
    assert monitor.sentence.startswith("Settled after 60 of A and 60 of B rounds")
    assert "strong evidence that A beats B" in monitor.sentence
    rows = monitor.verdicts
    assert rows["evidence"].tolist() == ["strong", "strong"]
    assert rows["better"].tolist() == ["A", "A"]
    assert monitor.model_done("B") and monitor.model_done("A")


def test_equal_models_reach_the_maximum_unsettled():
    rng = np.random.default_rng(1)
    monitor = evp.Monitor(ns=[1], max_rounds=40)
    look = monitor.update({"A": rng.normal(size=40), "B": rng.normal(size=40)})
    assert not look.settled and look.exhausted and look.status == "exhausted"
    assert look.sentence.startswith("Not settled within the maximum of 40 rounds")
    assert not monitor.model_done("C")


def test_a_loss_reads_lower_as_better():
    scores = _apart()
    losses = Results.from_scores({m: -s for m, s in scores.items()}, minimize=True)
    look = watch(losses, [1, 3], max_rounds=100)
    assert look.settled and "lower is better" in look.sentence
    assert look.verdicts["better"].tolist() == ["A", "A"]
    band = look.table[look.table["model"] == "A"]
    assert (band["lower"] <= band["upper"]).all()


def test_the_verdict_is_family_wise_over_three_models():
    rng = np.random.default_rng(2)
    results = Results.from_scores({"A": rng.normal(2, 0.3, 80),
                                   "B": rng.normal(0, 0.3, 80),
                                   "C": rng.normal(0, 0.3, 80)}).replace(ordered=True)
    look = watch(results, [1], 0.8, max_rounds=100)
    assert look.bands["A"].confidence == pytest.approx(1 - 0.2 / 3)
    assert look.settled and "A beats every other model" in look.sentence
    assert "80% family-wise over 3 models" in look.sentence
    # B against C: equal models, no strong verdict
    bc = look.verdicts[(look.verdicts["a"] == "B") & (look.verdicts["b"] == "C")]
    assert (bc["evidence"] != "strong").all()


def test_settled_budgets_agrees_with_brute_force():
    rng = np.random.default_rng(3)
    for _ in range(200):
        lower = rng.normal(size=(3, 4))
        upper = lower + rng.exponential(size=(3, 4))
        found = settled_budgets(lower, upper)
        for j in range(4):
            brute = any(all(lower[m, j] > upper[o, j] for o in range(3) if o != m)
                        for m in range(3))
            assert found[j] == brute
        # losses: the mirror image
        np.testing.assert_array_equal(settled_budgets(-upper, -lower, True), found)


def test_a_plan_is_an_estimate_of_further_rounds():
    rng = np.random.default_rng(4)
    far = rounds_to_settle([rng.normal(1, 1, 20), rng.normal(0, 1, 20)], [1],
                           horizon=300, replications=60, rng=0)
    same = rounds_to_settle([rng.normal(0, 1, 20), rng.normal(0, 1, 20)], [1],
                            horizon=300, replications=60, rng=0)
    assert far.within > same.within
    assert np.isfinite(far.median) and far.median > 0
    assert "estimate" in far.describe()
    with pytest.raises(ValueError, match="two models"):
        rounds_to_settle([rng.normal(size=9)], [1], horizon=20)


def test_the_watch_plans_when_asked():
    scores = _apart(rounds=16, gap=0.15, seed=5)
    monitor = evp.Monitor(ns=[1], max_rounds=200, plan=True, replications=40)
    look = monitor.update(scores)
    assert not look.settled and look.plan is not None
    assert "Plan: an estimate from 40 simulated futures" in look.sentence


def test_display_redraws_in_place(monkeypatch):
    import IPython.display as shown

    calls = []
    monkeypatch.setattr(shown, "display",
                        lambda obj, display_id=None: calls.append(("show",
                                                                   display_id)))
    monkeypatch.setattr(shown, "update_display",
                        lambda obj, display_id=None: calls.append(("update",
                                                                   display_id)))
    monitor = evp.Monitor(ns=[1], max_rounds=100)
    assert "No look yet" in monitor._repr_html_()
    monitor.update(_apart(rounds=10))
    monitor._ipython_display_()
    monitor.update(_apart(rounds=30))
    assert [kind for kind, _ in calls] == ["show", "update"]
    assert calls[0][1] == calls[1][1] is not None
    html = monitor._repr_html_()
    assert "<svg" in html and "ettled after" in html


def test_bad_options_are_refused_when_the_monitor_is_made():
    with pytest.raises(ValueError, match="max_rounds"):
        evp.Monitor(ns=[1], max_rounds=0)
    with pytest.raises(ValueError, match="boundary"):
        evp.Monitor(ns=[1], boundary="nope")
    with pytest.raises(ValueError, match="update: give the rounds"):
        evp.Monitor(ns=[1]).update()


def test_the_figure_draws_every_band_without_overlaps():
    import matplotlib.pyplot as plt

    from evp.plot import text_overlaps

    look = watch(Results.from_scores(_apart(rounds=12)), [1, 2, 5], max_rounds=50)
    ax = look.plot()
    assert text_overlaps(ax.figure) == []
    assert len(ax.get_legend().get_texts()) == 2
    plt.close(ax.figure)


# ------------------------------------------------------------------ evp watch

def _csv(path, scores, upto):
    rows = [{"trial": 2 * i + j, "model": m, "acc": scores[m][i]}
            for i in range(upto) for j, m in enumerate(scores)]
    pd.DataFrame(rows).to_csv(path, index=False)


def test_watch_exit_status_says_settled_or_not(tmp_path, capsys):
    scores = _apart(rounds=80)
    path = tmp_path / "runs.csv"
    flags = ["--score", "acc", "--group", "model", "--order", "trial", "--ns",
             "1,4", "--max-rounds", "100"]
    _csv(path, scores, 80)
    assert main(["watch", str(path), *flags]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Settled after 80 of A and 80 of B rounds")
    _csv(path, scores, 10)
    assert main(["watch", str(path), *flags]) == 1
    assert capsys.readouterr().out.startswith("Not settled after 10")
    assert main(["watch", str(tmp_path / "none.csv"), *flags]) == 2
    assert main(["watch", str(path), *flags[:-2], "--max-rounds", "0"]) == 2
    err = capsys.readouterr().err
    assert "--max-rounds" in err and "Traceback" not in err


def test_watch_follow_ends_on_a_growing_csv(tmp_path, capsys, monkeypatch):
    import evp.cli

    scores = _apart(rounds=80)
    path = tmp_path / "growing.csv"
    _csv(path, scores, 6)
    looked = threading.Semaphore(0)
    read = evp.cli._results

    def counted(*args, **kwargs):  # each look's read, for the writer to wait on
        try:
            return read(*args, **kwargs)
        finally:
            looked.release()

    monkeypatch.setattr(evp.cli, "_results", counted)

    ended = threading.Event()

    def grow():  # more trials' rows after each look, whole lines only
        for upto in (10, 20, 40, 60, 80):
            while not looked.acquire(timeout=0.05):
                if ended.is_set():
                    return
            _csv(tmp_path / "next.csv", scores, upto)
            (tmp_path / "next.csv").replace(path)

    writer = threading.Thread(target=grow)
    writer.start()
    status = main(["watch", str(path), "--score", "acc", "--group", "model",
                   "--order", "trial", "--ns", "1", "--max-rounds", "100",
                   "--follow", "--interval", "0.01", "--timeout", "300"])
    ended.set()  # the watch ended: the writer stops
    writer.join()
    out = capsys.readouterr().out
    assert status == 0
    assert out.startswith("Not settled after 6 of A and 6 of B rounds")
    assert out.rindex("Settled after") > out.rindex("Not settled")


def test_watch_follow_ends_at_the_maximum(tmp_path, capsys):
    rng = np.random.default_rng(6)
    scores = {"A": rng.normal(size=30), "B": rng.normal(size=30)}
    path = tmp_path / "same.csv"
    _csv(path, scores, 30)
    status = main(["watch", str(path), "--score", "acc", "--group", "model",
                   "--ns", "1", "--max-rounds", "30", "--follow", "--interval",
                   "0.05"])
    assert status == 1
    assert "within the maximum of 30 rounds" in capsys.readouterr().out


# ------------------------------------------------------------- the tuners

def _objective(trial, model=None):
    """One round of random search over two small models on a synthetic
    classification task: a logistic regression (the better model) and a
    decision stump or two-level tree."""
    from sklearn.datasets import make_classification
    from sklearn.linear_model import LogisticRegression
    from sklearn.tree import DecisionTreeClassifier

    x, y = make_classification(n_samples=400, n_features=20, n_informative=15,
                               n_redundant=0, random_state=0)
    if model is None:
        model = trial.suggest_categorical("model", ["logistic", "tree"])
    if model == "logistic":
        fitted = LogisticRegression(C=trial.suggest_float("C", 1e-3, 10, log=True),
                                    solver="liblinear")
    else:
        fitted = DecisionTreeClassifier(max_depth=trial.suggest_int("depth", 1, 2),
                                        random_state=0)
    fitted.fit(x[:200], y[:200])
    return float(fitted.score(x[200:], y[200:]))


@pytest.mark.needs("optuna")
def test_an_optuna_study_stops_itself_when_settled():
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(direction="maximize",
                                sampler=optuna.samplers.RandomSampler(seed=0))
    stop = evp.monitoring.OptunaCallback(ns=[1], max_rounds=150,
                                         group="params_model")
    study.optimize(_objective, n_trials=300, callbacks=[stop])
    finished = len(study.trials)
    assert stop.monitor.settled and stop.stopped_at == finished - 1
    assert finished < 300  # stopped itself
    assert stop.monitor.verdicts["better"].tolist() == ["logistic"]


@pytest.mark.needs("optuna")
def test_one_models_study_stops_once_it_is_beaten():
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    studies = {name: optuna.create_study(
        direction="maximize", study_name=name,
        sampler=optuna.samplers.RandomSampler(seed=i))
        for i, name in enumerate(("logistic", "tree"))}
    monitor = evp.Monitor(studies, ns=[1], max_rounds=150)
    hooks = {name: evp.monitoring.OptunaCallback(monitor, model=name)
             for name in studies}

    def only(name):
        def objective(trial):
            return _objective(trial, name)
        return objective

    for _ in range(150):  # the two searches take turns
        for name, study in studies.items():
            if hooks[name].stopped_at is None:
                study.optimize(only(name), n_trials=1, callbacks=[hooks[name]])
        if all(h.stopped_at is not None for h in hooks.values()):
            break
    assert monitor.settled
    assert len(studies["tree"].trials) < 150


@pytest.mark.needs("ray")
def test_a_ray_tune_experiment_stops_itself_when_settled(tmp_path):
    import ray
    from ray import tune

    stopper = evp.monitoring.RayTuneStopper(metric="acc", mode="max",
                                            group="model", ns=[1],
                                            max_rounds=150)

    def trainable(config):
        # Everything inside: Ray's workers cannot import this test module.
        from sklearn.datasets import make_classification
        from sklearn.linear_model import LogisticRegression
        from sklearn.tree import DecisionTreeClassifier

        x, y = make_classification(n_samples=400, n_features=20, n_informative=15,
                                   n_redundant=0, random_state=0)
        fitted = (LogisticRegression(C=config["C"], solver="liblinear")
                  if config["model"] == "logistic" else
                  DecisionTreeClassifier(max_depth=config["depth"], random_state=0))
        fitted.fit(x[:200], y[:200])
        tune.report({"acc": float(fitted.score(x[200:], y[200:]))})

    # A Ray instance of its own: never a cluster some earlier `ray start` left.
    os.environ.pop("RAY_ADDRESS", None)
    ray.init(address="local", num_cpus=2, include_dashboard=False,
             log_to_driver=False, configure_logging=False)
    try:
        tuner = tune.Tuner(
            trainable,
            param_space={"model": tune.choice(["logistic", "tree"]),
                         "C": tune.loguniform(1e-3, 10),
                         "depth": tune.randint(1, 3)},
            # One worker process runs trial after trial (reuse_actors): a new
            # process per trial cost most of the test's time.
            tune_config=tune.TuneConfig(num_samples=300, max_concurrent_trials=2,
                                        reuse_actors=True),
            run_config=tune.RunConfig(storage_path=str(tmp_path), name="watched",
                                      verbose=0, stop=stopper.stopper,
                                      callbacks=[stopper.callback]))
        tuner.fit()
    finally:
        ray.shutdown()
    assert stopper.monitor.settled  # and so it stopped: fewer rounds than asked
    assert len(stopper.rows) < 300
    assert stopper.monitor.verdicts["better"].tolist() == ["logistic"]


@pytest.mark.needs("ray")
def test_the_ray_hooks_feed_the_monitor_and_stop_when_settled():
    """The callback and the stopper, fed finished trials as Ray Tune feeds them
    (no cluster): each a round of its config's model, in creation order."""
    class FakeTrial:
        def __init__(self, model, acc):
            self.config, self.last_result = {"model": model}, {"acc": acc}

    stopper = evp.monitoring.RayTuneStopper(metric="acc", mode="max", ns=[1],
                                            max_rounds=150)
    scores = _apart(rounds=80)
    trials = [FakeTrial(m, float(scores[m][i])) for i in range(80) for m in "AB"]
    stops = []
    for i, trial in enumerate(trials):
        stopper.callback.on_trial_complete(i, trials, trial)
        stops.append(stopper.stopper.stop_all())
        assert not stopper.stopper("id", {"config": {"model": "A"}})
    broken = FakeTrial("A", float("nan"))
    stopper.callback.on_trial_complete(len(trials), [*trials, broken], broken)
    stopper.callback.on_trial_error(len(trials), [*trials, broken], broken)
    assert stopper.left_out == 2
    assert "2 trial(s) errored" in stopper.results().warnings[0]
    assert not stops[0] and stops[-1]
    first = stops.index(True)
    # settled part-way: at the first epoch at the earliest (8 rounds of each, the
    # 16th trial), as the watch of the same rounds
    assert 15 <= first < 159
    assert stopper.results().frame["trial"].tolist() == list(range(len(stopper.rows)))
    # a loss: lower is better
    losses = evp.monitoring.RayTuneStopper(metric="acc", mode="min", ns=[1],
                                           max_rounds=150)
    for i, trial in enumerate(trials):
        losses.callback.on_trial_complete(i, trials, trial)
    assert losses.monitor.settled
    assert losses.monitor.verdicts["better"].tolist() == ["B"]
    with pytest.raises(ValueError, match="mode"):
        evp.monitoring.RayTuneStopper(metric="acc", mode="up")


def test_failed_rounds_count_as_the_worst():
    rng = np.random.default_rng(11)
    acc = np.r_[rng.normal(1, 0.3, 40), rng.normal(0, 0.3, 40)]
    acc[[0, 1, 2, 50]] = np.nan  # failed rounds, kept as the worst outcome
    frame = pd.DataFrame({"acc": acc, "model": ["A"] * 40 + ["B"] * 40,
                          "trial": np.arange(80)})
    results = evp.read_results(frame, score="acc", group="model", order="trial",
                               failed="worst")
    look = watch(results, [1], max_rounds=60)
    clean = watch(evp.read_results(frame.dropna(), score="acc", group="model",
                                   order="trial"), [1], max_rounds=60)
    mine = look.table.set_index("model")
    assert np.isfinite(mine.loc["A", "upper"]) and look.settled
    # the failures pull A's curve down: its lower edge is no higher than without
    assert mine.loc["A", "lower"] <= clean.table.set_index("model").loc["A", "lower"]
    few = watch(evp.read_results(frame.iloc[[0, 1, 2, 40, 41]], score="acc",
                                 group="model", order="trial", failed="worst"), [1])
    assert few.table.set_index("model").loc["A", "estimate"] == -np.inf


def test_a_monitor_reads_a_growing_file_again_at_every_update(tmp_path):
    scores = _apart(rounds=60)
    path = tmp_path / "runs.csv"
    monitor = evp.Monitor(path, ns=[1], max_rounds=100, score="acc",
                          group="model", order="trial")
    _csv(path, scores, 6)
    first = monitor.update()
    _csv(path, scores, 60)
    last = monitor.update()
    assert first.rounds == {"A": 6, "B": 6} and not first.settled
    assert last.rounds == {"A": 60, "B": 60} and last.settled
    assert path.read_text().count("\n") == 121  # read, never written


def _ray_experiment(folder, losses: dict):
    """A Ray Tune experiment folder as Ray Tune writes one: a trial folder per
    round (its id's counter gives the order), params.json and result.json."""
    import json

    counter = 0
    for i in range(max(len(v) for v in losses.values())):
        for model, values in losses.items():
            if i >= len(values):
                continue
            config = {"model": model, "x": i}
            trial = folder / f"train_beef0_{counter:05d}_{counter}_model={model}_" \
                             f"2025-03-01_10-00-{counter % 60:02d}"
            trial.mkdir(parents=True)
            (trial / "params.json").write_text(json.dumps(config))
            (trial / "result.json").write_text(json.dumps(
                {"log_loss": float(values[i]), "training_iteration": 1,
                 "trial_id": f"beef0_{counter:05d}", "config": config}) + "\n")
            counter += 1
    (folder / "experiment_state-2025-03-01_10-00-00.json").write_text("{}")
    return folder


def test_a_monitor_reads_a_ray_tune_experiment_folder(tmp_path):
    scores = _apart(rounds=50)
    folder = _ray_experiment(tmp_path / "exp", {m: -s for m, s in scores.items()})
    monitor = evp.Monitor(folder, ns=[1], max_rounds=100, metric="log_loss",
                          mode="min", group="config/model")
    look = monitor.update()
    assert look.rounds == {"A": 50, "B": 50}
    assert look.settled and look.verdicts["better"].tolist() == ["A"]
    assert "log_loss (lower is better)" in look.sentence


@pytest.mark.needs("optuna")
def test_a_study_with_failed_trials_is_said_not_watched_silently():
    import optuna

    optuna.logging.set_verbosity(optuna.logging.ERROR)

    def objective(trial):
        model = trial.suggest_categorical("model", ["a", "b"])
        if trial.number == 3:
            raise RuntimeError("diverged")
        return trial.suggest_float("x", 0, 1) + (model == "a")

    study = optuna.create_study(direction="maximize",
                                sampler=optuna.samplers.RandomSampler(seed=0))
    refused = evp.monitoring.OptunaCallback(ns=[1], group="params_model")
    with pytest.raises(ValueError, match="failed"):
        study.optimize(objective, n_trials=10, callbacks=[refused],
                       catch=(RuntimeError,))
    counted = evp.monitoring.OptunaCallback(ns=[1], group="params_model",
                                            failed="worst")
    again = optuna.create_study(direction="maximize",
                                sampler=optuna.samplers.RandomSampler(seed=0))
    again.optimize(objective, n_trials=30, callbacks=[counted],
                   catch=(RuntimeError,))
    look = counted.monitor.watch
    assert look.results.failed  # trial 3, counted as the worst round of its model
    assert sum(look.rounds.values()) == len(look.results.frame)


def test_a_round_that_finishes_late_joins_the_end_of_its_sequence():
    """Trial 2 of A finishes after trials 3 and 4: the monitor read trials 0, 1,
    3, 4 first, and their places stay; trial 2 comes after them."""
    rng = np.random.default_rng(12)
    scores = rng.normal(size=12)
    frame = pd.DataFrame({"acc": scores, "model": "A", "trial": np.arange(12)})
    monitor = evp.Monitor(ns=[1], score="acc", group="model", order="trial")
    monitor.update(frame.drop(index=2))
    look = monitor.update(frame)
    read = look.results.in_trial_order()["A"]
    np.testing.assert_array_equal(read, np.r_[scores[[0, 1]], scores[3:], scores[2]])
    # without an order column, rows are places in the file: appended rows last
    plain = evp.Monitor(ns=[1], score="acc", group="model")
    unordered = frame.drop(columns="trial")
    plain.update(unordered.iloc[:5])
    look = plain.update(unordered)
    assert any("first saw them" in w for w in look.results.warnings)
    np.testing.assert_array_equal(look.results.in_trial_order()["A"], scores)
