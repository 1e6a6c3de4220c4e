"""How narrow can a plan's range be and still hold? The frontier between
containment and width, measured on HPOBench's grids at budgets n = 1 to 5.

evp.verdict_power gives, from the rounds observed so far, a range for the chance
that more rounds of each model give a strong verdict either way at budget n.
This benchmark measures candidate ranges against the exact realised chance:

* **Truths, pairs and cases** as in verdict_power_real_calibration.py: HPOBench's
  eight tabular grids (exact truths; only those grids are read), pairs made by
  splitting a grid on one hyperparameter, 12, 24 or 48 rounds of each model
  drawn (DRAWS draws, seeded apart from the other benchmarks' draws), 20 or 50
  more of each planned for, budgets 1 to 5. Pairs are near-equal where the two
  grids' laws are within 0.1 in Kolmogorov distance, separated otherwise; the
  grids' scores are tied (accuracies on a few hundred validation points).
* **Realised.** The exact chance of a strong verdict given the rounds observed
  and the grid's laws (evp.planning._strong_chance).
* **Candidates.** Low ends: the least chance with both models inside their CDF
  bands at confidence r (evp.planning._strong_range: exact, and a bound whenever
  both bands hold), for r in BAND_LEVELS. High ends: the same bands' most
  chance; or the h-quantile of the chance over the posterior of the two
  models' distributions (the Bayesian bootstrap: Dirichlet(1, ..., 1) weights on
  the rounds observed, each draw's chance exact; evp.planning._posterior_chances,
  POSTERIOR_DRAWS draws), for h in LEVELS.
* **Points.** verdict_power's simulated point (``.strong``, REPLICATIONS
  futures), the reading with nothing beyond the extremes (``.strong_light``),
  the plug-in chance (the empirical distributions as truths) and the posterior
  mean, each with its calibration error against the realised chance.
* **Read.** Per pair kind and budget (ten bins), the share of cases whose range
  holds the realised chance, and the range's mean width. The frontier: for each
  candidate, the worst bin's containment against the mean width.

Resumable (one JSON line per case). Run nice, on one core:

    nice -n 10 python benchmarks/plan_range_frontier.py [draws] [out]

then ``python benchmarks/plan_range_frontier.py --table [out]``, which writes
benchmarks/plan_range_frontier.csv (the frontier) and
benchmarks/plan_range_bins.csv (the chosen range and the points, bin by bin).
"""

from __future__ import annotations

import json
import os
import sys
import warnings
from pathlib import Path

import numpy as np
from resumable import finished
from verdict_power_real_calibration import observed_cases

import evp
from evp.planning import _posterior_chances, _strong_chance, _strong_range

MORE = (20, 50)
BUDGETS = (1, 2, 3, 4, 5)
CONFIDENCE = 0.8
METHOD = "ld_highest_density"
BAND_LEVELS = (0.8, 0.6, 0.4, 0.2, 0.1)
LEVELS = np.round(np.linspace(0.0, 1.0, 41), 3)  # posterior quantiles kept
POSTERIOR_DRAWS = 400
REPLICATIONS = 200
SALT = (13,)
FRONTIER = Path(__file__).with_name("plan_range_frontier.csv")
BINS = Path(__file__).with_name("plan_range_bins.csv")
INFINITE = np.array([-np.inf, np.inf])


def _plug_in(x):
    support = np.unique(x)
    return support, np.searchsorted(x, support, side="right") / x.size


def case(one) -> list[dict]:
    x_a, x_b, laws = one["x_a"], one["x_b"], one["laws"]
    plans = np.array([[m, m] for m in MORE])
    rows = []
    for n in BUDGETS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            plan = evp.verdict_power(x_a, x_b, n, list(MORE), CONFIDENCE,
                                     method=METHOD, replications=REPLICATIONS,
                                     rng=[*one["seed"], n])
        rng = np.random.default_rng([*one["seed"], n, 1])
        posterior = _posterior_chances(x_a, x_b, n, plans, CONFIDENCE, METHOD,
                                       INFINITE, POSTERIOR_DRAWS, rng)
        bands = {r: _strong_range(x_a, x_b, n, plans, CONFIDENCE, METHOD, INFINITE,
                                  r) for r in BAND_LEVELS}
        for j, m in enumerate(MORE):
            realised = sum(_strong_chance(x_a, laws[0], m, x_b, laws[1], m, n,
                                          CONFIDENCE, METHOD, INFINITE))
            plug = sum(_strong_chance(x_a, _plug_in(x_a), m, x_b, _plug_in(x_b), m,
                                      n, CONFIDENCE, METHOD, INFINITE))
            rows.append({
                "n": n, "more": m, "realised": float(realised),
                "point": float(plan.strong[j]), "light": float(plan.strong_light[j]),
                "plug": float(plug), "mean": float(posterior[j].mean()),
                "q": np.quantile(posterior[j], LEVELS).round(5).tolist(),
                "band": {str(r): [float(lo[j]), float(hi[j])]
                         for r, (lo, hi) in bands.items()}})
    return rows


def run(draws: int = 4, out: str = "plan_range_frontier.jsonl"):
    out = Path(out)
    with open(out, "a") as file:
        for one in observed_cases(draws, finished(out), salt=SALT):
            rows = case(one) if one["usable"] else []
            file.write(json.dumps({k: one[k] for k in (
                "key", "dataset", "rounds", "distance")} | {"rows": rows}) + "\n")
            file.flush()


def frame(out: str = "plan_range_frontier.jsonl"):
    """One row per prediction: the case, the realised chance, the points, each
    band level's ends (``band r low``/``band r high``) and the posterior
    quantiles (``q h``)."""
    import pandas as pd

    records = []
    for line in Path(out).read_text().splitlines():
        try:
            item = json.loads(line)
        except ValueError:
            continue
        for row in item["rows"]:
            record = {k: item[k] for k in ("dataset", "rounds", "distance")}
            record |= {k: row[k] for k in ("n", "more", "realised", "point", "light",
                                           "plug", "mean")}
            record |= {f"q {h:g}": v for h, v in zip(LEVELS, row["q"], strict=True)}
            for r, (low, high) in row["band"].items():
                record[f"band {r} low"], record[f"band {r} high"] = low, high
            records.append(record)
    table = pd.DataFrame(records)
    table["pairs"] = np.where(table["distance"] < 0.1, "near-equal", "separated")
    return table


def candidates(table):
    """Each candidate range as (name of the low end, name of the high end, low,
    high)."""
    lows = {f"band {r:g}": table[f"band {r:g} low"] for r in BAND_LEVELS}
    highs = {f"band {r:g}": table[f"band {r:g} high"] for r in BAND_LEVELS}
    highs |= {f"posterior {h:g}": table[f"q {h:g}"] for h in LEVELS if h >= 0.5}
    for low_name, low in lows.items():
        for high_name, high in highs.items():
            yield low_name, high_name, low, np.maximum(high, low)


def binned(table, low, high):
    """Per pair kind and budget: cases, containment, the shares missed below and
    above, mean width, and the point's calibration beside it."""
    import pandas as pd

    realised = table["realised"]
    parts = pd.DataFrame({
        "pairs": table["pairs"], "n": table["n"],
        "held": (low - 1e-9 <= realised) & (realised <= high + 1e-9),
        "below": realised < low - 1e-9, "above": realised > high + 1e-9,
        "width": high - low, "realised": realised, "point": table["point"],
        "point error": (table["point"] - realised).abs()})
    return parts.groupby(["pairs", "n"]).agg(
        cases=("held", "size"), held=("held", "mean"), below=("below", "mean"),
        above=("above", "mean"), width=("width", "mean"),
        realised=("realised", "mean"), point=("point", "mean"),
        point_abs_error=("point error", "mean"))


def frontier(table):
    """For each candidate and each count of rounds planned: the worst bin's
    containment, the mean width over all cases and the widest bin's mean width;
    sorted by width."""
    import pandas as pd

    rows = []
    for more, part in table.groupby("more"):
        part = part.reset_index(drop=True)
        for low_name, high_name, low, high in candidates(part):
            bins = binned(part, low, high)
            rows.append({"more": more, "low end": low_name, "high end": high_name,
                         "worst bin held": bins["held"].min(),
                         "mean width": float((high - low).mean()),
                         "widest bin": bins["width"].max()})
    return pd.DataFrame(rows).sort_values(["more", "mean width"], ignore_index=True)


def pareto(front):
    """The candidates no other beats on both containment and width, per count of
    rounds planned."""
    kept = []
    for _, part in front.groupby("more"):
        best = -1.0
        for index, row in part.iterrows():  # sorted by width
            if row["worst bin held"] > best:
                kept.append(index)
                best = row["worst bin held"]
    return front.loc[kept]


def chosen(table):
    """The range evp.verdict_power gives (its RANGE_BAND_CONFIDENCE and
    RANGE_LEVEL), bin by bin, for each count of rounds planned."""
    import pandas as pd

    from evp.planning import RANGE_BAND_CONFIDENCE, RANGE_LEVEL

    parts = []
    for more, part in table.groupby("more"):
        low = part[f"band {RANGE_BAND_CONFIDENCE:g} low"]
        high = np.maximum(part[f"q {RANGE_LEVEL:g}"], low)
        bins = binned(part, low, high).reset_index()
        bins.insert(0, "more", more)
        parts.append(bins)
    return pd.concat(parts, ignore_index=True)


def table_main(out: str):
    table = frame(out)
    print(f"{len(table)} predictions from {table['dataset'].nunique()} grids, "
          f"{(table['pairs'] == 'near-equal').mean():.0%} near-equal")
    front = frontier(table)
    for path, written in ((FRONTIER, front), (BINS, chosen(table))):
        tmp = path.with_suffix(".tmp")
        written.to_csv(tmp, index=False, float_format="%.4f")
        os.replace(tmp, path)
    print(pareto(front).to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    print(chosen(table).to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    return table, front


if __name__ == "__main__":
    if sys.argv[1:2] == ["--table"]:
        table_main(*(sys.argv[2:3] or ["plan_range_frontier.jsonl"]))
    else:
        run(int(sys.argv[1]) if len(sys.argv) > 1 else 4, *sys.argv[2:3])
