r"""Significance tests for paired scores: is system A better than system B?

Both tests take paired scores — one pair per cross-validation fold, per query, per
test sentence — and test the null hypothesis that A and B perform alike, with the
mean paired difference as the statistic,

.. math::

    T = \frac{1}{n} \sum_{i=1}^{n} d_i, \qquad d_i = x_i - y_i.

* :func:`paired_permutation_test` — Fisher's randomization test. Under the null
  hypothesis the labels "A" and "B" within a pair are exchangeable, so each
  difference keeps or flips its sign with probability 1/2,
  :math:`T^* = \frac{1}{n}\sum_i s_i d_i` with :math:`s_i = \pm 1`. Exact over all
  :math:`2^n` sign patterns, or by Monte Carlo.
* :func:`bootstrap_shift_test` — the paired bootstrap test. Resample the pairs
  with replacement, recompute :math:`T^*`, shift the bootstrap distribution to
  mean zero (the null hypothesis) and ask how often it is at least as extreme as
  the observed :math:`T`.

And one test of a single sequence, the assumption behind every tuning curve:

* :func:`exchangeability_test` — are a search's trials, in the order they ran,
  exchangeable (as independent draws of random search are), or do they drift
  and narrow as an adaptive tuner's do?

Monte Carlo p-values (the bootstrap test, and the permutation test with
``n_resamples``) follow one convention: with c of R random draws at least as
extreme as the observation, :math:`p = (c + 1)/(R + 1)`, counting the observed
data as one draw (Phipson and Smyth 2010). So p is never 0, and the test rejects
at level α no more often than α under the null (exactly so for the permutation
test).

References
----------
Fisher (1935). The Design of Experiments. Oliver and Boyd, §21.

Efron and Tibshirani (1993). An Introduction to the Bootstrap. Chapman and Hall,
chapters 15 (permutation tests) and 16 (hypothesis testing with the bootstrap).

Koehn (2004). Statistical Significance Tests for Machine Translation Evaluation.
EMNLP.

Berg-Kirkpatrick, Burkett and Klein (2012). An Empirical Investigation of
Statistical Significance in NLP. EMNLP-CoNLL.

Dror, Baumer, Shlomov and Reichart (2018). The Hitchhiker's Guide to Testing
Statistical Significance in Natural Language Processing. ACL.

Phipson and Smyth (2010). Permutation P-values Should Never Be Zero: Calculating
Exact P-values When Permutations Are Randomly Drawn. Statistical Applications in
Genetics and Molecular Biology 9(1).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from evp._validation import _describe, as_choice, as_scores, chunks

__all__ = [
    "BootstrapTestResult",
    "ExchangeabilityTestResult",
    "PermutationTestResult",
    "bootstrap_shift_test",
    "exchangeability_test",
    "paired_permutation_test",
]

ALTERNATIVES = ("two-sided", "greater", "less")
SHIFTS = ("observed", "mean")

# Exact enumeration holds 2^n statistics at once: 2^20 floats are 8 MB.
MAX_EXACT_PAIRS = 20

# Relative tolerance for ties between the null statistics and the observed one,
# as in scipy.stats.permutation_test: differently ordered sums of the same numbers
# may differ in the last bits.
_RTOL = 100 * np.finfo(float).eps


def _test_html(title: str, result, extra: dict | None = None) -> str:
    """A test result as a small table: the statistic, the p-value, the resamples."""
    from evp import _display

    resamples = getattr(result, "n_resamples", None)
    fields = {"statistic": result.statistic, "p-value": result.pvalue,
              **(extra or {}),
              "resamples": "all (exact)" if resamples is None else f"{resamples:,}"}
    if hasattr(result, "alternative"):
        fields["alternative"] = result.alternative
    shown = _display.table({"": list(fields),
                            "value": [_display.number(v) for v in fields.values()]})
    return _display.page(title, [], [shown])


@dataclass(frozen=True, eq=False)
class PermutationTestResult:
    """The result of :func:`paired_permutation_test`.

    Attributes
    ----------
    statistic : float
        The observed mean difference, mean(x − y).
    pvalue : float
    null_distribution : numpy.ndarray
        The statistic under each sign pattern: all :math:`2^n` of them for the
        exact test, `n_resamples` random ones for Monte Carlo.
    n_resamples : int or None
        None for the exact test, else the number of random sign patterns.
    alternative : str
    """

    statistic: float
    pvalue: float
    null_distribution: np.ndarray
    n_resamples: int | None
    alternative: str

    def _repr_html_(self) -> str:
        return _test_html("Paired randomization test (Fisher)", self)


@dataclass(frozen=True, eq=False)
class BootstrapTestResult:
    """The result of :func:`bootstrap_shift_test`.

    Attributes
    ----------
    statistic : float
        The observed mean difference, mean(x − y).
    pvalue : float
    null_distribution : numpy.ndarray, shape (n_resamples,)
        The bootstrap statistics shifted to mean zero.
    n_resamples : int
    alternative : str
    """

    statistic: float
    pvalue: float
    null_distribution: np.ndarray
    n_resamples: int
    alternative: str

    def _repr_html_(self) -> str:
        return _test_html("Bootstrap shift test", self)


def _differences(x, y) -> np.ndarray:
    x = as_scores(x, "x", ndim=(1,))
    y = as_scores(y, "y", ndim=(1,))
    if x.shape != y.shape:
        raise ValueError(
            f"x and y must be paired scores of equal length, got {x.size} and "
            f"{y.size}"
        )
    if x.size < 2:
        raise ValueError(f"x and y must hold at least 2 pairs, got {x.size}")
    return x - y


def _n_resamples(value) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"n_resamples must be a whole number, got {_describe(value)}")
    if value < 1:
        raise ValueError(f"n_resamples must be at least 1, got {value}")
    return int(value)


def _count_extreme(null: np.ndarray, observed: float, alternative: str) -> int:
    """How many null statistics are at least as extreme as `observed`."""
    gamma = abs(observed) * _RTOL
    if alternative == "greater":
        return int(np.count_nonzero(null >= observed - gamma))
    if alternative == "less":
        return int(np.count_nonzero(null <= observed + gamma))
    return int(np.count_nonzero(np.abs(null) >= abs(observed) - gamma))


def paired_permutation_test(
    x, y, *, alternative: str = "two-sided", n_resamples: int | None = None, rng=None
) -> PermutationTestResult:
    r"""Fisher's randomization (sign-flip) test for paired scores.

    With differences :math:`d_i = x_i - y_i` and statistic
    :math:`T = \bar d`, the null hypothesis is that within each pair the two
    scores are exchangeable, so each :math:`d_i` is as likely as
    :math:`-d_i`. The null distribution of T is that of
    :math:`T^* = \frac{1}{n}\sum_i s_i d_i` over the :math:`2^n` equally likely
    sign patterns :math:`s \in \{-1, +1\}^n` (Fisher 1935; Efron and Tibshirani
    1993, ch. 15). The p-value is the share of patterns with

    * ``"greater"``: :math:`T^* \ge T`,
    * ``"less"``: :math:`T^* \le T`,
    * ``"two-sided"``: :math:`|T^*| \ge |T|`.

    Ties are judged with a relative tolerance of 100 machine epsilons, as in
    :func:`scipy.stats.permutation_test`. Since the null distribution is symmetric
    about zero, the two-sided p-value equals scipy's
    ``min(1, 2 * min(p_less, p_greater))``.

    Parameters
    ----------
    x, y : array_like, shape (n,)
        Paired scores of systems A and B (per fold, per query, ...); n ≥ 2.
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        ``"greater"`` tests whether A scores higher than B.
    n_resamples : int, optional
        None (default): enumerate all :math:`2^n` sign patterns exactly; allowed
        for n ≤ 20. Otherwise draw this many random sign patterns and report
        :math:`(c + 1) / (R + 1)` with c of the R patterns at least as extreme,
        counting the observed pattern once (Phipson and Smyth 2010), as
        :func:`scipy.stats.permutation_test` does. Monte Carlo is used whenever
        `n_resamples` is given, even where :math:`2^n` is smaller.
    rng : numpy.random.Generator or int, optional
        Random generator (or seed) for Monte Carlo; unused by the exact test.

    Returns
    -------
    PermutationTestResult

    Raises
    ------
    ValueError
        For x and y of unequal length, fewer than 2 pairs, non-finite scores, an
        unknown `alternative`, `n_resamples` < 1, or the exact test with n > 20.

    Examples
    --------
    >>> res = paired_permutation_test([0.8, 0.7, 0.9], [0.7, 0.5, 0.5],
    ...                               alternative="greater")
    >>> round(res.statistic, 6), res.pvalue
    (0.233333, 0.125)
    """
    d = _differences(x, y)
    alternative = as_choice(alternative, "alternative", ALTERNATIVES)
    n = d.size
    observed = float(d.mean())

    if n_resamples is None:
        if n > MAX_EXACT_PAIRS:
            raise ValueError(
                f"the exact test enumerates 2^n sign patterns and allows at most "
                f"{MAX_EXACT_PAIRS} pairs, got {n}; pass n_resamples (e.g. "
                f"n_resamples=100_000) for a Monte Carlo test"
            )
        # Bit i of the pattern's index sets the sign of d[i]: doubling the table
        # once per pair, the first half takes -d[i] and the second +d[i].
        sums = np.zeros(1)
        for value in d:
            sums = np.concatenate([sums - value, sums + value])
        null = sums / n
        count = _count_extreme(null, observed, alternative)
        pvalue = count / null.size
        return PermutationTestResult(observed, pvalue, null, None, alternative)

    n_resamples = _n_resamples(n_resamples)
    rng = np.random.default_rng(rng)
    parts = []
    for part in chunks(n_resamples, n):  # (R, n) signs, in pieces
        signs = 2.0 * rng.integers(0, 2, size=(part.stop - part.start, n)) - 1.0
        parts.append(signs @ d / n)
    null = np.concatenate(parts)
    count = _count_extreme(null, observed, alternative)
    pvalue = (count + 1) / (n_resamples + 1)
    return PermutationTestResult(observed, pvalue, null, n_resamples, alternative)


def bootstrap_shift_test(
    x,
    y,
    *,
    alternative: str = "two-sided",
    n_resamples: int = 100_000,
    rng=None,
    shift: str = "observed",
) -> BootstrapTestResult:
    r"""The paired bootstrap test, with the bootstrap distribution shifted to zero.

    Resample the n pairs with replacement R times and compute
    :math:`T^*_r = \bar d^*_r`, the mean difference of each resample. Their
    distribution approximates that of T around the true mean difference; shifted
    to mean zero it approximates the null distribution (Efron and Tibshirani
    1993, §16.4). With :math:`Z_r = T^*_r - c` the p-value is the share of
    resamples with

    * ``"greater"``: :math:`Z_r \ge T`,
    * ``"less"``: :math:`Z_r \le T`,
    * ``"two-sided"``: :math:`|Z_r| \ge |T|`,

    ties judged with a relative tolerance of 100 machine epsilons, reported as
    :math:`(c + 1)/(R + 1)` with c of the R resamples that extreme: evp's one
    convention for Monte Carlo p-values (see the module docstring).

    The shift c:

    * ``"observed"`` (default): :math:`c = T`, the observed statistic. This is the
      mean of the bootstrap distribution as R → ∞ (the mean of the resampled
      means is the sample mean), so it is the limit of "subtract the average of
      :math:`T^*`". For ``"greater"`` it is the test of Berg-Kirkpatrick et al.
      (2012): :math:`T^*_r \ge 2T`.
    * ``"mean"``: :math:`c = \frac{1}{R}\sum_r T^*_r`, the literal Monte-Carlo
      average. With lattice-valued scores (accuracies over a fixed test set,
      ranks, 0/1 per query) the :math:`T^*_r` lie on a lattice and many equal
      the cut-off exactly. Subtracting the Monte-Carlo average moves the cut-off
      off the lattice by a small random amount, so one of the boundary lattice
      points (:math:`T^* = 2T` or :math:`T^* = 0` in the two-sided test) leaves
      the tail, which one depending on the seed: p comes out too small by about
      one lattice point's mass and jumps between values from seed to seed (0.126
      instead of 0.153 on 569 per-example 0/1 differences in the classroom
      notebook ``significance_tests``). ``"observed"`` keeps the cut-off on the
      lattice.

    Unlike the permutation test, the bootstrap test is only approximate, and for
    few pairs it rejects too often: the bootstrap distribution has the plug-in
    variance :math:`\hat\sigma^2 (n-1)/n` over n and normal rather than
    Student-t tails. In simulations of null data with normal differences, the
    two-sided test at level 0.05 rejected about 9–10 % of datasets of 10 pairs,
    6 % of 30 pairs and 5.5 % of 50 pairs. For a handful of folds prefer
    :func:`paired_permutation_test`.

    Parameters
    ----------
    x, y : array_like, shape (n,)
        Paired scores of systems A and B; n ≥ 2.
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        ``"greater"`` tests whether A scores higher than B.
    n_resamples : int, default 100_000
        Number R of bootstrap resamples, at least 1.
    rng : numpy.random.Generator or int, optional
        Random generator (or seed); default a fresh, unseeded generator.
    shift : {"observed", "mean"}, default "observed"
        What to subtract from the bootstrap statistics, see above.

    Returns
    -------
    BootstrapTestResult

    Raises
    ------
    ValueError
        For x and y of unequal length, fewer than 2 pairs, non-finite scores, an
        unknown `alternative` or `shift`, or `n_resamples` < 1.
    """
    d = _differences(x, y)
    alternative = as_choice(alternative, "alternative", ALTERNATIVES)
    shift = as_choice(shift, "shift", SHIFTS)
    n_resamples = _n_resamples(n_resamples)
    rng = np.random.default_rng(rng)
    n = d.size
    observed = float(d.mean())

    parts = []
    for part in chunks(n_resamples, n):  # (R, n) resampled indices, in pieces
        index = rng.integers(0, n, size=(part.stop - part.start, n))
        parts.append(d[index].mean(axis=1))
    boot = np.concatenate(parts)
    centre = observed if shift == "observed" else float(boot.mean())
    null = boot - centre
    pvalue = (_count_extreme(null, observed, alternative) + 1) / (n_resamples + 1)
    return BootstrapTestResult(observed, pvalue, null, n_resamples, alternative)


# ------------------------------------------------------------ exchangeability


@dataclass(frozen=True, eq=False)
class ExchangeabilityTestResult:
    """The result of :func:`exchangeability_test`.

    Attributes
    ----------
    statistic : float
        T = ``max(|trend|, narrowing)`` of the trials in their order.
    pvalue : float
        (c + 1)/(R + 1), c of the R permuted orders with a statistic at least T.
    null_distribution : numpy.ndarray, shape (n_resamples,)
        T of each permuted order.
    trend : float
        Spearman's correlation of the score with the trial number: positive when
        later trials score higher.
    narrowing : float
        Minus the correlation of the trial number with the rank distance between
        consecutive trials: positive when consecutive trials grow more alike.
    n_resamples : int
    """

    statistic: float
    pvalue: float
    null_distribution: np.ndarray
    trend: float
    narrowing: float
    n_resamples: int

    def _repr_html_(self) -> str:
        return _test_html("Exchangeability of the trial order", self,
                          {"trend": self.trend, "narrowing": self.narrowing})


def _order_statistics_of(ranks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(trend, narrowing) of each row of `ranks` (R, N): the trial orders."""
    n = ranks.shape[1]
    steps = np.arange(n, dtype=float)
    steps -= steps.mean()
    centred = ranks - ranks.mean(axis=1, keepdims=True)
    spread = np.sqrt((centred**2).sum(axis=1)) * np.sqrt((steps**2).sum())
    with np.errstate(invalid="ignore", divide="ignore"):
        trend = np.where(spread > 0, centred @ steps / spread, 0.0)
    jumps = np.abs(np.diff(ranks, axis=1))
    later = np.arange(n - 1, dtype=float)
    later -= later.mean()
    jumps -= jumps.mean(axis=1, keepdims=True)
    scale = np.sqrt((jumps**2).sum(axis=1)) * np.sqrt((later**2).sum())
    with np.errstate(invalid="ignore", divide="ignore"):
        narrowing = np.where(scale > 0, -(jumps @ later) / scale, 0.0)
    return trend, narrowing


def exchangeability_test(scores, *, n_resamples: int = 9_999,
                         rng=None) -> ExchangeabilityTestResult:
    r"""Test whether a search's trials, in the order they ran, are exchangeable.

    Every tuning curve, band and verdict of evp assumes the rounds are
    independent draws from one distribution, as in random search (Lourie, Cho
    and He 2024, Limitations). Independent, identically distributed trials are
    exchangeable: every order of them is equally likely. Adaptive tuners (TPE,
    Bayesian optimisation, evolutionary search, schedulers that stop trials
    early) are not: their later trials score higher and lie closer together.

    With :math:`r_i` the rank of trial i's score (ties averaged; failed rounds,
    scored :math:`-\infty`, rank lowest), the statistic is

    .. math::

        T = \max\bigl(|\rho(i, r_i)|,\; -\rho(i, |r_{i+1} - r_i|)\bigr),

    the larger of the trend (Spearman's correlation of the score with the trial
    number, either way) and the narrowing (minus the correlation of the trial
    number with the rank distance between consecutive trials). Its null
    distribution is that of T over random orders of the same scores, so under
    exchangeability the test is exact for any sample size and any score
    distribution, ties and failures included: it rejects at level α at most a
    fraction α of the time. With c of the R random orders at least as extreme,
    :math:`p = (c + 1)/(R + 1)` (Phipson and Smyth 2010).

    Parameters
    ----------
    scores : array_like, shape (N,)
        One search's scores in trial order, oriented so that higher is better (a
        loss negated); failed rounds as ``-inf``. N ≥ 3.
    n_resamples : int, default 9999
        Random orders R.
    rng : numpy.random.Generator or int, optional

    Returns
    -------
    ExchangeabilityTestResult

    Raises
    ------
    ValueError
        Fewer than 3 scores, NaN or ``+inf`` scores, or `n_resamples` < 1.

    Examples
    --------
    >>> rising = np.linspace(0.5, 0.9, 40)
    >>> exchangeability_test(rising, rng=0).pvalue < 0.001
    True
    """
    from scipy.stats import rankdata

    try:
        x = np.asarray(scores, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"scores must be numeric, got {_describe(scores)}") from None
    if x.ndim != 1:
        raise ValueError(f"scores must be 1-D (one search in trial order), got "
                         f"shape {x.shape}")
    if x.size < 3:
        raise ValueError(f"scores: the test needs at least 3 trials in order, got "
                         f"{x.size}")
    if np.isnan(x).any() or (x == np.inf).any():
        raise ValueError("scores must not hold NaN or +inf (a failed round is -inf, "
                         "worse than every score)")
    n_resamples = _n_resamples(n_resamples)
    rng = np.random.default_rng(rng)
    ranks = rankdata(x)
    trend, narrowing = (float(v[0]) for v in _order_statistics_of(ranks[None, :]))
    observed = max(abs(trend), narrowing)
    parts = []
    for part in chunks(n_resamples, x.size):
        orders = rng.permuted(np.broadcast_to(ranks, (part.stop - part.start,
                                                      x.size)), axis=1)
        t, nar = _order_statistics_of(orders)
        parts.append(np.maximum(np.abs(t), nar))
    null = np.concatenate(parts)
    count = int(np.count_nonzero(null >= observed - abs(observed) * _RTOL))
    pvalue = (count + 1) / (n_resamples + 1)
    return ExchangeabilityTestResult(observed, pvalue, null, trend, narrowing,
                                     n_resamples)
