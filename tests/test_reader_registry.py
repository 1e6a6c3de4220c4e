"""The readers as one list: each a small object that sniffs and reads, picked by
one loop, and read_results passing through its module once in and once out."""

import os
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import evp
import evp.readers
from evp.readers._knows import MARKER
from evp.readers.registry import READERS, Reader, _asked, read_source

INIT = Path(evp.readers.__file__).resolve()


def test_every_reader_says_what_it_reads_and_sniffs_without_raising(tmp_path):
    assert all(isinstance(r, Reader) and r.name and r.reads for r in READERS)
    for odd in (3, None, tmp_path / "missing" / "x.csv", "no-such-file.db",
                b"bytes", ["list"], tmp_path):
        for reader in READERS:
            reader.sniff(odd)  # no exception for any of them
    claimed = [r.name for r in READERS if r.sniff(3)]
    assert claimed == []


def test_the_most_specific_claim_is_asked_first_and_cheap_sniffs_before_costly(
        tmp_path):
    def names(source):
        return [r.name for r in _asked(READERS, source)]

    # A CSV file: no tuner's sniff runs (none probes the file system for it).
    path = tmp_path / "runs.csv"
    path.write_text("acc\n0.5\n")
    assert names(path) == ["file"]
    # A SQLite file: MLflow's tables (a marker) before Optuna's extension.
    assert names(tmp_path / "s.db") == ["mlflow", "optuna", "file"]
    # A folder: the tools' markers (the cheap ones first: Ray Tune's sniff
    # lists every subfolder), then evp search's folders, then anything.
    folder = names(tmp_path)
    assert folder[-2:] == ["evp search", "file"] and folder[-3] == "ray tune"
    assert {"keras tuner", "mlflow", "smac"} <= set(folder[:-3])
    assert all(r.claim.specificity >= MARKER for r in READERS
               if r.name in folder[:-2])
    # A DataFrame: the tools' shapes before the user's own table.
    assert names(pd.DataFrame({"a": [1]})) == ["scikit-learn", "wandb", "table"]
    # The list's order decides nothing: reversed, the same readers are asked.
    assert [r.name for r in _asked(READERS[::-1], tmp_path)] == names(tmp_path)


def test_an_option_that_names_its_readers_source_picks_that_reader(tmp_path):
    # experiment= says the source is an MLflow store, whatever else it is.
    from evp.readers.registry import _refuse_others  # noqa: F401 (imported: used)

    claims = [(r.name, n) for r in READERS for n, o in r.declared.items() if o.claims]
    assert claims == [("mlflow", "experiment")]


def test_the_first_reader_that_claims_a_source_reads_it(tmp_path):
    table = pd.DataFrame({"acc": [0.5, 0.6, 0.7]})
    reader, base, frame, origin = read_source(table, score="acc")
    assert (reader.name, base, origin) == ("table", None, "a DataFrame")
    assert frame is table  # a plain table is read as it is, nothing copied yet
    path = tmp_path / "runs.csv"
    path.write_text("acc\n0.5\n0.6\n")
    reader, base, frame, origin = read_source(path, score="acc", sep=None,
                                              decimal=None, columns=None)
    assert (reader.name, base, origin) == ("file", None, str(path))
    assert frame["acc"].tolist() == [0.5, 0.6]
    # A CSV file that scikit-learn's cv_results_ was saved as is read as a search.
    cv = pd.DataFrame({"mean_test_score": [0.8, 0.9], "rank_test_score": [2, 1],
                       "split0_test_score": [0.8, 0.9], "param_C": [1, 2]})
    cv.to_csv(tmp_path / "cv.csv", index=False)
    reader, base, _, origin = read_source(tmp_path / "cv.csv", score=None, sep=None,
                                          decimal=None, columns=None)
    assert reader.name == "scikit-learn" and base.tuner == "scikit-learn"
    assert origin == str(tmp_path / "cv.csv")
    with pytest.raises(TypeError, match=r"^path_or_frame must be a file path or a "
                                        r"pandas DataFrame, got"):
        read_source(3.5)


def test_a_tools_option_given_to_another_source_names_what_it_is_for(tmp_path):
    path = tmp_path / "runs.csv"
    path.write_text("acc\n0.5\n0.6\n")
    with pytest.raises(ValueError, match=r"^study='s' is for an Optuna study, and "
                                         r"path_or_frame is a results file: leave "
                                         r"study out$"):
        evp.read_results(path, score="acc", study="s")
    with pytest.raises(ValueError, match=r"^mode='min' is for a Ray Tune "
                                         r"experiment, and path_or_frame is a "
                                         r"DataFrame: leave mode out$"):
        evp.read_results(pd.read_csv(path), score="acc", mode="min")


PACKAGE = Path(evp.__file__).resolve().parent


def _entries_into(module: Path, call):
    """The functions by which the running code entered `module` from the test
    or from evp's other modules (pandas calling back a function of the module,
    as DataFrame.map does, is no entry)."""
    entered = []

    def profile(frame, event, arg):
        if event != "call" or Path(frame.f_code.co_filename) != module:
            return
        caller = frame.f_back
        where = Path(caller.f_code.co_filename) if caller is not None else module
        if where != module and (where.is_relative_to(PACKAGE)
                                or where == Path(__file__).resolve()):
            entered.append(frame.f_code.co_name)

    sys.setprofile(profile)
    try:
        call()
    finally:
        sys.setprofile(None)
    return entered


@pytest.mark.parametrize("kind", ["csv", "frame", "search folder", "results"])
def test_a_read_enters_the_readers_module_once(tmp_path, kind):
    rng = np.random.default_rng(0)
    table = pd.DataFrame({"model": np.repeat(["a", "b"], 10),
                          "trial": np.tile(np.arange(10), 2),
                          "accuracy": rng.random(20)})
    if kind == "csv":
        source = tmp_path / "runs.csv"
        table.to_csv(source, index=False)
    elif kind == "frame":
        source = table
    elif kind == "search folder":
        source = tmp_path / "search"
        source.mkdir()
        for model, rows in table.groupby("model"):
            rows.to_json(source / f"{model}.jsonl", orient="records", lines=True)
    else:
        source = evp.read_results(table, score="accuracy", group="model")
    options = {} if kind in ("search folder", "results") else {
        "score": "accuracy", "group": "model"}
    entered = _entries_into(INIT, lambda: evp.read_results(source, **options))
    # Once in (read_results) and nothing else: the readers are picked and run
    # elsewhere, and never call back into the module that validates.
    assert entered == ["read_results"], entered


def test_os_pathlike_and_str_read_alike(tmp_path):
    path = tmp_path / "runs.csv"
    path.write_text("acc\n0.5\n0.6\n0.7\n")
    a = evp.read_results(path, score="acc")
    b = evp.read_results(os.fspath(path), score="acc")
    assert a.source == b.source == str(path)
    assert a.frame.equals(b.frame)


FIXTURES = Path(__file__).parent / "fixtures"


def _sources(tmp_path) -> dict:
    """A source of each kind, by the reader that should claim it."""
    ray = tmp_path / "ray" / "train_abc_00000"
    ray.mkdir(parents=True)
    (ray / "result.json").write_text('{"acc": 0.8, "training_iteration": 1}\n')
    (ray / "params.json").write_text('{"lr": 0.1}')
    search = tmp_path / "search"
    search.mkdir()
    (search / "a.jsonl").write_text('{"model": "a", "trial": 0, "accuracy": 0.8}\n')
    (tmp_path / "runs.csv").write_text("acc\n0.5\n")
    (tmp_path / "search.pkl").write_bytes(b"\x80\x04N.")
    return {
        "keras tuner": [FIXTURES / "kerastuner" / "random_val_accuracy",
                        FIXTURES / "kerastuner" / "random_val_accuracy"
                        / "oracle.json"],
        "smac": [FIXTURES / "smac" / "hpo", FIXTURES / "smac" / "hpo" / "0",
                 FIXTURES / "smac" / "random" / "3" / "runhistory.json"],
        "ray tune": [tmp_path / "ray"],
        "optuna": ["sqlite:///study.db", tmp_path / "study.db"],
        "evp search": [search],
        "file": [tmp_path / "runs.csv", tmp_path / "missing.csv"],
        "pickle": [tmp_path / "search.pkl"],
        "table": [pd.DataFrame({"acc": [0.5]})],
    }


def test_each_tools_record_is_claimed_first_by_its_own_reader(tmp_path):
    kinds = _sources(tmp_path)
    for owner, sources in kinds.items():
        for source in sources:
            first = next(r.name for r in _asked(READERS, source) if r.sniff(source))
            assert first == owner, (source, first)
    # A tool's record never claimed by another tool's reader (the order of
    # the list does not hide a sniff that claims too much).
    tools = ("keras tuner", "smac", "ray tune", "optuna", "mlflow",
             "scikit-learn")
    for owner, sources in kinds.items():
        for source in sources:
            claimed = {r.name for r in READERS if r.name in tools
                       and r.sniff(source)}
            assert claimed <= {owner}, (source, claimed)


def test_an_option_is_declared_once_and_reaches_every_surface(tmp_path, capsys):
    """The file reader's encoding, declared once in evp.readers.files: read by
    read_results, a flag of the command line, an entry of read_results'
    docstring, and passed on by evp run (its reading options are the
    declared ones)."""
    from evp.cli import _reading_options, build_parser, main
    from evp.readers.registry import option_flags

    path = tmp_path / "runs.csv"
    path.write_bytes("mod\u00e8le;acc\na;0,5\na;0,6\nb;0,7\n".encode("latin-1"))
    with pytest.raises(ValueError, match=r"is not UTF-8 text \(byte 4 is b'\\xe8'\)"
                                         r": save it as UTF-8, or name its encoding"):
        evp.read_results(path, score="acc", group="mod\u00e8le")
    results = evp.read_results(path, score="acc", group="mod\u00e8le",
                               encoding="latin-1")
    assert results.models == ["a", "b"] and results.frame["acc"].tolist() == [
        0.5, 0.6, 0.7]
    with pytest.raises(ValueError, match=r"^encoding: no text encoding is named "
                                         r"'klingon'"):
        evp.read_results(path, score="acc", encoding="klingon")
    assert main(["curve", str(path), "--score", "acc", "--group", "mod\u00e8le",
                 "--encoding", "latin-1", "--ns", "1", "--method", "none"]) == 0
    assert capsys.readouterr().out.splitlines()[1].split()[0] == "a"
    assert "    encoding : str, optional\n" in evp.read_results.__doc__
    assert "encoding" in option_flags()
    args = build_parser().parse_args(["run", "x", str(path), "--encoding", "cp1252"])
    assert _reading_options(args) == {"encoding": "cp1252"}
