"""Every input means what the user meant: the direction of the score, failed
rounds, adaptive searches, awkward files; and no traceback on any of them.

Each test writes the made-up file it needs, and checks what reaches the
statistics against numbers computed here, by hand or by brute force."""

import itertools
import json

import numpy as np
import pandas as pd
import pytest

import evp
from evp import cli, ranking, tables
from evp.readers import looks_like_loss


def main(capsys, *args):
    try:
        status = cli.main([str(a) for a in args])
    except SystemExit as exit_:  # argparse's own errors
        status = exit_.code
    out, err = capsys.readouterr()
    return status, out, err


def rows_of(out: str) -> list[list[str]]:
    return [line.split() for line in out.strip().splitlines()[1:]]


# ------------------------------------------------------------------ direction


@pytest.mark.parametrize("name, loss", [
    ("val_loss", True), ("ValLoss", True), ("loss", True), ("error_rate", True),
    ("top1_err", True), ("perplexity", True), ("ppl", True), ("rmse", True),
    ("test-MAE", True), ("wer", True), ("regret", True), ("latency_ms", True),
    ("accuracy", False), ("f1", False), ("errand", False), ("glossy", False),
    ("bleu", False), ("auc", False)])
def test_a_name_that_says_loss(name, loss):
    assert looks_like_loss(name) is loss


@pytest.fixture
def loss_file(tmp_path):
    """Model A has the clearly lower (better) validation loss."""
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"model": ["A"] * 40 + ["B"] * 40,
                          "val_loss": np.r_[rng.normal(0.30, 0.02, 40),
                                            rng.normal(0.60, 0.02, 40)]})
    path = tmp_path / "runs.csv"
    frame.to_csv(path, index=False)
    return path


def test_a_loss_is_never_read_as_a_score(loss_file, capsys):
    status, out, err = main(capsys, "compare", loss_file, "--score", "val_loss",
                            "--group", "model", "A", "B")
    assert status == 2 and out == ""
    assert err.strip().splitlines() == [
        "evp compare: --score: 'val_loss' looks like a loss (lower is better): pass "
        "--minimize, or --maximize if higher is better"]
    status, out, err = main(capsys, "compare", loss_file, "--score", "val_loss",
                            "--group", "model", "A", "B", "--minimize")
    assert status == 0 and "assumed" not in err
    verdicts = {row[0]: (row[-2], row[-1]) for row in rows_of(out)}
    assert verdicts["5"] == ("strong", "none")  # A beats B, B never beats A
    # Said the other way, on purpose: B's higher loss wins.
    status, out, _ = main(capsys, "compare", loss_file, "--score", "val_loss",
                          "--group", "model", "A", "B", "--maximize")
    assert status == 0 and {row[0]: row[-1] for row in rows_of(out)}["5"] == "strong"
    status, _, err = main(capsys, "compare", loss_file, "--score", "val_loss",
                          "--group", "model", "A", "B", "--minimize", "--maximize")
    assert status == 2 and "not allowed with argument" in err


# ------------------------------------------------------------------ awkward files


def test_json_lines_with_lists_nested_configs_and_timestamps(tmp_path, capsys):
    rng = np.random.default_rng(1)
    path = tmp_path / "search.jsonl"
    path.write_text("".join(json.dumps({
        "acc": float(rng.uniform(0.6, 0.9)), "layers": [64, 32][: 1 + i % 2],
        "config": {"opt": ["adam", "sgd"][i % 2], "lr": 10 ** -rng.uniform(2, 5)},
        "created_at": f"2026-01-{1 + i:02d}T10:00:00", "tags": {"a": 1}}) + "\n"
        for i in range(20)))
    status, out, err = main(capsys, "curve", path, "--score", "acc", "--ns", "1,20")
    assert status == 0, err
    model, n, curve, _, *band = rows_of(out)[0]
    assert len(band) == 3  # the median and its band, printed by default
    assert (model, n) == ("search", "1")
    assert float(curve) == pytest.approx(pd.read_json(path, lines=True)["acc"].mean(),
                                         abs=5e-5)


def test_one_model_with_a_categorical_hyperparameter_and_a_timestamp(tmp_path,
                                                                     capsys):
    frame = pd.DataFrame({
        "acc": np.linspace(0.5, 0.8, 12),
        "config.opt": ["adam", "sgd", "rmsprop"] * 4,
        "params_act": ["relu", "gelu"] * 6,
        "created_at": pd.date_range("2026-01-01", periods=12, freq="h").astype(str)})
    path = tmp_path / "one.csv"
    frame.to_csv(path, index=False)
    status, out, err = main(capsys, "curve", path, "--score", "acc", "--ns", "1")
    assert status == 0, err
    assert rows_of(out)[0][:2] == ["one", "1"]
    # A column that does name models is still caught.
    frame.assign(arm=["x", "y"] * 6).to_csv(path, index=False)
    status, _, err = main(capsys, "curve", path, "--score", "acc")
    assert status == 2 and "column 'arm' looks like it names models" in err


def test_what_evp_search_writes_reads_as_it_is(capsys):
    from pathlib import Path

    folder = Path(__file__).resolve().parents[1] / "data" / "sst5"
    status, out, err = main(capsys, "curve", folder, "--score", "accuracy",
                            "--group", "model", "--ns", "1")
    assert status == 0, err
    assert "exchangeability test p = " in err  # evp search records the order
    assert {row[0] for row in rows_of(out)} == {"lr", "cnn", "lboe"}


def test_an_empty_file_is_named(tmp_path, capsys):
    path = tmp_path / "empty.csv"
    path.write_text("")
    status, _, err = main(capsys, "curve", path, "--score", "acc")
    assert status == 2
    assert err.strip() == ("evp curve: RESULTS: empty.csv is empty: no header and no "
                           "rows")


# ------------------------------------------------------------------ failed rounds


@pytest.fixture
def wandb_export(tmp_path):
    """A W&B runs export: finished runs, crashed runs (some with a logged score),
    a failed one without, and one killed."""
    frame = pd.DataFrame({
        "Name": [f"run-{i}" for i in range(10)],
        "State": ["finished", "crashed", "finished", "failed", "finished",
                  "crashed", "killed", "finished", "finished", "crashed"],
        "val_acc": [0.80, 0.91, 0.70, np.nan, 0.85, 0.60, 0.95, 0.75, 0.90, 0.65],
        "_runtime": [100, 20, 110, 5, 90, 95, 40, 105, 100, 98],
        "_step": np.arange(10)})
    path = tmp_path / "wandb.csv"
    frame.to_csv(path, index=False)
    return path, frame


def test_crashed_rounds_are_failed_rounds_even_with_a_score(wandb_export, capsys):
    path, frame = wandb_export
    status, _, err = main(capsys, "curve", path, "--score", "val_acc")
    assert status == 2 and len(err.strip().splitlines()) == 1
    assert err.startswith("evp curve: 5 failed round(s) (row 1 is the first data "
                          "row): score column 'val_acc' has missing")
    assert "rows 4;" in err and "'State' marks crashed" in err
    assert "rows 2, 6, 7, 10;" in err
    assert "--failed drop" in err and "--failed worst" in err
    finished = frame.loc[frame["State"] == "finished", "val_acc"]
    status, out, err = main(capsys, "curve", path, "--score", "val_acc", "--failed",
                            "drop", "--ns", "1")
    assert status == 0
    assert float(rows_of(out)[0][2]) == pytest.approx(finished.mean(), abs=5e-5)
    assert "5 failed round(s) of 10 dropped" in err and "optimistic" in err
    # The old spelling is the same policy.
    status, again, _ = main(capsys, "curve", path, "--score", "val_acc",
                            "--drop-bad-rows", "--ns", "1")
    assert status == 0 and again == out


def brute_force_expected_max(values, n):
    """The mean of the best of n draws with replacement, over every draw."""
    return np.mean([max(draw) for draw in itertools.product(values, repeat=n)])


def brute_force_median(values, n, best=max):
    """The median of the best of n draws (the highest score, or the lowest loss
    with ``best=min``), by counting every draw: the smallest value whose share of
    draws at or below it is at least a half, the curve's definition; for a loss,
    minus that of the negated losses (the largest value whose share of draws at
    or above it is at least a half), so that a loss and its negation agree."""
    found = sorted(best(draw) for draw in itertools.product(values, repeat=n))
    return found[(len(found) - 1) // 2 if best is max else len(found) // 2]


def test_worst_counts_failed_rounds_below_every_score(wandb_export):
    path, frame = wandb_export
    results = evp.read_results(path, score="val_acc", failed="worst")
    failed = frame["State"] != "finished"
    assert results.failed == tuple(np.flatnonzero(failed) + 1)
    assert np.isneginf(results.scores["val_acc"][failed.to_numpy()]).all()
    as_failed = np.where(failed, -np.inf, frame["val_acc"])
    table = tables.tuning_curve_table(results, ns=[1, 2, 3], method="ks")
    # Medians stay exact with -inf among the scores: brute force over all draws.
    for n, median in zip([1, 2, 3], table["median"], strict=True):
        assert median == brute_force_median(as_failed, n)
    assert table["median"].iloc[0] == -np.inf  # half failed: n = 1 is a coin toss
    # The mean curve has no value without a floor.
    assert table["curve"].isna().all() and table["std"].isna().all()
    # With the floor 0, a failed round counts as 0.
    floored = tables.tuning_curve_table(results, ns=[1, 2, 3], bounds=(0, 1))
    for n, curve in zip([1, 2, 3], floored["curve"], strict=True):
        expected = brute_force_expected_max(np.where(failed, 0.0, frame["val_acc"]), n)
        assert curve == pytest.approx(expected, rel=1e-12)


def test_worst_for_a_loss_and_its_band(tmp_path):
    losses = np.array([0.4, np.nan, 0.3, 0.5, np.nan, 0.2, 0.45, 0.35])
    results = evp.read_results(pd.DataFrame({"loss": losses}), score="loss",
                               minimize=True, failed="worst")
    assert np.isposinf(results.scores_as_read["loss"][np.isnan(losses)]).all()
    table = tables.tuning_curve_table(results, ns=[1, 2, 4], method="ld_equal_tailed")
    as_failed = np.where(np.isnan(losses), np.inf, losses)
    for n, median in zip([1, 2, 4], table["median"], strict=True):
        assert median == brute_force_median(as_failed, n, best=min)
    band = evp.tuning_curve_band(np.where(np.isnan(losses), 99.0, losses),
                                 [1, 2, 4], method="ld_equal_tailed", minimize=True)
    expected_upper = np.where(band.upper == 99.0, np.inf, band.upper)
    np.testing.assert_array_equal(table["band_upper"], expected_upper)


def test_worst_in_the_command_line_and_the_report(wandb_export, capsys, tmp_path):
    pytest.importorskip("matplotlib")
    path, _ = wandb_export
    status, out, err = main(capsys, "curve", path, "--score", "val_acc", "--failed",
                            "worst", "--bounds", "0,1", "--method", "ks", "--ns",
                            "1,2")
    # n = 1: the mean with failed rounds at the floor 0; the median a failure.
    finished = pd.read_csv(path).query("State == 'finished'")["val_acc"]
    first = rows_of(out)[0]
    assert float(first[2]) == pytest.approx(finished.sum() / 10, abs=5e-5)
    assert first[5] == "-inf"
    assert status == 0, err
    assert "5 failed round(s) of 10" in err and "count as worse than every score" in err
    status, _, err = main(capsys, "report", path, "--score", "val_acc", "--failed",
                          "worst", "--out", tmp_path / "r.html")
    assert status == 0, err
    page = (tmp_path / "r.html").read_text()
    assert "The expected best score is undefined" in page
    status, _, err = main(capsys, "run", "mean_vs_median", path, "--score", "val_acc",
                          "--failed", "worst")
    assert status == 2 and "--failed worst: the notebooks analyse finite" in err


# ------------------------------------------------------------------ adaptive searches


def test_the_exchangeability_test_is_exact_and_has_power():
    from evp.significance import exchangeability_test

    rng = np.random.default_rng(0)
    iid = [exchangeability_test(rng.normal(size=60), n_resamples=199, rng=i).pvalue
           for i in range(300)]
    # Exact: at most alpha under the null, up to Monte Carlo error (3 sd).
    assert np.mean(np.array(iid) <= 0.05) <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / 300)
    assert np.allclose(np.array(iid) * 200, np.round(np.array(iid) * 200))  # (c+1)/200
    trend = [exchangeability_test(rng.normal(size=100) + np.linspace(0, 2, 100),
                                  n_resamples=199, rng=i).pvalue for i in range(50)]
    assert np.mean(np.array(trend) <= 0.05) >= 0.9
    narrowing = [exchangeability_test(rng.normal(size=100) * np.linspace(1, 0.1, 100),
                                      n_resamples=199, rng=i).pvalue
                 for i in range(50)]
    assert np.mean(np.array(narrowing) <= 0.05) >= 0.8
    with pytest.raises(ValueError, match="at least 3 trials"):
        exchangeability_test([0.1, 0.2])
    with pytest.raises(ValueError, match="NaN or \\+inf"):
        exchangeability_test([0.1, np.nan, 0.3])


@pytest.fixture(scope="module")
def two_studies(tmp_path_factory):
    """TPE and random search, 150 trials each, on an objective with a known peak."""
    optuna = pytest.importorskip("optuna")
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    url = f"sqlite:///{tmp_path_factory.mktemp('studies') / 'studies.db'}"

    def objective(trial):
        x = trial.suggest_float("x", -2, 2)
        y = trial.suggest_float("y", -2, 2)
        return 0.9 - 0.05 * (x - 0.3) ** 2 - 0.05 * (y + 0.2) ** 2

    for name, sampler in (("tpe", optuna.samplers.TPESampler(seed=0)),
                          ("random", optuna.samplers.RandomSampler(seed=0))):
        study = optuna.create_study(study_name=name, storage=url,
                                    direction="maximize", sampler=sampler)
        study.optimize(objective, n_trials=150)
    return url


@pytest.mark.needs("optuna")
def test_two_optuna_studies_compared_from_the_command_line(two_studies, capsys):
    status, out, err = main(capsys, "compare", two_studies, "--study", "tpe,random",
                            "tpe", "random")
    assert status == 0, err
    assert rows_of(out)[-1][0] == "150"
    warnings = [line for line in err.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1 and "the trials of tpe look adaptive" in warnings[0]
    assert "RandomSampler" in warnings[0]
    results = evp.read_results(two_studies, study="all")
    assert results.group == "study" and set(results.models) == {"tpe", "random"}
    assert results.exchangeability["tpe"] < 0.001 < results.exchangeability["random"]
    assert results.score == "value"  # one name in the API and on the command line


@pytest.mark.needs("optuna")
def test_an_optuna_report_names_its_model_after_the_study(two_studies, tmp_path):
    pytest.importorskip("matplotlib")
    from evp.report import build_report

    report = build_report(evp.read_results(two_studies, study="random"))
    assert list(report.checklist.columns) == ["item", "random"]
    duration = report.checklist.set_index("item").loc["Training duration", "random"]
    assert duration.startswith("duration_seconds: mean")


# ------------------------------------------------------------------ the rest


def test_report_and_compare_compare_at_the_same_budgets(tmp_path):
    pytest.importorskip("matplotlib")
    from evp.report import build_report

    rng = np.random.default_rng(2)
    frame = pd.DataFrame({"model": ["a"] * 12 + ["b"] * 30 + ["c"] * 7,
                          "acc": rng.uniform(0.5, 0.9, 49)})
    results = evp.read_results(frame, score="acc", group="model")
    for pair, rounds in ((("a", "b"), 12), (("a", "c"), 7), (("b", "c"), 7)):
        report = build_report(results.select(list(pair)))
        (table,) = [c for h, c in report.sections
                    if h.startswith("Evidence by budget")]
        judged = table.loc[table[" vs ".join(pair)] != "–", "n"].tolist()
        assert judged == tables.comparison_budgets(rounds, 30)
        assert max(judged) == rounds
    # Three models are judged family-wise at budgets they all reach (up to the
    # smallest model's rounds), and the matrix shows the largest of them where
    # a verdict can be strong (not one where every band is open).
    headings = [h for h, _ in build_report(results).sections]
    (shown,) = [int(h.rsplit("= ", 1)[1]) for h in headings
                if h.startswith("Evidence that the row beats the column at n = ")]
    scores = {m: results.scores_as_read[m] for m in results.models}
    table = evp.compare_all(scores)  # at the default budgets, as the report
    assert table["n"].max() == 7
    open_ = ranking.open_budgets(scores, None, table["band confidence"].iloc[0])
    assert shown == (max(open_.index[~open_]) if (~open_).any() else 7)


def test_the_command_line_checks_confidence_and_budgets(loss_file, capsys):
    status, _, err = main(capsys, "curve", loss_file, "--score", "val_loss",
                          "--minimize", "--confidence", "80")
    assert status == 2 and "(for 80%, give 0.8)" in err
    status, out, err = main(capsys, "curve", loss_file, "--score", "val_loss",
                            "--minimize", "--group", "model", "--ns", "1,60")
    assert status == 0
    assert "n = 60 beyond the rounds run (A 40, B 40)" in err
    assert [row[1] for row in rows_of(out)] == ["1", "60", "1", "60"]


def test_a_figure_without_matplotlib_names_the_extra(loss_file, capsys, monkeypatch,
                                                    tmp_path):
    import sys

    for name in [m for m in sys.modules if m.split(".")[0] in ("matplotlib",
                                                                "seaborn")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    status, _, err = main(capsys, "curve", loss_file, "--score", "val_loss",
                          "--minimize", "--group", "model", "--out",
                          tmp_path / "x.png")
    assert status == 2
    assert err.strip().endswith("matplotlib is not installed: pip install "
                                "'evp-tuning-curves[notebooks]'")


def test_evp_run_reads_as_curve_does(wandb_export, capsys, tmp_path):
    pytest.importorskip("papermill")
    path, frame = wandb_export
    out = tmp_path / "out"
    status, _, err = main(capsys, "run", "mean_vs_median", path, "--score",
                                "val_acc", "--failed", "drop", "-p",
                                "sample_sizes=6", "--out", out)
    assert status == 0, err
    trials = pd.read_csv(out / "trials.csv")
    assert trials["Name"].tolist() == frame.loc[frame["State"] == "finished",
                                                "Name"].tolist()
    semicolons = tmp_path / "semi.csv"
    frame.fillna({"val_acc": 0.5}).assign(State="finished").to_csv(
        semicolons, sep=";", decimal=",", index=False)
    status, _, err = main(capsys, "run", "mean_vs_median", semicolons, "--score",
                          "val_acc", "--sep", ";", "--decimal", ",", "-p",
                          "sample_sizes=6", "--out", tmp_path / "out2")
    assert status == 0, err


def test_tail_with_bounds_stays_inside_them(tmp_path, capsys):
    rng = np.random.default_rng(4)
    acc = np.clip(0.9 - 0.3 * rng.random(60) ** 0.5 + rng.normal(0, 0.002, 60), 0, 1)
    path = tmp_path / "acc.csv"
    pd.DataFrame({"acc": acc}).to_csv(path, index=False)
    status, out, err = main(capsys, "curve", path, "--score", "acc", "--tail",
                            "0.75", "--bounds", "0,1")
    assert status == 0, err
    low, high = (float(v) for v in out.split(" in [")[1].split("]")[0].split(", "))
    assert 0 <= low <= acc.max() <= high <= 1
    table = [line for line in out.splitlines() if line.strip()[:1].isalpha()]
    assert "e+" not in out  # no 1e11 anywhere
    assert table


def test_huge_set_edges_read_as_unbounded():
    scores = np.array([0.5, 0.6, 0.7])
    clipped = tables._within([-6.6e11, 0.65, 7e12], (-np.inf, np.inf), scores)
    assert clipped[0] == -np.inf and clipped[1] == 0.65 and clipped[2] == np.inf
    assert tables._within([-6.6e11, 2.0], (0, 1), scores).tolist() == [0.0, 1.0]


def test_the_cost_figure_keeps_its_evidence_strip():
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from evp.plot import EVIDENCE, plot_comparison

    rng = np.random.default_rng(5)
    found = evp.compare(rng.normal(0.8, 0.01, 40), rng.normal(0.7, 0.01, 40),
                        np.arange(1, 41))
    ax = plot_comparison(found, ("a", "b"), costs={"a": 2.0, "b": 7.0}, cost="hours")
    strips = [c for axes in ax.figure.axes for c in axes.collections
              if c.get_gid() == EVIDENCE]
    assert strips and strips[0].axes is not ax  # on the rounds axis, on top
    assert "rounds (n)" in strips[0].axes.get_xlabel()
    plt.close("all")


def test_the_report_keeps_the_drawing_libraries_warnings_to_themselves():
    import warnings

    from matplotlib import _api

    from evp._validation import TiesWarning
    from evp.report import _own_warnings

    with _own_warnings() as caught:
        _api.warn_external("layout not applied")  # names the caller's file
        warnings.warn("scores contain ties", TiesWarning, stacklevel=1)
    assert [str(w.message) for w in caught] == ["scores contain ties"]


@pytest.mark.needs("optuna", "matplotlib", "seaborn")
def test_a_tpe_warning_is_said_once_on_the_terminal_and_highlighted_in_the_report(
        two_studies, tmp_path, capsys):
    status, _, err = main(capsys, "report", two_studies, "--study", "tpe",
                            "--out", tmp_path / "r.md")
    assert status == 0, err
    warned = [line for line in err.splitlines() if "look adaptive" in line]
    assert len(warned) == 1 and warned[0].startswith("warning: "), err
    assert "note: Warning" not in err
    page = (tmp_path / "r.md").read_text()
    highlighted = [line for line in page.splitlines() if "of tpe look adaptive" in line]
    assert len(highlighted) == 1 and highlighted[0].startswith("> **Warning:**")


def test_a_dropped_row_is_warned_of_at_the_users_own_call():
    """The warning names the line that called read_results, where the user can
    act on it (not evp's internals, nor the frame above the user's)."""
    frame = pd.DataFrame({"acc": [0.1, None, 0.3, 0.4]})
    with pytest.warns(UserWarning, match="dropped 1 bad row") as record:
        evp.read_results(frame, score="acc", failed="drop")
    assert record[0].filename == __file__
