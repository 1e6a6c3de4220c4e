"""evp.analyses: one question, computed once and worded once. The command line
prints an analysis' sentences and table as they are, the report lays out the
same sentences, and an analysis shows itself in a notebook."""

import contextlib
import io
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import evp
from evp import analyses
from evp.cli import main

BENCHMARK = Path(__file__).parent / "fixtures" / "ties" / "ties-benchmark.csv"


def run(*args) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main([str(a) for a in args])
    return status, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def study():
    return evp.read_results(BENCHMARK, score="log_loss", group="model",
                            task="task", minimize=True)


@pytest.fixture(scope="module")
def one_task(study):
    return study.by_task()["task1"]


def noted(err: str) -> list[str]:
    return [line.removeprefix("note: ") for line in err.splitlines()
            if line.startswith("note: ")]


def test_compare_all_says_the_analysis_sentences_word_for_word(one_task, tmp_path):
    path = tmp_path / "task1.csv"
    one_task.frame.to_csv(path, index=False)
    status, _, err = run("compare", path, "--score", "log_loss", "--group", "model",
                         "--minimize", "--all")
    assert status == 0, err
    found = analyses.many_models(evp.read_results(path, score="log_loss",
                                                  group="model", minimize=True))
    said = noted(err)
    assert found.notes and all(sentence in said for sentence in found.notes)


def test_compare_across_tasks_says_the_analysis_sentences(study):
    status, _, err = run("compare", BENCHMARK, "--score", "log_loss", "--group",
                         "model", "--task", "task", "--minimize")
    assert status == 0, err
    found = analyses.many_tasks(study)
    said = noted(err)
    assert found.changes and found.across
    assert all(sentence in said for sentence in found.notes)


def test_the_report_lays_out_the_same_sentences(study):
    from evp.report import build_report

    report = build_report(study)
    sections = dict(report.sections)
    found = analyses.many_tasks(study, most=20)
    (changes,) = [c for h, c in sections.items() if "changes the answer" in h]
    (across,) = [c for h, c in sections.items() if h.startswith("Pairs across")]
    assert list(changes) == list(found.changes)
    assert list(across) == list(found.across_head)


def test_the_curves_table_is_the_tables_own_and_the_caption_counts_rounds():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"model": ["a"] * 12 + ["b"] * 9,
                          "acc": rng.uniform(0.5, 0.9, 21)})
    results = evp.read_results(frame, score="acc", group="model", minimize=False)
    found = analyses.curves(results, ns=[1, 2, 30])
    assert list(found.table["n"]) == [1, 2, 30, 1, 2, 30]
    assert found.caption().startswith("Tuning curves (the V estimator of Dodge et "
                                      "al. 2019) and median tuning curves: 80% ")
    assert "rounds: 12 of a, 9 of b" in found.caption()
    # A budget beyond the rounds run is said, naming the models short of it.
    assert found.notes == ("n = 30 beyond the rounds run (a 12, b 9): there V and "
                           "W extrapolate from the rounds run, U stops, and the "
                           "bands widen",
                           "the median bands: 80% LD highest-density top bands "
                           "(exact over the better half of the order statistics), "
                           "simultaneous over n = 1, 2, 3, … (every budget)")
    shown = found._repr_html_()
    assert "Tuning curves" in shown and "n = 30 beyond" in shown and "<table" in shown


def test_for_paper_keeps_the_fact_and_drops_the_advice():
    assert analyses.for_paper("higher acc is better (assumed; pass minimize=True "
                              "if lower is better)") == "higher acc is better (assumed)"
    assert analyses.for_paper("the file's order (no order column: pass order= if "
                              "it is not)") == "the file's order (no order column)"
    assert analyses.for_paper("the curves are optimistic (pass failed='worst' to "
                              "count them)") == "the curves are optimistic"
    # No row lists, no "(s)": a paper's words.
    assert analyses.for_paper(
        "21 failed round(s) of 600 (rows 44, 48, 556 and 1 more; models a, b) "
        "count as worse") == "21 failed rounds of 600 (models a, b) count as worse"
    assert analyses.for_paper("1 failed round(s) of 60 (rows 4) count") == (
        "1 failed round of 60 count")


def test_a_plan_too_big_for_memory_names_its_parameter():
    rng = np.random.default_rng(1)
    frame = pd.DataFrame({"model": ["a", "b"] * 20, "acc": rng.uniform(0, 1, 40)})
    results = evp.read_results(frame, score="acc", group="model", minimize=False)
    with pytest.raises(evp.ParameterError) as raised:
        analyses.plan(results, "a", "b", 2, [10**6], replications=10**6)
    assert raised.value.param == "replications"
    assert "give replications=" in str(raised.value)


def test_the_wins_matrix_says_no_share_where_no_task_counts():
    frame = pd.DataFrame([(t, m, 0.5) for t in ["t1", "t2", "t3"]
                          for m in ["a", "b"] for _ in range(5)],
                         columns=["task", "model", "acc"])
    results = evp.read_results(frame, score="acc", group="model", task="task",
                               minimize=False)
    wins = analyses.many_tasks(results).wins()
    assert "nan" not in wins.to_string()
    assert set(wins["a"]) | set(wins["b"]) == {"–"}


def test_a_plans_figure_shades_the_range_it_is_read_from():
    import matplotlib

    matplotlib.use("Agg")
    rng = np.random.default_rng(4)
    frame = pd.DataFrame({"model": ["a"] * 20 + ["b"] * 20,
                          "acc": np.r_[rng.normal(0.8, 0.03, 20),
                                       rng.normal(0.83, 0.03, 20)]})
    results = evp.read_results(frame, score="acc", group="model", minimize=False)
    found = analyses.plan(results, "a", "b", 2, [5, 20], replications=50)
    ax = found.plot()
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "either way: the\ncalibrated range" in labels
    shaded = [c for c in ax.collections
              if c.get_label() == "either way: the\ncalibrated range"]
    (band,) = shaded
    top = band.get_paths()[0].vertices[:, 1]
    assert np.isclose(top.max(), found.table["strong, high end"].max())
    assert np.isclose(top.min(), found.table["strong, low end"].min())
    assert "the high end a posterior quantile" in found.notes[1]
