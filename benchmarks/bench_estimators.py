"""V and U tuning curves on the Dodge et al. (2021) simulation workload, evp vs opda.

10,000 samples of size B = 30 drawn from a truncated normal, curves at n = 1..30:
evp estimates every sample in one batch call; opda 0.8.0 builds one
EmpiricalDistribution per sample. Both run here, in one process, on the same data.

    python benchmarks/bench_estimators.py [--samples 10000]
"""

import argparse

import numpy as np
from opda.nonparametric import EmpiricalDistribution
from scipy import stats
from timing import best_of

import evp


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=10_000)
    parser.add_argument("--size", type=int, default=30)
    args = parser.parse_args()

    rng = np.random.default_rng(0)
    dist = stats.truncnorm((0 - 0.6) / 0.07, (1 - 0.6) / 0.07, loc=0.6, scale=0.07)
    scores = dist.rvs(size=(args.samples, args.size), random_state=rng)
    ns = np.arange(1, args.size + 1)

    print(f"{args.samples:,} samples of size B = {args.size}, n = 1..{args.size}")
    print(f"{'estimator':<10}{'evp (s)':>12}{'opda (s)':>12}{'ratio':>10}"
          f"{'max |diff|':>14}")
    for name, method in [("v", "v_tuning_curve"), ("u", "u_tuning_curve")]:
        evp_time, ours = best_of(5, lambda name=name: evp.expected_max(
            scores, ns, estimator=name))
        opda_time, theirs = best_of(1, lambda method=method: np.array([
            getattr(EmpiricalDistribution(row), method)(ns) for row in scores]))
        diff = np.abs(ours - theirs).max()
        print(f"{name.upper():<10}{evp_time:>12.4f}{opda_time:>12.2f}"
              f"{opda_time / evp_time:>9.0f}x{diff:>14.2e}")
        assert diff < 1e-12, "the two libraries disagree"


if __name__ == "__main__":
    main()
