"""Reading MLflow experiments: an mlruns folder and a SQLite store, written by
MLflow itself."""

import os
import sqlite3
import sys
import warnings

import numpy as np
import pytest

from evp import read_results
from evp.cli import main

# One experiment's runs, in the order they start (a minute apart): name, status,
# val_acc, seconds to run. Run 2 failed, run 4 was killed, run 5 is still running.
RUNS = [("r0", "FINISHED", 0.71, 30), ("r1", "FINISHED", 0.78, 45),
        ("r2", "FAILED", 0.95, 5), ("r3", "FINISHED", 0.74, 60),
        ("r4", "KILLED", 0.20, 8), ("r5", "RUNNING", 0.99, None),
        ("r6", "FINISHED", 0.80, 50)]
START = 1_700_000_000_000  # milliseconds


def _write(uri: str) -> None:
    """An experiment 'bert' (runs logged out of start order) and 'gpt', and an
    empty one, logged through MLflow's client."""
    from mlflow.entities import Metric, Param, RunTag
    from mlflow.tracking import MlflowClient

    client = MlflowClient(tracking_uri=uri)
    bert = client.create_experiment("bert")
    client.create_experiment("empty")
    for i in (3, 0, 6, 2, 5, 1, 4):  # logged out of order: read by start time
        name, status, accuracy, seconds = RUNS[i]
        start = START + 60_000 * i
        run = client.create_run(bert, run_name=name, start_time=start)
        client.log_batch(run.info.run_id, metrics=[
            Metric("val_acc", 0.1, start + 1, 0),
            Metric("val_acc", accuracy, start + 2, 1),  # the last value is read
            Metric("val_loss", 1 - accuracy, start + 2, 1)],
            params=[Param("lr", str(10.0 ** -(i + 1)))],
            tags=[RunTag("model", "bert-base")])
        if status != "RUNNING":
            client.set_terminated(run.info.run_id, status,
                                  end_time=start + 1000 * seconds)
    gpt = client.create_experiment("gpt")
    run = client.create_run(gpt, run_name="g0")
    client.log_metric(run.info.run_id, "val_acc", 0.5)
    client.set_terminated(run.info.run_id, "FINISHED")


@pytest.fixture(scope="module")
def stores(tmp_path_factory):
    """{kind: (what read_results takes, the store as a tracking URI)}."""
    pytest.importorskip("mlflow", reason="needs mlflow: pip install -e '.[mlflow]'")
    import logging

    logging.getLogger("mlflow").setLevel(logging.WARNING)
    folder = tmp_path_factory.mktemp("mlflow")
    mlruns, db = folder / "mlruns", folder / "mlflow.db"
    before = os.environ.get("MLFLOW_ALLOW_FILE_STORE")
    os.environ["MLFLOW_ALLOW_FILE_STORE"] = "true"  # MLflow 3's file store
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # MLflow's own
        try:
            _write(mlruns.as_uri())
        finally:
            if before is None:
                del os.environ["MLFLOW_ALLOW_FILE_STORE"]
            else:
                os.environ["MLFLOW_ALLOW_FILE_STORE"] = before
        _write(f"sqlite:///{db}")
    return {"mlruns": (mlruns, mlruns.as_uri()), "sqlite": (f"sqlite:///{db}",) * 2,
            "db file": (db, f"sqlite:///{db}")}


@pytest.mark.needs("mlflow")
@pytest.mark.parametrize("kind", ["mlruns", "sqlite", "db file"])
def test_an_experiment_is_read_in_start_order_with_failed_runs(stores, kind):
    source = stores[kind][0]
    results = read_results(source, experiment="bert", score="metrics.val_acc",
                           failed="worst", cost="duration_seconds")
    frame = results.frame
    ended = [r for r in RUNS if r[1] != "RUNNING"]
    assert frame["run_name"].tolist() == [r[0] for r in ended]
    assert frame["status"].tolist() == [r[1] for r in ended]
    assert frame["start_time"].is_monotonic_increasing
    np.testing.assert_allclose(frame["duration_seconds"], [r[3] for r in ended])
    # The FAILED and KILLED runs are failed rounds, whatever they logged.
    assert results.failed == (3, 5)
    scores = frame["metrics.val_acc"].to_numpy()
    assert np.isneginf(scores[[2, 4]]).all()
    np.testing.assert_allclose(scores[[0, 1, 3, 5]], [0.71, 0.78, 0.74, 0.80])
    assert frame["params.lr"].tolist()[0] == "0.1"  # as MLflow stores params
    assert (frame["tags.model"] == "bert-base").all()
    assert results.tuner == "mlflow" and results.name == "bert" and results.ordered
    assert results.cost == "duration_seconds"
    note = results.notes[0]
    assert note.startswith("MLflow experiment 'bert' (id ")
    assert ("4 completed runs, objective 'metrics.val_acc' (its direction not "
            "recorded): each run's last logged value") in note
    assert "2 failed (" in note and "FAILED 1" in note and "KILLED 1" in note
    assert "): failed rounds, whatever they logged" in note
    assert "1 not finished, left out (RUNNING 1)" in note
    assert "exchangeability test" in " ".join(results.notes)
    # Reading a file store sets MLflow's opt-in only while it reads.
    assert os.environ.get("MLFLOW_ALLOW_FILE_STORE") is None


@pytest.mark.needs("mlflow")
def test_failed_runs_are_refused_by_default_and_the_metric_named_short(stores):
    source = stores["sqlite"][0]
    with pytest.raises(ValueError, match=r"column 'status' marks crashed, failed or "
                                         r"killed rounds .* in rows 3, 5"):
        read_results(source, experiment="bert", score="metrics.val_acc")
    with pytest.warns(UserWarning, match="dropped 2 bad row"):
        results = read_results(source, experiment="bert", score="val_acc",
                               failed="drop")
    assert results.score == "metrics.val_acc"
    assert results.frame["run_name"].tolist() == ["r0", "r1", "r3", "r6"]


@pytest.mark.needs("mlflow")
def test_experiments_by_name_id_or_the_only_one_and_the_metrics(stores):
    from mlflow.tracking import MlflowClient

    source, uri = stores["sqlite"]
    gpt = MlflowClient(tracking_uri=uri).get_experiment_by_name("gpt")
    by_id = read_results(source, experiment=gpt.experiment_id, score="val_acc")
    assert by_id.name == "gpt" and by_id.frame["run_name"].tolist() == ["g0"]
    with pytest.raises(ValueError) as error:
        read_results(source, score="val_acc")
    assert str(error.value) == (
        f"experiment: name the MLflow experiment to read, e.g. experiment='bert'; "
        f"the store at {uri} holds 'bert', 'gpt'")
    with pytest.raises(ValueError, match=r"no experiment 'nope' .*its experiments: "):
        read_results(source, experiment="nope", score="val_acc")
    with pytest.raises(ValueError) as error:
        read_results(source, experiment="bert")
    assert str(error.value) == (
        "score: name the metric to read, e.g. score='metrics.val_acc'; the runs of "
        "'bert' logged: metrics.val_acc, metrics.val_loss")
    with pytest.raises(ValueError, match="looks like a loss"):
        read_results(source, experiment="bert", score="val_loss", failed="drop")
    loss = read_results(source, experiment="bert", score="val_loss", failed="worst",
                        minimize=True)
    assert loss.minimize and np.isposinf(loss.frame["metrics.val_loss"][2])


@pytest.mark.needs("mlflow")
def test_the_command_line_reads_a_store_with_experiment(stores, capsys):
    for source in (stores["mlruns"][0], stores["sqlite"][0]):
        assert main(["curve", str(source), "--experiment", "bert", "--score",
                     "metrics.val_acc", "--ns", "1,2", "--failed", "drop"]) == 0
        printed = capsys.readouterr()
        assert printed.err.startswith("note: MLflow experiment 'bert' (id ")
        assert printed.out.split()[:4] == ["model", "n", "curve", "std"]
        assert "bert" in printed.out
    assert main(["curve", stores["sqlite"][0], "--score", "val_acc"]) == 2
    assert "--experiment: name the MLflow experiment" in capsys.readouterr().err


@pytest.mark.needs("mlflow")
def test_an_optuna_or_other_sqlite_file_is_never_written(tmp_path):
    path = tmp_path / "other.db"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE studies (study_id INTEGER)")
    before = path.read_bytes()
    with pytest.raises(ValueError, match="not an MLflow SQLite store"):
        read_results(f"sqlite:///{path}", experiment="bert", score="val_acc")
    with pytest.raises(ValueError, match="not an MLflow SQLite store"):
        read_results(path, experiment="bert", score="val_acc")
    with pytest.raises(FileNotFoundError):
        read_results(f"sqlite:///{tmp_path / 'missing.db'}", experiment="bert",
                     score="val_acc")
    assert path.read_bytes() == before and not (tmp_path / "missing.db").exists()


def test_without_mlflow_the_error_names_the_extra(tmp_path, monkeypatch, capsys):
    (tmp_path / "mlruns").mkdir()
    monkeypatch.setitem(sys.modules, "mlflow", None)
    monkeypatch.setitem(sys.modules, "mlflow.tracking", None)
    with pytest.raises(ImportError,
                       match=r"pip install 'evp-tuning-curves\[mlflow\]'"):
        read_results(tmp_path / "mlruns", experiment="bert", score="val_acc")
    assert main(["curve", str(tmp_path / "mlruns"), "--experiment", "bert",
                 "--score", "val_acc"]) == 2
    err = capsys.readouterr().err
    assert err.strip().endswith("reading MLflow runs needs mlflow: pip install "
                                "'evp-tuning-curves[mlflow]'") and len(
        err.strip().splitlines()) == 1
