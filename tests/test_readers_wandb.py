"""Reading W&B runs: the CSV the W&B app exports, and the public API's DataFrame,
written here in their layouts (no wandb install, no network)."""

import csv

import numpy as np
import pandas as pd
import pytest

from evp import read_results
from evp.cli import main

pytestmark = pytest.mark.filterwarnings("ignore:dropped .* bad row")

# The app's export: run columns first, then config (nested keys joined by "."),
# then summary metrics as logged; every cell quoted; newest run first.
HEADER = ["Name", "Agent", "State", "Notes", "User", "Tags", "Created", "Runtime",
          "Sweep", "lr", "optimizer.name", "val_acc", "val/loss", "_step"]
ROWS = [  # name, state, created, runtime, lr, optimizer, val_acc, val/loss, _step
    ("fiery-sun-7", "running", "2025-11-13T10:30:02.000Z", "40", "0.02", "adam",
     "0.99", "0.1", "3"),
    ("lucky-dawn-6", "finished", "2025-11-13T10:02:11.000Z", "600", "0.01", "adam",
     "0.81", "0.5", "99"),
    ("calm-moon-5", "crashed", "2025-11-13T09:34:15.000Z", "120", "0.1", "sgd",
     "0.97", "1.5", "20"),
    ("brisk-wind-4", "finished", "2025-11-13T09:21:36.000Z", "590", "0.001", "adam",
     "0.84", "0.4", "99"),
    ("wild-star-3", "failed", "2025-11-13T08:11:40.000Z", "15", "0.3", "sgd",
     "", "", "1"),
    ("proud-tree-2", "finished", "2025-11-13T07:56:21.000Z", "610", "0.003", "sgd",
     "0.79", "0.6", "99"),
    ("quiet-lake-1", "killed", "2025-11-13T07:42:37.000Z", "50", "0.03", "adam",
     "0.30", "", "10"),
]


@pytest.fixture
def export(tmp_path):
    path = tmp_path / "wandb_export_2025-11-13T10_40_00.000+01_00.csv"
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, quoting=csv.QUOTE_ALL)
        writer.writerow(HEADER)
        for name, state, created, runtime, *rest in ROWS:
            writer.writerow([name, "agent-1", state, "-", "ana", "", created,
                             runtime, "swp7abc", *rest])
    return path


def test_the_app_export_is_read_in_creation_order(export):
    results = read_results(export, score="val_acc", failed="worst", cost="Runtime")
    frame = results.frame
    # Oldest first; the running run left out.
    assert frame["Name"].tolist() == ["quiet-lake-1", "proud-tree-2", "wild-star-3",
                                      "brisk-wind-4", "calm-moon-5", "lucky-dawn-6"]
    assert results.ordered and results.order is None  # not the summary's _step
    assert results.tuner == "wandb"
    # Killed, failed and crashed runs are failed rounds, whatever they logged.
    assert results.failed == (1, 3, 5)
    scores = frame["val_acc"].to_numpy()
    assert np.isneginf(scores[[0, 2, 4]]).all()
    np.testing.assert_allclose(scores[[1, 3, 5]], [0.79, 0.84, 0.81])
    np.testing.assert_allclose(frame["Runtime"], [50, 610, 15, 590, 120, 600])
    assert frame["optimizer.name"].tolist()[:2] == ["adam", "sgd"]
    note = results.notes[0]
    assert note.startswith("W&B runs table (the app's CSV export): 3 completed "
                           "runs, objective 'val_acc' (its direction not "
                           "recorded): each run's summary, the runs in the order "
                           "created (column 'Created'); 3 failed (")
    assert "1 not finished, left out (running 1)" in note
    assert "cost column 'Runtime' (seconds)" in note and "sweep(s) swp7abc" in note
    assert "exchangeability test" in " ".join(results.notes)


def test_failed_runs_need_a_policy_and_the_score_is_named(export):
    with pytest.raises(ValueError, match="column 'State' marks crashed, failed or "
                                         "killed rounds"):
        read_results(export, score="val_acc")
    with pytest.warns(UserWarning, match="dropped 3 bad row"):
        results = read_results(export, score="val_acc", failed="drop")
    assert results.frame["Name"].tolist() == ["proud-tree-2", "brisk-wind-4",
                                              "lucky-dawn-6"]
    with pytest.raises(ValueError) as error:
        read_results(export)
    assert str(error.value).startswith("score: name the W&B metric to read, e.g. "
                                       "score='lr'; numeric columns: lr, val_acc, "
                                       "val/loss, _step")
    with pytest.raises(ValueError, match="looks like a loss"):
        read_results(export, score="val/loss", failed="drop")


def test_unreadable_creation_times_leave_the_order_unknown(export):
    frame = pd.read_csv(export)
    frame["Created"] = "sometime"
    results = read_results(frame, score="val_acc", failed="drop")
    assert not results.ordered and results.order is None
    assert not results.exchangeability
    assert "not ordered: column 'Created' has unreadable times" in results.notes[0]


def _api_frame():
    """The public API's table as W&B's documentation builds it: summary and
    config dicts per run, newest first."""
    return pd.DataFrame({
        "name": ["d", "c", "b", "a"],
        "state": ["running", "finished", "crashed", "finished"],
        "created_at": ["2024-03-01T12:00:00Z", "2024-03-01T11:00:00Z",
                       "2024-03-01T10:00:00Z", "2024-03-01T09:00:00Z"],
        "summary": [{"_runtime": 5, "_step": 2},
                    {"val_acc": 0.85, "_runtime": 300, "_timestamp": 1.709294e9,
                     "_step": 9, "_wandb": {"runtime": 300}},
                    {"val_acc": 0.2, "_runtime": 30, "_timestamp": 1.709290e9},
                    {"val_acc": 0.8, "_runtime": 290, "_timestamp": 1.709286e9}],
        "config": [{"lr": 0.4, "optimizer": {"name": "adam"}},
                   {"lr": 0.3, "optimizer": {"name": "adam"}},
                   {"lr": 0.2, "optimizer": {"name": "sgd"}},
                   {"lr": 0.1, "optimizer": {"name": "adam"}}]})


def test_the_public_api_frame_is_flattened_and_ordered():
    results = read_results(_api_frame(), score="val_acc", failed="worst",
                           cost="summary._runtime")
    frame = results.frame
    assert results.score == "summary.val_acc"
    assert frame["name"].tolist() == ["a", "b", "c"]
    assert frame["config.optimizer.name"].tolist() == ["adam", "sgd", "adam"]
    assert "summary._wandb.runtime" not in frame
    assert results.failed == (2,)
    np.testing.assert_allclose(frame["summary._runtime"], [290, 30, 300])
    assert "in the order created (column 'created_at')" in results.notes[0]
    assert "1 failed (crashed 1): failed rounds, whatever they logged" in \
        results.notes[0]


def test_a_flattened_api_frame_orders_by_the_last_log(tmp_path, capsys):
    frame = _api_frame().drop(columns="created_at")
    flat = pd.json_normalize(frame.to_dict("records"), sep=".")
    path = tmp_path / "runs.jsonl"
    flat.to_json(path, orient="records", lines=True)
    results = read_results(path, score="summary.val_acc", failed="drop")
    assert results.frame["name"].tolist() == ["a", "c"]
    assert "the order the runs ended, not started" in results.notes[0]
    assert main(["curve", str(path), "--score", "summary.val_acc", "--ns", "1,2",
                 "--failed", "drop"]) == 0
    assert capsys.readouterr().err.startswith("note: W&B runs (the public API's "
                                              "table): 2 completed runs")


def test_the_command_line_reads_an_export(export, capsys):
    assert main(["curve", str(export), "--score", "val_acc", "--ns", "1,3",
                 "--failed", "worst", "--bounds", "0,1"]) == 0
    printed = capsys.readouterr()
    assert printed.err.startswith("note: W&B runs table (the app's CSV export): 3 "
                                  "completed runs")
    assert printed.out.split()[:4] == ["model", "n", "curve", "std"]
    assert main(["curve", str(export), "--score", "val_acc"]) == 2
    assert "pass --failed drop" in capsys.readouterr().err


def test_the_api_frame_saved_with_to_csv_is_read_back(tmp_path):
    path = tmp_path / "project.csv"
    _api_frame().to_csv(path)  # the dicts become their Python reprs
    results = read_results(path, score="val_acc", failed="drop")
    assert results.score == "summary.val_acc"
    assert results.frame["name"].tolist() == ["a", "c"]
    assert results.frame["config.optimizer.name"].tolist() == ["adam", "adam"]
