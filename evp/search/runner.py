"""A resumable random-search runner that writes one JSON line per finished trial.

Trial i's hyperparameters come from ``numpy.random.default_rng([seed, i])``, so the
same seed gives the same configurations whether a search runs in one go, in
parallel, on a Ray cluster, or is resumed after an interruption. Each finished
trial is appended as one line, flushed and fsynced, in trial order; a line cut short
by a kill is dropped on resume, so an interrupted search loses at most the trials
that were running.

Two backends run the trials:

``"local"``
    This machine: one trial at a time, or `jobs` worker processes.
``"ray"``
    Ray tasks (one CPU each; one GPU each when trials train on ``cuda``): on a Ray
    instance started on this machine, or on the cluster at `address`. At most
    `jobs` trials (default: the cluster's CPUs) are started ahead of the oldest
    unwritten one, so a kill of the driver loses at most those. Every node needs
    evp (with what the trials import) installed, and the data they read (e.g.
    ``EVP_DATA_DIR`` set where ``ray start`` ran).
"""

from __future__ import annotations

import collections
import contextlib
import json
import os
import platform
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from evp._optional import import_optional_dependency
from evp._validation import ParameterError
from evp._workspace import progress as progress_bar


def trial_rng(seed: int, trial: int) -> np.random.Generator:
    """The generator behind trial `trial` of a search seeded with `seed`."""
    return np.random.default_rng([seed, trial])


def read_trials(path: Path) -> list[dict]:
    """Complete trials already in `path`; a trailing partial line is cut off."""
    if not path.exists():
        return []
    raw = path.read_bytes()
    trials, keep = [], 0
    for line in raw.splitlines(keepends=True):
        if not line.endswith(b"\n"):
            break  # the process died while writing this line
        try:
            trials.append(json.loads(line))
        except json.JSONDecodeError:
            break
        keep += len(line)
    if keep < len(raw):
        with open(path, "r+b") as handle:
            handle.truncate(keep)
    return trials


def _append(path: Path, record: dict) -> None:
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(json.dumps(record, sort_keys=True) + "\n")
        handle.flush()
        os.fsync(handle.fileno())


def library_versions() -> dict:
    versions = {"python": platform.python_version(), "numpy": np.__version__}
    for name in ("torch", "sklearn"):
        with contextlib.suppress(ImportError):
            versions[name] = __import__(name).__version__
    return versions


BACKENDS = ("local", "ray")


def _ray_results(todo: list, *, jobs: int | None, address: str | None,
                 gpus: bool):
    """Results of `todo`'s jobs in order, each run as a Ray task; at most `jobs`
    tasks started ahead of the oldest result not yet yielded."""
    ray = import_optional_dependency("ray", purpose="backend='ray'")
    started = not ray.is_initialized()
    if started:
        options = {"include_dashboard": False, "log_to_driver": False,
                   "configure_logging": False}
        try:
            ray.init(address=address, num_cpus=None if address else jobs, **options)
        except ValueError as error:
            # No address, but RAY_ADDRESS or an earlier `ray start` names a
            # cluster: Ray joins it and refuses a CPU count; `jobs` still caps the
            # tasks in flight (the window below).
            if "existing cluster" not in str(error):
                raise
            ray.init(address=address, **options)
    pending: collections.deque = collections.deque()
    try:
        window = jobs or max(1, int(ray.cluster_resources().get("CPU", 1)))
        task = ray.remote(num_cpus=1, num_gpus=1 if gpus else 0,
                          max_retries=0)(_run_one)
        jobs_left = iter(todo)
        for job in jobs_left:
            pending.append(task.remote(job))
            if len(pending) >= window:
                break
        while pending:
            result = ray.get(pending.popleft())
            for job in jobs_left:
                pending.append(task.remote(job))
                break
            yield result
    finally:
        for ref in pending:
            with contextlib.suppress(Exception):
                ray.cancel(ref, force=True)
        if started:
            ray.shutdown()


def _run_one(job):
    train, task, model, config, trial, seed, options = job
    start = time.perf_counter()
    result = train(task, model, config, seed=seed, trial=trial, **options)
    return {"seconds": time.perf_counter() - start, **result}


def run_search(
    *,
    train: Callable,
    sample: Callable[[str, np.random.Generator], dict],
    task: str,
    model: str,
    trials: int,
    seed: int,
    out,
    jobs: int | None = None,
    progress: bool = True,
    options: dict | None = None,
    regime: dict | None = None,
    backend: str = "local",
    address: str | None = None,
) -> list[dict]:
    """Run trials ``0..trials-1`` not yet in `out`, appending each as it finishes.

    `sample(model, rng)` draws a configuration; `train(task, model, config, seed=,
    trial=, **options)` returns a dict with at least ``accuracy``. Records carry the
    trial index, the configuration, the result, training seconds, library versions
    and `regime` (how trials are trained: epochs, patience, embeddings, device…).
    A file whose trials were trained under another regime is not appended to.
    `backend` is ``"local"`` (`jobs` processes here, default 1) or ``"ray"`` (Ray
    tasks, on this machine or on the cluster at `address`; at most `jobs` at once,
    default the cluster's CPUs); the same seed gives the same trials on either.
    Returns all trials in the file.
    """
    if jobs is not None and jobs < 1:
        raise ValueError(f"jobs must be at least 1, got {jobs}")
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, got "
                         f"{backend!r}")
    if address is not None and backend != "ray":
        raise ParameterError("address", "address names a Ray cluster: add "
                             "backend='ray', or leave address out")
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    done = read_trials(out)
    for record in done:
        if (record.get("task"), record.get("model"), record.get("seed")) != (
                task, model, seed):
            raise ValueError(
                f"{out} holds trials of task={record.get('task')!r}, "
                f"model={record.get('model')!r}, seed={record.get('seed')!r}; "
                f"refusing to append {task=}, {model=}, {seed=}: use another --out")
        if record.get("regime") != regime:
            raise ValueError(
                f"{out} holds trials trained with regime {record.get('regime')}; "
                f"refusing to append trials trained with {regime}: use another --out")
    indices = [r["trial"] for r in done]
    if indices != list(range(len(done))):
        raise ValueError(f"{out} has trials out of order: {indices[:10]}...")
    todo = [(train, task, model, sample(model, trial_rng(seed, i)), i, seed,
             options or {}) for i in range(len(done), trials)]
    versions = library_versions()
    if backend == "ray":
        with contextlib.suppress(ImportError):
            versions["ray"] = __import__("ray").__version__
    best = max((r["accuracy"] for r in done), default=float("nan"))
    bar = progress_bar(total=trials, initial=len(done), disable=not progress,
                       desc=f"{task} {model}", unit="trial")
    bar.set_postfix(best=f"{best:.4f}")
    executor = None
    if backend == "ray":
        gpus = str((regime or {}).get("device", "")).startswith("cuda")
        results = _ray_results(todo, jobs=jobs, address=address, gpus=gpus)
    elif jobs and jobs > 1:
        executor = ProcessPoolExecutor(jobs)
        results = executor.map(_run_one, todo)
    else:
        results = map(_run_one, todo)
    try:
        for job, result in zip(todo, results, strict=True):
            record = {"task": task, "model": model, "seed": seed, "trial": job[4],
                      "config": job[3], **result, "versions": versions}
            if regime is not None:
                record["regime"] = regime
            _append(out, record)
            done.append(record)
            best = np.nanmax([best, record["accuracy"]])
            bar.update(1)
            bar.set_postfix(best=f"{best:.4f}")
    finally:
        if executor:
            executor.shutdown(cancel_futures=True)
        if hasattr(results, "close"):
            results.close()  # Ray: cancels the trials still running
        bar.close()
    return done
