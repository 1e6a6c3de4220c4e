r"""Distributions on finitely many points, and the best of k draws from them.

Private: the estimators and the bands are evaluations of this core. A *step CDF*
puts probability ``mass[j]`` on ``points[..., j]`` (sorted ascending, one sample
per row) and has the cumulative values ``cdf[j]`` (non-decreasing, ending at 1).
Both are passed because neither can be recovered from the other exactly: the
empirical distribution of B scores has mass 1/B and cdf i/B, and a cumulative
sum of 1/B drifts by i ulps while i/B - (i-1)/B loses the digits of 1/B.

* The best of k draws (the maximum; callers negate scores to get the minimum)
  has CDF :math:`G^k`, so it lands on point j with probability
  :math:`G_j^k - G_{j-1}^k = G_j^k \, (1 - (1 - p_j/G_j)^k)`, computed in logs
  (:func:`log_best_of_weights`): exact for any real k up to 1e300, where all
  mass moves to the top point.
* The mean of the best of k is ``points @ weights`` (:func:`weighted_sums`).
* The q-quantile of the best of k is the first point whose cdf reaches the level
  :math:`p = q^{1/k}` (maximum) or :math:`1 - (1-q)^{1/k}` (minimum, on the
  unnegated scores: negation would turn the lower quantile into the upper one),
  by the one tie rule of :func:`first_reaching`.
"""

from __future__ import annotations

import numpy as np

from evp._validation import chunks

# A value within this relative distance below a level reaches it: that is a tie
# in exact arithmetic (0.5 ** (1/k) raised back to the k-th power, i/B against
# a level that is a ratio of integers), not a shortfall. The one tolerance for
# "reaches" in the package.
TIE_TOLERANCE = 8 * np.finfo(float).eps


def empirical(size: int) -> tuple[np.ndarray, np.ndarray]:
    """(cdf, mass) of the empirical distribution of `size` sorted scores."""
    return np.arange(1, size + 1) / size, np.full(size, 1.0 / size)


def reaches(values, target, *, minimize: bool = False):
    """values ≥ target (≤ when minimising), counting ties within TIE_TOLERANCE."""
    slack = TIE_TOLERANCE * np.maximum(np.abs(target), 1.0)
    return values <= target + slack if minimize else values >= target - slack


def first_reaching(cdf: np.ndarray, level: np.ndarray) -> np.ndarray:
    """Index of min{j : cdf[j] ≥ level} for each level (len(cdf) if none does).

    A cumulative value a hair under the level counts as reaching it (the tie
    rule above), so the empirical median of 2m scores is the m-th, not the
    (m+1)-th, however the level 1/2 was computed.
    """
    cdf = np.maximum.accumulate(cdf)
    return np.searchsorted(cdf, level * (1.0 - TIE_TOLERANCE), side="left")


def best_of_level(q: float, k: np.ndarray, minimize: bool) -> np.ndarray:
    """The CDF level p at which the q-quantile of the best of k draws sits."""
    with np.errstate(divide="ignore"):
        if minimize:  # P(min ≤ y) = 1 - (1 - F(y))^k ≥ q; expm1 keeps it accurate
            return -np.expm1(np.log1p(-q) / k)
        return q ** (1.0 / k)  # P(max ≤ y) = F(y)^k ≥ q


def quantile_of_best(points, cdf, k, q, *, minimize: bool = False) -> np.ndarray:
    """q-quantile of the best of k draws, shape points.shape[:-1] + k.shape."""
    return points[..., first_reaching(cdf, best_of_level(q, k, minimize))]


def log_best_of_weights(cdf: np.ndarray, mass: np.ndarray, k: np.ndarray):
    """log P(the maximum of k draws lands on point j), shape (len(k), len(cdf))."""
    k = np.asarray(k, dtype=float)[:, None]
    # Huge k (up to 1e300) sends the weights of all but the top point to
    # exp(-inf) = 0, and points without mass get log 0 = -inf: both are limits,
    # not errors.
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        share = np.where(cdf > 0, mass / np.where(cdf > 0, cdf, 1.0), 0.0)
        return k * np.log(cdf) + np.log(-np.expm1(k * np.log1p(-share)))


def normalised(log_weights: np.ndarray) -> np.ndarray:
    """Weights from their logs, each row scaled to sum to one (which absorbs the
    rounding of the logs and any constant dropped from them)."""
    w = np.exp(log_weights - log_weights.max(axis=1, keepdims=True))
    return w / w.sum(axis=1, keepdims=True)


def weighted_sums(points: np.ndarray, weights_for, count: int) -> np.ndarray:
    """points @ weights.T for `count` rows of weights, built a chunk at a time.

    `weights_for(rows)` returns the (normalised) weights of a slice of rows, so
    that at most MAX_CELLS of them exist at once. Shape points.shape[:-1] +
    (count,).
    """
    out = np.empty((*points.shape[:-1], count))
    for part in chunks(count, points.shape[-1]):
        if part.start == 0 and part.stop == count:
            # One chunk: the product straight into `out` (the same BLAS call),
            # without a second array of the same size and a copy of it, which
            # cost twice the product for a bootstrap's thousands of small ones.
            np.matmul(points, weights_for(part).T, out=out)
        else:
            out[..., part] = points @ weights_for(part).T
    return out


def mean_of_best(points, cdf, mass, k, *, minimize: bool = False) -> np.ndarray:
    """Mean of the best of k draws, shape points.shape[:-1] + k.shape.

    The minimum of k draws is minus the maximum of the negated points, whose CDF
    at -points[j] is P(X ≥ points[j]) = 1 - cdf[j-1].
    """
    if minimize:
        survival = 1.0 - np.concatenate(([0.0], cdf[:-1]))
        return -mean_of_best(-points[..., ::-1], survival[::-1], mass[::-1], k)
    return weighted_sums(
        points, lambda rows: normalised(log_best_of_weights(cdf, mass, k[rows])),
        k.shape[0])
