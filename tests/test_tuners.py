"""Reading results straight from Optuna studies and Ray Tune experiment folders."""

import json
import warnings

import numpy as np
import pandas as pd
import pytest

import evp
from evp.cli import main
from evp.datasets import read_results

# ------------------------------------------------------------------ Optuna


def objective(trial):
    x = trial.suggest_float("x", -2.0, 2.0)
    layers = trial.suggest_int("layers", 1, 3)
    if layers == 3 and x > 0.0:
        raise ValueError("this configuration crashes")  # a failed trial
    return (x - 0.5) ** 2 + 0.1 * layers


@pytest.fixture(scope="module")
def study_db(tmp_path_factory):
    """A real sqlite storage with a loss study, an accuracy study and a study of
    two objectives, made by Optuna itself."""
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    path = tmp_path_factory.mktemp("optuna") / "study.db"
    url = f"sqlite:///{path}"
    loss = optuna.create_study(study_name="loss", storage=url,
                               sampler=optuna.samplers.RandomSampler(seed=1))
    loss.optimize(objective, n_trials=12, catch=(ValueError,))
    # One pruned trial: not a completed round of the search.
    pruned = loss.ask()
    pruned.suggest_float("x", -2.0, 2.0)
    loss.tell(pruned, state=optuna.trial.TrialState.PRUNED)
    accuracy = optuna.create_study(study_name="accuracy", storage=url,
                                   direction="maximize")
    for value in (0.7, 0.9, 0.8):
        trial = accuracy.ask()
        trial.suggest_categorical("optimizer", ["adam", "sgd"])
        accuracy.tell(trial, value)
    both = optuna.create_study(study_name="both", storage=url,
                               directions=["maximize", "minimize"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        both.set_metric_names(["accuracy", "latency"])
    for values in ((0.8, 3.0), (0.9, 5.0)):
        both.tell(both.ask(), list(values))
    error = optuna.create_study(study_name="error", storage=url,
                                sampler=optuna.samplers.RandomSampler(seed=2))
    error.optimize(lambda t: 0.1 + 0.3 * t.suggest_float("x", 0, 1) ** 2,
                   n_trials=15)
    return path, url, loss


@pytest.mark.needs("optuna")
def test_an_optuna_study_reads_its_completed_trials(study_db):
    import optuna

    path, url, study = study_db
    trials = study.get_trials(states=(optuna.trial.TrialState.COMPLETE,))
    failed = study.get_trials(states=(optuna.trial.TrialState.FAIL,))
    assert 2 <= len(trials) < len(study.trials) and failed  # one pruned too
    # A failed trial is a failed round: refused unless told what to do with it.
    with pytest.raises(ValueError, match=r"score column 'value' has missing.*"
                                         r"pass failed='drop'"):
        read_results(url, study="loss")
    read = read_results(url, study="loss", failed="drop")
    data = read.frame
    assert read.score == "value"
    assert data["value"].tolist() == [t.value for t in trials]
    assert data["number"].tolist() == [t.number for t in trials]
    assert data["params_x"].tolist() == [t.params["x"] for t in trials]
    assert data["params_layers"].tolist() == [t.params["layers"] for t in trials]
    # The loss itself, recomputed from the parameters.
    np.testing.assert_allclose(
        data["value"], (data["params_x"] - 0.5) ** 2 + 0.1 * data["params_layers"])
    seconds = [t.duration.total_seconds() for t in trials]
    np.testing.assert_allclose(data["duration_seconds"], seconds)
    assert read.minimize is True and read.tuner == "optuna"
    assert read.direction == "the Optuna study's direction (minimize)"
    assert read.name == "loss"
    left_out = len(study.trials) - len(trials)
    note = read.notes[0]
    assert f"{len(trials)} completed" in note
    assert f"{len(failed)} failed (FAIL {len(failed)})" in note
    assert f"{left_out - len(failed)} not finished, left out (" in note
    assert any(f"{len(failed)} failed round(s) of {len(trials) + len(failed)} "
               "dropped" in n for n in read.notes)
    assert read.dropped and set(data["state"]) == {"COMPLETE"}
    # Under "worst", the failed trials stay as the worst outcome: +inf for a loss.
    worst = read_results(url, study="loss", failed="worst")
    values = worst.scores_as_read["loss"]
    assert np.isinf(values).sum() == len(failed)
    assert (values[np.isinf(values)] > 0).all()
    # The Study object and the SQLite file itself read the same.
    pd.testing.assert_frame_equal(read_results(study, failed="drop").frame, data)
    pd.testing.assert_frame_equal(read_results(path, study="loss",
                                               failed="drop").frame, data)
    with_cost = read_results(url, study="loss", cost="duration_seconds",
                             failed="drop")
    assert with_cost.cost == "duration_seconds"
    np.testing.assert_allclose(with_cost.per_model(with_cost.cost)["loss"], seconds)
    with pytest.raises(ValueError, match="the Optuna study minimizes its objective"):
        read_results(url, study="loss", minimize=False, failed="drop")


@pytest.mark.needs("optuna")
def test_optuna_direction_objectives_and_errors(study_db, tmp_path):
    _, url, _ = study_db
    accuracy = read_results(url, study="accuracy")
    assert accuracy.scores["accuracy"].tolist() == [0.7, 0.9, 0.8]
    assert accuracy.minimize is False
    assert set(accuracy.frame["params_optimizer"]) <= {"adam", "sgd"}
    latency = read_results(url, study="both", score="latency")
    assert latency.scores_as_read["both"].tolist() == [3.0, 5.0]
    assert latency.minimize is True
    assert read_results(url, study="both", score="accuracy").minimize is False
    with pytest.raises(ValueError, match=r"^score: .*2 objectives \(accuracy, "
                                         r"latency\); name one"):
        read_results(url, study="both")
    with pytest.raises(ValueError, match=r"^score: .*no objective or trial "
                                         r"attribute 'loss'"):
        read_results(url, study="both", score="loss")
    with pytest.raises(ValueError, match=r"^study: the Optuna storage holds 4 "
                                         r"studies \(.*\); name one"):
        read_results(url)
    with pytest.raises(ValueError, match=r"^study: no study 'nope'.*accuracy"):
        read_results(url, study="nope")
    missing = tmp_path / "missing.db"
    with pytest.raises(FileNotFoundError, match="no such SQLite file"):
        read_results(f"sqlite:///{missing}")
    assert not missing.exists()  # reading never creates a storage
    with pytest.raises(ValueError, match=r"^mode='min' is for a Ray Tune experiment, "
                                         r"and path_or_frame is an Optuna study: "
                                         r"leave mode out$"):
        read_results(url, study="loss", mode="min")


@pytest.mark.needs("optuna")
def test_the_command_line_reads_an_optuna_storage(study_db, capsys):
    url = study_db[1]
    assert main(["curve", url, "--study", "loss", "--ns", "1,2"]) == 2
    assert "pass --failed drop" in capsys.readouterr().err
    assert main(["curve", url, "--study", "loss", "--ns", "1,2", "--failed",
                 "drop"]) == 0
    printed = capsys.readouterr()
    assert printed.err.startswith("note: Optuna study 'loss': ")
    assert "(minimized)" in printed.err and printed.out.startswith("model")
    assert main(["curve", url, "--study", "accuracy", "--ns", "1"]) == 0
    printed = capsys.readouterr().out
    # V at n = 1 is the mean: (0.7 + 0.9 + 0.8) / 3.
    assert "0.8000" in printed and "accuracy" in printed
    assert main(["curve", url, "--study", "accuracy", "--minimize"]) == 2
    assert capsys.readouterr().err.strip() == (
        "evp curve: --minimize: the Optuna study maximizes its objective; leave "
        "--minimize out")
    assert main(["curve", url]) == 2
    err = capsys.readouterr().err
    assert err.startswith("evp curve: --study: the Optuna storage holds 4 studies")
    assert main(["curve", url, "--study", "both"]) == 2
    assert "name one, e.g. --score accuracy" in capsys.readouterr().err


# ------------------------------------------------------------------ Ray Tune


def write_trial(folder, counter, tag, config, reports, *, csv=False, error=False):
    """A trial folder as Ray Tune writes it: params.json, then result.json (one
    JSON object per report, with the config) or progress.csv."""
    trial_id = f"a1b2c_{counter}"
    trial = folder / f"train_fn_{trial_id}_{int(counter)}_{tag}_2024-01-01_00-00-00"
    trial.mkdir(parents=True)
    (trial / "params.json").write_text(json.dumps(config, indent=2))
    rows = [{**report, "training_iteration": i, "trial_id": trial_id,
             "time_total_s": 1.5 * i, "done": False}
            for i, report in enumerate(reports, start=1)]
    if csv:
        pd.DataFrame(rows).to_csv(trial / "progress.csv", index=False)
    else:
        lines = [json.dumps({**row, "config": config}) for row in rows]
        (trial / "result.json").write_text("\n".join(lines) + "\n")
    if error:
        (trial / "error.txt").write_text("Failure # 1\nRuntimeError: out of memory\n")
    return trial


@pytest.fixture
def tune_folder(tmp_path):
    exp = tmp_path / "exp"
    write_trial(exp, "00000", "lr=0.1000",
                {"lr": 0.1, "net": {"width": 8}},
                [{"acc": 0.5, "loss": 0.9}, {"acc": 0.7, "loss": 0.6},
                 {"acc": 0.6, "loss": 0.7}])
    write_trial(exp, "00002", "lr=0.0100",
                {"lr": 0.01, "net": {"width": 16}},
                [{"acc": 0.4, "loss": 1.0}, {"acc": 0.8, "loss": 0.5}], csv=True)
    write_trial(exp, "00001", "lr=0.0010",
                {"lr": 0.001, "net": {"width": 32}},
                [{"acc": 0.3, "loss": 1.2}, {"acc": 0.2, "loss": 1.1}])
    write_trial(exp, "00003", "lr=0.5000",
                {"lr": 0.5, "net": {"width": 8}}, [{"acc": 0.1, "loss": 3.0}],
                error=True)
    (exp / "experiment_state-2024-01-01_00-00-00.json").write_text("{}")
    return exp


def test_a_ray_tune_folder_gives_each_trials_best_or_last_report(tune_folder):
    # Trial 3 stopped with an error: a failed round, refused until told.
    with pytest.raises(ValueError, match=r"\(Ray Tune's trial ids\): .*'acc' has "
                                         r"missing.* trials a1b2c_00003;.*"
                                         r"failed='drop'"):
        read_results(tune_folder, metric="acc", mode="max")
    worst = read_results(tune_folder, metric="acc", mode="max", failed="worst")
    assert worst.frame["acc"].tolist() == [0.7, 0.3, 0.8, -np.inf]
    assert worst.frame["state"].tolist() == ["TERMINATED"] * 3 + ["ERROR"]
    assert worst.failed == (4,)
    read = read_results(tune_folder, metric="acc", mode="max", failed="drop")
    best = read.frame
    assert best["acc"].tolist() == [0.7, 0.3, 0.8]  # trials 0, 1, 2; 3 errored
    assert best["trial_id"].tolist() == ["a1b2c_00000", "a1b2c_00001", "a1b2c_00002"]
    assert best["training_iteration"].tolist() == [2, 1, 2]
    assert best["loss"].tolist() == [0.6, 1.2, 0.5]  # from the same report
    assert best["config/lr"].tolist() == [0.1, 0.001, 0.01]
    assert best["config/net/width"].tolist() == [8, 32, 16]
    assert read.minimize is False and read.name == "exp"
    assert read.direction == "Ray Tune's mode='max'"
    note = read.notes[0]
    assert ("3 completed trials, objective 'acc' (maximized), each trial's "
            "highest report") in note
    assert "1 failed (ERROR 1): failed rounds (ERROR: stopped with an error)" in note
    last = read_results(tune_folder, metric="acc", mode="max", per_trial="last",
                        failed="drop")
    assert last.frame["acc"].tolist() == [0.6, 0.2, 0.8]
    assert "each trial's last report (per_trial='last'" in last.notes[0]
    # Picked by the lowest loss, scored by the accuracy of that report: the mode
    # is the loss's direction, not the accuracy's.
    by_loss = read_results(tune_folder, metric="loss", mode="min", score="acc",
                           cost="time_total_s", failed="drop")
    assert by_loss.frame["acc"].tolist() == [0.7, 0.2, 0.8]
    assert by_loss.frame["time_total_s"].tolist() == [3.0, 3.0, 3.0]
    assert by_loss.minimize is False
    assert any("higher acc is better (assumed: mode='min' picks each trial's "
               "report by 'loss'" in n for n in by_loss.notes)
    assert read_results(tune_folder, score="loss", mode="min", failed="drop").frame[
        "loss"].tolist() == [0.6, 1.1, 0.5]


def test_ray_tune_errors_name_the_argument(tune_folder):
    with pytest.raises(ValueError, match=r"^mode: say whether a higher or lower "
                                         r"'acc' is better"):
        read_results(tune_folder, metric="acc")
    with pytest.raises(ValueError, match=r"^mode must be one of"):
        read_results(tune_folder, metric="acc", mode="maximize")
    with pytest.raises(ValueError, match=r"^per_trial must be one of"):
        read_results(tune_folder, metric="acc", mode="max", per_trial="mean")
    with pytest.raises(ValueError, match=r"^metric: no trial reported 'f1'; they "
                                         r"reported: .*acc.*loss"):
        read_results(tune_folder, metric="f1", mode="max")
    with pytest.raises(ValueError, match=r"^metric: name the metric"):
        read_results(tune_folder)
    with pytest.raises(ValueError, match=r"^study='x' is for an Optuna study, and "
                                         r"path_or_frame is a Ray Tune experiment: "
                                         r"leave study out$"):
        read_results(tune_folder, metric="acc", mode="max", study="x")
    plain = tune_folder.parent / "plain.csv"
    plain.write_text("acc\n0.5\n0.6\n")
    with pytest.raises(ValueError, match=r"^mode='max' is for a Ray Tune "
                                         r"experiment, and path_or_frame is a "
                                         r"results file"):
        read_results(plain, score="acc", mode="max")


def test_the_command_line_reads_a_ray_tune_folder(tune_folder, capsys):
    assert main(["curve", str(tune_folder), "--metric", "loss", "--mode", "min",
                 "--ns", "1", "--failed", "drop"]) == 0
    out, err = capsys.readouterr()
    assert err.startswith("note: Ray Tune experiment 'exp': 3 completed trials, "
                          "objective 'loss' (minimized), each trial's lowest report")
    # V at n = 1 is the mean of the chosen reports: (0.6 + 1.1 + 0.5) / 3.
    assert f"{(0.6 + 1.1 + 0.5) / 3:.4f}" in out and "exp" in out
    # The README's example: picked by the lowest loss, the accuracy is still a
    # score where higher is better.
    assert main(["curve", str(tune_folder), "--metric", "loss", "--mode", "min",
                 "--score", "acc", "--ns", "1,3", "--failed", "drop"]) == 0
    out, err = capsys.readouterr()
    table = [line.split() for line in out.splitlines()[1:]]
    assert float(table[1][2]) > float(table[0][2])  # a rising curve: best of 3
    assert "higher acc is better (assumed: --mode min picks" in err
    assert main(["curve", str(tune_folder), "--metric", "loss", "--mode", "min",
                 "--score", "acc", "--maximize", "--failed", "drop"]) == 0
    assert "assumed" not in capsys.readouterr().err
    assert main(["curve", str(tune_folder), "--metric", "acc"]) == 2
    assert capsys.readouterr().err.startswith(
        "evp curve: --mode: say whether a higher or lower 'acc' is better: --mode "
        "max or --mode min")
    assert main(["curve", str(tune_folder), "--metric", "acc", "--mode", "max",
                 "--minimize", "--failed", "drop"]) == 2
    assert "--minimize contradicts --mode max" in capsys.readouterr().err


@pytest.mark.needs("optuna", "papermill", "matplotlib")
def test_evp_run_reads_an_optuna_storage(study_db, tmp_path, capsys):
    url, out = study_db[1], tmp_path / "out"
    assert main(["run", "mean_vs_median", url, "--study", "error", "-p",
                 "sample_sizes=6", "--out", str(out)]) == 0
    printed = capsys.readouterr()
    assert printed.err.startswith("note: Optuna study 'error': 15 completed trials, "
                                  "objective 'value' (minimized)\n")
    assert f"ran mean_vs_median on {url}: " in printed.out
    trials = pd.read_csv(out / "trials.csv")
    assert trials["number"].tolist() == list(range(15))
    np.testing.assert_allclose(trials["value"], 0.1 + 0.3 * trials["params_x"] ** 2)
    cells = json.loads((out / "mean_vs_median.ipynb").read_text())["cells"]
    injected = next("".join(c["source"]) for c in cells
                    if "injected-parameters" in c["metadata"].get("tags", []))
    assert "minimize = True" in injected and 'score_column = "value"' in injected
    assert (out / "mean_vs_median-fig8.png").exists()


def ray_trial(experiment, counter: int, config: dict, loss, *, error=False):
    """A trial folder named as Ray Tune names it (its id's counter, then the
    date), reporting `loss` twice; one that errored before its first report
    (`loss` None) has its config and its error and no result.json."""
    trial_id = f"f00d5_{counter:05d}"
    tag = ",".join(f"{k}={v}" for k, v in config.items())
    date = f"2025-03-0{1 + counter % 9}_1{counter % 10}-2{counter % 7}-0{counter % 5}"
    trial = experiment / f"train_{trial_id}_{counter}_{tag}_{date}"
    trial.mkdir(parents=True)
    (trial / "params.json").write_text(json.dumps(config))
    if loss is not None:
        lines = [json.dumps({"log_loss": loss + 0.1 * (2 - step), "trial_id": trial_id,
                             "training_iteration": step, "config": config})
                 for step in (1, 2)]
        (trial / "result.json").write_text("\n".join(lines) + "\n")
    if error:
        (trial / "error.txt").write_text("Failure # 1\nRuntimeError: diverged\n")
    return trial


@pytest.fixture
def bench(tmp_path):
    """A benchmark saved the usual way: one Ray Tune experiment folder per task
    and model, 8 trials each, the trials' dates out of their order; trials 2
    and 5 of breast_cancer-knn errored before they reported."""
    root = tmp_path / "ray_results" / "bench"
    rng = np.random.default_rng(0)
    for task, offset in (("breast_cancer", 0.0), ("iris", 0.2), ("wine", 0.4)):
        for model, gap in (("knn", 0.1), ("svm", 0.0), ("tree", 0.3)):
            experiment = root / f"{task}-{model}"
            for counter in range(8):
                config = {"task": task, "model": model,
                          "C": float(np.round(rng.uniform(0, 1), 4))}
                errored = ((task, model) == ("breast_cancer", "knn")
                           and counter in (2, 5))
                ray_trial(experiment, counter, config,
                          None if errored else
                          round(offset + gap + float(rng.uniform(0, 0.2)), 4),
                          error=errored)
            (experiment / "experiment_state-2025-03-01_10-00-00.json").write_text("{}")
    return root


def test_a_folder_of_experiments_groups_by_any_column(bench):
    results = read_results(bench, metric="log_loss", mode="min",
                           group="config/model", task="config/task", failed="worst")
    assert results.models == ["knn", "svm", "tree"]
    assert sorted(results.frame["config/task"].unique()) == ["breast_cancer", "iris",
                                                             "wine"]
    assert "experiment" in results.frame  # the experiment: one more column
    assert len(results.frame) == 72
    # Errored trials keep their places: Ray's counter, not the folders' dates.
    knn = results.frame[results.frame["experiment"] == "breast_cancer-knn"]
    assert knn["trial_id"].tolist() == [f"f00d5_{c:05d}" for c in range(8)]
    assert knn["state"].tolist() == ["TERMINATED"] * 2 + ["ERROR"] + [
        "TERMINATED"] * 2 + ["ERROR"] + ["TERMINATED"] * 2
    assert len(results.failed) == 2
    assert not any("nothing to compare across tasks" in w for w in results.warnings)


def test_experiments_as_models_on_one_task_each_are_said_with_the_fix(bench):
    results = read_results(bench, metric="log_loss", mode="min",
                           task="config/task", failed="drop")
    assert len(results.models) == 9
    said = [w for w in results.warnings if "no model appears" in w]
    assert said == ["no model appears on more than one task (9 models of column "
                    "'experiment', each on one of 3 tasks): there is nothing to "
                    "compare across tasks; group by a column that names models on "
                    "several tasks: group='config/model' (--group config/model)"]


def test_the_command_line_compares_a_folder_of_experiments_by_model_and_task(
        bench, capsys):
    assert main(["compare", str(bench), "--metric", "log_loss", "--mode", "min",
                 "--group", "config/model", "--task", "config/task",
                 "--failed", "drop", "--all"]) == 0
    out, err = capsys.readouterr()
    assert "knn" in out and "svm" in out and "tree" in out
    assert "breast_cancer-knn" not in out
    assert "evp compare:" not in err.replace("evp compare: warning", "")
    assert main(["compare", str(bench), "--metric", "log_loss", "--mode", "min",
                 "--task", "config/task", "--failed", "drop", "--all"]) == 0
    err = capsys.readouterr().err
    assert "no model appears on more than one task" in err
    assert "--group config/model" in err


def test_an_errored_trial_without_a_result_file_is_counted_in_its_place(tmp_path):
    experiment = tmp_path / "exp"
    for counter in range(30):
        ray_trial(experiment, counter, {"C": counter}, None if counter in (22, 24)
                  else 0.5 + 0.001 * counter, error=counter in (22, 24))
    results = read_results(experiment, metric="log_loss", mode="min",
                           failed="worst")
    assert results.failed == (23, 25)  # rows in trial order: trials 22 and 24
    assert results.frame["config/C"].tolist() == list(range(30))
    assert "2 failed (ERROR 2)" in results.notes[0]
    with pytest.raises(ValueError, match=r"f00d5_00022, f00d5_00024"):
        read_results(experiment, metric="log_loss", mode="min")


def test_a_searchers_trials_are_in_the_order_of_the_counter_in_their_folders(
        tmp_path):
    """A searcher's trials (Optuna's in Ray, say) have random ids, 8 hex
    digits: their place is the counter Ray writes after the id in the folder's
    name, the dates and ids out of order."""
    experiment = tmp_path / "optuna-search"
    ids = ["f3a1b2c4", "0b9e8d7c", "c0ffee12", "9d8c7b6a", "1234abcd"]
    for counter, trial_id in enumerate(ids, start=1):
        trial = experiment / (f"train_{trial_id}_{counter}_lr=0.{counter}"
                              f"_2025-03-0{6 - counter}_10-00-00")
        trial.mkdir(parents=True)
        (trial / "params.json").write_text(json.dumps({"lr": counter / 10}))
        if counter == 3:
            (trial / "error.txt").write_text("Failure # 1\n")
            continue
        (trial / "result.json").write_text(json.dumps(
            {"acc": 0.5 + counter / 100, "trial_id": trial_id}) + "\n")
    results = read_results(experiment, metric="acc", mode="max", failed="worst")
    assert results.frame["config/lr"].tolist() == [0.1, 0.2, 0.3, 0.4, 0.5]
    assert results.frame["trial_id"].tolist() == ids
    assert results.failed == (3,)


def test_an_experiment_whose_every_trial_errored_is_its_models_failed_rounds(
        tmp_path):
    """Every trial of iris-tree errored before it reported: no result file in
    the experiment. Its trials are failed rounds of model tree, counted, not an
    experiment that is not there; dropped, the model is named as gone."""
    root = tmp_path / "bench"
    for model in ("knn", "tree"):
        experiment = root / f"iris-{model}"
        for counter in range(4):
            ray_trial(experiment, counter, {"task": "iris", "model": model},
                      None if model == "tree" else 0.3 + 0.01 * counter,
                      error=model == "tree")
    results = read_results(root, metric="log_loss", mode="min",
                           group="config/model", task="config/task",
                           failed="worst", bounds=(0, 10))
    assert results.models == ["knn", "tree"]
    assert len(results.failed) == 4
    assert any("'iris-tree': 0 completed trials" in n and "4 failed (ERROR 4)" in n
               for n in results.notes)
    with pytest.warns(evp.DroppedRowsWarning):
        dropped = read_results(root, metric="log_loss", mode="min",
                               group="config/model", task="config/task",
                               failed="drop")
    assert dropped.models == ["knn"]
    assert any("model tree on iris had no round left and is left out" in n
               for n in dropped.notes)
    # One experiment alone, every trial errored: refused, as before.
    with pytest.raises(ValueError, match="reported anything usable"):
        read_results(root / "iris-tree", metric="log_loss", mode="min")
    # A metric no experiment reported is still the metric's error.
    with pytest.raises(ValueError, match="no trial reported 'acc'"):
        read_results(root, metric="acc", mode="max")
