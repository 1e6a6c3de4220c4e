"""Ray: `evp search --backend ray` keeps the local backend's guarantees, and a
real Ray Tune experiment reads back through read_results.

One local Ray instance (two CPUs) serves every test here that needs a running Ray:
starting one costs seconds. Searches run in separate driver processes that
connect to it by address, as they would to a cluster.
"""

import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

from evp.cli import main

DRIVER = textwrap.dedent("""
    import os, sys, time
    from evp.search import runner

    def sample(model, rng):
        return {"x": float(rng.random()), "k": int(rng.integers(100))}

    def train(task, model, config, *, seed, trial, pause, token, log):
        with open(log, "a") as handle:  # which trials this driver started
            handle.write(f"{token} {trial}\\n")
        time.sleep(pause if trial % 2 == 0 else pause / 4)  # even trials are slow
        return {"accuracy": config["x"], "token": token}

    out, trials, address, pause, token, log = sys.argv[1:]
    runner.run_search(train=train, sample=sample, task="t", model="m",
                      trials=int(trials), seed=3, out=out, progress=False,
                      options={"pause": float(pause), "token": token, "log": log},
                      backend="ray", address=address, jobs=2)
""")


def expected_configs(trials):
    """Trial i's configuration: drawn from numpy.random.default_rng([seed, i])."""
    configs = []
    for i in range(trials):
        rng = np.random.default_rng([3, i])
        configs.append({"x": float(rng.random()), "k": int(rng.integers(100))})
    return configs


@pytest.fixture(scope="module")
def address():
    pytest.importorskip("ray", reason="needs ray: pip install -e '.[ray]'")
    import ray

    # A Ray instance of its own: never a cluster some earlier `ray start` left.
    os.environ.pop("RAY_ADDRESS", None)
    ray.init(address="local", num_cpus=2, include_dashboard=False,
             log_to_driver=False, configure_logging=False)
    try:
        yield ray.get_runtime_context().gcs_address
    finally:
        ray.shutdown()


def driver(tmp_path, out, trials, address, pause, token):
    script = tmp_path / "driver.py"
    script.write_text(DRIVER)
    command = [sys.executable, str(script), str(out), str(trials), address,
               str(pause), token, str(tmp_path / "started.log")]
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)


def lines(out):
    return [json.loads(line) for line in out.read_text().splitlines()] if (
        out.exists()) else []


@pytest.mark.needs("ray")
def test_a_ray_search_killed_and_resumed_loses_only_running_trials(tmp_path,
                                                                    address):
    out = tmp_path / "trials.jsonl"
    first = driver(tmp_path, out, 8, address, 0.3, "first")
    deadline = time.monotonic() + 120
    while len(lines(out)) < 2:
        assert first.poll() is None, first.communicate()[1]
        assert time.monotonic() < deadline, "no trials written in 120 s"
        time.sleep(0.05)
    seen = len(lines(out))
    os.killpg(first.pid, signal.SIGKILL)  # the driver and nothing it spawned
    first.wait(timeout=30)
    killed = lines(out)
    assert seen <= len(killed) < 8
    assert [r["trial"] for r in killed] == list(range(len(killed)))
    started = [line.split() for line in (tmp_path / "started.log").read_text()
               .splitlines()]
    running = {int(t) for token, t in started if token == "first"} - {
        r["trial"] for r in killed}
    assert len(running) <= 2  # jobs=2: only the running trials are lost
    second = driver(tmp_path, out, 8, address, 0.0, "second")
    _, err = second.communicate(timeout=120)
    assert second.returncode == 0, err
    records = lines(out)
    assert [r["trial"] for r in records] == list(range(8))  # each once, in order
    assert records[: len(killed)] == killed  # nothing written was rerun
    assert {r["token"] for r in records[len(killed):]} == {"second"}
    assert [r["config"] for r in records] == expected_configs(8)
    # The local backend draws the same configurations.
    from evp.search import runner

    local = runner.run_search(
        train=lambda task, model, config, **_: {"accuracy": config["x"]},
        sample=lambda model, rng: {"x": float(rng.random()),
                                   "k": int(rng.integers(100))},
        task="t", model="m", trials=8, seed=3, out=tmp_path / "local.jsonl",
        progress=False)
    assert [r["config"] for r in local] == [r["config"] for r in records]
    assert all(r["accuracy"] == r["config"]["x"] for r in records)
    assert all("ray" in r["versions"] for r in records)
    for line in out.read_bytes().splitlines(keepends=True):
        assert line.endswith(b"\n")


@pytest.mark.needs("ray")
def test_a_real_ray_tune_experiment_reads_back(tmp_path, address):
    """A tiny experiment run by Ray Tune itself, read back by read_results."""
    from ray import tune

    from evp.datasets import read_results

    def trainable(config):
        for step in (1, 2, 3):
            # Peaks at step 2, so the best and the last report differ.
            tune.report({"acc": config["x"] * (1 - abs(step - 2) / 4), "step": step})

    tuner = tune.Tuner(
        trainable, param_space={"x": tune.grid_search([0.2, 0.6, 0.4])},
        tune_config=tune.TuneConfig(reuse_actors=True),
        run_config=tune.RunConfig(storage_path=str(tmp_path), name="tiny",
                                  verbose=0))
    grid = tuner.fit()
    assert not grid.errors
    best = read_results(tmp_path / "tiny", metric="acc", mode="max").frame
    assert best["config/x"].tolist() == [0.2, 0.6, 0.4]  # grid order = trial order
    np.testing.assert_allclose(best["acc"], [0.2, 0.6, 0.4])
    assert best["step"].tolist() == [2, 2, 2]
    last = read_results(tmp_path / "tiny", metric="acc", mode="max",
                        per_trial="last").frame
    np.testing.assert_allclose(last["acc"], [0.15, 0.45, 0.3])
    assert last["training_iteration"].tolist() == [3, 3, 3]
    assert (best["time_total_s"] >= 0).all()


def test_search_options_are_checked(tmp_path, capsys):
    out = str(tmp_path / "t.jsonl")
    assert main(["search", "sst5", "--model", "lr", "--out", out,
                 "--address", "auto"]) == 2
    assert capsys.readouterr().err.strip() == (
        "evp search: --address names a Ray cluster: add --backend ray, or leave "
        "--address out")
    from evp.search import runner

    with pytest.raises(ValueError, match=r"^backend must be one of local, ray"):
        runner.run_search(train=None, sample=None, task="t", model="m", trials=1,
                          seed=0, out=out, backend="dask")
    with pytest.raises(SystemExit):
        main(["search", "sst5", "--model", "lr", "--out", out, "--backend", "dask"])
    assert "--backend" in capsys.readouterr().err
