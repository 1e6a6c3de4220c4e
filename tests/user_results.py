"""Made-up result files of the kinds users bring, for running the notebooks on.

Each is an ordinary search log that is awkward in its own way:

* ``few-rounds-ties.csv``: two models, one with only 15 rounds; accuracies rounded
  to two decimals, so most scores tie; a cost column and a hyperparameter column.
* ``five-models-percent.csv``: five models with 40 to 120 rounds each, scored in
  percent on a 55–90 scale.
* ``losses.jsonl``: three models scored by a validation loss to minimise (lower is
  better, unbounded above), JSON Lines with nested configurations.

for the repeated runs of adaptive tuners, one row per trial of each run:

* ``runs-two-tuners.csv``: two tuners, 8 seeds each, 30 trials per run, the adaptive
  one drifting up; a ``seed`` and a ``trial`` column;
* ``runs-losses.jsonl``: one tuner's validation loss (lower is better), 6 runs of
  unequal length (20 to 25 trials), in file order (no order column);

and for the paired tests, per-fold scores of systems on the same folds:

* ``folds-ties.csv``: two systems, 10 folds, scores on a coarse grid (many zero
  differences);
* ``folds-five-percent.csv``: five systems, 30 folds, in percent;
* ``folds-losses.csv``: three systems, 12 folds, a loss.

Every number comes from a seeded generator: the same files every time.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd


def _search(rng, name, rounds, center, spread, failure_rate=0.1, failed=0.2):
    good = center - spread * rng.gamma(2.0, 1.0, size=rounds)
    scores = np.where(rng.random(rounds) < failure_rate, failed, good)
    return pd.DataFrame({
        "model": name,
        "trial": np.arange(rounds),
        "lr": 10 ** rng.uniform(-5, -2, size=rounds),
        "seconds": rng.gamma(4.0, 30.0, size=rounds).round(1),
        "score": scores,
    })


def write_search_results(folder) -> dict:
    """Write the three search-result files; return {name: (path, evp run options)}."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(2024)
    files = {}

    frame = pd.concat([_search(rng, "small", 15, 0.82, 0.02),
                       _search(rng, "big", 60, 0.84, 0.02)], ignore_index=True)
    frame["score"] = frame["score"].clip(0, 1).round(2)
    path = folder / "few-rounds-ties.csv"
    frame.rename(columns={"score": "acc", "model": "arm"}).to_csv(path, index=False)
    files["few-rounds-ties"] = (path, ["--score", "acc", "--group", "arm",
                                       "--cost", "seconds"])

    sizes = [40, 60, 80, 100, 120]
    names = ["svm", "forest", "boosting", "mlp", "knn"]
    pairs = enumerate(zip(names, sizes, strict=True))
    frame = pd.concat([_search(rng, name, size, 88 - 3 * i, 2.0, failed=55.0)
                       for i, (name, size) in pairs], ignore_index=True)
    frame["score"] = frame["score"].clip(55, 90)
    path = folder / "five-models-percent.csv"
    frame.rename(columns={"score": "f1_pct", "model": "system"}).to_csv(
        path, index=False)
    files["five-models-percent"] = (path, ["--score", "f1_pct", "--group", "system"])

    lines = []
    for name, size, best in (("adam", 50, 0.35), ("sgd", 70, 0.42), ("lion", 40, 0.33)):
        loss = best + 0.08 * rng.gamma(1.5, 1.0, size=size)
        loss[rng.random(size) < 0.1] = rng.uniform(2.0, 9.0)  # diverged runs
        for i, value in enumerate(loss):
            lines.append({"optimizer": name, "val_loss": float(value),
                          "train_time": float(rng.gamma(3.0, 50.0)),
                          "config": {"lr": float(10 ** rng.uniform(-4, -2)),
                                     "warmup": int(rng.integers(0, 1000))},
                          "trial": i})
    path = folder / "losses.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    files["losses"] = (path, ["--score", "val_loss", "--group", "optimizer",
                              "--minimize", "--cost", "train_time"])
    return files


def write_run_results(folder) -> dict:
    """Write the two files of repeated runs; return {name: (path, options)}."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(11)
    files = {}
    rows = []
    for tuner, drift in (("tpe", 0.004), ("random", 0.0)):
        for seed in range(8):
            scores = rng.normal(0.7, 0.04, 30) + drift * np.arange(30)
            rows += [{"tuner": tuner, "seed": seed, "trial": t, "acc": round(v, 4)}
                     for t, v in enumerate(scores)]
    path = folder / "runs-two-tuners.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    files["runs-two-tuners"] = (path, ["--score", "acc", "--group", "tuner",
                                       "--runs", "seed"])
    lines = []
    for seed in range(6):
        size = 20 + seed
        for value in 0.5 * np.exp(-np.arange(size) / 15) + rng.gamma(2, 0.05, size):
            lines.append({"run": f"seed-{seed}", "val_loss": float(value)})
    path = folder / "runs-losses.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    files["runs-losses"] = (path, ["--score", "val_loss", "--runs", "run",
                                   "--minimize"])
    return files


def write_fold_results(folder) -> dict:
    """Write the three paired per-fold files; return {name: (path, options)}."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(7)
    files = {}

    folds = np.arange(1, 11)
    a = rng.choice([0.6, 0.7, 0.8], size=10)
    b = np.where(rng.random(10) < 0.5, a, a - 0.1)
    frame = pd.DataFrame({"fold": np.r_[folds, folds],
                          "system": ["A"] * 10 + ["B"] * 10,
                          "accuracy": np.r_[a, b].round(1)})
    path = folder / "folds-ties.csv"
    frame.to_csv(path, index=False)
    files["folds-ties"] = (path, ["--score", "accuracy", "--group", "system",
                                  "-p", "pair_column=fold"])

    base = rng.uniform(60, 85, size=30)
    rows = [pd.DataFrame({"fold": np.arange(30), "system": name,
                          "f1_pct": (base + shift + rng.normal(0, 2, 30)).clip(55, 90)})
            for name, shift in zip(["svm", "forest", "boosting", "mlp", "knn"],
                                   [2, 1, 0, -1, -2], strict=True)]
    path = folder / "folds-five-percent.csv"
    pd.concat(rows, ignore_index=True).to_csv(path, index=False)
    files["folds-five-percent"] = (path, ["--score", "f1_pct", "--group", "system",
                                          "-p", "pair_column=fold"])

    base = rng.uniform(0.3, 0.6, size=12)
    rows = [pd.DataFrame({"split": np.arange(12), "optimizer": name,
                          "val_loss": base + shift + rng.normal(0, 0.02, 12)})
            for name, shift in zip(["adam", "sgd", "lion"], [0.0, 0.05, -0.01],
                                   strict=True)]
    path = folder / "folds-losses.csv"
    pd.concat(rows, ignore_index=True).to_csv(path, index=False)
    files["folds-losses"] = (path, ["--score", "val_loss", "--group", "optimizer",
                                    "--minimize", "-p", "pair_column=split"])
    return files
