"""The width of evp.sequential_band's constructions against the fixed-n band.

For uniform scores (every construction is distribution-free for continuous
scores, so the uniform is every continuous law, read on the F scale), 200
paths of 200 rounds; the mean width of the 80% median curve band at budgets
1, 2, 3, 5, 8 and 10, averaged over the budgets, after 20, 50, 100 and 200
rounds. The table in evp.sequential's docstring is this file's output:

    nice -n 10 python benchmarks/sequential_band_widths.py

writes benchmarks/sequential_band_widths.csv.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from evp.bands import _curve_band_iv
from evp.comparison import _bounds_by
from evp.sequential import _edge_path

BUDGETS = np.array([1.0, 2.0, 3.0, 5.0, 8.0, 10.0])
TIMES = (20, 50, 100, 200)
PATHS, ROUNDS, CONFIDENCE = 200, 200, 0.8
OUT = Path(__file__).with_name("sequential_band_widths.csv")
CONSTRUCTIONS = {  # name: (boundary, horizon)
    "stitched, horizon 200": ("stitched", 200),
    "stitched, no horizon": ("stitched", None),
    "union over rounds, horizon 200": ("union", 200),
    "union over rounds, 1/(t(t+1))": ("union", None),
    "Howard-Ramdas DKW": ("howard_ramdas", None),
}


def widths(seed: int = 1) -> list[dict]:
    x = np.random.default_rng(seed).random((PATHS, ROUNDS))
    options = _curve_band_iv(BUDGETS, CONFIDENCE, "ld_highest_density", "median",
                             0.5, (0.0, 1.0), False, np.sort(x, axis=1))[1]
    rows = []
    for name, (boundary, horizon) in CONSTRUCTIONS.items():
        sizes, _, lower, upper, _ = _edge_path(x, BUDGETS, options, boundary,
                                               horizon, "band")
        row = {"construction": name}
        for t in TIMES:
            last = int(np.searchsorted(sizes, t, side="right")) - 1
            row[str(t)] = float((upper[last] - lower[last]).mean())
        rows.append(row)
    row = {"construction": "fixed n (one look only)"}
    for t in TIMES:
        band = _bounds_by("band", BUDGETS, options)(np.sort(x[:, :t], axis=1))
        row[str(t)] = float((band.upper - band.lower).mean())
    rows.append(row)
    return rows


def main(argv) -> None:
    import pandas as pd

    table = pd.DataFrame(widths())
    table.to_csv(OUT, index=False, float_format="%.3f")
    print(table.to_string(index=False, float_format=lambda v: f"{v:.3f}"))


if __name__ == "__main__":
    main(sys.argv[1:])
