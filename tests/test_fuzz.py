"""Fuzzing every reader through the command line: random bytes under every
extension, random delimited text and JSON Lines of random shapes, W&B exports
with random states, Ray Tune folders with random reports, random model names.

The only outcomes allowed: exit status 0, or 2 with a one-line error; never a
traceback (status 3 is evp's own catch of an unexpected exception: a bug), and
never a changed input (every file under the input's folder checksummed).

A few tens of seconds by default (examples chosen the same way every run); a
longer, random run: ``EVP_FUZZ_EXAMPLES=2000 EVP_FUZZ_RANDOM=1 pytest
tests/test_fuzz.py`` (``benchmarks/fuzz_long.py`` runs it and reports the time).
"""

import bz2
import contextlib
import csv
import gzip
import hashlib
import io
import json
import lzma
import os
import string
import tempfile
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evp.cli import _shown, in_command_line_words, main

EXAMPLES = int(os.environ.get("EVP_FUZZ_EXAMPLES", "25"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, database=None,
                derandomize=not os.environ.get("EVP_FUZZ_RANDOM"),
                suppress_health_check=[HealthCheck.too_slow,
                                       HealthCheck.data_too_large,
                                       HealthCheck.filter_too_much])

SUFFIXES = [".csv", ".tsv", ".tab", ".txt", ".jsonl", ".ndjson", ".csv.gz",
            ".csv.bz2", ".csv.xz", ".jsonl.gz", ".parquet", ".db", ".sqlite", ".pkl",
            ".zip", ".weird", ""]
COMPRESS = {".gz": gzip.compress, ".bz2": bz2.compress, ".xz": lzma.compress}

# Names a user's column or model might have, hostile ones among them.
NAMES = st.one_of(
    st.sampled_from(["model", "acc", "val_loss", "state", "status", "trial",
                     "seconds", "lr", "name", "accuracy", "neg_log_loss", "score",
                     "C:\\runs\\bert", "\\input{x}", "a\nb", "<b>x</b>", "[x](y)",
                     "x\x1b[31m", "é", " ", "model.1", "Name", "State", "Created",
                     "Runtime", "mean_test_score", "rank_test_score",
                     "split0_test_score", "summary"]),
    st.text(min_size=0, max_size=8))
CELLS = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(-10**6, 10**6),
    st.sampled_from(["85%", "1,234", "0,85", "2024-01-01", "2024-01-01T10:00:00Z",
                     "crashed", "finished", "running", "failed", "", "nan", "-inf",
                     "NA", "null", "True", "model", "acc", "{'a': 1}", "1e999",
                     "9" * 50, "\\", '"']),
    st.text(max_size=6))
STATES = st.one_of(st.sampled_from(["finished", "crashed", "failed", "killed",
                                    "running", "pending", "preempted", "Finished",
                                    ""]), st.text(max_size=5))
JSON = st.recursive(
    st.one_of(st.none(), st.booleans(), st.floats(allow_nan=False),
              st.integers(-10**9, 10**9), st.text(max_size=6)),
    lambda children: st.one_of(st.lists(children, max_size=3),
                               st.dictionaries(NAMES, children, max_size=3)),
    max_leaves=8)


def tree(folder: Path) -> dict:
    return {str(p.relative_to(folder)): (hashlib.sha256(p.read_bytes()).hexdigest()
                                         if p.is_file() else "folder")
            for p in sorted(folder.rglob("*"))}


def check(folder: Path, *args) -> int:
    """Run evp on the input in `folder` (:func:`run_evp`); the folder as it
    was."""
    before = tree(folder)
    status = run_evp(*args)
    assert tree(folder) == before
    return status


def run_evp(*args) -> int:
    """Run evp in process: exit 0, or 2 with one line of error; no traceback."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), \
            warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            status = main([str(a) for a in args])
        except SystemExit as exit:  # argparse: one line, status 2
            status = exit.code
    text = err.getvalue()
    assert "Traceback" not in text, text
    assert status in (0, 2), f"status {status}: {text}"
    if status == 2:
        errors = [line for line in text.splitlines()
                  if line.startswith("evp ") and ": warning:" not in line]
        assert len(errors) == 1, text
    return status


def _options(columns: list[str], draw) -> list[str]:
    """Random roles and options for `evp curve`."""
    options = ["--score", draw(st.sampled_from([*columns, "acc"]))]
    if draw(st.booleans()):
        options += ["--group", draw(st.sampled_from([*columns, "model"]))]
    if draw(st.booleans()):
        options += ["--failed", draw(st.sampled_from(["drop", "worst", "error"]))]
    if draw(st.booleans()):
        options += [draw(st.sampled_from(["--minimize", "--maximize", "--pool"]))]
    if draw(st.integers(0, 5)) == 0:
        options += ["--sep", draw(st.sampled_from(["", ",", ";", "::", "\\t", "ab",
                                                   '"', "\n"]))]
    return ["--ns", "1,2", *options]


@FUZZ
@given(data=st.binary(max_size=600), suffix=st.sampled_from(SUFFIXES),
       options=st.data())
def test_random_bytes_under_every_extension(data, suffix, options):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"results{suffix}"
        path.write_bytes(data)
        check(Path(folder), "curve", path, *_options(["acc", "model"], options.draw))


@FUZZ
@given(columns=st.lists(NAMES, min_size=1, max_size=5),
       rows=st.lists(st.lists(CELLS, min_size=0, max_size=6), max_size=25),
       delimiter=st.sampled_from([",", ";", "\t", "|"]),
       suffix=st.sampled_from([".csv", ".tsv", ".txt", ".csv.gz", ".csv.xz"]),
       encoding=st.sampled_from(["utf-8", "utf-8-sig", "utf-16", "latin-1"]),
       options=st.data())
def test_random_delimited_text(columns, rows, delimiter, suffix, encoding, options):
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=delimiter)
    writer.writerow(columns)
    writer.writerows(rows)
    try:
        data = buffer.getvalue().encode(encoding)
    except UnicodeEncodeError:
        data = buffer.getvalue().encode("utf-8")
    if suffix[-3:] in COMPRESS or suffix[-4:] in COMPRESS:
        data = COMPRESS[Path(suffix).suffix](data)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"results{suffix}"
        path.write_bytes(data)
        check(Path(folder), "curve", path, *_options(columns, options.draw))


@FUZZ
@given(lines=st.lists(st.one_of(
           st.dictionaries(NAMES, JSON, max_size=5).map(json.dumps),
           JSON.map(json.dumps), st.text(max_size=10)), max_size=20),
       options=st.data())
def test_random_json_lines(lines, options):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "results.jsonl"
        path.write_text("\n".join(lines), encoding="utf-8")
        keys = sorted({k for line in lines for k in _keys(line)}) or ["acc"]
        check(Path(folder), "curve", path, *_options(keys, options.draw))


def _keys(line: str) -> list[str]:
    with contextlib.suppress(ValueError):
        value = json.loads(line)
        if isinstance(value, dict):
            return list(value)
    return []


@FUZZ
@given(states=st.lists(STATES, min_size=1, max_size=15),
       scores=st.lists(st.one_of(st.floats(0, 1), st.none(), st.text(max_size=3)),
                       min_size=15, max_size=15),
       created=st.lists(st.one_of(st.just("2025-01-01T00:00:00Z"),
                                  st.datetimes().map(lambda d: d.isoformat()),
                                  st.text(max_size=4)), min_size=15, max_size=15),
       options=st.data())
def test_random_wandb_exports(states, scores, created, options):
    rows = [{"Name": f"run-{i}", "State": state, "Created": created[i],
             "Runtime": i, "val_acc": scores[i]} for i, state in enumerate(states)]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "wandb_export.csv"
        with open(path, "w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, list(rows[0]), quoting=csv.QUOTE_ALL)
            writer.writeheader()
            writer.writerows(rows)
        policy = options.draw(st.sampled_from([[], ["--failed", "drop"],
                                               ["--failed", "worst"]]))
        check(Path(folder), "curve", path, "--score", "val_acc", "--ns", "1",
              *policy)


@FUZZ
@given(trials=st.lists(st.lists(st.one_of(
           st.dictionaries(st.sampled_from(["acc", "trial_id", "config", "x"]),
                           JSON, max_size=3).map(json.dumps),
           st.text(max_size=8)), max_size=4), min_size=1, max_size=5),
       errors=st.lists(st.booleans(), min_size=5, max_size=5),
       params=st.lists(JSON.map(json.dumps), min_size=5, max_size=5),
       mode=st.sampled_from(["max", "min"]))
def test_random_ray_tune_folders(trials, errors, params, mode):
    with tempfile.TemporaryDirectory() as folder:
        experiment = Path(folder) / "experiment"
        experiment.mkdir()
        for number, lines in enumerate(trials):
            trial = experiment / f"train_{number:05d}"
            trial.mkdir()
            (trial / "result.json").write_text("\n".join(lines))
            (trial / "params.json").write_text(params[number])
            if errors[number]:
                (trial / "error.txt").write_text("boom")
        check(Path(folder), "curve", experiment, "--metric", "acc", "--mode", mode,
              "--ns", "1", "--failed", "worst")


@FUZZ
@given(names=st.lists(st.text(alphabet=string.printable + "é\x1b\\", min_size=1,
                              max_size=8), min_size=2, max_size=4, unique=True),
       options=st.data())
def test_random_model_names(names, options):
    rows = [{"model": name, "acc": 0.5 + i / 100}
            for i in range(12) for name in names[i % len(names):][:1]]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "runs.csv"
        with open(path, "w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, ["model", "acc"])
            writer.writeheader()
            writer.writerows(rows)
        check(Path(folder), "curve", path, "--score", "acc", "--group", "model",
              "--ns", "1,3")
        said = _shown(in_command_line_words(
            "scores_a and scores_b differ", names={"scores_a": names[0],
                                                   "scores_b": names[1]}))
        assert "\n" not in said and "\x1b" not in said


@pytest.mark.needs("optuna")
@FUZZ
@given(tables=st.lists(st.sampled_from(["studies", "trials", "version_info",
                                        "experiments", "runs", "metrics", "params",
                                        "tags", "alembic_version", "foo"]),
                       unique=True, max_size=6),
       experiment=st.booleans())
def test_random_sqlite_files(tables, experiment):
    import sqlite3

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "store.db"
        with contextlib.closing(sqlite3.connect(path)) as db:
            for table in tables:
                db.execute(f"CREATE TABLE {table} (x)")
            db.commit()
        check(Path(folder), "curve", path, "--score", "acc",
              *(["--experiment", "e"] if experiment else []))


FIXTURES = Path(__file__).parent / "fixtures"


def _mutated(record, data, edits: int):
    """`record` (parsed JSON) with `edits` random places replaced by random JSON
    values: a leaf, a list or an object anywhere in it."""
    for _ in range(edits):
        node, key = None, None
        here = record
        while isinstance(here, dict | list) and here and data.draw(
                st.booleans()):
            keys = list(here) if isinstance(here, dict) else list(range(len(here)))
            node, key = here, data.draw(st.sampled_from(keys))
            here = here[key]
        if node is None:
            return data.draw(JSON)
        node[key] = data.draw(JSON)
    return record


def _fuzz_tool_records(source: Path, files: list[str], data, *options) -> None:
    import shutil

    with tempfile.TemporaryDirectory() as folder:
        copy = Path(folder) / source.name
        shutil.copytree(source, copy)
        for name in data.draw(st.lists(st.sampled_from(files), min_size=1,
                                       max_size=2, unique=True)):
            path = copy / name
            record = json.loads(path.read_text())
            edits = data.draw(st.integers(1, 3))
            path.write_text(json.dumps(_mutated(record, data, edits)))
        check(Path(folder), "curve", copy, "--ns", "1,2", *options)


@FUZZ
@given(data=st.data(), failed=st.sampled_from(["drop", "worst", "error"]))
def test_random_edits_of_a_keras_tuner_project(data, failed):
    project = FIXTURES / "kerastuner" / "random_val_accuracy"
    files = ["oracle.json", *(f"trial_{i}/trial.json" for i in range(8))]
    _fuzz_tool_records(project, files, data, "--failed", failed)


@FUZZ
@given(data=st.data(), failed=st.sampled_from(["drop", "worst", "error"]))
def test_random_edits_of_a_smac_run(data, failed):
    run = FIXTURES / "smac" / "hpo"
    files = [f"{seed}/{name}" for seed in (0, 1)
             for name in ("runhistory.json", "scenario.json")]
    _fuzz_tool_records(run, files, data, "--failed", failed)


# Model and task names that have been read, pooled or shown wrongly: missing-value
# spellings, numbers and their text, spaces, bidirectional controls, newlines,
# spreadsheet formulas, slashes (the task/model keys).
HOSTILE = st.one_of(
    st.sampled_from(["None", "NA", "nan", "null", "N/A", "", " ", "1", "01", "1.0",
                     "-1", "a", "a b", "a  b", "a ", " a", "a\tb", "x\u202ey",
                     "\u2066z\u2069", "\u200fr", "\u061cq", "a\nb", "a\n\nb",
                     "\rx", "=1+2", "+x", "-x", "@x", "\tx", "a/b", "a/b/c", "/",
                     "x/", "\\", "%", "&", "_"]),
    st.integers(-3, 3),
    st.text(max_size=5))


@pytest.mark.slow
@FUZZ
@given(models=st.lists(HOSTILE, min_size=2, max_size=4),
       tasks=st.lists(HOSTILE, min_size=1, max_size=3),
       as_json=st.booleans(), out=st.sampled_from([".csv", ".tex"]),
       command=st.sampled_from(["curve", "compare"]))
def test_hostile_model_and_task_names(models, tasks, as_json, out, command):
    rows = [{"task": task, "model": model, "acc": round(0.5 + (i * 7 % 10) / 50, 3)}
            for task in tasks for model in models for i in range(4)]
    with tempfile.TemporaryDirectory() as folder, \
            tempfile.TemporaryDirectory() as written:
        if as_json:  # numbers stay numbers
            path = Path(folder) / "runs.jsonl"
            path.write_text("".join(json.dumps(row) + "\n" for row in rows),
                            encoding="utf-8")
        else:  # every name as text, quoted (a carriage return included)
            path = Path(folder) / "runs.csv"
            with open(path, "w", newline="", encoding="utf-8") as handle:
                writer = csv.DictWriter(handle, ["task", "model", "acc"],
                                        quoting=csv.QUOTE_NONNUMERIC)
                writer.writeheader()
                writer.writerows(rows)
        table = Path(written) / f"table{out}"
        options = ["--score", "acc", "--group", "model", "--ns", "1,3",
                   "--out", table]
        if len({str(t) for t in tasks}) > 1 or command == "compare":
            options += ["--task", "task"]
        if command == "compare":
            options += ["--all"]
        status = check(Path(folder), command, path, *options)
        if status == 0 and out == ".csv":
            with open(table, newline="", encoding="utf-8") as handle:
                cells = [cell for row in csv.reader(handle) for cell in row]
            for cell in cells:
                if cell[:1] in ("=", "+", "-", "@", "\t", "\r"):
                    float(cell)  # only a number may start like a formula
        if status == 0 and out == ".tex":
            text = table.read_text(encoding="utf-8")
            body = text[text.index("\\begin{tabular}"):text.index("\\end{tabular}")]
            assert "\n\n" not in body and "\u202e" not in body, body


# A reader plug-in that misbehaves at STEP ("sniff" or "read") as DOES says, and
# otherwise reads ".toy" files ("MODEL SCORE" lines).
PLUGIN = '''
import os
import pandas as pd
from evp import Results

STEP, DOES = {step!r}, {does!r}


class Unsayable(Exception):
    def __str__(self):
        raise RuntimeError("no words")


class Unprintable:
    def __repr__(self):
        raise RuntimeError("no repr")


RAISES = {{
    "exit 0": lambda: SystemExit(0), "exit 3": lambda: SystemExit(3),
    "exit None": lambda: SystemExit(None), "exit text": lambda: SystemExit("bye"),
    "runtime": lambda: RuntimeError("plug-in bug"),
    "value lines": lambda: ValueError("first\\nsecond\\x1b[31m"),
    "key": lambda: KeyError("x"), "generator exit": lambda: GeneratorExit(),
    "recursion": lambda: RecursionError(), "unsayable": lambda: Unsayable(),
    "memory": lambda: MemoryError(),
}}
JUNK = {{"none": None, "number": 42, "frame": pd.DataFrame({{"x": [1]}}),
        "dict": {{"a": 1}}, "unprintable": Unprintable(), "string": "Results"}}


def act(step, source):
    if step != STEP:
        return None
    if DOES in RAISES:
        raise RAISES[DOES]()
    if DOES == "append":
        with open(source, "a") as stream:
            stream.write("c 0.1\\n")
    elif DOES == "truncate":
        open(source, "w").close()
    elif DOES == "delete":
        os.remove(source)
    return JUNK.get(DOES, None) if DOES in JUNK else "fine"


class Plugin:
    def sniff(self, source):
        act("sniff", source)
        return str(source).endswith(".toy")

    def read(self, source, **options):
        with open(source) as lines:
            rows = [line.split() for line in lines if line.strip()]
        made = act("read", source)
        if made != "fine" and STEP == "read" and DOES in JUNK:
            return made
        frame = pd.DataFrame({{"model": [m for m, _ in rows],
                              "loss": [float(s) for _, s in rows]}})
        return Results(frame, score="loss", group="model", minimize=True,
                       direction="lower is better", source=str(source))


READER = Plugin()
'''
BEHAVIOURS = ["well-behaved", "exit 0", "exit 3", "exit None", "exit text", "runtime",
              "value lines", "key", "generator exit", "recursion", "unsayable",
              "memory", "none", "number", "frame", "dict", "unprintable", "string",
              "append", "truncate", "delete"]
EDITS = ("append", "truncate", "delete")
JUNK = ("none", "number", "frame", "dict", "unprintable", "string")


@FUZZ
@given(step=st.sampled_from(["sniff", "read"]), does=st.sampled_from(BEHAVIOURS),
       rows=st.lists(st.tuples(st.sampled_from(["a", "b", "c\u00e9"]),
                               st.floats(-1, 1)), min_size=6, max_size=20))
def test_hostile_reader_plugins(step, does, rows):
    """Through evp curve: success, or exit 2 in one line naming the plug-in; no
    traceback; the input unchanged, or, where the plug-in changed it, its
    results refused."""
    import sys
    import uuid

    module = f"evp_fuzz_plugin_{uuid.uuid4().hex[:8]}"
    with tempfile.TemporaryDirectory() as folder:
        site, data = Path(folder) / "site", Path(folder) / "data"
        info = site / f"{module}-0.1.dist-info"
        info.mkdir(parents=True)
        data.mkdir()
        (site / f"{module}.py").write_text(PLUGIN.format(step=step, does=does))
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module}\n"
                                       "Version: 0.1\n")
        (info / "entry_points.txt").write_text(
            f"[evp.readers]\nfuzzed = {module}:READER\n")
        path = data / "runs.toy"
        path.write_text("".join(f"{m} {s!r}\n" for m, s in rows))
        sys.path.insert(0, str(site))
        try:
            if does in EDITS:
                _refused(data, "curve", path, "--group", "model", "--ns", "1,2")
            else:
                status = check(data, "curve", path, "--group", "model", "--ns", "1,2")
                if does == "well-behaved" or (step == "sniff" and does in JUNK):
                    assert status == 0  # the plug-in read it, and nothing broke
        finally:
            sys.path.remove(str(site))
            sys.modules.pop(module, None)


def _refused(folder: Path, *args) -> None:
    """A plug-in that changes its input: exit 2, one line naming it, and no
    results printed."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), \
            warnings.catch_warnings():
        warnings.simplefilter("ignore")
        status = main([str(a) for a in args])
    text = err.getvalue()
    assert "Traceback" not in text, text
    assert status == 2 and out.getvalue() == "", text
    errors = [line for line in text.splitlines()
              if line.startswith("evp ") and ": warning:" not in line]
    assert len(errors) == 1 and "'fuzzed'" in errors[0], text
    assert "changed" in errors[0] or "failed in read" in errors[0], text
