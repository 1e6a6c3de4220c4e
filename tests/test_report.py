"""evp report: the checklist filled in from the results, the same content as HTML and
Markdown, the command line, and the page as a real browser renders it."""

import base64
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from user_results import write_search_results

from evp.datasets import read_results

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.needs("matplotlib", "seaborn")


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    return write_search_results(tmp_path_factory.mktemp("results"))


@pytest.fixture(scope="module")
def losses_report(files):
    from evp.report import build_report

    results = read_results(files["losses"][0], score="val_loss", group="optimizer",
                           cost="train_time", minimize=True)
    return build_report(results)


def row(report, item):
    table = report.checklist.set_index("item")
    matches = [i for i in table.index if i.startswith(item)]
    assert len(matches) == 1, (item, list(table.index))
    return table.loc[matches[0]]


def test_the_checklist_is_filled_in_from_the_file(files, losses_report):
    raw = pd.read_json(files["losses"][0], lines=True)
    counts = raw["optimizer"].value_counts()
    assert list(losses_report.checklist.columns) == ["item", "adam", "sgd", "lion"]
    trials = row(losses_report, "Number of search trials")
    assert {m: int(trials[m]) for m in counts.index} == counts.to_dict()
    best = row(losses_report, "Best validation val_loss")
    for model, group in raw.groupby("optimizer"):
        assert float(best[model]) == pytest.approx(group["val_loss"].min(), rel=1e-3)
        lrs = [c["lr"] for c in group["config"]]
        space = row(losses_report, "Search space")[model]
        assert f"lr: {min(lrs):.4g} – {max(lrs):.4g}" in space
        winner = group.loc[group["val_loss"].idxmin(), "config"]
        assert f"warmup = {winner['warmup']}" in row(
            losses_report, "Best hyperparameter assignment")[model]
        duration = row(losses_report, "Training duration")[model]
        assert f"mean {group['train_time'].mean():.4g}" in duration
        total = float(re.search(r"total ([0-9.]+)", duration).group(1))
        assert total == pytest.approx(group["train_time"].sum(), rel=5e-4)
        assert "e+" not in duration  # 10454, not 1.045e+04
    for unknown in ("Train / validation / test splits", "Link to the code",
                    "Computing infrastructure", "Library versions"):
        assert set(row(losses_report, unknown)) == {"to fill in"}
    # The strategy is unknown; the trial order says whether it looks random.
    results = read_results(files["losses"][0], score="val_loss", group="optimizer",
                           minimize=True)
    for model, strategy in row(losses_report, "Search strategy").items():
        # The raw p and, beside it, the Holm-adjusted one the verdict reads.
        raw = results.exchangeability[model]
        assert strategy.startswith("to fill in; exchangeability of the trial order "
                                   f"on 1 search: p = {raw:.3g} (Holm-adjusted over "
                                   "3 searches: ")
        if raw == min(results.exchangeability.values()):  # Holm: 3 p at the least
            assert f"searches: {min(1.0, 3 * raw):.3g}; consistent" in strategy
    assert "best val_loss (lower is better)" in row(losses_report, "Criterion")["adam"]


def test_what_a_search_recorded_is_reported():
    from evp.report import build_report

    results = read_results(ROOT / "data" / "sst5", score="accuracy", group="model",
                           cost="seconds")
    report = build_report(results, models=["lr", "lboe"])
    assert "random search" in row(report, "Search strategy")["lr"]
    versions = row(report, "Library versions")["lboe"]
    record = json.loads((ROOT / "data/sst5/lboe.jsonl").open().readline())
    for library, version in record["versions"].items():
        assert f"{library} {version}" in versions
    assert "penalty ∈ {l1, l2}" in row(report, "Search space")["lr"]
    assert "penalty" not in row(report, "Search space")["lboe"]


def expected_lowest(losses, n):
    """E[min of n draws with replacement], written out from the order statistics."""
    x, size = np.sort(losses), len(losses)
    i = np.arange(1, size + 1)
    return float(x @ ((1 - (i - 1) / size) ** n - (1 - i / size) ** n))


def test_budget_to_reach_the_default_target(files, losses_report):
    raw = pd.read_json(files["losses"][0], lines=True)
    heading, table = next(s for s in losses_report.sections
                          if s[0].startswith("Budget to reach"))
    table = table.set_index("model")
    groups = dict(list(raw.groupby("optimizer")))
    ends = {m: expected_lowest(g["val_loss"], len(g)) for m, g in groups.items()}
    target = max(ends.values())  # the weakest model, after all its rounds
    assert heading.endswith(f"of {target:.4g}")
    for model, group in groups.items():
        curve = [expected_lowest(group["val_loss"], n)
                 for n in range(1, len(group) + 1)]
        n = 1 + next(j for j, v in enumerate(curve) if v <= target + 1e-12)
        assert table.loc[model, "trials (expected)"] == n
        cost = next(c for c in table.columns if c.startswith("cost (expected"))
        assert table.loc[model, cost] == pytest.approx(
            n * group["train_time"].mean())
    weakest = max(ends, key=ends.get)
    assert table.loc[weakest, "trials (expected)"] == len(groups[weakest])


def test_html_is_one_self_contained_page_with_every_figure(losses_report):
    page = losses_report.to_html()
    images = re.findall(r"src='data:image/png;base64,([A-Za-z0-9+/=]+)'", page)
    # Three models: the curves and bands, the best set and the verdict matrix.
    assert len(images) == len(losses_report.figures) == 4
    for data in images:
        assert base64.b64decode(data).startswith(b"\x89PNG")
    assert not re.search(r"(src|href)=['\"]?https?:", page)
    assert "<script" not in page
    assert page.count("to fill in") >= 5 * 3


def test_markdown_has_the_same_content_and_its_figures(losses_report, tmp_path):
    path = losses_report.save(tmp_path / "appendix.md")
    text = path.read_text()
    links = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", text)
    assert len(links) == 4
    for link in links:
        assert (tmp_path / link).read_bytes().startswith(b"\x89PNG")
    html_headings = re.findall(r"<h2>([^<]+)</h2>", losses_report.to_html())
    md_headings = re.findall(r"^## (.+)$", text, flags=re.M)
    assert [h.replace("&#x27;", "'") for h in html_headings] == md_headings
    assert "| Number of search trials | 50 | 70 | 40 |" in text


def evp(*args, cwd):
    return subprocess.run([sys.executable, "-m", "evp.cli", *args], cwd=cwd,
                          capture_output=True, text=True)


def test_the_command_writes_html_and_refuses_other_formats(files, tmp_path):
    path, _ = files["five-models-percent"]
    done = evp("report", str(path), "--score", "f1_pct", "--group", "system",
               "--out", "appendix.html", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "wrote appendix.html" in done.stdout
    page = (tmp_path / "appendix.html").read_text()
    for model in ("svm", "forest", "boosting", "mlp", "knn"):
        assert f"<th>{model}</th>" in page
    # Five models: the family-wise verdicts as a matrix, never a column per pair.
    assert "<th>svm vs " not in page
    assert "Verdicts on every pair, family-wise" in page
    assert "Evidence that the row beats the column" in page
    done = evp("report", str(path), "--score", "f1_pct", "--group", "system",
               "--out", "appendix.pdf", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "evp report: --out must end in .html, .md or .tex, got 'appendix.pdf'"]


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def render(page: Path, tmp_path: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [chromium(), "--headless", "--no-sandbox", "--disable-gpu",
         "--enable-logging=stderr", f"--user-data-dir={tmp_path / 'profile'}",
         *extra, page.as_uri()],
        capture_output=True, text=True, timeout=120)


def console(done: subprocess.CompletedProcess) -> list[str]:
    return [line for line in done.stderr.splitlines() if ":CONSOLE" in line]


@pytest.mark.skipif(chromium() is None, reason="needs Debian's chromium (make test "
                    "installs it with apt-get where it can; it could not here)")
def test_a_browser_renders_the_page_with_every_figure_and_no_errors(
        losses_report, tmp_path):
    page = losses_report.save(tmp_path / "report.html")
    # A copy that reports each image's rendered size on the console.
    probe = tmp_path / "probe.html"
    probe.write_text(page.read_text().replace("</body>", (
        "<script>window.onload = () => console.log('images ' + "
        "[...document.images].map(i => i.naturalWidth + 'x' + i.naturalHeight)"
        ".join(' '));</script></body>")))
    shot = tmp_path / "report.png"
    done = render(page, tmp_path, "--window-size=1100,2600",
                  f"--screenshot={shot}")
    assert shot.read_bytes().startswith(b"\x89PNG") and shot.stat().st_size > 50_000
    assert console(done) == []
    dom = render(page, tmp_path, "--dump-dom").stdout
    assert "Reporting checklist" in dom and "Number of search trials" in dom
    sizes = " ".join(console(render(probe, tmp_path, "--dump-dom")))
    widths = re.findall(r"(\d+)x(\d+)", sizes.split("images", 1)[1])
    assert len(widths) == 4 and all(int(w) > 300 and int(h) > 200
                                    for w, h in widths)
    print(f"screenshot: {shot}")


@pytest.mark.skipif(chromium() is None, reason="needs Debian's chromium")
def test_the_browser_check_sees_console_errors(tmp_path):
    # The control: a page with a script error must be caught by the same check.
    page = tmp_path / "broken.html"
    page.write_text("<html><body><script>noSuchFunction();</script></body></html>")
    assert any("ReferenceError" in line for line in console(
        render(page, tmp_path, "--dump-dom")))


def test_a_tuners_hyperparameters_and_note_reach_the_report():
    from evp.report import build_report

    rng = np.random.default_rng(4)
    trials = pd.DataFrame({"acc": rng.uniform(0.5, 0.9, 12),
                           "config/lr": 10 ** rng.uniform(-4, -2, 12),
                           "config/layers": rng.integers(1, 4, 12),
                           "trial_id": [f"t{i}" for i in range(12)],
                           "hostname": "node-1"})
    read = read_results(trials, score="acc").with_notes(
        "Ray Tune experiment 'exp': 12 trials")
    report = build_report(read)
    (model,) = report.checklist.columns[1:]
    space = row(report, "Search space")[model]
    assert space.startswith(f"lr: {trials['config/lr'].min():.4g} – ")
    layers = ", ".join(str(v) for v in sorted(set(trials["config/layers"])))
    assert f"layers ∈ {{{layers}}}" in space and "trial_id" not in space
    assert row(report, "Computing infrastructure")[model] == "hostname node-1"
    assert "Ray Tune experiment 'exp': 12 trials" in report.notes


def test_what_would_settle_a_pair_without_a_strong_verdict():
    from evp import analyses
    from evp.report import build_report
    from evp.results import Results

    rng = np.random.default_rng(3)
    close = Results.from_scores({"a": rng.normal(0.80, 0.03, 15),
                                 "b": rng.normal(0.83, 0.03, 15),
                                 "far": rng.normal(0.2, 0.03, 15)})
    sections = dict(build_report(close, budget=2).sections)
    heading, settle = next((k, v) for k, v in sections.items()
                           if k.startswith("What would settle"))
    # a vs b has no strong verdict at n = 2: the plan's own sentence is there,
    # at the confidence of the family-wise verdicts of three models.
    assert "for every pair without one" in heading
    planned = analyses.plan(close, "a", "b", 2, confidence=1 - 0.2 / 3)
    assert f"a vs b: {planned.sentence}." in settle
    # Pairs with a strong verdict today need no plan.
    assert not any(line.startswith(("a vs far", "b vs far")) for line in settle)


def test_a_notebook_shows_the_report_as_its_page_body(losses_report):
    shown = losses_report._repr_html_()
    assert shown.startswith("<div class='evp-report ") and "<html" not in shown
    assert "Reporting checklist" in shown
    assert shown.count("<img ") == len(losses_report.figures) == 4
    body = losses_report.to_html().split("<body>", 1)[1]
    assert losses_report._body_html() in body


def test_a_scikit_learn_search_reads_as_a_paper_reports_it():
    from evp import read_results as read
    from evp.report import build_report

    rng = np.random.default_rng(0)
    size = 30
    frame = pd.DataFrame({
        "mean_fit_time": rng.uniform(0.5, 1.5, size),
        "param_clf": ["LogisticRegression", "SVC"] * (size // 2),
        "param_clf__C": 10 ** rng.uniform(-3, 2, size),
        "params": [{}] * size,
        "split0_test_score": rng.normal(0.8, 0.02, size),
        "split1_test_score": rng.normal(0.8, 0.02, size),
        "mean_test_score": rng.normal(0.8, 0.02, size),
        "rank_test_score": np.arange(1, size + 1)})
    results = read(frame, group="param_clf")
    report = build_report(results, vector_figures=False)
    # Named after the models, never the score column.
    assert "LogisticRegression vs SVC" in report.title
    assert "mean_test_score" not in report.title
    # No advice on evp's options for the paper's reader.
    assert not any("pass " in note for note in report.notes), report.notes
    assert any("pass" in note for note in results.notes)  # the reader gives some
    # The duration is read from mean_fit_time, not left to fill in.
    svc = frame[frame["param_clf"] == "SVC"]["mean_fit_time"]
    duration = row(report, "Training duration")["SVC"]
    assert f"mean {svc.mean():.4g} s, total {svc.sum():.4g} s" in duration
    # The grouping parameter is no hyperparameter of the models it names.
    assert "clf ∈" not in row(report, "Search space")["SVC"]
    assert "clf__C" in row(report, "Search space")["SVC"]
    # The best scores in one precision across the models.
    best = row(report, "Best validation")
    assert len({len(v.split(".")[1]) for v in best[["LogisticRegression", "SVC"]]}) == 1


def test_numbers_recorded_as_text_read_as_numbers_and_warnings_once():
    from evp.report import build_report
    from evp.results import Results

    rng = np.random.default_rng(1)
    frame = pd.DataFrame({"params.model": ["bert", "roberta"] * 10,
                          "params.lr": [str(10 ** v) for v in rng.uniform(-5, -3, 20)],
                          "params.batch_size": ["16", "32"] * 10,
                          "metrics.val_acc": rng.normal(0.85, 0.01, 20)})
    results = Results(frame, score="metrics.val_acc", group="params.model",
                      warnings=("the trials look adaptive (TPE)",),
                      notes=("higher is better (assumed; pass --minimize if lower "
                             "is better)",))
    report = build_report(results, vector_figures=False)
    best = row(report, "Best hyperparameter assignment")["bert"]
    bert = frame[frame["params.model"] == "bert"]
    recorded = bert.loc[bert["metrics.val_acc"].idxmax(), "params.lr"]
    assert len(recorded) > 12  # as MLflow records it: every digit
    assert f"lr = {float(recorded):.4g};" in best, best  # 4 significant digits
    assert "batch_size = 16" in best or "batch_size = 32" in best
    assert "model" not in row(report, "Search space")["bert"]
    assert report.warnings == ["the trials look adaptive (TPE)"]
    assert not any("TPE" in note for note in report.notes)
    assert "higher is better (assumed)" in report.notes
    page = report.to_markdown()
    assert page.count("the trials look adaptive (TPE)") == 1
    assert "> **Warning:** the trials look adaptive (TPE)" in page


def test_failed_rounds_with_bounds_have_an_expected_best(tmp_path):
    rng = np.random.default_rng(2)
    frame = pd.DataFrame({"model": ["a", "b"] * 15, "acc": rng.normal(0.8, 0.02, 30)})
    frame.loc[[3, 8], "acc"] = np.nan
    frame.to_csv(tmp_path / "runs.csv", index=False)
    done = subprocess.run([sys.executable, "-m", "evp.cli", "report", "runs.csv",
                           "--score", "acc", "--group", "model", "--failed", "worst",
                           "--bounds", "0,1", "--out", "r.md"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    page = (tmp_path / "r.md").read_text()
    assert "undefined" not in page and "undefined" not in done.stderr
    assert "at the score's lower bound, 0" in page
    assert "## Budget to reach an expected best acc of " in page


def test_the_title_names_a_one_model_study_once():
    from evp.analyses.wording import title as _title
    from evp.readers import read_results as read

    results = read(
        Path(__file__).parent / "fixtures" / "kerastuner" / "bayes_val_loss")
    assert _title(results) == "Hyperparameter search on bayes_val_loss"
    two = read(pd.DataFrame({"m": ["a", "b"] * 3, "acc": range(6)}),
                           score="acc", group="m")
    assert _title(two).endswith(": a vs b")


def test_an_adaptive_tuners_record_is_reported_without_advice():
    from evp.readers import read_results as read
    from evp.report import build_report

    # SMAC3's two seeds, read as two searches: the second's trials look adaptive.
    results = read(Path(__file__).parent / "fixtures" / "smac" / "hpo",
                   failed="worst")
    assert any("pass runs=COL" in w for w in results.warnings)  # the terminal's
    report = build_report(results, vector_figures=False)
    assert len(report.warnings) == 1, report.warnings
    assert report.warnings[0].endswith("treat them as independent draws, which "
                                       "they are not")
    said = " ".join(report.warnings + report.notes)
    assert "RandomSampler" not in said and "runs=" not in said
    assert ("each seed is a model of its own unless read as repeated runs of the "
            "tuner;") in said
    space = " ".join(row(report, "Search space (observed)").iloc[1:])
    assert "kernel ∈ {linear, poly, rbf}" in space
    assert not any(w in space for w in ("n_trials", "origin", "cpu_seconds"))
    assert row(report, "Training duration").iloc[1].endswith(
        "s (the time SMAC3 measured for each configuration's trials, summed)")


ADVICE = re.compile(r"\b[a-z_]+=|(?<!\w)--[a-z]|\bpass (?:the|a|an)\b|RandomSampler")


@pytest.mark.parametrize("record", [
    "kerastuner/random_val_accuracy", "kerastuner/bayes_val_loss",
    "kerastuner/hyperband_val_auc", "smac/hpo", "smac/random", "smac/noisy",
    "smac/hyperband"])
def test_no_reader_leaves_advice_in_the_appendix(record):
    from evp.readers import read_results as read
    from evp.report import build_report

    results = read(Path(__file__).parent / "fixtures" / record, failed="worst")
    report = build_report(results, vector_figures=False)
    for said in report.notes + report.warnings:
        assert not ADVICE.search(said), said


def test_only_evps_own_warnings_reach_a_report():
    """Models named with a tab and with glyphs DejaVu Sans lacks make matplotlib
    warn "Glyph ... missing from font(s)" while the report draws; that is no
    news for the paper's reader, in any of the report's formats."""
    import evp
    from evp.report import build_report

    rng = np.random.default_rng(0)
    names = ["base\tline", "模型"]
    frame = pd.DataFrame({"model": np.repeat(names, 30),
                          "acc": np.round(rng.normal(size=60), 1)})  # ties
    report = build_report(evp.read_results(frame, score="acc", group="model"))
    for text in (report.to_html(), report.to_markdown(), report.to_latex()):
        assert "Glyph" not in text and "missing from font" not in text
        assert "Tied scores in" in text  # evp's own warning is said


def test_the_report_collects_evps_warnings_and_drops_the_libraries():
    import warnings

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from evp._validation import TiesWarning
    from evp.report import _own_warnings

    with _own_warnings() as caught:
        # matplotlib's: a constrained layout that cannot fit, a missing glyph.
        figure, ax = plt.subplots(figsize=(0.3, 0.3), layout="constrained")
        ax.set_title("a long title\t模型" * 5)
        ax.set_ylabel("a long label " * 5)
        figure.canvas.draw()
        plt.close(figure)
        warnings.warn("a library's warning", UserWarning, stacklevel=1)
        # evp's: issued by evp's code, or of evp's class.
        exec("import warnings\nwarnings.warn('from evp', RuntimeWarning)",
             {"__name__": "evp.somewhere"})
        warnings.warn("the scores tie", TiesWarning, stacklevel=1)
    said = [str(w.message) for w in caught]
    assert "from evp" in said and any("tie" in text for text in said)
    assert not any("Glyph" in text or "constrained_layout" in text
                   or "library's" in text for text in said), said


def test_a_report_across_tasks_on_all_tied_scores_draws_and_says_the_tie(tmp_path):
    """Every model 0.5 on every task: the aggregate figure once failed with
    matplotlib's "Data cannot be log-scaled"; the report says the tie, and the
    three models share the mean rank (1 + 2 + 3) / 3 = 2, none absent."""
    from evp.cli import main

    path = tmp_path / "tied.csv"
    pd.DataFrame([(t, m, 0.5) for t in ("t1", "t2", "t3") for m in "abc"
                  for _ in range(10)], columns=["task", "model", "acc"]
                 ).to_csv(path, index=False)
    out = tmp_path / "tied.md"
    assert main(["report", str(path), "--score", "acc", "--group", "model",
                 "--task", "task", "--out", str(out)]) == 0
    text = out.read_text()
    assert "Every model scores the same on every task (every round scores 0.5)" in text
    assert "no model has rounds" not in text
    figure = tmp_path / "tied-figures" / "aggregate.png"
    assert figure.read_bytes().startswith(b"\x89PNG")  # drawn
    import evp
    from evp.ranking import rank_table, task_curves

    results = evp.read_results(path, score="acc", group="model", task="task")
    ranked = rank_table(task_curves(results, [1, 5]))
    assert ranked["mean rank"].tolist() == [2.0] * 6
    assert ranked["tasks"].tolist() == [3] * 6


def test_a_report_says_which_tasks_tie():
    import evp
    from evp.report import build_report

    rng = np.random.default_rng(1)
    rows = [("t1", m, 0.5) for m in "ab" for _ in range(10)]
    rows += [("t2", m, s) for m in "ab" for s in rng.normal(size=10)]
    rows += [("t3", m, s) for m in "ab" for s in rng.normal(size=10)]
    results = evp.read_results(pd.DataFrame(rows, columns=["task", "model", "acc"]),
                               score="acc", group="model", task="task")
    report = build_report(results)
    assert "On 1 of 3 tasks (t1) every round of every model scores the same" in (
        report.to_markdown())


# Six scikit-learn families tuned on five datasets, scored by log loss
# (minimised), some trials failed, a tie on iris: as an Optuna study per
# dataset records it (tests/fixtures/across-tasks/make_benchmark.py).
BENCHMARK = ROOT / "tests" / "fixtures" / "across-tasks" / "benchmark.csv"
TASKS = ["wine", "breast_cancer", "iris", "digits", "covtype"]


@pytest.fixture(scope="module")
def across_tasks():
    import warnings

    import evp
    from evp.report import build_report

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the dropped rows, said by the reader
        results = evp.read_results(BENCHMARK, score="value", group="model",
                                   task="dataset", minimize=True, failed="drop")
    return build_report(results, score_name="log loss")


def test_across_tasks_the_title_names_the_tasks_and_models(across_tasks):
    # Not the file's name, nor "Optuna studies 'wine', …".
    assert across_tasks.title == ("Hyperparameter search: 6 models tuned on 5 tasks "
                                  "(wine, breast_cancer, iris, digits, covtype)")


def test_across_tasks_the_score_name_reaches_words_tables_and_figures(across_tasks):
    latex = across_tasks.to_latex()
    assert "value" not in " ".join(across_tasks.checklist["item"])
    assert "Best validation log loss (each task)" in set(across_tasks.checklist["item"])
    assert "score: log loss (lower is better)" in across_tasks.notes[0]
    tables = {heading: content for heading, content in across_tasks.sections
              if isinstance(content, pd.DataFrame)}
    by_task = next(t for h, t in tables.items() if "each task's median" in h)
    assert "median best log loss" in by_task.columns
    assert "best value" not in latex and "lowest value" not in latex
    # The figure of each task's curves is drawn, its axes named by the score.
    assert across_tasks.figures["task-curves"].startswith(b"\x89PNG")
    assert "task-curves" in across_tasks.vector_figures


def test_across_tasks_the_notes_are_one_paragraph(across_tasks):
    latex = across_tasks.to_latex()
    head = latex.split("Reporting checklist")[0]
    assert head.count("\\begin{sloppypar}") == 1  # one per note before
    assert head.count("\\textbf{Data.}") == 1
    assert "Trials in order (column 'number')" in head  # a sentence, capitalised
    markdown = across_tasks.to_markdown()
    assert markdown.count("**Data.**") == 1 and "\n> 41 failed" not in markdown


def test_across_tasks_the_checklist_is_at_the_texts_size(across_tasks):
    latex = across_tasks.to_latex()
    checklist = latex.split("Reporting checklist")[1].split("\\paragraph{Across")[0]
    # A table of seven columns was \resizebox'ed to about 5pt.
    for shrink in ("\\resizebox", "\\scalebox", "\\tiny", "\\scriptsize",
                   "\\footnotesize"):
        assert shrink not in checklist, shrink
    assert "\\begin{tabular}" not in checklist


def test_across_tasks_the_checklist_counts_and_names_each_task():
    """The trials per task, each task's best log loss and the trial order's test
    per task, checked against the file read with pandas alone."""
    import warnings

    import evp
    from evp.report import build_report

    raw = pd.read_csv(BENCHMARK)
    done = raw[raw["state"] == "COMPLETE"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = evp.read_results(BENCHMARK, score="value", group="model",
                                   task="dataset", minimize=True, failed="drop")
    report = build_report(results.select(["svc", "mlp", "random_forest"]),
                          vector_figures=False)
    for model in ("svc", "mlp", "random_forest"):
        mine = done[done["model"] == model]
        counts = mine.groupby("dataset")["value"].size()
        # Each task's count (not their sum alone, which is no search's size).
        assert row(report, "Number of search trials")[model] == (
            ", ".join(f"{task} {counts[task]}" for task in TASKS)
            + f" ({len(mine)} in all)")
        best = row(report, "Best validation value (each task)")[model]
        said = dict(part.rsplit(" ", 1) for part in best.split("; "))
        assert list(said) == TASKS
        for task, value in said.items():
            assert float(value) == pytest.approx(
                mine.loc[mine["dataset"] == task, "value"].min())
        assignment = row(report, "Best hyperparameter assignment (each task)")[model]
        assert [part.split(":")[0] for part in assignment.split("; ")] == TASKS
        # The order test per task, as the note says it: never "too few trials".
        strategy = row(report, "Search strategy")[model]
        assert "on 5 searches: p from" in strategy and "too few" not in strategy
        assert "Holm-adjusted over 30 searches: " in strategy


def test_across_tasks_open_band_edges_are_said_and_explained(across_tasks):
    latex = across_tasks.to_latex()
    assert "\\infty" not in latex and "∞" not in latex
    opened = [t for t in latex.split("\\begin{table") if "& open" in t]
    assert opened  # the aggregate band's upper edge at the largest budget
    for table in opened:
        assert "Open: the band is unbounded there: too few rounds" in table
    assert "| open |" in across_tasks.to_markdown()


def test_across_tasks_score_name_on_the_command_line(tmp_path, capsys):
    from evp.cli import main

    out = tmp_path / "appendix.md"
    assert main(["report", str(BENCHMARK), "--score", "value", "--group", "model",
                 "--task", "dataset", "--minimize", "--failed", "drop",
                 "--models", "svc,mlp", "--score-name", "log loss",
                 "--out", str(out)]) == 0
    text = out.read_text()
    assert "Best validation log loss (each task)" in text
    assert "median best log loss" in text
    assert "best value" not in text and "Best validation value" not in text
    capsys.readouterr()
    assert main(["report", str(BENCHMARK), "--score", "value", "--group", "model",
                 "--task", "dataset", "--minimize", "--failed", "drop",
                 "--score-name", " ", "--out", str(out)]) == 2
    assert "--score-name must name the score" in capsys.readouterr().err
