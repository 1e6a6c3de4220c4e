"""The resumable search runner and the SST-5 models."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from evp.search import runner

ROOT = Path(__file__).resolve().parents[1]


def fake_sample(model, rng):
    return {"x": float(rng.random()), "k": int(rng.integers(100))}


def fake_train(task, model, config, *, seed, trial, stop_at=None):
    if trial == stop_at:
        raise KeyboardInterrupt  # the user pressed Ctrl-C during this trial
    return {"accuracy": config["x"], "best_epoch": 1, "epochs": 1}


def search(out, trials, **options):
    return runner.run_search(train=fake_train, sample=fake_sample, task="t",
                             model="m", trials=trials, seed=3, out=out,
                             progress=False, options=options)


def test_interrupted_search_resumes_without_losing_or_duplicating(tmp_path):
    whole = search(tmp_path / "whole.jsonl", 6)
    out = tmp_path / "resumed.jsonl"
    with pytest.raises(KeyboardInterrupt):
        search(out, 6, stop_at=4)
    assert [r["trial"] for r in runner.read_trials(out)] == [0, 1, 2, 3]
    # A kill in the middle of writing leaves half a line: it is dropped.
    with open(out, "ab") as handle:
        handle.write(b'{"trial": 4, "accur')
    resumed = search(out, 6)
    assert [r["trial"] for r in resumed] == list(range(6))
    assert [r["config"] for r in resumed] == [r["config"] for r in whole]
    lines = out.read_text().splitlines()
    assert len(lines) == 6 and all(json.loads(line) for line in lines)
    assert search(out, 6) == resumed  # nothing left to do


def test_same_seed_same_configurations_and_refuses_to_mix(tmp_path):
    a = search(tmp_path / "a.jsonl", 3)
    b = search(tmp_path / "b.jsonl", 3)
    assert [r["config"] for r in a] == [r["config"] for r in b]
    with pytest.raises(ValueError, match="refusing to append"):
        runner.run_search(train=fake_train, sample=fake_sample, task="t", model="m",
                          trials=4, seed=4, out=tmp_path / "a.jsonl", progress=False)


def test_search_spaces():
    import numpy as np

    from evp.search.sst5 import sample_config

    configs = [sample_config("cnn", runner.trial_rng(0, i)) for i in range(200)]
    assert {c["max_filter_size"] for c in configs} == set(range(1, 10))
    assert min(c["num_filters"] for c in configs) >= 64
    assert max(c["num_filters"] for c in configs) <= 512
    rates = np.log10([c["learning_rate"] for c in configs])
    assert rates.min() >= -6 and rates.max() <= -1 and rates.std() > 1
    lr = [sample_config("lr", runner.trial_rng(0, i)) for i in range(200)]
    assert all(0 < c["C"] <= 1 for c in lr)
    assert {tuple(c["ngram_range"]) for c in lr} == {(1, 2), (1, 3), (2, 3)}
    assert {c["weighting"] for c in lr} == {"tf", "tf-idf", "binary"}


def mirror():
    folder = os.environ.get("EVP_DATA_DIR") or ROOT.parent / "shared" / "data"
    if not (Path(folder) / "sst5" / "train.txt").exists():
        pytest.skip("no SST-5 mirror: set EVP_DATA_DIR")
    return str(folder)


@pytest.mark.parametrize("model", ["lr", "lboe", "cnn"])
def test_real_two_trial_search_on_a_subset(model, tmp_path):
    pytest.importorskip("torch")
    pytest.importorskip("sklearn")
    out = tmp_path / f"{model}.jsonl"
    command = [sys.executable, "-m", "evp.cli", "search", "sst5", "--model", model,
               "--trials", "2", "--seed", "1", "--out", str(out), "--subset", "200",
               "--max-epochs", "1"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "EVP_DATA_DIR": mirror()})
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["trial"] for r in records] == [0, 1]
    for record in records:
        assert 0 <= record["accuracy"] <= 1 and record["seconds"] > 0
        assert record["model"] == model and record["seed"] == 1
        assert "versions" in record and "numpy" in record["versions"]
        if model != "lr":
            assert record["epochs"] == 1 and record["best_epoch"] == 1
    # Rerunning the same command resumes: nothing is duplicated.
    again = subprocess.run(command, capture_output=True, text=True, timeout=300,
                           env={**os.environ, "EVP_DATA_DIR": mirror()})
    assert again.returncode == 0
    assert len(out.read_text().splitlines()) == 2
