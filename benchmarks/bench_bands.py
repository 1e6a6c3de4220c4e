"""Exact LD confidence bands vs opda's simulated ones: time, memory, agreement.

The workload of Lourie, Cho and He (2024): a highest-density LD CDF band at
confidence 0.8 and the median tuning-curve band from it, for n = 48 and n = 1,024
scores. Each measurement is the first call in a fresh process (nothing cached),
timed after the imports; opda 0.8.0 runs
``EmpiricalDistribution.confidence_bands(ys, 0.8, method="ld_highest_density")``
then ``quantile_tuning_curve`` on the three distributions, with its default
parallelism. Peak memory is the maximum resident set size of the measuring
process (and of its worker processes, for opda).

Agreement: the largest difference between the two CDF bands, the exact
simultaneous coverage of opda's simulated band (by evp.band_coverage: evp's own is
0.8 by construction), and how many budgets the tuning-curve bands agree on.

    python benchmarks/bench_bands.py [--sizes 48 1024] [--quick]

``--quick`` runs n = 48 only (opda takes minutes at n = 1,024).
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

CONFIDENCE = 0.8


def scores_for(n):
    import numpy as np

    return np.random.default_rng(n).normal(size=n)


def run_evp(ys, ns):
    import evp

    band = evp.tuning_curve_band(ys, ns, CONFIDENCE, method="ld_highest_density")
    return (band.cdf.lower, band.cdf.upper, band.lower, band.estimate, band.upper)


def run_opda(ys, ns):
    import numpy as np
    from opda.nonparametric import EmpiricalDistribution

    lower_cdf, point_cdf, upper_cdf = EmpiricalDistribution.confidence_bands(
        ys, CONFIDENCE, method="ld_highest_density",
        generator=np.random.default_rng(0))
    curves = [d.quantile_tuning_curve(ns) for d in (upper_cdf, point_cdf, lower_cdf)]
    # The CDF bounds at the order statistics: lower_i = G_lo(Y_(i)); the upper
    # distribution holds u_1 at -inf and u_{i+1} at Y_(i).
    y = np.sort(ys)
    lower = lower_cdf.cdf(y)
    upper = np.concatenate([[upper_cdf.cdf(-np.inf)], upper_cdf.cdf(y[:-1])])
    return (lower, upper, *curves)


def worker(library, n, out):
    """Measure one call in this fresh process; save the results to `out`."""
    start = time.perf_counter()
    import numpy as np

    run = {"evp": run_evp, "opda": run_opda}[library]
    if library == "evp":
        import evp  # noqa: F401
    else:
        import opda.nonparametric  # noqa: F401
    imported = time.perf_counter() - start
    ys = scores_for(n)
    ns = np.arange(1, n + 1)
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.perf_counter()
    results = run(ys, ns)
    seconds = time.perf_counter() - start
    rss = max(resource.getrusage(who).ru_maxrss
              for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    np.savez(out, *results)
    print(json.dumps({"seconds": seconds, "import": imported,
                      "rss_before_mib": rss_before / 1024, "rss_mib": rss / 1024}))


def measure(library, n, folder):
    out = os.path.join(folder, f"{library}-{n}.npz")
    done = subprocess.run(
        [sys.executable, __file__, "--worker", library, str(n), out],
        check=True, capture_output=True, text=True)
    import numpy as np

    stats = json.loads(done.stdout.strip().splitlines()[-1])
    with np.load(out) as data:
        results = [data[f"arr_{i}"] for i in range(5)]
    return stats, results


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[48, 1024])
    parser.add_argument("--quick", action="store_true", help="n = 48 only")
    parser.add_argument("--worker", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        library, n, out = args.worker
        worker(library, int(n), out)
        return

    import numpy as np

    from evp.bands import band_coverage

    sizes = [48] if args.quick else args.sizes
    print(f"LD highest-density CDF band + median tuning-curve band, confidence "
          f"{CONFIDENCE}, first call in a fresh process; {os.cpu_count()} CPUs")
    header = (f"{'n':>6}{'evp (s)':>10}{'opda (s)':>10}{'ratio':>9}"
              f"{'evp MiB':>9}{'opda MiB':>10}{'max|Δband|':>12}"
              f"{'opda cover':>12}{'curves equal':>14}")
    print(header)
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for n in sizes:
            ours, our_results = measure("evp", n, folder)
            theirs, their_results = measure("opda", n, folder)
            gap = max(np.abs(a - b).max() for a, b in
                      zip(our_results[:2], their_results[:2], strict=True))
            coverage = band_coverage(*their_results[:2])
            equal = np.mean([np.mean(a == b) for a, b in
                             zip(our_results[2:], their_results[2:], strict=True)])
            ratio = theirs["seconds"] / ours["seconds"]
            print(f"{n:>6}{ours['seconds']:>10.3f}{theirs['seconds']:>10.2f}"
                  f"{ratio:>8.0f}x{ours['rss_mib']:>9.0f}{theirs['rss_mib']:>10.0f}"
                  f"{gap:>12.1e}{coverage:>12.4f}{equal:>13.0%}")
            rows.append((n, ours, theirs))
    print("\nimport time (s) and resident memory after imports (MiB):")
    for n, ours, theirs in rows:
        print(f"  n = {n}: evp {ours['import']:.2f} s, "
              f"{ours['rss_before_mib']:.0f} MiB; opda {theirs['import']:.2f} s, "
              f"{theirs['rss_before_mib']:.0f} MiB")
    print("opda cover: exact simultaneous coverage of opda's simulated band "
          f"(nominal {CONFIDENCE}; evp's is {CONFIDENCE} to 1e-9).")


if __name__ == "__main__":
    main()
