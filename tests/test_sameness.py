"""One question, one answer: the command line, the report and the analyses say
the same sentences (equality, and nothing of their own beside them), and a plan's
verdict today is the verdict compare gives with the same budgets."""

import contextlib
import io
import re
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import evp
from evp import analyses
from evp.cli import main
from evp.tables import readable_budgets


def run(*args) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), \
            warnings.catch_warnings():
        warnings.simplefilter("ignore")
        status = main([str(a) for a in args])
    return status, out.getvalue(), err.getvalue()


def noted(err: str) -> list[str]:
    return [line.removeprefix("note: ") for line in err.splitlines()
            if line.startswith("note: ")]


def said_by_reader(results) -> list[str]:
    """The reader's notes as the command line says them (its options for the
    library's keywords); the analyses' sentences it says as they are."""
    from evp.cli import in_command_line_words

    return [in_command_line_words(note) for note in results.notes]


def read(path, **roles):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return evp.read_results(path, score="loss", group="model", minimize=True,
                                **roles)


@pytest.fixture(scope="module")
def benchmark(tmp_path_factory):
    """A benchmark of one's own: 5 tasks, 4 models, a loss, failed trials, and
    two models that tie on one task."""
    rng = np.random.default_rng(11)
    rows = []
    for t in range(5):
        for i, model in enumerate(["knn", "logreg", "mlp", "svm"]):
            for trial in range(24):
                loss = rng.normal(0.30 + 0.03 * i + 0.01 * t, 0.04)
                if t == 4 and model in ("knn", "logreg"):
                    loss = 0.25  # a tie at every budget on task t4
                failed = trial == 5 and model == "svm"
                rows.append({"task": f"t{t}", "model": model, "trial": trial,
                             "loss": np.nan if failed else loss,
                             "state": "FAIL" if failed else "COMPLETE"})
    path = tmp_path_factory.mktemp("benchmark") / "benchmark.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    one = path.with_name("one.csv")
    frame = pd.DataFrame(rows)
    frame[frame.task == "t0"].drop(columns="task").to_csv(one, index=False)
    return path, one


COMMON = ["--score", "loss", "--group", "model", "--minimize", "--failed", "drop"]


def test_compare_two_models_says_the_analysis_and_the_reader_only(benchmark):
    _, one = benchmark
    status, _, err = run("compare", one, *COMMON, "knn", "mlp")
    assert status == 0, err
    results = read(one, failed="drop")
    found = analyses.two_models(results, "knn", "mlp")
    assert noted(err) == [*said_by_reader(results), *found.notes]
    assert all(re.search(r"simultaneous over n = |at n = \d+ alone", s)
               for s in found.notes)


def test_compare_all_says_the_analysis_and_the_reader_only(benchmark):
    _, one = benchmark
    status, _, err = run("compare", one, *COMMON, "--all")
    assert status == 0, err
    results = read(one, failed="drop")
    found = analyses.many_models(results)
    said = noted(err)
    # The last note says how the table is summarised (--rows prints it whole).
    assert said[:-1] == [*said_by_reader(results), *found.notes]
    assert said[-1].startswith("each model's strong verdicts, at any budget")


def test_compare_across_tasks_says_the_analysis_and_the_reader_only(benchmark):
    path, _ = benchmark
    status, out, err = run("compare", path, *COMMON, "--task", "task")
    assert status == 0, err
    results = read(path, task="task", failed="drop")
    found = analyses.many_tasks(results)
    assert noted(err) == [*said_by_reader(results), *found.notes]
    assert out.splitlines()[0] == found.heading


def test_plan_says_the_analysis_and_the_reader_only(benchmark):
    _, one = benchmark
    status, out, err = run("plan", one, *COMMON, "knn", "mlp", "--budget", "5",
                           "--more", "10,30", "--replications", "40")
    assert status == 0, err
    results = read(one, failed="drop")
    found = analyses.plan(results, "knn", "mlp", 5, [10, 30], replications=40)
    assert noted(err) == [*said_by_reader(results), *found.notes]
    assert out.strip().splitlines()[-1] == found.sentence


def test_the_report_lays_out_the_analyses_sentences_and_no_others(benchmark):
    from evp.report import build_report

    _, one = benchmark
    results = read(one, failed="drop")
    report = build_report(results, vector_figures=False)
    sections = dict(report.sections)
    found = analyses.many_models(results)
    best = next(c for h, c in sections.items() if h.startswith("May still be best"))
    verdicts = next(c for h, c in sections.items() if h.startswith("Verdicts"))
    assert best == list(found.best_notes)
    # The head of the verdicts as sentences; each pair's strong verdicts as a
    # table of the same pairs and budgets (a paper takes no list of sentences).
    assert verdicts == list(found.verdict_head)
    assert found.verdict_notes[:len(verdicts)] == tuple(verdicts)
    pairs = [s for s in found.verdict_notes[len(verdicts):]]
    table = next((c for h, c in sections.items() if h.startswith("The pairs with")),
                 None)
    said = [f"{a} beats {b} (strong) at n = {at}." for a, b, at in
            table.itertuples(index=False)] if table is not None else []
    assert said == pairs
    settle = [c for h, c in sections.items() if "settle" in h.lower()]
    assert settle, "the report promises what would settle it"


def test_the_report_across_tasks_lays_out_the_analysis(benchmark):
    from evp.report import build_report

    path, _ = benchmark
    results = read(path, task="task", failed="drop")
    report = build_report(results, vector_figures=False)
    sections = dict(report.sections)
    found = analyses.many_tasks(results)
    changes = next(c for h, c in sections.items() if "changes the answer" in h)
    across = next(c for h, c in sections.items() if h.startswith("Pairs across"))
    assert changes == list(found.changes)
    assert across == list(found.across_head)
    assert found.across[:len(across)] == tuple(across)
    lines = found.across[len(across):]
    if found.cannot_decide:  # what the tasks show: the same lines, as a table
        table = next(c for h, c in sections.items() if h.startswith("What the"))
        assert len(table) == len(lines)
        for row, line in zip(table.itertuples(index=False), lines, strict=True):
            assert line.startswith(f"{row.pair} at n = {row.at}: ")
            assert f"ahead on {row[3]} of {row.tasks} tasks" in line
    assert any("settle" in h.lower() for h in sections)


def test_one_pair_at_one_budget_gets_one_answer_everywhere(benchmark):
    """knn against mlp at n = 5: compare, plan, curve and the report agree, and
    each names the budgets it read over."""
    _, one = benchmark
    results = read(one, failed="drop")
    two = analyses.two_models(results, "knn", "mlp")
    row = two.table.set_index("n").loc[5]
    verdict = (row["knn beats mlp"], row["mlp beats knn"])
    planned = analyses.plan(results, "knn", "mlp", 5, [10], replications=20)
    strength = verdict[0] if verdict[0] != "none" else verdict[1]
    winner = ("knn" if verdict[0] != "none" else "mlp" if verdict[1] != "none"
              else "")
    assert planned.notes[0].startswith(
        f"today, at n = 5: {strength} evidence that {winner} beats "
        if winner else "today, at n = 5: no evidence either way")
    assert str(planned.family) == str(two.family)
    curves = analyses.curves(results.select(["knn", "mlp"])).table.set_index(
        ["model", "n"])
    for model in ("knn", "mlp"):
        assert curves.loc[(model, 5), "band_lower"] == row[f"{model} lower"]
        assert curves.loc[(model, 5), "band_upper"] == row[f"{model} upper"]
    pairs = analyses.pairs(results.select(["knn", "mlp"]))
    assert [s.removeprefix("knn vs mlp, ") for s in pairs.notes] == list(two.notes)


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(4, 30), st.integers(4, 30), st.floats(-1, 1), st.integers(0, 99),
       st.booleans(), st.sampled_from([None, "named", "alone"]))
def test_plans_today_is_compares_verdict_with_the_same_budgets(size_a, size_b, shift,
                                                             seed, minimize, named):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"model": ["a"] * size_a + ["b"] * size_b,
                          "s": np.r_[rng.normal(0, 1, size_a),
                                     rng.normal(shift, 1, size_b)]})
    results = evp.read_results(frame, score="s", group="model", minimize=minimize)
    budgets = readable_budgets(min(size_a, size_b))
    n = budgets[seed % len(budgets)]
    ns = (None if named is None else [n] if named == "alone"
          else sorted({1, n, budgets[-1]}))
    two = analyses.two_models(results, "a", "b", ns)
    planned = analyses.plan(results, "a", "b", n, [0], replications=2, ns=ns)
    row = two.table.set_index("n").loc[n]
    strength = row["a beats b"] if row["a beats b"] != "none" else row["b beats a"]
    assert planned.strong_today == (strength == "strong")
    said = re.match(r"today, at n = \d+: (strong|fair|weak) evidence",
                    planned.notes[0])
    assert (said.group(1) if said else "none") == strength
    assert str(planned.family) == str(two.family)


def test_a_negated_score_reported_negated_is_the_loss_itself(benchmark):
    """neg_log_loss (maximised), reported with negate and a display name, is
    the report of the log loss itself: the same sentences and tables."""
    from evp.report import build_report

    _, one = benchmark
    frame = pd.read_csv(one)
    loss = read(one, failed="drop").select(["knn", "mlp"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        negative = evp.read_results(frame.assign(loss=-frame["loss"]), score="loss",
                                    group="model", minimize=False,
                                    failed="drop").select(["knn", "mlp"])
    mine = build_report(loss, score_name="log loss", vector_figures=False)
    theirs = build_report(negative, negate=True, score_name="log loss",
                          vector_figures=False)
    assert [h for h, _ in mine.sections] == [h for h, _ in theirs.sections]
    for (_, a), (_, b) in zip(mine.sections, theirs.sections, strict=True):
        if isinstance(a, pd.DataFrame):
            pd.testing.assert_frame_equal(a, b)
        elif isinstance(a, list):
            assert a == b
    assert mine.checklist.equals(theirs.checklist)


def test_a_notebook_shows_the_analysis_sentences_and_no_others():
    """sst_case_studies, as executed and committed, prints every pair's
    verdicts: the two_models analysis' sentences, word for word."""
    import itertools
    import json
    from pathlib import Path

    from evp.notebook import SST5_SEARCHES, load_results

    path = Path(__file__).parents[1] / "notebooks" / "sst_case_studies.ipynb"
    cells = json.loads(path.read_text())["cells"]
    (cell,) = [c for c in cells if c["cell_type"] == "code"
               and "analyses.two_models" in "".join(c["source"])]
    printed = "".join("".join(o.get("text", "")) for o in cell["outputs"]
                      if o.get("output_type") == "stream").splitlines()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = load_results(None, paper=SST5_SEARCHES, need=2)
        budgets = list(range(1, 101))
        expected = []
        for a, b in itertools.combinations(results.models, 2):
            expected.append(f"{results.label(a)} vs {results.label(b)}:")
            expected += ["  " + s for s in analyses.two_models(
                results, a, b, budgets, 0.8).notes]
    assert printed == expected
