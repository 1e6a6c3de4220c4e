"""Fisher's paired randomization test, evp vs scipy.stats.permutation_test.

Exact two-sided p-values over all 2^n sign patterns for n = 10, 15 and 20 pairs,
and Monte Carlo p-values with 100,000 patterns for 1,000 pairs (per-query scores).
scipy is given the vectorised statistic mean(x − y) and permutation_type="samples",
its fastest form for this test. Both run here, in one process, on the same data.

    python benchmarks/bench_significance.py
"""

import numpy as np
from scipy import stats
from timing import best_of

import evp


def mean_difference(x, y, axis):
    return np.mean(x - y, axis=axis)


def scipy_test(x, y, n_resamples):
    return stats.permutation_test(
        (x, y), mean_difference, permutation_type="samples", vectorized=True,
        n_resamples=n_resamples, random_state=0,
    ).pvalue


def main():
    rng = np.random.default_rng(0)
    print(f"{'pairs':>6}{'patterns':>12}{'evp (s)':>10}{'scipy (s)':>11}{'ratio':>9}"
          f"{'p evp':>10}{'p scipy':>10}")
    for n, n_resamples in [(10, None), (15, None), (20, None), (1000, 100_000)]:
        x = rng.normal(0.3, 1.0, n)
        y = rng.normal(0.0, 1.0, n)
        evp_time, ours = best_of(5, lambda x=x, y=y, r=n_resamples:
                                 evp.paired_permutation_test(x, y, n_resamples=r,
                                                             rng=0).pvalue)
        scipy_time, theirs = best_of(
            3 if n_resamples is None and n < 20 else 1,
            lambda x=x, y=y, r=n_resamples: scipy_test(
                x, y, np.inf if r is None else r))
        patterns = f"2^{n}" if n_resamples is None else f"{n_resamples:,}"
        print(f"{n:>6}{patterns:>12}{evp_time:>10.4f}{scipy_time:>11.3f}"
              f"{scipy_time / evp_time:>8.0f}x{ours:>10.5f}{theirs:>10.5f}")
        if n_resamples is None:
            assert abs(ours - theirs) < 1e-12, "exact p-values disagree"


if __name__ == "__main__":
    main()
