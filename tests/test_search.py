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


@pytest.mark.needs("torch", "sklearn")
@pytest.mark.parametrize("model", ["lr", "lboe", "cnn"])
def test_real_two_trial_search_on_a_subset(model, tmp_path):
    out = tmp_path / f"{model}.jsonl"
    command = [sys.executable, "-m", "evp.cli", "search", "sst5", "--model", model,
               "--trials", "2", "--seed", "1", "--out", str(out), "--subset", "200"]
    if model != "lr":  # logistic regression has no epochs
        command += ["--max-epochs", "1"]
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
    if model == "lr":
        assert records[0]["regime"] == {"subset": 200}
        refused = subprocess.run([*command, "--max-epochs", "3"], capture_output=True,
                                 text=True, timeout=300)
        assert refused.returncode == 2
        assert "logistic regression has no epochs" in refused.stderr


def test_a_search_records_its_regime_and_refuses_another(tmp_path):
    out = tmp_path / "r.jsonl"
    runner.run_search(train=fake_train, sample=fake_sample, task="t", model="m",
                      trials=2, seed=3, out=out, progress=False,
                      regime={"max_epochs": 50, "patience": 10})
    assert [r["regime"] for r in runner.read_trials(out)] == [
        {"max_epochs": 50, "patience": 10}] * 2
    with pytest.raises(ValueError, match="trained with regime"):
        runner.run_search(train=fake_train, sample=fake_sample, task="t", model="m",
                          trials=3, seed=3, out=out, progress=False,
                          regime={"max_epochs": 5, "patience": 3})


def write_glove(path, words, dim=8):
    rng = __import__("numpy").random.default_rng(0)
    vectors = {w: rng.normal(size=dim).round(4) for w in words}
    lines = (f"{w} {' '.join(map(str, v))}\n" for w, v in vectors.items())
    path.write_text("".join(lines))
    return vectors


@pytest.mark.needs("torch")
def test_embeddings_from_a_glove_file(tmp_path, monkeypatch):
    import numpy as np

    monkeypatch.setenv("EVP_DATA_DIR", mirror())
    from evp.search import sst5

    vocab, _, _ = sst5._encoded(200)
    known = [w for w in vocab if w not in ("<pad>", "<unk>")][:50]
    path = tmp_path / "tiny-glove.txt"
    vectors = write_glove(path, [*known, "zzz-not-in-sst"])
    found, count = sst5.load_embeddings(str(path), 200)
    assert count == 50 and found.shape == (len(vocab), 8)
    for word in known[:5]:
        np.testing.assert_allclose(found[vocab[word]], vectors[word], rtol=1e-6)
    assert np.isnan(found[vocab["<unk>"]]).all()
    regime = sst5.regime("lboe", embeddings=path, subset=200, device="cpu")
    assert regime["embeddings"]["file"] == "tiny-glove.txt"
    assert regime["embeddings"]["dim"] == 8
    assert regime["embeddings"]["vocabulary_found"] == round(50 / (len(vocab) - 2), 4)
    assert str(tmp_path) not in json.dumps(regime)  # no machine path
    bad = tmp_path / "bad.txt"
    bad.write_text(f"{known[0]} 1 2 3\n{known[1]} 1 2\n")
    with pytest.raises(ValueError, match=r"line 2 of .* has 2 values, line 1 has 3"):
        sst5.load_embeddings(str(bad), 200)


@pytest.mark.needs("torch")
def test_search_with_the_papers_regime_and_embeddings_records_both(tmp_path):
    from evp.search import sst5

    env = {**os.environ, "EVP_DATA_DIR": mirror()}
    glove = tmp_path / "glove.txt"
    words = subprocess.run(
        [sys.executable, "-c", "from evp.search import sst5; "
         "print(' '.join(list(sst5._encoded(200)[0])[2:40]))"],
        capture_output=True, text=True, env=env, check=True).stdout.split()
    write_glove(glove, words, dim=6)
    out = tmp_path / "lboe.jsonl"
    command = [sys.executable, "-m", "evp.cli", "search", "sst5", "--model", "lboe",
               "--trials", "1", "--seed", "1", "--out", str(out), "--subset", "200",
               "--max-epochs", "2", "--patience", "10", "--embeddings", str(glove),
               "--device", "cpu"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr
    (record,) = [json.loads(line) for line in out.read_text().splitlines()]
    assert record["regime"]["max_epochs"] == 2 and record["regime"]["patience"] == 10
    assert record["regime"]["device"] == "cpu"
    assert record["regime"]["embeddings"]["file"] == "glove.txt"
    assert record["regime"]["embeddings"]["dim"] == 6
    assert record["epochs"] == 2
    # The same command with another regime is refused, in one line.
    again = subprocess.run([*command[:-6], "--device", "cpu"], capture_output=True,
                           text=True, timeout=300, env=env)
    assert again.returncode == 2 and "trained with regime" in again.stderr
    assert sst5.PAPERS_REGIME == {"max_epochs": 50, "patience": 10}


@pytest.mark.needs("torch")
def test_training_is_deterministic_with_batches_padded_once(monkeypatch):
    monkeypatch.setenv("EVP_DATA_DIR", mirror())
    from evp.search import sst5

    config = {"embedding_dim": 16, "dropout": 0.1, "learning_rate": 0.01,
              "batch_size": 32, "max_filter_size": 3, "num_filters": 8}
    runs = [sst5.train_neural("cnn", config, subset=300, seed=5, max_epochs=2)
            for _ in range(2)]
    assert runs[0] == runs[1]
    assert runs[0]["epochs"] == 2 and 0 <= runs[0]["accuracy"] <= 1
