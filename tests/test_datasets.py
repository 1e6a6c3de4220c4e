"""Dataset registry, loaders and users' result files.

The real data is read from the offline mirror named by EVP_DATA_DIR (or the shared
folder beside the repository); those tests are skipped when neither exists. The
download path is tested against a local HTTP server serving tiny made-up fixtures,
so no test reaches the internet.
"""

import functools
import hashlib
import http.server
import json
import os
import shutil
import socket
import sys
import threading
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from evp import datasets
from evp.datasets import (
    REGISTRY,
    DatasetError,
    Source,
    load_deberta,
    load_reuters,
    load_search,
    load_sst5,
    read_results,
    scores_by_model,
)

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).resolve().parent / "fixtures"

SST_COUNTS = {
    "train": [1092, 2218, 1624, 2322, 1288],
    "dev": [139, 289, 229, 279, 165],
    "test": [279, 633, 389, 510, 399],
}
TINY_SST_COUNTS = {
    "train": (1, 1, 1, 1, 1),
    "dev": (0, 0, 0, 1, 0),
    "test": (0, 1, 0, 0, 0),
}


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _mirror_folder() -> Path | None:
    value = os.environ.get("EVP_DATA_DIR")
    if value:
        return Path(value)
    shared = ROOT.parent / "shared" / "data"
    return shared if shared.is_dir() else None


MIRROR = _mirror_folder()
NO_MIRROR = ("no offline data mirror: set EVP_DATA_DIR to a folder laid out like "
             "deberta/, reuters/hedwig.tsv and sst5/ to run the tests on the real data")
needs_mirror = pytest.mark.skipif(MIRROR is None, reason=NO_MIRROR)


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    """No test sees the caller's mirror or cache: each sets what it needs."""
    monkeypatch.delenv("EVP_DATA_DIR", raising=False)
    monkeypatch.setenv("EVP_CACHE_DIR", str(tmp_path / "cache"))


@pytest.fixture
def mirror(monkeypatch):
    if MIRROR is None:
        pytest.skip(NO_MIRROR)
    monkeypatch.setenv("EVP_DATA_DIR", str(MIRROR))
    return MIRROR


@pytest.fixture(scope="module")
def real():
    """The three real datasets, loaded once from the mirror."""
    if MIRROR is None:
        pytest.skip(NO_MIRROR)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("EVP_DATA_DIR", str(MIRROR))
        return {
            "deberta": load_deberta(),
            "reuters": load_reuters(),
            "sst5": load_sst5(),
        }


def assert_clear(error: pytest.ExceptionInfo, *needles: str) -> str:
    """One DatasetError, no chained traceback, naming every needle."""
    assert isinstance(error.value, OSError)
    assert error.value.__cause__ is None
    assert error.value.__context__ is None or error.value.__suppress_context__
    message = str(error.value)
    for needle in needles:
        assert needle in message, (needle, message)
    return message


# ------------------------------------------------------------------ the registry


def test_registry_pins_the_commits_of_sources_md():
    for name in ("deberta/deberta-base.results.jsonl",
                 "deberta/deberta-v3-base.results.jsonl"):
        assert REGISTRY[name].url == (
            "https://raw.githubusercontent.com/nicholaslourie/opda/"
            "ec685e83c92293151b3cffe5458477ec0b1a47c3/" + "data/" + name)
    assert REGISTRY["reuters/hedwig.tsv"].url == (
        "https://raw.githubusercontent.com/castorini/meanmax/"
        "0ea124105eda04a00677c077b591a94c2e2b2936/data/hedwig.tsv")
    sst = REGISTRY["sst5/trainDevTestTrees_PTB.zip"]
    assert sst.url == "https://nlp.stanford.edu/sentiment/trainDevTestTrees_PTB.zip"
    assert sst.sha256 is None
    with pytest.raises(TypeError):
        REGISTRY["extra"] = sst  # read-only


@needs_mirror
def test_registry_hashes_match_the_mirrors_sha256sums():
    sums = {}
    for line in (MIRROR / "SHA256SUMS").read_text().splitlines():
        digest, name = line.split()
        sums[name.removeprefix("./")] = digest
    hashed = {name: s.sha256 for name, s in REGISTRY.items() if s.sha256}
    # DeBERTa (two files), Reuters, AlexNet and ConvNeXt; SST-5's archive bytes are
    # not pinned (its line and label counts are checked instead).
    assert len(hashed) == 5
    for name, digest in hashed.items():
        assert sums[name] == digest, name


# ------------------------------------------------------------ real data (mirror)


def test_deberta_has_1024_rounds_per_model(real):
    data = real["deberta"]
    assert list(data.columns) == [
        "model", "iteration", "num_train_epochs", "train_batch_size",
        "learning_rate", "warmup_steps", "cls_drop_out", "total_model_steps",
        "best_matched", "final_matched", "best_mismatched", "final_mismatched",
    ]
    assert len(data) == 2 * 1024
    assert data["model"].value_counts().to_dict() == {
        "deberta-base": 1024, "deberta-v3-base": 1024}
    for _, rounds in data.groupby("model"):
        assert sorted(rounds["iteration"]) == list(range(1, 1025))


def test_deberta_v3_matched_best_scores_have_445_distinct_values(real):
    data = real["deberta"]
    v3 = data.loc[data["model"] == "deberta-v3-base", "best_matched"]
    assert v3.nunique() == 445


def test_deberta_best_is_at_least_final(real):
    data = real["deberta"]
    for split in ("matched", "mismatched"):
        assert (data[f"best_{split}"] >= data[f"final_{split}"]).all()
    # Early stopping matters somewhere, or best and final would be one column.
    assert (data["best_matched"] > data["final_matched"]).any()
    values = data[["best_matched", "final_mismatched"]].to_numpy()
    assert ((values > 0) & (values <= 1)).all()


@needs_mirror
def test_deberta_row_matches_the_raw_json_line(real):
    line = (MIRROR / "deberta" / "deberta-v3-base.results.jsonl").read_text(
        encoding="utf-8").splitlines()[499]
    record = json.loads(line)
    curve = record["learning_curves"]["matched"]
    mismatched = record["learning_curves"]["mismatched"]
    data = real["deberta"]
    row = data[(data["model"] == "deberta-v3-base")
               & (data["iteration"] == record["iteration"])]
    assert len(row) == 1
    row = row.iloc[0]
    assert row["best_matched"] == max(point[1] for point in curve)
    assert row["final_mismatched"] == mismatched[-1][1]
    assert row["learning_rate"] == record["learning_rate"]
    assert row["total_model_steps"] == record["total_model_steps"]


def test_load_deberta_one_model(mirror):
    data = load_deberta("deberta-v3-base")
    assert set(data["model"]) == {"deberta-v3-base"}
    assert len(data) == 1024
    with pytest.raises(ValueError, match="model must be one of"):
        load_deberta("deberta-large")


def test_reuters_has_152_lstm_and_145_mlp_runs(real):
    data = real["reuters"]
    assert list(data.columns) == ["model", "seed", "f1", "model_name"]
    assert len(data) == 297
    assert data["model"].value_counts().to_dict() == {"lstm": 152, "mlp": 145}
    assert set(zip(data["model"], data["model_name"], strict=True)) == {
        ("lstm", "reg_lstm"), ("mlp", "mlp")}
    assert data["seed"].dtype == np.int64
    assert data["f1"].between(0, 1).all()


def test_sst5_line_and_label_counts(real):
    data = real["sst5"]
    assert list(data.columns) == ["split", "tokens", "label"]
    assert list(data["split"].unique()) == ["train", "dev", "test"]
    for split, counts in SST_COUNTS.items():
        labels = data.loc[data["split"] == split, "label"]
        assert len(labels) == sum(counts)
        assert np.bincount(labels, minlength=5).tolist() == counts


def test_sst5_tokens_are_the_leaves(real):
    data = real["sst5"]
    first = data["tokens"].iloc[0]
    assert first[:4] == ["The", "Rock", "is", "destined"]
    assert first[-1] == "."
    assert data["label"].iloc[0] == 3
    assert all(isinstance(t, list) and t for t in data["tokens"])
    words = {word for tokens in data["tokens"] for word in tokens}
    assert "-LRB-" in words  # kept as in the tree
    assert not any("(" in word or ")" in word for word in words)


def test_load_sst5_one_split(mirror):
    dev = load_sst5("dev")
    assert len(dev) == 1101
    assert set(dev["split"]) == {"dev"}
    with pytest.raises(ValueError, match="split must be one of"):
        load_sst5("validation")


# ---------------------------------------------------------- broken mirror files


@needs_mirror
def test_corrupted_mirror_file_is_a_clear_error(tmp_path, monkeypatch):
    copy = tmp_path / "mirror" / "reuters" / "hedwig.tsv"
    copy.parent.mkdir(parents=True)
    content = bytearray((MIRROR / "reuters" / "hedwig.tsv").read_bytes())
    content[len(content) // 2] ^= 0x01  # flip one bit
    copy.write_bytes(bytes(content))
    monkeypatch.setenv("EVP_DATA_DIR", str(tmp_path / "mirror"))
    with pytest.raises(DatasetError) as error:
        load_reuters()
    assert_clear(error, "reuters/hedwig.tsv", REGISTRY["reuters/hedwig.tsv"].sha256,
                 "EVP_DATA_DIR", sha256(copy))


def test_file_missing_from_the_mirror_is_a_clear_error(tmp_path, monkeypatch):
    (tmp_path / "mirror").mkdir()
    monkeypatch.setenv("EVP_DATA_DIR", str(tmp_path / "mirror"))
    name = "deberta/deberta-base.results.jsonl"
    with pytest.raises(DatasetError) as error:
        load_deberta()
    assert_clear(error, name, REGISTRY[name].sha256, "EVP_DATA_DIR", "missing")


def test_mirror_folder_that_does_not_exist_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv("EVP_DATA_DIR", str(tmp_path / "nowhere"))
    with pytest.raises(DatasetError, match=r"EVP_DATA_DIR=.*is not a folder"):
        load_reuters()


@needs_mirror
def test_sst_file_with_a_missing_line_is_a_clear_error(tmp_path, monkeypatch):
    folder = tmp_path / "mirror" / "sst5"
    folder.mkdir(parents=True)
    lines = (MIRROR / "sst5" / "dev.txt").read_text(encoding="utf-8").splitlines()
    (folder / "dev.txt").write_text("\n".join(lines[:-1]) + "\n", encoding="utf-8")
    monkeypatch.setenv("EVP_DATA_DIR", str(tmp_path / "mirror"))
    with pytest.raises(DatasetError) as error:
        load_sst5("dev")
    assert_clear(error, "sst5/dev.txt", "1,100 lines", "expected 1,101",
                 "EVP_DATA_DIR")


def tiny_sst_mirror(tmp_path: Path) -> Path:
    folder = tmp_path / "mirror"
    shutil.copytree(FIXTURES / "sst5-tiny", folder / "sst5")
    return folder


def test_sst_file_with_wrong_line_counts_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv("EVP_DATA_DIR", str(tiny_sst_mirror(tmp_path)))
    with pytest.raises(DatasetError) as error:
        load_sst5("train")
    assert_clear(error, "sst5/train.txt", "has 5 lines", "expected 8,544",
                 "EVP_DATA_DIR")


def test_sst_file_with_wrong_label_counts_is_a_clear_error(tmp_path, monkeypatch):
    mirror = tiny_sst_mirror(tmp_path)
    monkeypatch.setenv("EVP_DATA_DIR", str(mirror))
    monkeypatch.setattr(datasets, "_SST_COUNTS", TINY_SST_COUNTS)
    assert len(load_sst5()) == 7  # the fixture passes its own counts
    dev = mirror / "sst5" / "dev.txt"
    dev.write_text(dev.read_text().replace("(3 ", "(4 ", 1))
    with pytest.raises(DatasetError) as error:
        load_sst5("dev")
    assert_clear(error, "sst5/dev.txt", "root-label counts [0, 0, 0, 0, 1]",
                 "expected [0, 0, 0, 1, 0]", "EVP_DATA_DIR")


def test_sst_line_that_is_not_a_binary_tree_is_a_clear_error(tmp_path, monkeypatch):
    mirror = tiny_sst_mirror(tmp_path)
    monkeypatch.setenv("EVP_DATA_DIR", str(mirror))
    monkeypatch.setattr(datasets, "_SST_COUNTS", TINY_SST_COUNTS)
    (mirror / "sst5" / "test.txt").write_text("(1 (2 Not) (1 very) (3 good))\n")
    with pytest.raises(DatasetError) as error:
        load_sst5("test")
    assert_clear(error, "sst5/test.txt", "line 1", "EVP_DATA_DIR")


def test_reuters_file_with_another_header_is_rejected(tmp_path, monkeypatch):
    bad = tmp_path / "mirror" / "reuters" / "hedwig.tsv"
    bad.parent.mkdir(parents=True)
    bad.write_text("model\tseed\tf1\nmlp\t1\t0.5\n")
    monkeypatch.setitem(datasets._REGISTRY, "reuters/hedwig.tsv",
                        Source("reuters/hedwig.tsv", "http://unused", sha256(bad)))
    monkeypatch.setenv("EVP_DATA_DIR", str(tmp_path / "mirror"))
    with pytest.raises(DatasetError, match="header"):
        load_reuters()


# ---------------------------------------------------------------- download path


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture
def server(tmp_path, monkeypatch):
    """(folder, base URL) of an HTTP server on 127.0.0.1 serving that folder."""
    for variable in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy",
                     "https_proxy", "all_proxy"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    folder = tmp_path / "www"
    folder.mkdir()
    handler = functools.partial(_QuietHandler, directory=str(folder))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever,
                              kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield folder, f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


def serve(server, fixture: str) -> tuple[str, str]:
    """Put a fixture on the server: its URL and its SHA-256."""
    folder, base = server
    shutil.copy(FIXTURES / fixture, folder / Path(fixture).name)
    return f"{base}/{Path(fixture).name}", sha256(FIXTURES / fixture)


def test_download_is_verified_cached_and_reused(server, tmp_path):
    url, digest = serve(server, "hedwig-tiny.tsv")
    source = Source("reuters/tiny.tsv", url, digest)
    path = datasets._fetch(source)
    assert path == tmp_path / "cache" / "reuters" / "tiny.tsv"
    assert path.read_bytes() == (FIXTURES / "hedwig-tiny.tsv").read_bytes()
    (server[0] / "hedwig-tiny.tsv").unlink()  # a second fetch needs no server
    assert datasets._fetch(source) == path


def test_corrupted_cache_file_is_downloaded_again(server, tmp_path):
    url, digest = serve(server, "hedwig-tiny.tsv")
    cached = tmp_path / "cache" / "reuters" / "tiny.tsv"
    cached.parent.mkdir(parents=True)
    cached.write_text("not the file\n")
    path = datasets._fetch(Source("reuters/tiny.tsv", url, digest))
    assert sha256(path) == digest


def test_downloaded_file_with_the_wrong_hash_is_a_clear_error(server, tmp_path):
    url, digest = serve(server, "hedwig-tiny.tsv")
    wrong = "0" * 64
    with pytest.raises(DatasetError) as error:
        datasets._fetch(Source("reuters/tiny.tsv", url, wrong))
    assert_clear(error, "reuters/tiny.tsv", url, wrong, "EVP_DATA_DIR",
                 f"the downloaded file has sha256 {digest}")
    assert not (tmp_path / "cache" / "reuters" / "tiny.tsv").exists()


def test_missing_file_on_the_server_is_a_clear_error(server):
    url = f"{server[1]}/nothing-here.tsv"
    with pytest.raises(DatasetError) as error:
        datasets._fetch(Source("reuters/tiny.tsv", url, "1" * 64))
    assert_clear(error, "reuters/tiny.tsv", url, "answered 404", "1" * 64,
                 "EVP_DATA_DIR")


def test_refused_connection_is_a_clear_error(server):
    with socket.socket() as probe:  # a port with nothing listening
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}/hedwig.tsv"
    with pytest.raises(DatasetError) as error:
        datasets._fetch(Source("reuters/hedwig.tsv", url, "2" * 64))
    assert_clear(error, "could not download reuters/hedwig.tsv", url,
                 "could not connect", "2" * 64, "EVP_DATA_DIR")


def test_loaders_download_through_the_registry(server, monkeypatch):
    url, digest = serve(server, "tiny-deberta-format.jsonl")
    for name in ("deberta/deberta-base.results.jsonl",
                 "deberta/deberta-v3-base.results.jsonl"):
        monkeypatch.setitem(datasets._REGISTRY, name, Source(name, url, digest))
    url, digest = serve(server, "hedwig-tiny.tsv")
    monkeypatch.setitem(datasets._REGISTRY, "reuters/hedwig.tsv",
                        Source("reuters/hedwig.tsv", url, digest))

    deberta = load_deberta()
    assert deberta["model"].tolist() == ["deberta-base"] * 3 + ["deberta-v3-base"] * 3
    first = deberta.iloc[0]
    assert (first["best_matched"], first["final_matched"]) == (0.75, 0.625)
    assert (first["best_mismatched"], first["final_mismatched"]) == (0.5, 0.5)
    assert deberta["train_batch_size"].tolist()[:3] == [32, 16, 64]

    reuters = load_reuters()
    assert reuters["model"].tolist() == ["lstm", "lstm", "mlp", "mlp", "lstm"]
    assert reuters["seed"].tolist() == [11, 12, 13, 14, 15]
    assert reuters["f1"].tolist() == [0.5, 0.25, 0.75, 0.125, 0.625]


def sst_archive(server) -> str:
    folder, base = server
    with zipfile.ZipFile(folder / "trees.zip", "w") as archive:
        for split in ("train", "dev", "test"):
            archive.write(FIXTURES / "sst5-tiny" / f"{split}.txt",
                          f"trees/{split}.txt")
    return f"{base}/trees.zip"


def test_sst_archive_is_downloaded_and_its_counts_checked(server, monkeypatch):
    name = "sst5/trainDevTestTrees_PTB.zip"
    monkeypatch.setitem(datasets._REGISTRY, name, Source(name, sst_archive(server),
                                                         None))
    with pytest.raises(DatasetError) as error:  # the real counts: 8,544 lines…
        load_sst5("train")
    assert_clear(error, "trees/train.txt", "expected 8,544", "EVP_DATA_DIR")

    monkeypatch.setattr(datasets, "_SST_COUNTS", TINY_SST_COUNTS)
    data = load_sst5()
    assert data["split"].tolist() == ["train"] * 5 + ["dev", "test"]
    assert data["label"].tolist() == [4, 0, 2, 3, 1, 3, 1]
    assert data["tokens"].iloc[3] == ["-LRB-", "pleasant", "-RRB-"]
    assert data["tokens"].iloc[6] == ["Not", "very", "good"]


def test_sst_download_that_is_not_a_zip_is_a_clear_error(server, monkeypatch):
    url, _ = serve(server, "hedwig-tiny.tsv")
    name = "sst5/trainDevTestTrees_PTB.zip"
    monkeypatch.setitem(datasets._REGISTRY, name, Source(name, url, None))
    with pytest.raises(DatasetError) as error:
        load_sst5()
    assert_clear(error, name, "not the treebank archive", "EVP_DATA_DIR")


# -------------------------------------------------------------- users' results


@pytest.fixture
def runs():
    return pd.DataFrame({
        "f1": [0.5, 0.75, 0.625, 0.25],
        "model": ["lstm", "mlp", "lstm", "mlp"],
        "seconds": [10.0, 0.0, 12.5, 3.0],
        "lr": [1e-3, 1e-4, 3e-4, 1e-5],
        "note": ["a", "b", "c", "d"],
    })


def write(frame: pd.DataFrame, path: Path) -> Path:
    suffixes = "".join(path.suffixes)
    if ".jsonl" in suffixes or ".ndjson" in suffixes:
        frame.to_json(path, orient="records", lines=True)
    elif ".tsv" in suffixes or ".tab" in suffixes:
        frame.to_csv(path, sep="\t", index=False)
    else:
        frame.to_csv(path, index=False)
    return path


@pytest.mark.parametrize("name", ["runs.csv", "runs.tsv", "runs.tab", "runs.jsonl",
                                  "runs.ndjson", "RUNS.CSV", "runs.csv.gz"])
def test_read_results_round_trips(runs, tmp_path, name):
    path = write(runs, tmp_path / name)
    got = read_results(path, score="f1", group="model", cost="seconds")
    assert (got.score, got.group, got.cost) == ("f1", "model", "seconds")
    pd.testing.assert_frame_equal(got.frame, runs, check_dtype=False)
    assert got.frame["f1"].dtype == np.float64
    assert got.frame["seconds"].dtype == np.float64


def test_read_results_from_a_frame_keeps_the_other_columns(runs):
    original = runs.copy()
    got = read_results(runs.set_index("note"), score="f1")
    assert list(got.frame.columns) == ["f1", "model", "seconds", "lr"]
    assert got.frame.index.tolist() == [0, 1, 2, 3]
    np.testing.assert_array_equal(got.frame["f1"], runs["f1"])
    pd.testing.assert_frame_equal(runs, original)  # the input is untouched


def test_read_results_groups_are_strings(tmp_path):
    path = tmp_path / "runs.csv"
    path.write_text("acc,arm\n0.5,1\n0.7,2\n")
    got = read_results(str(path), score="acc", group="arm")
    assert got.frame["arm"].tolist() == ["1", "2"] and got.models == ["1", "2"]
    assert got.frame["acc"].tolist() == [0.5, 0.7]


def test_read_results_lists_missing_and_non_numeric_scores(tmp_path):
    path = tmp_path / "runs.csv"
    path.write_text("acc,lr\n0.5,1\n,2\nabc,3\n0.7,4\ninf,5\n")
    with pytest.raises(ValueError) as error:
        read_results(path, score="acc")
    message = str(error.value)
    assert "'acc'" in message
    assert message.startswith("3 failed round(s)") and "rows 2, 3, 5;" in message
    assert "row 1 is the first data row" in message


def test_read_results_lists_at_most_twenty_rows():
    frame = pd.DataFrame({"acc": [np.nan] * 25})
    with pytest.raises(ValueError, match=r"rows 1, 2, .*, 20 and 5 more"):
        read_results(frame, score="acc")


def test_read_results_rejects_bad_costs(runs):
    bad = runs.assign(seconds=[1.0, -2.0, 3.0, -0.5])
    with pytest.raises(ValueError, match=r"cost column 'seconds' has negative .*"
                                         r"rows 2, 4 "):
        read_results(bad, score="f1", cost="seconds")
    bad = runs.assign(seconds=["1", "slow", "3", None])
    with pytest.raises(ValueError, match=r"cost column 'seconds' has missing.*"
                                         r"rows 2, 4 "):
        read_results(bad, score="f1", cost="seconds")


def test_read_results_rejects_missing_groups(runs):
    bad = runs.assign(model=["lstm", None, "mlp", "mlp"])
    with pytest.raises(ValueError, match=r"group column 'model' .* rows 2 "):
        read_results(bad, score="f1", group="model")


def test_read_results_names_a_missing_column(runs):
    with pytest.raises(ValueError) as error:
        read_results(runs, score="accuracy")
    message = str(error.value)
    assert "'accuracy'" in message
    assert "['f1', 'model', 'seconds', 'lr', 'note']" in message
    with pytest.raises(ValueError, match="cost column 'time' not found"):
        read_results(runs, score="f1", cost="time")


def test_read_results_rejects_unknown_extensions(runs, tmp_path):
    path = tmp_path / "runs.xlsx"
    path.write_bytes(b"")
    with pytest.raises(ValueError, match=r"runs\.xlsx.*\.csv, \.tsv, \.tab, \.jsonl"):
        read_results(path, score="f1")


def test_read_results_other_bad_input(runs, tmp_path):
    with pytest.raises(FileNotFoundError):
        read_results(tmp_path / "absent.csv", score="f1")
    with pytest.raises(TypeError, match="path_or_frame"):
        read_results([0.5, 0.7], score="f1")
    with pytest.raises(ValueError, match="no rows"):
        read_results(runs.iloc[:0], score="f1")
    with pytest.raises(ValueError, match="different columns"):
        read_results(runs, score="f1", cost="f1")
    # A column called "score" that is not the score is just another column.
    clash = read_results(runs.rename(columns={"lr": "score"}), score="f1")
    np.testing.assert_array_equal(clash.scores["f1"], runs["f1"])
    (tmp_path / "broken.jsonl").write_text('{"f1": 0.5}\n{"f1": \n')
    with pytest.raises(ValueError, match="not valid JSON Lines"):
        read_results(tmp_path / "broken.jsonl", score="f1")


def test_read_results_remembers_the_users_column_names(runs):
    got = read_results(runs, score="f1", group="model")
    assert (got.score, got.group, got.cost) == ("f1", "model", None)
    assert got.frame.attrs == {}  # nothing rides in DataFrame.attrs


def test_read_results_flattens_nested_json_lines(tmp_path):
    path = tmp_path / "runs.jsonl"
    path.write_text('{"acc": 0.5, "config": {"lr": 0.1, "depth": 2}}\n'
                    '{"acc": 0.7, "config": {"lr": 0.2}}\n')
    got = read_results(path, score="acc").frame
    assert list(got.columns) == ["acc", "config.lr", "config.depth"]
    assert got["config.lr"].tolist() == [0.1, 0.2]
    assert got["config.depth"].iloc[0] == 2 and np.isnan(got["config.depth"].iloc[1])


def test_scores_by_model_splits_in_file_order(runs):
    data = read_results(runs, score="f1", group="model")
    got = scores_by_model(data)
    assert list(got) == ["lstm", "mlp"]
    np.testing.assert_array_equal(got["lstm"], [0.5, 0.625])
    np.testing.assert_array_equal(got["mlp"], [0.75, 0.25])
    chosen = scores_by_model(data, ["mlp", "lstm"], minimize=True)
    assert list(chosen) == ["mlp", "lstm"]
    np.testing.assert_array_equal(chosen["mlp"], [-0.75, -0.25])


def test_scores_by_model_without_groups_is_one_model_named_after_the_score(runs):
    got = scores_by_model(read_results(runs, score="f1"))
    assert list(got) == ["f1"]
    np.testing.assert_array_equal(got["f1"], runs["f1"])


def test_scores_by_model_names_the_missing_model(runs):
    data = read_results(runs, score="f1", group="model")
    with pytest.raises(ValueError, match=r"models: no rounds of 'gru' in column "
                                         r"'model'; models present: lstm, mlp"):
        scores_by_model(data, ["lstm", "gru"])
    with pytest.raises(ValueError, match="each model once"):
        scores_by_model(data, ["lstm", "lstm"])


def write_trials(path, model, accuracies):
    path.write_text("".join(
        json.dumps({"model": model, "trial": i, "accuracy": a, "seconds": 1.0 + i,
                    "config": {"lr": 10.0 ** -i}}) + "\n"
        for i, a in reversed(list(enumerate(accuracies)))))


def test_load_search_reads_a_file_or_a_folder_of_them(tmp_path):
    write_trials(tmp_path / "cnn.jsonl", "cnn", [0.3, 0.4, 0.35])
    write_trials(tmp_path / "lr.jsonl", "lr", [0.5, 0.2])
    one = load_search(tmp_path / "lr.jsonl")
    assert (one.score, one.group, one.cost) == ("accuracy", "model", "seconds")
    assert one.strategy.startswith("random search")
    assert one.frame["trial"].tolist() == [0, 1]  # sorted by trial
    assert one.frame["accuracy"].tolist() == [0.5, 0.2]
    assert one.frame["config.lr"].tolist() == [1.0, 0.1]
    both = load_search(tmp_path)
    assert both.frame["model"].tolist() == ["cnn"] * 3 + ["lr"] * 2
    assert list(both.frame.columns[:3]) == ["model", "trial", "accuracy"]
    assert both.models == ["cnn", "lr"]
    # read_results takes the folder as it is.
    data = read_results(tmp_path, score="accuracy", group="model", cost="seconds")
    np.testing.assert_array_equal(scores_by_model(data)["cnn"], [0.3, 0.4, 0.35])
    assert data.strategy == one.strategy  # what the reader recorded travels on


def test_load_search_reads_the_projects_own_searches():
    data = load_search(ROOT / "data" / "sst5")
    assert {m: s.size for m, s in data.scores.items()} == {"cnn": 100, "lboe": 100,
                                                          "lr": 100}


def test_load_search_rejects_what_is_not_a_search(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"no \.jsonl files"):
        load_search(tmp_path)
    (tmp_path / "other.jsonl").write_text('{"acc": 0.5}\n')
    with pytest.raises(ValueError, match="lacks model, trial, accuracy"):
        load_search(tmp_path / "other.jsonl")
    with pytest.raises(FileNotFoundError, match="no such file or folder"):
        load_search(tmp_path / "absent")


@pytest.mark.parametrize("sep", [";", "\t", "|"])
def test_read_results_sniffs_the_delimiter_and_a_decimal_comma(runs, tmp_path, sep):
    path = tmp_path / "runs.csv"
    runs.to_csv(path, sep=sep, decimal="," if sep == ";" else ".", index=False)
    got = read_results(path, score="f1", group="model", cost="seconds").frame
    np.testing.assert_array_equal(got["f1"], runs["f1"])
    np.testing.assert_array_equal(got["seconds"], runs["seconds"])
    np.testing.assert_array_equal(got["lr"], runs["lr"])


def test_read_results_takes_sep_and_decimal(runs, tmp_path):
    path = tmp_path / "runs.txt"
    runs.to_csv(path, sep=";", decimal=",", index=False)
    got = read_results(path, score="f1", sep=";", decimal=",")
    np.testing.assert_array_equal(got.frame["f1"], runs["f1"])
    with pytest.raises(ValueError, match=r"looks separated by ';': pass sep=';'"):
        read_results(path, score="f1", sep=",")
    with pytest.raises(ValueError, match="sep and decimal are both ','"):
        read_results(path, score="f1", sep=",", decimal=",")


@pytest.mark.needs("pyarrow")
def test_read_results_reads_parquet(runs, tmp_path, monkeypatch):
    path = tmp_path / "runs.parquet"
    runs.to_parquet(path)
    got = read_results(path, score="f1", group="model", cost="seconds")
    np.testing.assert_array_equal(got.frame["f1"], runs["f1"])
    (tmp_path / "broken.pq").write_bytes(b"not parquet")
    with pytest.raises(ValueError, match=r"broken\.pq is not a readable Parquet"):
        read_results(tmp_path / "broken.pq", score="f1")
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    with pytest.raises(
            ImportError,
            match=r"needs pyarrow: pip install 'evp-tuning-curves\[parquet\]'"):
        read_results(path, score="f1")


def test_read_results_drops_bad_rows_only_when_asked(runs):
    bad = runs.assign(f1=[0.5, None, 0.625, 0.25], seconds=[1.0, 2.0, -1.0, 3.0])
    with pytest.raises(ValueError, match=r"rows 2; pass failed='drop' to leave "
                                         r"them out, or failed='worst'"):
        read_results(bad, score="f1", cost="seconds")
    with pytest.warns(UserWarning, match=r"dropped 2 bad row\(s\) of 4 .*score "
                                         r"column 'f1' .* rows 2; cost column "
                                         r"'seconds' has negative values in rows 3"):
        got = read_results(bad, score="f1", cost="seconds", drop_bad_rows=True)
    assert got.frame["f1"].tolist() == [0.5, 0.25]
    assert got.frame["note"].tolist() == ["a", "d"]
    assert got.dropped == (2, 3)
    assert read_results(runs, score="f1", drop_bad_rows=True).dropped == ()
    with pytest.raises(ValueError, match="every row is bad"):
        read_results(runs.assign(f1=np.nan), score="f1", drop_bad_rows=True)
