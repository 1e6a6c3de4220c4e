r"""Estimators of the expected maximum of n random-search rounds (tuning curves).

Let :math:`X_{(1)} \le \dots \le X_{(B)}` be the sorted scores of B rounds of
random search. Each estimator of :math:`\mathbb{E}[\max(X_1, \dots, X_n)]` is

.. math::

    \sum_{i=1}^{B} X_{(i)} \, [F(i) - F(i-1)],

with :math:`F(i)` an estimate of :math:`P(\max_n \le X_{(i)})`:

* **V** (Dodge et al. 2019): :math:`F(i) = (i/B)^n`, the exact CDF of the
  maximum of n draws *with* replacement from the sample. V of a finite bag is
  therefore the exact expected maximum of n draws from that bag.
* **U** (Tang et al. 2020): :math:`F(i) = \binom{i}{n} / \binom{B}{n}`, zero for
  i < n; draws *without* replacement. Unbiased; needs n ≤ B.
* **W** (Dodge et al. 2021): :math:`F(i) = \binom{i+n-1}{n} / \binom{B+n-1}{n}`,
  multisets of size n. (The paper's text garbles this formula; this is the one its
  proof uses.)

For every sample W ≤ V ≤ U; at n = 1 all three equal the mean, and U at n = B is
the maximum. Weights are computed in log space (log-gamma) and normalised, so
B = 100,000 with any n neither overflows nor produces negative weights.

References
----------
Dodge, Gururangan, Card, Schwartz and Smith (2019). Show Your Work: Improved
Reporting of Experimental Results. EMNLP.

Tang, Yang, Lin et al. (2020). Showing Your Work Doesn't Always Work. ACL.

Dodge, Gururangan, Card, Schwartz and Smith (2021). Expected Validation Performance
and Estimation of a Random Variable's Maximum. Findings of EMNLP.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from evp._step_cdf import (
    empirical,
    log_best_of_weights,
    normalised,
    quantile_of_best,
    reaches,
    weighted_sums,
)
from evp._validation import (
    MAX_CELLS,
    as_bool,
    as_choice,
    as_ns,
    as_probability,
    as_scores,
    chunks,
)

__all__ = [
    "Budget",
    "budget_to_reach",
    "expected_max",
    "expected_max_std",
    "quantile_tuning_curve",
]

ESTIMATORS = ("v", "u", "w")


def _log_weights(estimator: str, n: np.ndarray, size: int) -> np.ndarray:
    """Log of F(i) - F(i-1) for i = 1..size, one row per n, up to a constant per row.

    V is the best of n draws from the empirical distribution (the step-CDF core).
    For U and W the constants (the denominators C(B, n) and C(B+n-1, n)) are
    dropped: each row is normalised afterwards, which also absorbs the rounding
    of log-gamma.
    """
    if estimator == "v":
        return log_best_of_weights(*empirical(size), n)
    from scipy.special import gammaln  # not at import: it costs 0.1 s

    i = np.arange(1, size + 1, dtype=float)
    n = n.astype(float)[:, None]
    if estimator == "u":
        # C(i, n) - C(i-1, n) = C(i-1, n-1), zero for i < n.
        log_w = gammaln(i) - gammaln(np.maximum(i - n + 1, 1.0))
        return np.where(i >= n, log_w, -np.inf)
    # W: C(i+n-1, n) - C(i+n-2, n) = C(i+n-2, n-1), whose ratio from i to i+1
    # is (i+n-1)/i. Summed down from the largest score, log(1 + (n-1)/j) keeps
    # the weights that matter exact for any n; log-gamma of i + n loses them
    # once n is so large that adding i no longer changes it (n ≈ 1e16).
    steps = np.log1p((n - 1.0) / i[:-1])
    below_top = np.cumsum(steps[:, ::-1], axis=1)[:, ::-1]
    return np.concatenate((-below_top, np.zeros_like(n)), axis=1)


def _weights(estimator: str, n: np.ndarray, size: int) -> np.ndarray:
    """F(i) - F(i-1) for i = 1..size, shape (len(n), size); rows sum to one."""
    return normalised(_log_weights(estimator, n, size))


@functools.lru_cache(maxsize=64)
def _cached_weights(estimator: str, n: bytes, dtype: str, size: int) -> np.ndarray:
    """:func:`_weights` for budgets `n` (their bytes, of `dtype`: budgets past
    int64 come as floats), read-only: a bootstrap or a simulation asks for the
    same weights thousands of times, and building them costs several times the
    product that uses them."""
    weights = _weights(estimator, np.frombuffer(n, dtype=dtype), size)
    weights.flags.writeable = False
    return weights


def _curve(x: np.ndarray, n: np.ndarray, estimator: str) -> np.ndarray:
    """The estimator's curve for sorted scores x (S, B), bigger being better."""
    size = x.shape[-1]
    if len(n) * size <= MAX_CELLS // 16:  # small enough to keep: the same numbers
        weights = _cached_weights(estimator, n.tobytes(), n.dtype.str, size)
        return weighted_sums(x, lambda rows: weights[rows], len(n))
    return weighted_sums(x, lambda rows: _weights(estimator, n[rows], size), len(n))


def _sorted_scores(scores, minimize: bool) -> np.ndarray:
    """Scores as a sorted (S, B) array, negated for losses so that bigger is better."""
    x = as_scores(scores)
    minimize = as_bool(minimize, "minimize")
    x = np.atleast_2d(-x if minimize else x)
    # Rows already in order (a bootstrap resamples sorted positions of a sorted
    # search) are kept as they are: checking costs a fifth of sorting, and
    # sorting them would return the same numbers.
    if x.shape[1] > 1 and not (x[:, 1:] >= x[:, :-1]).all():
        x = np.sort(x, axis=1)
    return x


def _shape_like_input(values: np.ndarray, scores_ndim: int, ns_scalar: bool):
    """(S, N) results back to (N,), (S,), or a scalar as the inputs were shaped."""
    if ns_scalar:
        values = values[:, 0]
    if scores_ndim == 1:
        values = values[0]
    return values[()] if isinstance(values, np.ndarray) else values


def as_estimator(estimator) -> str:
    """"v", "u" or "w", in either case (every output calls them V, U and W)."""
    if isinstance(estimator, str):
        estimator = estimator.lower()
    return as_choice(estimator, "estimator", ESTIMATORS)


def _validate_ns_for(estimator: str, ns: np.ndarray, size: int) -> None:
    if estimator == "u" and ns.max() > size:
        raise ValueError(
            f"ns must not exceed the sample size B = {size} for the U estimator "
            f"(it draws without replacement), got n = {ns.max()}; use estimator='v' "
            "or 'w' to extrapolate"
        )


def expected_max(scores, ns, *, estimator: str = "v", minimize: bool = False):
    r"""Estimate the expected best score of n rounds of random search.

    Parameters
    ----------
    scores : array_like, shape (B,) or (S, B)
        Validation scores of B search rounds; a 2-D array holds one independent
        sample per row, and every row is estimated at once.
    ns : int or sequence of int
        Budgets n ≥ 1 (for U also n ≤ B).
    estimator : {"v", "u", "w"}, default "v"
        "v" (Dodge et al. 2019; draws with replacement), "u" (Tang et al. 2020;
        without replacement, unbiased) or "w" (Dodge et al. 2021; multisets);
        upper case works too.
    minimize : bool, default False
        Scores are losses: estimate the expected *minimum* instead (the same
        computation on negated scores).

    Returns
    -------
    numpy.ndarray
        Shape (len(ns),) for 1-D scores or (S, len(ns)) for 2-D; a scalar n drops
        that axis.

    Notes
    -----
    With :math:`X_{(1)} \le \dots \le X_{(B)}` the sorted scores, the estimate is
    :math:`\sum_i X_{(i)} [F(i) - F(i-1)]` with

    * V: :math:`F(i) = (i/B)^n`,
    * U: :math:`F(i) = \binom{i}{n}/\binom{B}{n}`,
    * W: :math:`F(i) = \binom{i+n-1}{n}/\binom{B+n-1}{n}`.

    Ties need no special case. For every sample W ≤ V ≤ U.

    Examples
    --------
    >>> import evp
    >>> evp.expected_max([0.1, 0.5, 0.9], [1, 3], estimator="u")
    array([0.5, 0.9])
    """
    estimator = as_estimator(estimator)
    x = _sorted_scores(scores, minimize)
    n, ns_scalar = as_ns(ns)
    size = x.shape[1]
    _validate_ns_for(estimator, n, size)
    out = _curve(x, n, estimator)
    out = -out if minimize else out
    return _shape_like_input(out, np.ndim(scores), ns_scalar)


def expected_max_std(scores, ns, *, minimize: bool = False):
    r"""Plug-in standard deviation of the best of n draws (Dodge et al. 2019, §3.3).

    The standard deviation of :math:`\max(X_1, \dots, X_n)` when the :math:`X_j` are
    drawn with replacement from the observed scores (the empirical distribution),
    i.e. the spread around the V estimate:

    .. math::

        \sqrt{\sum_i w_i \, (X_{(i)} - V_n)^2}, \qquad
        w_i = (i/B)^n - ((i-1)/B)^n .

    Parameters and shapes as in :func:`expected_max` (``minimize`` defaults to
    False). Dodge et al. shade
    :math:`V_n \pm` this value, clipped to the observed score range.
    """
    x = _sorted_scores(scores, minimize)
    n, ns_scalar = as_ns(ns)
    size = x.shape[1]
    # Scores near the float limit (±1e308) overflow in their differences and
    # squares, though the spread itself is at most their largest magnitude:
    # such scores are scaled by a power of two (exactly) and scaled back.
    largest = np.abs(x).max(axis=1, keepdims=True)
    scale = np.where(largest > 2.0**500,
                     np.ldexp(1.0, np.frexp(largest)[1] - 1), 1.0)
    x = x / scale
    out = np.empty((x.shape[0], len(n)))
    for part in chunks(len(n), size):  # (N, B) weights, in pieces
        w = _weights("v", n[part], size)  # (N, B)
        mean = x @ w.T  # (S, N)
        for j, w_n in enumerate(w):
            # Centred second moment: no cancellation between E[X^2] and E[X]^2.
            centred = x - mean[:, j : j + 1]
            out[:, part.start + j] = np.sqrt(centred**2 @ w_n)
    return _shape_like_input(out * scale, np.ndim(scores), ns_scalar)


def quantile_tuning_curve(scores, ns, *, q: float = 0.5, minimize: bool = False):
    r"""The empirical q-quantile tuning curve: the q-quantile of the best of k rounds.

    For maximisation the q-quantile of :math:`\max(X_1, \dots, X_k)` under the
    empirical distribution is

    .. math::

        \min\{X_{(i)} : i/B \ge q^{1/k}\},

    since :math:`P(\max_k \le x) = \hat F(x)^k`. For minimisation the best of k
    is the minimum and the condition is :math:`i/B \ge 1 - (1-q)^{1/k}` on the
    unnegated scores. The median tuning curve (q = 0.5) is the one Lourie, Cho and
    He (2024) recommend; it exists for any score distribution and, unlike the
    mean, needs no bounds on the scores.

    Parameters
    ----------
    scores : array_like, shape (B,) or (S, B)
    ns : float or sequence of float
        Budgets k ≥ 1; k may be real.
    q : float in [0, 1], default 0.5
        The quantile of the best of k: 0.5 gives the median tuning curve.
    minimize : bool, default False
        Scores are losses: the best of k is the minimum.

    Returns
    -------
    numpy.ndarray of shape (len(ns),) or (S, len(ns)).
    """
    x = np.atleast_2d(as_scores(scores, sort=True))
    minimize = as_bool(minimize, "minimize")
    q = as_probability(q, "q", closed=True)
    k, ns_scalar = as_ns(ns, integer=False)
    if minimize:  # minus the (1 − q)-quantile curve of the negated losses
        out = -quantile_of_best(-x[:, ::-1], empirical(x.shape[1])[0], k, 1.0 - q)
    else:
        out = quantile_of_best(x, empirical(x.shape[1])[0], k, q)
    return _shape_like_input(out, np.ndim(scores), ns_scalar)


class Budget(int):
    """A number of rounds of random search (an int), with their expected cost.

    ``budget.n`` is the int itself; ``budget.expected_cost`` is n times the mean
    cost of a round, or NaN when no costs were given.
    """

    expected_cost: float

    def __new__(cls, n: int, expected_cost: float = math.nan):
        budget = super().__new__(cls, n)
        budget.expected_cost = float(expected_cost)
        return budget

    @property
    def n(self) -> int:
        return int(self)

    def __repr__(self) -> str:
        return f"Budget(n={int(self)}, expected_cost={self.expected_cost:g})"


def budget_to_reach(
    scores,
    target: float,
    *,
    estimator: str = "v",
    cost=None,
    minimize: bool = False,
):
    r"""Smallest number of rounds n ≤ B whose expected best score reaches `target`.

    Reading a tuning curve the other way round (Dodge et al. 2019, Fig. 1 and
    §4.4): how many hyperparameter assignments are needed, in expectation, to reach
    a given validation score?

    Parameters
    ----------
    scores : array_like, shape (B,)
    target : float
        The score to reach (at least `target`; at most `target` when `minimize`).
    estimator : {"v", "u", "w"}, default "v"
        The estimator of the expected best (see :func:`expected_max`).
    cost : array_like, shape (B,), optional
        Cost of each round (e.g. training seconds). Each round is a random draw
        from the search, so n rounds cost :math:`n \cdot \bar c` in expectation.
    minimize : bool, default False
        Scores are losses: reach at most `target`.

    Returns
    -------
    Budget or None
        The budget n (a :class:`Budget`, an int with ``.expected_cost``: n times
        the mean cost, NaN without `cost`), or None when no n ≤ B reaches the
        target.
    """
    x = as_scores(scores, ndim=(1,))
    try:
        target = float(target)
    except (TypeError, ValueError):
        raise ValueError(f"target must be a number, got {target!r}") from None
    if not np.isfinite(target):
        raise ValueError(f"target must be finite, got {target}")
    if cost is not None:
        cost = as_scores(cost, "cost", ndim=(1,))
        if cost.shape != x.shape:
            raise ValueError(f"cost must have one value per score ({x.size}), got "
                             f"{cost.size}")
        if (cost < 0).any():
            raise ValueError(f"cost must be non-negative, got {cost.min()}")
    estimator = as_estimator(estimator)
    minimize = as_bool(minimize, "minimize")
    ns = np.arange(1.0, x.size + 1)
    oriented = np.sort(-x if minimize else x)[None, :]
    curve = _curve(oriented, ns, estimator)[0]
    # The curves are monotone, so the first budget that reaches the target is the
    # smallest; the tie tolerance keeps "reaches" true at exact equality.
    reached = reaches(curve, -target if minimize else target)
    if not reached.any():
        return None
    n = int(ns[np.argmax(reached)])
    return Budget(n, math.nan if cost is None else n * float(cost.mean()))
