"""Strong verdicts on HPOBench's grids, construction by construction: the band
over every budget, the top band (a band over every budget, exact over the
better half of the order statistics only), exact intervals at the budgets
named, and "auto", the sharpest of them per model, which is what
compare_all, best_set and the report do when budgets are named.

* **Truths.** HPOBench's tabular grids (8 OpenML datasets, 30,000
  configurations × 5 seeds each; see verdict_power_real_calibration.py): a
  round is a configuration and seed drawn at random. Models are cut from a grid
  by one hyperparameter's values: M = 3, 5 or 10 of its levels, spread over its
  range (hyperparameters with fewer levels are skipped for that M). A model's
  truth is every score of its configurations, so its median curve is exact.
* **Cells.** N = 20, 50, 100 or 200 rounds of each model; budgets named: five
  a user reads (1, 2, 5, 10, 20, those up to N) or every budget from 1 to 20;
  80% confidence, WORLDS worlds per cell, seeded; 832 cells.
* **Read** (evp.multiple.simulate_many): the family-wise error of the strong
  verdicts, the best set's coverage, and the share of truly ordered
  pair-budgets with a strong verdict, overall and per budget.

Measured (2,000 worlds a cell; benchmarks/verdict_construction_power.csv), the
share of truly ordered pair-budgets with a strong verdict, band → auto:

* five budgets named (auto mostly takes the intervals): M = 3: 0.054 → 0.069
  (N = 20), 0.280 → 0.296 (N = 100), 0.412 → 0.447 (N = 200); M = 5, N = 100:
  0.225 → 0.246; M = 10: 0.127 → 0.173 (N = 100), 0.211 → 0.271 (N = 200);
  equal where the band is as sharp (M = 5 and 10, N = 20);
* every budget 1–20 named (auto takes the top band, the intervals being the
  widest there): M = 3: 0.207 → 0.233 (N = 100), M = 5, N = 100: 0.150 → 0.167,
  M = 10: 0.087 → 0.097 (N = 100), 0.207 → 0.236 (N = 200).

Verdicts reach past the budget where every band opens: with five budgets, at
M = 10, N = 100, n = 10 from 0 to 0.176, at M = 10, N = 200, n = 20 from 0 to
0.233; with every budget, at M = 10, N = 100, n = 10 from 0 to 0.169 and at
N = 200, n = 20 from 0 to 0.220. The worst family-wise error of the strong
verdicts in any cell is 0.003 (0.2 allowed) and the best set drops a truly
best model in at most 0.3% of worlds, with every construction.

Resumable: one JSON line per cell in the output file (default
verdict_construction_power.jsonl in the working directory). Run nice, on one
core (about a minute at 500 worlds):

    nice -n 10 python benchmarks/verdict_construction_power.py [worlds] [out]

then ``python benchmarks/verdict_construction_power.py --table [out]``, which
writes the summary benchmarks/verdict_construction_power.csv.
"""

from __future__ import annotations

import itertools
import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from resumable import finished
from verdict_power_real_calibration import DATASETS, HYPERPARAMETERS, grid

from evp.multiple import simulate_many

MODELS = (3, 5, 10)
ROUNDS = (20, 50, 100, 200)
#: The budgets named: five a user reads, or every budget up to 20 (a curve's
#: worth, where a band pays less than intervals at each).
BUDGET_SETS = {"five": np.array([1, 2, 5, 10, 20]), "every": np.arange(1, 21)}
CONSTRUCTIONS = ("band", "top_band", "budgets", "auto")
CONFIDENCE = 0.8
SUMMARY = Path(__file__).with_name("verdict_construction_power.csv")


def truths(scores, levels, column: int, count: int, models: int):
    """Each model's every score: the configurations at one of `models` levels of
    the hyperparameter in `column`, spread over its `count` levels."""
    chosen = np.unique(np.round(np.linspace(0, count - 1, models)).astype(int))
    return [scores[levels[:, column] == level].ravel() for level in chosen]


def run(worlds: int = 200, out: str = "verdict_construction_power.jsonl"):
    out = Path(out)
    done = finished(out)
    for d, dataset in enumerate(DATASETS):
        scores, levels = grid(dataset)
        for column, (name, count) in enumerate(HYPERPARAMETERS.items()):
            for models in MODELS:
                if count < models:
                    continue
                laws = truths(scores, levels, column, count, models)
                for rounds, (named, budgets) in itertools.product(
                        ROUNDS, BUDGET_SETS.items()):
                    key = f"{dataset}/{name}/{models}/{rounds}/{named}"
                    if key in done:
                        continue
                    ns = budgets[rounds >= budgets]
                    started = time.perf_counter()
                    row = {"key": key, "dataset": dataset, "hyperparameter": name,
                           "models": models, "rounds": rounds, "named": named,
                           "ns": ns.tolist(), "worlds": worlds}
                    for construction in CONSTRUCTIONS:
                        with warnings.catch_warnings():
                            warnings.simplefilter("ignore")
                            found = simulate_many(
                                laws, rounds, ns, CONFIDENCE, worlds=worlds,
                                construction=construction,
                                rng=[d, column, models, rounds])
                        row[construction] = {
                            k: (v.tolist() if isinstance(v, np.ndarray) else v)
                            for k, v in found.items()}
                    row["seconds"] = time.perf_counter() - started
                    with out.open("a") as file:
                        file.write(json.dumps(row) + "\n")


def table(out: str = "verdict_construction_power.jsonl"):
    """Per M and N: the mean share of ordered pair-budgets with a strong verdict,
    band and auto, overall and per budget; the worst family-wise error and best-set
    miss of each; written to SUMMARY."""
    import pandas as pd

    rows = []
    for line in Path(out).read_text().splitlines():
        cell = json.loads(line)
        for construction in CONSTRUCTIONS:
            found = cell[construction]
            row = {"budgets named": cell["named"], "models": cell["models"],
                   "rounds": cell["rounds"], "construction": construction,
                   "power": found["strong_right"],
                   "wrong strong": found["wrong_strong"],
                   "best set missed": 1 - found["covered"]}
            for n, p in zip(cell["ns"], found["strong_right_by_budget"],
                            strict=True):
                row[f"power n={n}"] = p
            rows.append(row)
    frame = pd.DataFrame(rows)
    power = sorted((c for c in frame if c.startswith("power")),
                   key=lambda c: int(c.removeprefix("power n=") or 0)
                   if c != "power" else -1)
    keys = ["budgets named", "models", "rounds", "construction"]
    summary = frame.groupby(keys).agg(
        {**{c: "mean" for c in power}, "wrong strong": "max",
         "best set missed": "max"}).round(3)
    summary["cells"] = frame.groupby(keys).size()
    summary.to_csv(SUMMARY)
    print(summary.to_string())


if __name__ == "__main__":
    if sys.argv[1:2] == ["--table"]:
        table(*sys.argv[2:3])
    else:
        run(int(sys.argv[1]) if len(sys.argv) > 1 else 200, *sys.argv[2:3])
