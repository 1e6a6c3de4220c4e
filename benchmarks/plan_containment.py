"""Does a plan's range hold the chance it plans for, at every budget? Measured on
HPOBench's grids, n = 1 to 5.

evp.verdict_power gives, from the rounds observed so far, a range
[strong_low, strong_high] for the chance that `more` further rounds of each
model give a strong verdict either way at budget n. The range is calibrated on
HPOBench's grids (plan_range_frontier.py: the low end reads both models' CDF
bands at 20%, the high end is the 80% quantile of the exact chance over the
posterior of the two distributions) to hold the realised chance in at least 80%
of the cases at every budget, n = 1 included. This benchmark checks the range
evp.verdict_power gives on draws of its own (seeded apart from the calibration's).

* **Truths and pairs.** HPOBench's eight tabular grids and the pairs of
  verdict_power_real_calibration.py: one hyperparameter's lower half of values
  against its upper half, its first value against its last, and two adjacent
  middle values.
* **Cases.** 12, 24 or 48 rounds of each model drawn from the grid (DRAWS
  draws), 20 more of each planned for, budgets n = 1 to 5.
* **Realised.** The exact chance of a strong verdict given those rounds and the
  grid's laws (evp.planning._strong_chance).
* **Read.** The share of cases whose realised chance lies in the range, and the
  range's mean width, per budget, for near-equal pairs (Kolmogorov distance
  below 0.1) and separated ones.

Measured (2 draws, 720 cases, 3,600 ranges; benchmarks/plan_containment.csv):
the range held the realised chance in 0.951–0.956 of near-equal cases (204 a
budget) and 0.907–0.930 of separated ones (516) at every budget from 1 to 5,
0.356 wide on average (0.29 to 0.39 by bin); it bounds the chance from below
(low end above 0.02) in 13–17% of near-equal cases and 44–51% of separated ones.
The range before it (the bands' extremes at the verdict's 80%, exact whenever
both bands hold) held 99.9–100% of 7,200 cases, but bounded the chance from
below in only 4–7% and 31–34% of them: nearly always "between 0 and 1".

Resumable (one JSON line per case). Run nice, on one core:

    nice -n 10 python benchmarks/plan_containment.py [draws] [out]

then ``python benchmarks/plan_containment.py --table [out]``, which writes the
summary benchmarks/plan_containment.csv.
"""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path

import numpy as np
from resumable import finished
from verdict_power_real_calibration import observed_cases

import evp
from evp.planning import _strong_chance

MORE = 20
BUDGETS = (1, 2, 3, 4, 5)
CONFIDENCE = 0.8
METHOD = "ld_highest_density"
SUMMARY = Path(__file__).with_name("plan_containment.csv")


def run(draws: int = 2, out: str = "plan_containment.jsonl"):
    out = Path(out)
    with open(out, "a") as file:
        for one in observed_cases(draws, finished(out), salt=(7,)):
            x_a, x_b, laws = one["x_a"], one["x_b"], one["laws"]
            rows = []
            for n in BUDGETS if one["usable"] else ():
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    plan = evp.verdict_power(x_a, x_b, n, [MORE], CONFIDENCE,
                                             method=METHOD, replications=50,
                                             rng=one["seed"][3])
                realised = sum(_strong_chance(
                    x_a, laws[0], MORE, x_b, laws[1], MORE, n, CONFIDENCE, METHOD,
                    np.array([-np.inf, np.inf])))
                rows.append({"n": n, "low": float(plan.strong_low[0]),
                             "high": float(plan.strong_high[0]),
                             "realised": float(realised)})
            file.write(json.dumps({k: one[k] for k in (
                "key", "dataset", "rounds", "distance")} | {"rows": rows}) + "\n")
            file.flush()


def table(out: str = "plan_containment.jsonl"):
    """Per budget and kind of pair: cases, the share held by the range, the
    share whose range could bound the chance from below (low > 0.02), its mean
    width, and the mean realised chance; written to SUMMARY."""
    import pandas as pd

    records = []
    for line in Path(out).read_text().splitlines():
        item = json.loads(line)
        for row in item["rows"]:
            records.append({"distance": item["distance"], **row})
    frame = pd.DataFrame(records)
    frame["pairs"] = np.where(frame["distance"] < 0.1, "near-equal", "separated")
    frame["held"] = ((frame["low"] - 1e-9 <= frame["realised"])
                     & (frame["realised"] <= frame["high"] + 1e-9))
    frame["bounded below"] = frame["low"] > 0.02
    frame["width"] = frame["high"] - frame["low"]
    summary = frame.groupby(["pairs", "n"]).agg(
        cases=("held", "size"), held=("held", "mean"),
        bounded_below=("bounded below", "mean"), width=("width", "mean"),
        realised=("realised", "mean")).round(3)
    summary.to_csv(SUMMARY)
    print(summary.to_string())


if __name__ == "__main__":
    if sys.argv[1:2] == ["--table"]:
        table(*sys.argv[2:3])
    else:
        run(int(sys.argv[1]) if len(sys.argv) > 1 else 2, *sys.argv[2:3])
