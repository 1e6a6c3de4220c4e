"""Never harm the user's data, never crash on a hostile input: every reader
leaves what it reads byte for byte as it was, outputs never destroy an input and
are written atomically, runs are exclusive, the Markdown report is escaped, and
damaged or ambiguous files are refused (or read with a word) in one line."""

import bz2
import contextlib
import gzip
import hashlib
import io
import json
import lzma
import os
import sqlite3
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from evp import read_results
from evp._output import (
    MANIFEST,
    atomic_folder,
    check_output,
    exclusive,
    write_file,
    write_folder_files,
)
from evp.cli import in_command_line_words, main
from evp.readers import looks_like_loss


def tree(folder: Path) -> dict:
    """Every file and folder under `folder`, files by their checksum."""
    return {str(p.relative_to(folder)): (hashlib.sha256(p.read_bytes()).hexdigest()
                                         if p.is_file() else "folder")
            for p in sorted(Path(folder).rglob("*"))}


def run_cli(*args) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main([str(a) for a in args])
        except SystemExit as exit:  # argparse's usage errors
            status = exit.code
    return status, out.getvalue(), err.getvalue()


def one_line_error(status, out, err, command="curve") -> str:
    assert status == 2, err
    assert "Traceback" not in err
    errors = [line for line in err.strip().splitlines()
              if line.startswith(f"evp {command}: ")
              and not line.startswith(f"evp {command}: warning:")]
    assert len(errors) == 1, err
    return errors[0]


def scores_frame(rows=12, seed=0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"model": ["a", "b"] * (rows // 2),
                         "acc": rng.uniform(0.6, 0.9, rows).round(4),
                         "lr": rng.uniform(1e-5, 1e-3, rows)})


# ---------------------------------------------------------------- 1. reads

def _sqlite(path: Path, tables) -> Path:
    with contextlib.closing(sqlite3.connect(path)) as db:
        for table in tables:
            db.execute(f"CREATE TABLE {table} (x)")
        db.commit()
    return path


@pytest.fixture(scope="module")
def sources(tmp_path_factory):
    """{name: (what read_results takes, its options)}, every reader's input, in a
    folder of its own each."""
    root = tmp_path_factory.mktemp("sources")
    frame = scores_frame()
    made = {}

    def folder(name):
        path = root / name
        path.mkdir()
        return path

    path = folder("csv") / "runs.csv"
    frame.to_csv(path, index=False)
    made["csv"] = (path, dict(score="acc", group="model"))
    path = folder("tsv") / "runs.tsv"
    frame.to_csv(path, index=False, sep="\t")
    made["tsv"] = (path, dict(score="acc", group="model"))
    path = folder("gz") / "runs.csv.gz"
    path.write_bytes(gzip.compress(frame.to_csv(index=False).encode()))
    made["gz"] = (path, dict(score="acc", group="model"))
    path = folder("jsonl") / "runs.jsonl"
    frame.to_json(path, orient="records", lines=True)
    made["jsonl"] = (path, dict(score="acc", group="model"))
    path = folder("parquet") / "runs.parquet"
    frame.to_parquet(path)
    made["parquet"] = (path, dict(score="acc", group="model"))
    search = folder("search")
    for model in ("lr", "cnn"):
        with open(search / f"{model}.jsonl", "w") as handle:
            for trial in range(5):
                handle.write(json.dumps({"model": model, "trial": trial,
                                         "accuracy": 0.5 + trial / 20}) + "\n")
    made["evp search"] = (search, dict(score="accuracy"))
    cv = pd.DataFrame({"mean_test_score": frame["acc"], "rank_test_score": 1,
                       "split0_test_score": frame["acc"],
                       "mean_fit_time": 1.0, "param_C": frame["lr"]})
    path = folder("sklearn") / "cv_results.csv"
    cv.to_csv(path, index=False)
    made["scikit-learn"] = (path, dict(score="score"))
    wandb = pd.DataFrame({"Name": [f"r{i}" for i in range(8)],
                          "State": ["finished"] * 7 + ["running"],
                          "Created": pd.date_range("2025-01-01", periods=8,
                                                   freq="h").strftime(
                              "%Y-%m-%dT%H:%M:%S.000Z"),
                          "Runtime": 10, "val_acc": np.linspace(0.5, 0.8, 8)})
    path = folder("wandb") / "wandb_export.csv"
    wandb.to_csv(path, index=False)
    made["wandb"] = (path, dict(score="val_acc"))
    ray = folder("ray")
    for trial in range(4):
        trial_folder = ray / f"train_{trial:05d}"
        trial_folder.mkdir()
        (trial_folder / "result.json").write_text("".join(
            json.dumps({"acc": 0.5 + trial / 10 + step / 100, "trial_id":
                        f"x_{trial:05d}", "training_iteration": step}) + "\n"
            for step in range(3)))
        (trial_folder / "params.json").write_text(json.dumps({"lr": trial}))
    made["ray tune"] = (ray, dict(metric="acc", mode="max"))
    empty = folder("empty db") / "empty.db"
    empty.write_bytes(b"")
    made["empty .db"] = (empty, {})
    made["unrelated .db"] = (_sqlite(folder("other db") / "other.db", ["foo"]), {})
    made["look-alike .db"] = (_sqlite(folder("fake db") / "fake.db",
                                      ["experiments", "runs", "metrics"]),
                              dict(experiment="e"))
    made["look-alike .db, no experiment"] = (
        _sqlite(folder("fake db 2") / "fake.db", ["experiments", "runs", "metrics"]),
        {})
    made["look-alike URL"] = (
        "sqlite:///" + str(_sqlite(folder("fake db 3") / "fake.db",
                                   ["studies", "trials"])), {})
    optuna = pytest.importorskip("optuna")
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    path = folder("optuna") / "study.db"
    study = optuna.create_study(storage=f"sqlite:///{path}", study_name="s",
                                sampler=optuna.samplers.RandomSampler(seed=0))
    study.optimize(lambda t: t.suggest_float("x", 0, 1), n_trials=6)
    del study
    made["optuna"] = (path, {})
    made["optuna URL"] = (f"sqlite:///{path}", {})
    return root, made


_MLFLOW = {}


@pytest.fixture(scope="module")
def mlflow_sources(tmp_path_factory):
    """An MLflow SQLite store and an mlruns folder, each of one experiment with
    runs of two models (a param 'model')."""
    pytest.importorskip("mlflow")
    import logging

    from mlflow.tracking import MlflowClient

    logging.getLogger("mlflow").setLevel(logging.WARNING)
    root = tmp_path_factory.mktemp("mlflow")
    made = {}
    for kind in ("sqlite", "mlruns"):
        folder = root / kind
        folder.mkdir()
        uri = (f"sqlite:///{folder / 'mlflow.db'}" if kind == "sqlite"
               else (folder / "mlruns").as_uri())
        before = os.environ.get("MLFLOW_ALLOW_FILE_STORE")
        os.environ["MLFLOW_ALLOW_FILE_STORE"] = "true"
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                client = MlflowClient(tracking_uri=uri)
                experiment = client.create_experiment("e")
                for i in range(8):
                    run = client.create_run(experiment, start_time=1_700_000_000_000
                                            + 1000 * i)
                    client.log_metric(run.info.run_id, "val_acc", 0.5 + i / 50)
                    client.log_param(run.info.run_id, "model",
                                     "bert" if i % 2 else "roberta")
                    client.set_terminated(run.info.run_id, "FINISHED")
        finally:
            if before is None:
                os.environ.pop("MLFLOW_ALLOW_FILE_STORE", None)
        made[kind] = (folder / "mlflow.db" if kind == "sqlite"
                      else folder / "mlruns", dict(score="val_acc"))
    return root, made


SOURCES = ["csv", "tsv", "gz", "jsonl", "parquet", "evp search", "scikit-learn",
           "wandb", "ray tune", "empty .db", "unrelated .db", "look-alike .db",
           "look-alike .db, no experiment", "look-alike URL", "optuna",
           "optuna URL"]


@pytest.mark.parametrize("name", SOURCES)
def test_every_reader_leaves_its_input_as_it_was(sources, name, tmp_path,
                                                 monkeypatch):
    root, made = sources
    source, options = made[name]
    monkeypatch.chdir(tmp_path)  # nothing may appear where evp was started either
    before, here = tree(root), tree(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with contextlib.suppress(ValueError, FileNotFoundError):
            read_results(source, **options)  # refusing is fine; writing is not
    assert tree(root) == before
    assert tree(tmp_path) == here


@pytest.mark.parametrize("name, message", [
    ("empty .db", "empty.db is empty: not an Optuna storage"),
    ("unrelated .db", r"other.db holds no Optuna study \(its tables: foo\)"),
    ("look-alike .db", "fake.db is not an MLflow SQLite store"),
    ("look-alike .db, no experiment", "fake.db holds no Optuna study"),
])
def test_a_database_that_is_not_the_tools_is_refused_unchanged(sources, name,
                                                               message):
    _, made = sources
    source, options = made[name]
    size = Path(source).stat().st_size
    with pytest.raises(ValueError, match=message):
        read_results(source, **options)
    assert Path(source).stat().st_size == size


@pytest.mark.needs("mlflow")
@pytest.mark.parametrize("kind", ["sqlite", "mlruns"])
def test_mlflow_stores_are_read_without_a_write(mlflow_sources, kind, tmp_path,
                                                monkeypatch):
    root, made = mlflow_sources
    source, options = made[kind]
    monkeypatch.chdir(tmp_path)
    before = tree(root)
    results = read_results(source, **options)
    assert len(results.frame) == 8
    assert tree(root) == before
    assert tree(tmp_path) == {}  # no mlruns folder where evp was started


# ---------------------------------------------------- 8. tools never pool

@pytest.mark.needs("mlflow")
def test_mlflow_runs_of_several_models_are_not_pooled_silently(mlflow_sources):
    _, made = mlflow_sources
    source, _ = made["sqlite"]
    line = one_line_error(*run_cli("curve", source, "--score", "val_acc"))
    assert "'params.model' looks like it names models" in line
    assert "--group params.model" in line and "--pool" in line
    status, out, err = run_cli("curve", source, "--score", "val_acc", "--group",
                               "params.model")
    assert status == 0, err
    assert "bert" in out and "roberta" in out


def test_a_cv_results_file_with_a_model_column_is_not_pooled(tmp_path):
    frame = scores_frame()
    cv = pd.DataFrame({"model": frame["model"], "mean_test_score": frame["acc"],
                       "rank_test_score": 1, "split0_test_score": frame["acc"],
                       "param_C": frame["lr"]})
    path = tmp_path / "cv.csv"
    cv.to_csv(path, index=False)
    line = one_line_error(*run_cli("curve", path))
    assert "column 'model' looks like it names models" in line
    assert "--group model" in line and "--pool" in line
    assert run_cli("curve", path, "--pool")[0] == 0
    assert run_cli("curve", path, "--group", "model")[0] == 0


# ---------------------------------------------------------- 2. outputs

@pytest.mark.parametrize("command", [
    ["curve", "--score", "acc", "--group", "model"],
    ["report", "--score", "acc", "--group", "model"],
])
def test_an_output_that_is_the_input_is_refused(tmp_path, command):
    path = tmp_path / ("runs.csv" if command[0] == "curve" else "runs.md")
    if command[0] == "curve":
        scores_frame().to_csv(path, index=False)
        source = path
    else:  # a report over its own input would need a .md input: use a link
        source = tmp_path / "runs.csv"
        scores_frame().to_csv(source, index=False)
        path = tmp_path / "same.md"
        path.symlink_to(source)
    before = tree(tmp_path)
    line = one_line_error(*run_cli(command[0], source, *command[1:], "--out", path),
                          command[0])
    assert "is the input" in line or "must end in" in line
    assert tree(tmp_path) == before


def test_check_output_refuses_inputs_folders_and_missing_folders(tmp_path):
    results = tmp_path / "runs.csv"
    results.write_text("acc\n0.5\n")
    with pytest.raises(ValueError, match="is the input"):
        check_output(tmp_path / "." / "runs.csv", inputs=[results])
    with pytest.raises(ValueError, match="is the input"):
        check_output(results, inputs=[f"sqlite:///{results}"])
    with pytest.raises(ValueError, match="inside the input folder"):
        check_output(tmp_path / "out.csv", inputs=[tmp_path])
    with pytest.raises(ValueError, match="is a folder"):
        check_output(tmp_path, inputs=[])
    with pytest.raises(ValueError, match="no folder"):
        check_output(tmp_path / "missing" / "out.csv")
    assert check_output(tmp_path / "out.csv", inputs=[results]) == \
        tmp_path / "out.csv"


def test_a_write_that_fails_leaves_the_old_file_and_no_debris(tmp_path):
    path = tmp_path / "table.csv"
    path.write_text("old")
    os.chmod(path, 0o640)

    def broken(temporary):
        temporary.write_text("half")
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError):
        write_file(path, broken)
    assert path.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["table.csv"]
    assert write_file(path, "new") is True  # it replaced a file
    assert path.read_text() == "new"
    assert path.stat().st_mode & 0o777 == 0o640  # its permissions kept
    assert write_file(tmp_path / "fresh.csv", b"x") is False


def test_the_figures_folder_never_loses_a_file_evp_did_not_write(tmp_path):
    folder = tmp_path / "appendix-figures"
    folder.mkdir()
    (folder / "curves.png").write_bytes(b"the user's own")
    with pytest.raises(ValueError, match="was not written by evp"):
        write_folder_files(folder, {"curves.png": b"new", "bands.png": b"new"})
    assert (folder / "curves.png").read_bytes() == b"the user's own"
    assert not (folder / "bands.png").exists()  # nothing written at all
    (folder / "curves.png").unlink()
    assert write_folder_files(folder, {"curves.png": b"1"}) == []
    # What evp wrote there it may replace, and says so.
    assert write_folder_files(folder, {"curves.png": b"2"}) == [folder / "curves.png"]
    assert json.loads((folder / MANIFEST).read_text()) == {
        "curves.png": hashlib.sha256(b"2").hexdigest()}
    # Changed since evp wrote it: the user's now, replaced only when forced.
    (folder / "curves.png").write_bytes(b"edited by hand")
    with pytest.raises(ValueError, match="changed since"):
        write_folder_files(folder, {"curves.png": b"3"})
    assert (folder / "curves.png").read_bytes() == b"edited by hand"
    write_folder_files(folder, {"curves.png": b"3"}, force=True)
    assert (folder / "curves.png").read_bytes() == b"3"


def test_the_command_line_says_when_it_replaces_an_output(tmp_path):
    path = tmp_path / "runs.csv"
    scores_frame().to_csv(path, index=False)
    out = tmp_path / "curve.csv"
    status, _, err = run_cli("curve", path, "--score", "acc", "--group", "model",
                             "--out", out)
    assert status == 0 and "replaced" not in err
    status, _, err = run_cli("curve", path, "--score", "acc", "--group", "model",
                             "--out", out)
    assert status == 0 and f"note: replaced the existing {out}" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == [MANIFEST, "curve.csv",
                                                          "runs.csv"]


# ----------------------------------------------------- 3. exclusive runs

def test_a_second_run_into_a_locked_folder_is_refused_at_once(tmp_path):
    out = tmp_path / "out"
    with exclusive(out):
        script = ("import sys; from evp._output import exclusive, FolderBusy\n"
                  "try:\n    with exclusive(sys.argv[1]): pass\n"
                  "except FolderBusy as e: print(e); sys.exit(5)\n")
        done = subprocess.run([sys.executable, "-c", script, str(out)],
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 5, done.stderr
        assert f"is in use by a run (pid {os.getpid()})" in done.stdout
    with exclusive(out):  # released with its block
        pass


def test_a_killed_run_leaves_the_complete_folder_as_it_was(tmp_path):
    out = tmp_path / "out"
    with atomic_folder(out) as partial:
        (partial / "a.txt").write_text("complete")
    before = tree(tmp_path / "out")
    script = ("import sys, time; from pathlib import Path\n"
              "from evp._output import atomic_folder\n"
              "with atomic_folder(sys.argv[1]) as partial:\n"
              "    (partial / 'a.txt').write_text('half')\n"
              "    print('started', flush=True); time.sleep(60)\n")
    child = subprocess.Popen([sys.executable, "-c", script, str(out)],
                             stdout=subprocess.PIPE, text=True)
    assert child.stdout.readline().strip() == "started"
    child.kill()  # kill -9
    child.wait()
    assert tree(out) == before
    with atomic_folder(out) as partial:  # the next run cleans up after it
        (partial / "a.txt").write_text("again")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]
    assert (out / "a.txt").read_text() == "again"


def test_a_failed_run_leaves_the_folder_and_a_foreign_folder_is_refused(tmp_path):
    out = tmp_path / "out"
    with atomic_folder(out) as partial:
        (partial / "a.txt").write_text("complete")
    with pytest.raises(RuntimeError), atomic_folder(out) as partial:
        (partial / "a.txt").write_text("half")
        raise RuntimeError("the notebook failed")
    assert (out / "a.txt").read_text() == "complete"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "thesis.tex").write_text("years of work")
    with pytest.raises(ValueError, match=r"thesis\.tex was not written by evp"), \
            atomic_folder(mine):
        pass
    assert (mine / "thesis.tex").read_text() == "years of work"


@pytest.mark.needs("papermill")
def test_run_refuses_an_out_folder_that_holds_the_results(tmp_path):
    path = tmp_path / "runs.csv"
    scores_frame().to_csv(path, index=False)
    before = tree(tmp_path)
    line = one_line_error(*run_cli("run", "deberta_tutorial", path, "--score", "acc",
                                   "--group", "model", "--out", tmp_path), "run")
    assert "holds the input" in line
    assert tree(tmp_path) == before


def test_reproduce_puts_back_figures_a_killed_run_left_half_written(tmp_path):
    from evp.runner import _JOURNAL, _keep, _recover

    figures = tmp_path / "figures"
    figures.mkdir()
    (figures / "nb-fig1.png").write_bytes(b"complete 1")
    (figures / "other-fig1.png").write_bytes(b"another notebook's")
    _keep(figures, "nb")
    # The run is killed while the notebook rewrites its figures.
    (figures / "nb-fig1.png").write_bytes(b"half")
    (figures / "nb-fig2.png").write_bytes(b"new, half")
    kept = []
    assert _recover(figures, kept) == ["nb"]
    # What the killed run wrote is kept aside, not deleted: a file saved there
    # meanwhile could be someone's.
    (aside,) = kept
    assert aside.parent == figures and aside.name.startswith("nb-unfinished-")
    assert sorted(p.name for p in figures.iterdir()) == sorted(
        ["nb-fig1.png", "other-fig1.png", aside.name])
    assert (figures / "nb-fig1.png").read_bytes() == b"complete 1"
    assert (aside / "nb-fig1.png").read_bytes() == b"half"
    assert (aside / "nb-fig2.png").read_bytes() == b"new, half"
    assert not (figures / _JOURNAL).exists()


@pytest.mark.parametrize("record", [
    '["../../outside.txt"]', '["nb-a/../../outside.txt"]', '["other-fig.png"]',
    '[5]', '{"nb-fig.png": 1}', "[" * 100_000 + "]" * 100_000, "not json"])
def test_a_journal_record_that_is_not_evps_writes_nowhere(tmp_path, record):
    from evp.runner import _JOURNAL, _JOURNAL_RECORD, _recover

    figures = tmp_path / "project" / "figures"
    entry = figures / _JOURNAL / "nb"
    entry.mkdir(parents=True)
    (figures / "other-fig.png").write_bytes(b"another notebook's")
    (entry / _JOURNAL_RECORD).write_text(record)
    (entry / "other-fig.png").write_bytes(b"planted")
    (tmp_path / "outside.txt").write_text("the user's")
    (entry / "../../outside.txt").parent.mkdir(parents=True, exist_ok=True)
    before = tree(tmp_path / "project" / "figures")
    assert _recover(figures) == []
    after = tree(tmp_path / "project" / "figures")
    assert {k: v for k, v in after.items() if _JOURNAL not in k} == {
        k: v for k, v in before.items() if _JOURNAL not in k}
    assert (tmp_path / "outside.txt").read_text() == "the user's"


# --------------------------------------------------------- 4. Markdown

HOSTILE = ["<img src=x onerror=alert(1)>\n# Owned", "[x](javascript:alert(1))",
           "a|b", "- item", "1. first", "<script>alert(1)</script>",
           "**bold** _em_ `code`", "![i](http://x/y.png)", "> quote", "C:\\runs\\bert"]


def test_the_markdown_report_shows_hostile_names_as_text():
    # markdown-it comes with the notebooks' and the site's extras.
    MarkdownIt = pytest.importorskip("markdown_it").MarkdownIt

    from evp.report import Report

    checklist = pd.DataFrame({"item": ["number of trials"],
                              **{name: ["5"] for name in HOSTILE}})
    table = pd.DataFrame({"model": HOSTILE, "score": np.linspace(0, 1, len(HOSTILE))})
    report = Report(title=HOSTILE[0], checklist=checklist,
                    sections=[(HOSTILE[1], table), (HOSTILE[2], HOSTILE),
                              (HOSTILE[5], "curves")],
                    figures={"curves": b""}, notes=[HOSTILE[3], HOSTILE[5]])
    text = report.to_markdown("appendix-figures")
    rendered = MarkdownIt("commonmark").enable("table").render(text)
    assert "<script" not in rendered and "<img src=x" not in rendered
    assert "javascript:" not in "".join(
        part for part in rendered.split('"') if part.startswith("javascript"))
    assert 'href="javascript' not in rendered
    assert rendered.count("<h1>") == 1 and rendered.count("<h2>") == 4
    assert rendered.count("<table>") == 2 and rendered.count("<img") == 1
    # The one bold lead is the report's own ("Data."), never a name's.
    assert rendered.count("<strong>") == rendered.count("<strong>Data.</strong>")
    assert rendered.count("<em>") == 0
    assert rendered.count("<li>") == len(HOSTILE)  # one item a name, no list in one
    # Every name is shown as it is written (the newline as a space).
    shown = MarkdownIt("commonmark").enable("table").render(text)
    for name in HOSTILE[1:]:
        escaped = (name.replace("&", "&amp;").replace("<", "&lt;")
                   .replace(">", "&gt;").replace('"', "&quot;"))
        assert escaped in shown, name


# ------------------------------------------------ 5. no traceback on ...

def test_names_with_backslashes_are_text_in_messages():
    message = "scores_a has 2 rounds; scores_b has 3"
    said = in_command_line_words(message, names={"scores_a": "C:\\runs\\bert",
                                                 "scores_b": "\\input{x}\\n"})
    assert said == "C:\\runs\\bert has 2 rounds; \\input{x}\\n has 3"


def test_model_names_with_backslashes_and_newlines_print_one_row_each(tmp_path):
    names = ["C:\\runs\\bert", "\\input{x}", "two\nlines\x1b[31m"]
    frame = pd.DataFrame({"model": np.repeat(names, 4),
                          "acc": np.linspace(0.5, 0.9, 12)})
    path = tmp_path / "runs.csv"
    frame.to_csv(path, index=False)
    status, out, err = run_cli("curve", path, "--score", "acc", "--group", "model",
                               "--ns", "1")
    assert status == 0, err
    lines = out.strip().splitlines()
    assert len(lines) == 4  # the header and one row per model
    assert "two\\nlines\\x1b[31m" in out and "\x1b" not in out + err


@pytest.mark.parametrize("compress, suffix", [(gzip.compress, ".gz"),
                                              (bz2.compress, ".bz2"),
                                              (lzma.compress, ".xz")])
def test_a_truncated_compressed_file_is_one_line(tmp_path, compress, suffix):
    data = scores_frame(4000).to_csv(index=False).encode()
    packed = compress(data)
    path = tmp_path / f"runs.csv{suffix}"
    path.write_bytes(packed[:len(packed) // 2])
    line = one_line_error(*run_cli("curve", path, "--score", "acc", "--group",
                                   "model"))
    assert f"is a damaged or truncated {suffix} file" in line


def test_separators_empty_or_longer_than_one_character(tmp_path):
    path = tmp_path / "runs.txt"
    path.write_text("model::acc\n" + "".join(f"m{i % 2}::0.{i + 1}\n"
                                              for i in range(8)))
    line = one_line_error(*run_cli("curve", path, "--score", "acc", "--sep", ""))
    assert "sep must be a character" in line
    status, out, err = run_cli("curve", path, "--score", "acc", "--group", "model",
                               "--sep", "::")
    assert status == 0, err
    assert "m0" in out and "m1" in out


# ------------------------------------------------------------ 6. direction

LOSSES = [
    # scikit-learn's metrics
    "log_loss", "brier_score_loss", "hamming_loss", "zero_one_loss", "hinge_loss",
    "mean_squared_error", "mean_absolute_error", "median_absolute_error",
    "max_error", "mean_absolute_percentage_error", "mean_squared_log_error",
    "root_mean_squared_error", "mean_poisson_deviance", "mean_gamma_deviance",
    "mean_tweedie_deviance",
    # Keras
    "loss", "val_loss", "categorical_crossentropy", "binary_crossentropy",
    "sparse_categorical_crossentropy", "kl_divergence", "kld", "logcosh",
    "log_cosh", "huber", "hinge", "squared_hinge", "categorical_hinge", "mse", "mae",
    "mape", "msle", "poisson", "kullback_leibler_divergence",
    # LightGBM
    "l1", "l2", "rmse", "binary_logloss", "multi_logloss", "binary_error",
    "multi_error", "cross_entropy", "tweedie", "valid_0's binary_logloss",
    # XGBoost
    "logloss", "mlogloss", "merror", "error", "rmsle", "mphe", "poisson-nloglik",
    "gamma-nloglik", "cox-nloglik", "gamma-deviance", "tweedie-nloglik",
    "aft-nloglik", "validation_0-logloss", "eval-mlogloss", "error@0.7",
    # others
    "CrossEntropy", "cross-entropy", "ValLoss", "eval_loss", "perplexity", "ppl",
    "wer", "cer", "nll", "negative_log_likelihood", "top1_err", "error_rate",
    "fid", "bits_per_char", "train/loss", "test_mse", "regret", "latency_ms"]
HIGHER = [
    "accuracy", "val_accuracy", "acc", "f1", "f1_macro", "f1_weighted",
    "precision", "recall", "roc_auc", "roc_auc_ovr", "auc", "aucpr", "pr_auc",
    "average_precision", "balanced_accuracy", "r2", "explained_variance",
    "neg_log_loss", "neg_mean_squared_error", "neg_root_mean_squared_error",
    "neg_mean_absolute_error", "neg_brier_score", "neg_mean_poisson_deviance",
    "neg_mean_absolute_percentage_error", "neg_median_absolute_error",
    "neg_max_error", "neg_mean_squared_log_error", "d2_absolute_error_score",
    "d2_log_loss_score", "matthews_corrcoef", "top_k_accuracy", "jaccard",
    "ndcg", "map", "map@5", "ndcg@10", "bleu", "rouge1", "rougeL", "meteor",
    "exact_match", "mean_iou", "iou", "dice", "cosine_similarity", "kappa",
    "cohen_kappa", "spearman", "pearson", "mcc", "reward", "episode_reward_mean",
    "score", "mean_test_score", "binary_accuracy", "categorical_accuracy",
    "sparse_top_k_categorical_accuracy", "AUC", "Precision", "Recall",
    "log_likelihood", "loglik", "elbo", "eval_accuracy", "val_f1", "top5_acc",
    "interval-regression-accuracy", "errand", "glossy"]


@pytest.mark.parametrize("name", LOSSES)
def test_real_loss_names_are_losses(name):
    assert looks_like_loss(name)


@pytest.mark.parametrize("name", HIGHER)
def test_real_higher_is_better_names_are_not_losses(name):
    assert not looks_like_loss(name)


def test_a_loss_name_is_refused_and_a_negated_scorer_read_as_higher_is_better():
    frame = pd.DataFrame({"log_loss": [0.3, 0.2, 0.4],
                          "neg_log_loss": [-0.3, -0.2, -0.4]})
    with pytest.raises(ValueError, match="looks like a loss"):
        read_results(frame, score="log_loss")
    results = read_results(frame, score="neg_log_loss")
    assert results.minimize is False
    assert "scikit-learn's neg_* scorers" in results.direction
    assert any("higher neg_log_loss is better" in n for n in results.notes)


# ------------------------------------------------- 7. damaged, ambiguous

def _csv(path: Path, text: str, encoding="utf-8") -> Path:
    path.write_text(text, encoding=encoding)
    return path


def test_duplicate_column_names_are_refused(tmp_path):
    path = _csv(tmp_path / "runs.csv", "model,acc,acc\n" + "a,0.5,0.6\n" * 4)
    with pytest.raises(ValueError, match=r"duplicate column names \['acc'\]"):
        read_results(path, score="acc")
    path = _csv(tmp_path / "runs.jsonl", '{"acc": 0.5, "acc": 0.6}\n')
    with pytest.raises(ValueError, match="line 1 has the key 'acc' twice"):
        read_results(path, score="acc")


def test_a_repeated_header_line_is_no_phantom_model(tmp_path):
    rows = "".join(f"m{i % 2},0.{i + 1}\n" for i in range(4))
    path = _csv(tmp_path / "runs.csv", "model,acc\n" + rows + "model,acc\n" + rows)
    with pytest.raises(ValueError, match=r"repeats its header line in rows 5 "):
        read_results(path, score="acc", group="model")


def test_dates_thousands_and_percentages(tmp_path):
    dates = _csv(tmp_path / "dates.csv", "acc\n2024-01-02\n2024-01-03\n")
    with pytest.raises(ValueError, match="holds dates or times"):
        read_results(dates, score="acc")
    frame = pd.DataFrame({"acc": pd.to_datetime(["2024-01-02", "2024-01-03"])})
    with pytest.raises(ValueError, match="holds dates or times"):
        read_results(frame, score="acc")
    grouped = _csv(tmp_path / "thousands.csv", 'acc\n"1,234"\n"2,345"\n')
    with pytest.raises(ValueError, match="thousands separator or a decimal comma "
                                         r"\('1,234' in rows 1, 2"):
        read_results(grouped, score="acc")
    percent = _csv(tmp_path / "percent.csv", "acc\n85%\n90.5%\n")
    results = read_results(percent, score="acc")
    np.testing.assert_allclose(results.frame["acc"], [0.85, 0.905])
    assert any("percentages: read as fractions" in n for n in results.notes)
    mixed = _csv(tmp_path / "mixed.csv", "acc\n85%\n0.9\n")
    with pytest.raises(ValueError, match="mixes percentages"):
        read_results(mixed, score="acc")


def test_utf16_is_read_and_binary_named(tmp_path):
    text = "model,acc\n" + "".join(f"m{i % 2},0.{i + 1}\n" for i in range(6))
    path = _csv(tmp_path / "runs.csv", text, encoding="utf-16")
    results = read_results(path, score="acc", group="model")
    assert results.models == ["m0", "m1"]
    path = tmp_path / "nul.csv"
    path.write_bytes(text.encode("utf-16-le"))  # no byte-order mark
    with pytest.raises(ValueError, match=r"not a text file .*UTF-16 without a "
                                         r"byte-order mark"):
        read_results(path, score="acc")


def test_trials_recorded_twice(tmp_path):
    folder = tmp_path / "search"
    folder.mkdir()
    trials = [{"model": "lr", "trial": t, "accuracy": 0.5 + t / 100}
              for t in range(6)]
    (folder / "lr.jsonl").write_text("".join(json.dumps(t) + "\n"
                                             for t in trials + trials[:2]))
    results = read_results(folder, score="accuracy")
    assert len(results.frame) == 6
    assert any("2 trial record(s) repeated word for word" in w
               for w in results.warnings)
    # The same as one file, as evp search --out writes it.
    results = read_results(folder / "lr.jsonl", score="accuracy", group="model")
    assert len(results.frame) == 6 and any("repeated" in w for w in results.warnings)
    conflicting = [*trials, dict(trials[0], accuracy=0.9)]
    (folder / "lr.jsonl").write_text("".join(json.dumps(t) + "\n"
                                             for t in conflicting))
    with pytest.raises(ValueError, match="the trial of model lr, trial 0 is "
                                         "recorded more than once"):
        read_results(folder, score="accuracy")


def test_wandb_runs_in_unknown_states_and_rows_of_the_export(tmp_path):
    states = ["finished", "running", "zombie", "crashed", "finished", "pending",
              "finished", ""]
    frame = pd.DataFrame({"Name": [f"r{i}" for i in range(8)], "State": states,
                          "Created": [f"2025-01-0{8 - i}T00:00:00Z"
                                      for i in range(8)],  # newest first
                          "Runtime": 5, "val_acc": [0.5, 0.6, 0.7, None, 0.8,
                                                    0.9, 0.75, 0.65]})
    path = tmp_path / "wandb_export.csv"
    frame.to_csv(path, index=False)
    with pytest.raises(ValueError, match=r"'val_acc' has missing, non-numeric or "
                                         r"infinite values in rows 4;"):
        read_results(path, score="val_acc")  # the crashed run, row 4 of the file
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = read_results(path, score="val_acc", failed="drop")
    assert results.dropped == (4,)
    assert sorted(results.frame["Name"]) == ["r0", "r4", "r6"]
    assert any("2 W&B run(s) in a state evp does not know ('zombie', ''; rows 3, 8 "
               "of the table)" in w
               for w in results.warnings)


def test_a_ray_trial_that_never_reported_is_a_failed_round(tmp_path):
    folder = tmp_path / "exp"
    folder.mkdir()
    for trial in range(4):
        (folder / f"t_{trial}").mkdir()
        reports = ([] if trial == 2 else
                   [{"acc": 0.5 + trial / 10, "trial_id": f"x_{trial:05d}"}])
        (folder / f"t_{trial}" / "result.json").write_text(
            "".join(json.dumps(r) + "\n" for r in reports))
    with pytest.raises(ValueError, match="1 failed round"):
        read_results(folder, metric="acc", mode="max")
    results = read_results(folder, metric="acc", mode="max", failed="worst")
    assert results.failed == (3,)  # in trial order: t_2 by its folder's name
    assert "NO_REPORT" in set(results.frame["state"])
    assert "1 failed (NO_REPORT 1): failed rounds (NO_REPORT: never reported 'acc')" \
        in results.notes[0]


# ------------------------------------------------------ 9. bounded cost

def test_a_big_file_is_read_column_by_column(tmp_path, monkeypatch):
    import evp.readers.files as files

    frame = scores_frame(40).assign(**{f"extra{i}": "x" * 20 for i in range(10)})
    path = tmp_path / "big.csv"
    frame.to_csv(path, index=False)
    monkeypatch.setattr(files, "BIG_FILE", 100)
    with pytest.warns(UserWarning, match="read 2 of its 13 columns"):
        results = read_results(path, score="acc", group="model")
    assert list(results.frame.columns) == ["model", "acc"]
    np.testing.assert_allclose(results.frame["acc"], frame["acc"])


@pytest.mark.needs("papermill")
def test_a_second_evp_run_into_one_folder_is_refused_in_one_line(tmp_path):
    path = tmp_path / "runs.csv"
    scores_frame().to_csv(path, index=False)
    out = tmp_path / "out"
    script = ("import sys; from evp._output import exclusive\n"
              "with exclusive(sys.argv[1], what='evp run'):\n"
              "    print('held', flush=True); sys.stdin.readline()\n")
    other = subprocess.Popen([sys.executable, "-c", script, str(out)],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert other.stdout.readline().strip() == "held"
        line = one_line_error(*run_cli("run", "deberta_tutorial", path, "--score",
                                       "acc", "--group", "model", "--out", out),
                              "run")
    finally:
        other.communicate("done\n", timeout=60)
    assert f"is in use by evp run (pid {other.pid})" in line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["runs.csv"]


def test_a_users_dataframe_is_left_as_it_was():
    frame = pd.DataFrame({"model": ["a", "b"] * 4, "trial": [0, 0, 1, 1, 2, 2, 3, 3],
                          "acc": ["85%", "90%", "80%", "70%", "60%", "65%", "75%",
                                  "81%"], "state": ["finished"] * 7 + ["crashed"]})
    before = frame.copy()
    results = read_results(frame, score="acc", group="model", failed="worst")
    assert results.failed == (8,)
    pd.testing.assert_frame_equal(frame, before)


@pytest.mark.needs("papermill")
def test_a_file_saved_beside_a_notebooks_figures_while_it_fails_is_kept(
        tmp_path):
    from test_output_ownership import tiny_notebook

    from evp.runner import reproduce

    notebooks, figures = tmp_path / "notebooks", tmp_path / "figures"
    notebooks.mkdir()
    figures.mkdir()
    (figures / "nb-line.png").write_bytes(b"committed")
    # While the notebook runs (and before it fails), the user saves a file
    # whose name begins as the notebook's figures do.
    tiny_notebook(notebooks / "nb.ipynb",
                  "from pathlib import Path\n"
                  "Path('../figures/nb-line.png').write_bytes(b'half')\n"
                  "Path('../figures/nb-notes.txt').write_text('the user notes')\n"
                  "raise ValueError('the analysis failed')")
    done = reproduce(notebooks, figures, {})
    assert done.failures and done.failures[0].startswith("nb: ValueError")
    assert (figures / "nb-line.png").read_bytes() == b"committed"
    (aside,) = done.kept
    assert (aside / "nb-notes.txt").read_text() == "the user notes"
    assert (aside / "nb-line.png").read_bytes() == b"half"
