"""How the exact LD highest-density band's cost grows with n.

Each size runs in a fresh process (nothing cached; scipy imported beforehand):
the time of one
``evp.cdf_band(scores, 0.8, method="ld_highest_density")`` after the imports, and
how exact it is, the simultaneous coverage of the band as ``evp.band_coverage``
computes it minus 0.8. opda simulates this band instead and can do neither size
above a few thousand in reasonable time (see bench_bands.py).

    python benchmarks/bench_engine.py [--sizes 48 1024 10000 100000]
"""

import argparse
import json
import math
import subprocess
import sys

CHILD = """
import json, time
import numpy as np
import evp
import scipy.optimize, scipy.special, scipy.stats  # imported, not timed
n = {n}
scores = np.random.default_rng(n).normal(size=n)
start = time.perf_counter()
band = evp.cdf_band(scores, 0.8, method="ld_highest_density")
seconds = time.perf_counter() - start
error = evp.band_coverage(band.lower, band.upper) - 0.8
print(json.dumps({{"n": n, "seconds": seconds, "coverage_error": error}}))
"""


def measure(n: int) -> dict:
    done = subprocess.run([sys.executable, "-c", CHILD.format(n=n)],
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+",
                        default=[48, 1024, 10_000, 100_000])
    rows = [measure(n) for n in parser.parse_args().sizes]
    print(f"{'n':>8} {'seconds':>9} {'coverage - 0.8':>15} {'growth':>7}")
    for previous, row in zip([None, *rows], rows, strict=False):
        growth = ""
        if previous is not None:  # the local exponent of n
            power = (math.log(row["seconds"] / previous["seconds"])
                     / math.log(row["n"] / previous["n"]))
            growth = f"n^{power:.2f}"
        print(f"{row['n']:>8} {row['seconds']:>9.3f} {row['coverage_error']:>15.1e} "
              f"{growth:>7}")
