"""evp.notebook: what the analysis notebooks share."""

import json
import math

import numpy as np
import pandas as pd
import pytest

from evp import notebook
from evp.notebook import Results, as_count, as_list, load_results, report_claims
from evp.runner import clean


@pytest.mark.parametrize("value, kind, expected", [
    (None, str, None),
    ("a,b", str, ["a", "b"]),
    (" a , b ,", str, ["a", "b"]),
    ('["a", "b"]', str, ["a", "b"]),
    ("lstm", str, ["lstm"]),
    ("6,48", int, [6, 48]),
    ("[6, 48]", int, [6, 48]),
    (48, int, [48]),
    (48.0, int, [48]),
    ([6, 12], int, [6, 12]),
    ((0.5, 0.8), float, [0.5, 0.8]),
    ("0.5,0.8", float, [0.5, 0.8]),
])
def test_as_list_takes_papermill_strings(value, kind, expected):
    assert as_list(value, "x", kind=kind) == expected


@pytest.mark.parametrize("value, message", [
    ("[6, 48", "x: '\\[6, 48' is not a JSON list"),
    ("6.5", "x: expected a list of int values"),
    ("", "x: the list is empty"),
    ("six", "x: expected a list of int values"),
])
def test_as_list_names_the_parameter(value, message):
    with pytest.raises(ValueError, match=message):
        as_list(value, "x", kind=int)


def test_as_count():
    assert as_count("500", "n_draws") == 500
    with pytest.raises(ValueError, match="n_draws: must be at least 1, got 0"):
        as_count(0, "n_draws")
    with pytest.raises(ValueError, match="n_draws: expected a whole number"):
        as_count([1, 2], "n_draws")


def users_results(tmp_path, minimize=False):
    frame = pd.DataFrame({
        "loss" if minimize else "acc": [0.3, 0.5, 0.4, 0.9, 0.8, 0.7, 0.6],
        "arm": ["x", "x", "x", "y", "y", "y", "y"],
    })
    path = tmp_path / "runs.csv"
    frame.to_csv(path, index=False)
    return load_results(path, score_column="loss" if minimize else "acc",
                        group_column="arm", minimize=minimize)


def test_load_results_on_a_users_file(tmp_path):
    results = users_results(tmp_path)
    assert results.models == ["x", "y"] and not results.is_paper
    np.testing.assert_array_equal(results.scores["x"], [0.3, 0.5, 0.4])
    assert results.axis_label("median") == "median best acc"
    # Unknown bounds are infinite on the user's data.
    assert results.bounds() == (-math.inf, math.inf)
    assert results.bounds(0, 1) == (0.0, 1.0)
    with pytest.raises(ValueError, match="lower_bound, upper_bound: the range"):
        results.bounds(0.5, 1)


def test_losses_are_negated_and_shown_as_losses(tmp_path):
    results = users_results(tmp_path, minimize=True)
    np.testing.assert_array_equal(results.scores["x"], [-0.3, -0.5, -0.4])
    assert results.show(-0.3) == pytest.approx(0.3)
    assert results.axis_label("median") == "median lowest loss"
    # A loss known to be at least 0: the negated loss is at most 0.
    assert results.bounds(0, None) == (-math.inf, 0.0)
    assert any("loss is a loss" in note for note in results.notes)


def test_load_results_needs_a_score_column_and_enough_models(tmp_path):
    frame = pd.DataFrame({"acc": [0.1, 0.2]})
    frame.to_csv(tmp_path / "one.csv", index=False)
    with pytest.raises(ValueError, match="score_column: name the column"):
        load_results(tmp_path / "one.csv")
    with pytest.raises(ValueError, match="models: t compares 2 models, but got 1 "
                                         r"\(acc\); name the column of model names"):
        load_results(tmp_path / "one.csv", score_column="acc", need=2, name="t")


def test_sizes_are_clipped_with_a_note(tmp_path, capsys):
    results = users_results(tmp_path)
    assert results.sizes("2,3,10", "sample_sizes") == [2, 3]
    assert "sample_sizes 10 exceeds the 3 rounds of model 'x'; using 3" in (
        capsys.readouterr().out)
    assert results.sizes([2, 10], "n", models=["y"]) == [2, 4]
    assert results.sizes(4, "n", models=["y"], at_most=2, reason="half") == [2]
    with pytest.raises(ValueError, match="sample_size: sizes must be at least 2"):
        results.sizes(1, "sample_size", at_least=2)
    with pytest.raises(ValueError, match="n: at most 3 fit"):
        results.sizes(5, "n", at_least=4)


def test_first_says_what_it_leaves_out(tmp_path, capsys):
    results = users_results(tmp_path)
    assert results.first(1) == ["x"]
    assert "analysing the first model, x, of 2" in capsys.readouterr().out
    assert results.first(2) == ["x", "y"]
    assert capsys.readouterr().out == ""


def test_from_scores():
    results = Results.from_scores({"bag": [0.2, 0.1]}, source="a bag")
    assert results.models == ["bag"] and results.frame["group"].tolist() == ["bag"] * 2


def test_figures_go_to_evp_runs_on_users_data(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert notebook.figures_folder("x", paper=False) == notebook.Path("evp-runs/x")
    assert (tmp_path / "evp-runs" / "x").is_dir()
    # On the paper's data, figures/ of the checkout around the current folder.
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "figures").mkdir()
    monkeypatch.chdir(tmp_path / "notebooks")
    assert notebook.figures_folder("x", paper=True) == tmp_path / "figures"


def test_report_claims_writes_the_table_and_asserts_only_the_papers(tmp_path):
    rows = [("a theorem", "held", True, "must hold"),
            ("a finding", "did not", False, "empirical")]
    table = report_claims(rows, name="t", folder=tmp_path, check=True)
    written = pd.read_csv(tmp_path / "t-claims.csv")
    assert written["holds"].tolist() == [True, False]
    assert table["kind"].tolist() == ["must hold", "empirical"]
    with pytest.raises(AssertionError, match="claims that do not hold: a theorem"):
        report_claims([("a theorem", "failed", False, "must hold")], name="t",
                      folder=tmp_path, check=True)
    with pytest.raises(AssertionError, match="a finding"):
        report_claims([("a finding", "failed", False)], name="t", folder=tmp_path,
                      check=True)
    # On a user's results the table is reported, never asserted.
    users = Results.from_scores({"m": [1.0]})
    report_claims([("a theorem", "failed", False, "must hold")], name="t",
                  folder=tmp_path, check=True, results=users)


def test_clean_drops_what_changes_from_run_to_run():
    executed = {
        "metadata": {"papermill": {"start_time": "t", "duration": 1.0,
                                   "parameters": {"seed": 1}},
                     "widgets": {"state": {}}},
        "cells": [{"cell_type": "code", "metadata": {
            "execution": {"iopub.status.busy": "t"},
            "papermill": {"duration": 1.0}, "tags": ["parameters"]},
            "outputs": [
                {"output_type": "stream", "name": "stderr",
                 "text": "\r 50%|#####     | 1/2 [00:01<00:01, 1.0it/s]"},
                {"output_type": "display_data", "data": {
                    "application/vnd.jupyter.widget-view+json": {"model_id": "abc"}}},
                {"output_type": "stream", "name": "stdout", "text": "kept\n"}],
            "source": "", "execution_count": 1}],
    }
    cleaned = clean(executed)
    assert cleaned["metadata"] == {"papermill": {"parameters": {"seed": 1}}}
    cell = cleaned["cells"][0]
    assert cell["metadata"] == {"tags": ["parameters"]}
    assert cell["outputs"] == [{"output_type": "stream", "name": "stdout",
                                "text": "kept\n"}]
    assert json.dumps(executed).count("duration") == 2  # the input is left alone


def test_budget_axis_labels_plain_budgets():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    notebook.budget_axis(ax, 96)
    labels = [t.get_text() for t in ax.get_xticklabels()]
    assert labels[0] == "1" and labels[-1] == "96"
    plt.close(fig)


def test_data_limits_leave_out_vacuous_edges():
    low, high = notebook.data_limits([0.2, 0.4, np.inf, 1.0], bounds=(0.0, 1.0),
                                     pad=0.0)
    assert (low, high) == (0.2, 0.4)


def test_clean_joins_the_pieces_of_one_stream():
    def stream(name, *text):
        return {"output_type": "stream", "name": name, "text": list(text)}

    cell = {"cell_type": "code", "metadata": {}, "source": "", "execution_count": 1,
            "outputs": [stream("stdout", "a\n", "b"), stream("stdout", "c\n"),
                        stream("stderr", "w\n"), stream("stdout", "d\n")]}
    cleaned = clean({"metadata": {}, "cells": [cell]})["cells"][0]["outputs"]
    assert [(o["name"], "".join(o["text"])) for o in cleaned] == [
        ("stdout", "a\nbc\n"), ("stderr", "w\n"), ("stdout", "d\n")]


def test_figures_go_where_evp_figures_dir_says_unless_a_folder_is_given(
        tmp_path, monkeypatch):
    from evp.notebook import figures_folder

    monkeypatch.setenv("EVP_FIGURES_DIR", str(tmp_path / "elsewhere"))
    assert figures_folder("x") == tmp_path / "elsewhere"
    assert figures_folder("x", paper=False) == tmp_path / "elsewhere"
    assert figures_folder("x", tmp_path / "given") == tmp_path / "given"
    assert (tmp_path / "elsewhere").is_dir()


def test_report_claims_takes_rows_of_mixed_length_and_their_own_source(tmp_path):
    rows = [("a theorem", "held", True),
            ("another paper's claim", "held", True, "paper", "Other (2019), §3.2"),
            ("a finding", "did not", False, "empirical")]
    report_claims(rows, name="t", folder=tmp_path, check=True, source="Own (2021)")
    written = pd.read_csv(tmp_path / "t-claims.csv", keep_default_na=False)
    assert written["kind"].tolist() == ["must hold", "paper", "empirical"]
    assert written["source"].tolist() == ["Own (2021)", "Other (2019), §3.2",
                                          "Own (2021)"]
    # A row without a kind is asserted, as before.
    with pytest.raises(AssertionError, match="a theorem"):
        report_claims([("a theorem", "failed", False),
                       ("a finding", "x", False, "empirical")], name="t",
                      folder=tmp_path, check=True)
