r"""Simultaneous confidence bands for CDFs and tuning curves, and a verdict from them.

Let :math:`Y_{(1)} < \dots < Y_{(n)}` be the sorted scores of n i.i.d. rounds of
random search from a continuous distribution F. Then :math:`F(Y_{(i)})` are the
order statistics of n uniforms, whatever F is. A *CDF band* (:func:`cdf_band`) is
a pair of sequences :math:`l_i \le u_i` with

.. math::

    P\bigl(l_i \le F(Y_{(i)}) \le u_i \text{ for all } i\bigr) = \text{confidence},

a statement about uniform order statistics only, hence distribution-free (Lourie,
Cho and He 2024). Four constructions are offered, with the names opda uses: DKW
(conservative), KS, and the Learned-Miller–DeStefano equal-tailed and
highest-density bands (exact, narrow at the extremes where tuning curves live).
The simultaneous probability is computed exactly (:func:`band_coverage`), so the
bands have no Monte Carlo error.

Every tuning curve is a monotone functional of F, so plugging in the band's upper
CDF bound gives the curve's lower bound and vice versa, for all budgets at once
(:func:`tuning_curve_band`; their §3). :func:`evp.compare` (in
:mod:`evp.comparison`) reads two such bands, or the sharper bounds built there
for the budgets a verdict reads, as evidence that one model beats another
(their §2).

Assumptions: the rounds are i.i.d. draws (random search with a fixed search
distribution) from a continuous score distribution. With ties the KS and LD bands
no longer have exact coverage, and a RuntimeWarning says so; DKW holds for any
distribution.

References
----------
Lourie, Cho and He (2024). Show Your Work with Confidence: Confidence Bands for
Tuning Curves. NAACL. arXiv:2311.09480.
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from dataclasses import dataclass

import numpy as np

from evp._order_statistics import band_bounds, band_coverage
from evp._step_cdf import (
    best_of_level,
    empirical,
    first_reaching,
    mean_of_best,
    quantile_of_best,
)
from evp._validation import (
    TiesWarning,
    as_bool,
    as_bounds,
    as_choice,
    as_ns,
    as_probability,
    as_scores,
)
from evp.estimators import _curve

__all__ = [
    "METHODS",
    "CDFBand",
    "TuningCurveBand",
    "band_coverage",
    "bounded_budget",
    "cdf_band",
    "rounds_needed",
    "tuning_curve_band",
]

METHODS = ("dkw", "ks", "ld_equal_tailed", "ld_highest_density")
STATISTICS = ("median", "mean")


@dataclass(frozen=True, eq=False)
class CDFBand:
    r"""A simultaneous confidence band for the CDF at the order statistics.

    Attributes
    ----------
    lower, upper : numpy.ndarray, shape (n,)
        A step envelope of the true CDF F: :math:`l_i \le F(Y_{(i)})` and
        :math:`F(Y_{(i)}-) \le u_i` (F just below the i-th smallest score,
        the chance of a score below it) for all i at once, with probability
        `confidence` for a continuous F (at least `confidence` for ``"dkw"``),
        and at least `confidence` for any F, ties included. For a continuous F
        the two sides are one, :math:`l_i \le F(Y_{(i)}) \le u_i`; with ties
        that pointwise reading fails (F at a tied score may pass the upper
        bound: it is the step before the score that the upper bound holds).
        Read-only: they depend only on n, the confidence and the method, and
        are cached.
    scores : numpy.ndarray, shape (n,) or (S, n)
        The scores, sorted (each row for 2-D input).
    confidence : float
    method : str
    level : float or None
        For the LD methods, the pointwise level γ of each Beta interval.
    epsilon : float or None
        For ``"dkw"`` and ``"ks"``, the half-width ε.
    """

    lower: np.ndarray
    upper: np.ndarray
    scores: np.ndarray
    confidence: float
    method: str
    level: float | None = None
    epsilon: float | None = None

    @property
    def n(self) -> int:
        """The sample size."""
        return self.lower.shape[0]

    def __repr__(self) -> str:
        detail = (f"level={self.level:.6g}" if self.level is not None
                  else f"epsilon={self.epsilon:.4g}")
        return (f"CDFBand(n={self.n}{_samples(self.scores)}, confidence="
                f"{self.confidence:g}, method={self.method!r}, {detail})")

    def _repr_html_(self) -> str:
        from evp import _display

        title = (f"{self.confidence:.0%} {_display.method_name(self.method)} band "
                 f"for the CDF, n = {self.n}")
        if self.scores.ndim != 1:
            return _display.page(title, [repr(self)])
        ecdf = np.arange(1, self.n + 1) / self.n
        rows = _display.spread_rows(self.n)
        shown = _display.table({"score": self.scores[rows], "lower": self.lower[rows],
                                "ECDF": ecdf[rows], "upper": self.upper[rows]})
        figure = _display.band_figure(self.scores, [("CDF", self.lower, ecdf,
                                                     self.upper)],
                                      log_x=False, x_label="score", steps=True)
        detail = (f"pointwise level {self.level:.4g}" if self.level is not None
                  else f"half-width ε = {self.epsilon:.4g}")
        return _display.page(title, [f"simultaneous at the order statistics; "
                                     f"{detail}"], [shown, figure])


def _samples(array: np.ndarray) -> str:
    return f", {array.shape[0]} samples" if array.ndim == 2 else ""


def _warn_if_ties(method: str, **samples: np.ndarray) -> None:
    """One :class:`evp.TiesWarning` naming the samples with ties, shown at the
    user's call."""
    tied = [name for name, x in samples.items() if (np.diff(x, axis=-1) == 0).any()]
    if tied and method != "dkw":
        which = "" if tied == ["scores"] else f" (in {' and '.join(tied)})"
        warnings.warn(
            f"scores contain ties{which}. With ties the {method!r} CDF band "
            "holds with at least the stated confidence (exactly only for "
            "continuous scores), and only as a step envelope: lower ≤ F(score) "
            "and F(just below the score) ≤ upper; at a tied score the true CDF "
            "may pass the upper bound (so do not read the CDF band pointwise "
            "there, whatever the method). Tuning-curve bands and verdicts need "
            "only the envelope: they hold at the stated confidence or above.",
            TiesWarning, stacklevel=3)


def _cdf_band(x: np.ndarray, confidence: float, method: str) -> CDFBand:
    """The band for sorted scores x, with checked options."""
    lower, upper, level, epsilon = band_bounds(x.shape[-1], confidence, method)
    return CDFBand(lower=lower, upper=upper, scores=x, confidence=confidence,
                   method=method, level=level, epsilon=epsilon)


def cdf_band(scores, confidence: float = 0.8, *, method: str = "ld_highest_density"):
    r"""Simultaneous confidence band for the score distribution's CDF.

    Bounds the true CDF F at the i-th smallest score :math:`Y_{(i)}`, for every
    i at once, as a step envelope: :math:`P(l_i \le F(Y_{(i)}) \text{ and }
    F(Y_{(i)}-) \le u_i \ \forall i) \ge` confidence for any F, where
    :math:`F(y-)` is the chance of a score below y; equality for a continuous F
    (LD and KS methods). For a continuous F, :math:`F(Y_{(i)}-) = F(Y_{(i)})`
    and this is the pointwise reading :math:`l_i \le F(Y_{(i)}) \le u_i`.
    With ties it is not: at a tied score F jumps, and F there may pass
    :math:`u_i` (on tied grids the pointwise reading's coverage can fall near
    0, DKW's too), while the envelope still holds. The tuning-curve bands and
    verdicts built on the band (:func:`tuning_curve_band`, :func:`evp.compare`)
    need only the envelope, so they keep at least the stated confidence with
    ties.

    Parameters
    ----------
    scores : array_like, shape (n,) or (S, n)
        Scores of n i.i.d. rounds of random search; a 2-D array holds one sample
        per row (the bounds depend only on n, so they are shared).
    confidence : float in (0, 1), default 0.8
        The probability that every bound holds at once.
    method : {"ld_highest_density", "ld_equal_tailed", "ks", "dkw"}
        Default "ld_highest_density".

        * ``"dkw"``: :math:`l_i = i/n - \varepsilon`, :math:`u_i = (i-1)/n +
          \varepsilon`, clipped to [0, 1], with :math:`\varepsilon =
          \sqrt{\log(2/(1-c))/(2n)}` (Dvoretzky–Kiefer–Wolfowitz with Massart's
          constant). Coverage at least c, for any distribution.
        * ``"ks"``: the same with :math:`\varepsilon` the c-quantile of the
          Kolmogorov–Smirnov statistic, ``scipy.stats.kstwo(n).ppf(c)``. Exact
          (scipy computes this distribution exactly up to n = 140 and to within
          about 1e-6 beyond).
        * ``"ld_equal_tailed"``, ``"ld_highest_density"``: :math:`[l_i, u_i]` is
          the equal-tailed or highest-density interval of level :math:`\gamma`
          of :math:`\mathrm{Beta}(i, n + 1 - i)`, the distribution of
          :math:`F(Y_{(i)})`, with :math:`\gamma` chosen so that all n intervals
          hold simultaneously with probability exactly c (Learned-Miller and
          DeStefano 2008). The highest-density band is the narrowest; both are
          tight at the extremes, where tuning curves live.

    Returns
    -------
    CDFBand
        The bounds, the sorted scores and the options (see its attributes).

    Warns
    -----
    RuntimeWarning
        When the scores have ties and the method is not ``"dkw"``: the band then
        holds as a step envelope only, with at least (not exactly) the stated
        confidence.

    Notes
    -----
    :math:`F(Y_{(i)})` are the order statistics of n uniforms for any continuous
    F, so the band is distribution-free. Its coverage is the boundary-crossing
    probability computed exactly by :func:`band_coverage`; for the LD methods
    :math:`\gamma` solves coverage(γ) = c by secant steps on
    :math:`\log(1-\gamma)`, to about 1e-10 in coverage, without simulation. The
    solved bounds are cached per (n, confidence, method). opda 0.8.0 estimates
    γ from 100,000 simulated samples instead (about ±10% error in 1 − c).

    References
    ----------
    Lourie, Cho and He (2024). Show Your Work with Confidence: Confidence Bands for
    Tuning Curves. NAACL.

    Learned-Miller and DeStefano (2008). A Probabilistic Upper Bound on
    Differential Entropy. IEEE Transactions on Information Theory 54(11).

    Moscovich and Nadler (2017). Fast calculation of boundary crossing
    probabilities for Poisson processes. Statistics & Probability Letters 123.

    Massart (1990). The tight constant in the Dvoretzky–Kiefer–Wolfowitz
    inequality. Annals of Probability 18(3).

    Examples
    --------
    >>> import evp
    >>> band = evp.cdf_band([0.1, 0.8, 0.5, 0.4, 0.6], 0.8, method="dkw")
    >>> band.lower.round(2)
    array([0.  , 0.  , 0.12, 0.32, 0.52])
    >>> band.upper.round(2)
    array([0.48, 0.68, 0.88, 1.  , 1.  ])
    """
    x = as_scores(scores, sort=True)
    confidence = as_probability(confidence, "confidence")
    method = as_choice(method, "method", METHODS)
    _warn_if_ties(method, scores=x)
    return _cdf_band(x, confidence, method)


@dataclass(frozen=True, eq=False)
class TuningCurveBand:
    """A simultaneous confidence band for a tuning curve, with its point estimate.

    Attributes
    ----------
    ns : numpy.ndarray, shape (N,)
        The budgets k (rounds of search).
    lower, estimate, upper : numpy.ndarray, shape (N,) or (S, N)
        The band and the empirical curve at each k. Vacuous ends are the bounds
        a or b, or -inf/+inf without bounds.
    confidence, method, statistic, minimize
        As passed (checked).
    q : float or None
        The quantile (0.5 for the median); None for the mean.
    bounds : tuple of float
        (a, b), with -inf/+inf for an absent bound.
    cdf : CDFBand
        The CDF band the curves come from (with ``construction="budgets"``, the
        band a figure of the same rounds would draw).
    construction : str
        "band": the edges hold at every budget at once (from the CDF band);
        "top_band": the same, from a CDF band exact over the order statistics
        a quantile curve reads; "budgets": exact intervals at these budgets
        only, holding at all of them at once with probability at least
        `confidence` (see :func:`evp.compare`).
    """

    ns: np.ndarray
    lower: np.ndarray
    estimate: np.ndarray
    upper: np.ndarray
    confidence: float
    method: str
    statistic: str
    q: float | None
    bounds: tuple[float, float]
    minimize: bool
    cdf: CDFBand
    construction: str = "band"

    def _curve(self) -> str:
        """The curve's name: mean, median or the q-quantile."""
        return "mean" if self.q is None else "median" if self.q == 0.5 else (
            f"{self.q:g}-quantile")

    def __repr__(self) -> str:
        curve = self._curve()
        return (f"TuningCurveBand({curve}, {self.ns.size} budgets from "
                f"{self.ns[0]:g} to {self.ns[-1]:g}{_samples(self.estimate)}, n="
                f"{self.cdf.n}, confidence={self.confidence:g}, method="
                f"{self.method!r}{', minimize' if self.minimize else ''})")

    def _repr_html_(self) -> str:
        from evp import _display

        curve = self._curve()
        method = _display.method_name(self.method)
        title = (f"{self.confidence:.0%} {method} band for the {curve} tuning "
                 f"curve, n = {self.cdf.n}")
        lines = [f"{self.ns.size} budgets from {self.ns[0]:g} to {self.ns[-1]:g}"
                 + ("; a loss: lower is better" if self.minimize else "")]
        if self.estimate.ndim != 1:
            return _display.page(title, [repr(self)])
        rows = _display.spread_rows(self.ns.size)
        shown = _display.table({"n": self.ns[rows], "lower": self.lower[rows],
                                curve: self.estimate[rows],
                                "upper": self.upper[rows]})
        figure = _display.band_figure(self.ns, [(curve, self.lower, self.estimate,
                                                 self.upper)])
        return _display.page(title, lines, [shown, figure])


def tuning_curve_band(
    scores,
    ns,
    confidence: float = 0.8,
    *,
    method: str = "ld_highest_density",
    statistic: str = "median",
    q: float = 0.5,
    bounds=(None, None),
    minimize: bool = False,
):
    r"""Simultaneous confidence band for the median (quantile) or mean tuning curve.

    The tuning curve at budget k is a statistic of the best score of k i.i.d.
    rounds, whose CDF is :math:`F^k` (maximising). This function bounds it for all
    k at once, from a CDF band (:func:`cdf_band`), with the same confidence
    (Lourie, Cho and He 2024, §3).

    Parameters
    ----------
    scores : array_like, shape (n,) or (S, n)
        Validation scores of n rounds of random search; a 2-D array holds one
        independent sample per row.
    ns : float or sequence of float
        Budgets k ≥ 1; k may be real.
    confidence : float in (0, 1), default 0.8
        The probability that the band holds at every k at once.
    method : {"ld_highest_density", "ld_equal_tailed", "ks", "dkw"}
        The CDF band, default "ld_highest_density"; see :func:`cdf_band`.
    statistic : {"median", "mean"}, default "median"
        "median" gives the q-quantile tuning curve (q = 0.5 by default);
        "mean" the expected best score, which needs finite `bounds`.
    q : float in [0, 1], default 0.5
        The quantile for ``statistic="median"``.
    bounds : pair of float or None, default (None, None)
        (a, b), known bounds on the scores (e.g. (0, 1) for accuracy); they must
        contain the data. The band's distributions put their leftover mass at a
        and b.
    minimize : bool, default False
        Scores are losses: the best of k is the minimum.

    Returns
    -------
    TuningCurveBand
        The band, the estimate, the CDF band and the options (see its attributes).

    Notes
    -----
    The band's two distribution functions live on the points
    :math:`a, Y_{(1)}, \dots, Y_{(n)}, b`, with :math:`l_i, u_i` the CDF band:

    * lower CDF bound :math:`G_-`: :math:`G_-(a) = 0`, :math:`G_-(Y_{(i)}) = l_i`,
      :math:`G_-(b) = 1`;
    * upper CDF bound :math:`G_+`: :math:`G_+(a) = u_1`,
      :math:`G_+(Y_{(i)}) = u_{i+1}` (for x in :math:`[Y_{(i)}, Y_{(i+1)})`,
      :math:`F(x) \le F(Y_{(i+1)}) \le u_{i+1}`), :math:`G_+(Y_{(n)}) = 1`.

    Then :math:`G_- \le F \le G_+` everywhere whenever the CDF band holds. Every
    statistic here is monotone in F, so :math:`G_+` (more mass on low scores)
    gives the curve's *lower* bound and :math:`G_-` the upper one:

    * median (q-quantile): :math:`\min\{x : G(x) \ge q^{1/k}\}`; for losses
      :math:`\min\{x : G(x) \ge 1 - (1-q)^{1/k}\}`. Where the band is vacuous
      the result is a or b (±inf when absent). The estimate is
      :func:`evp.quantile_tuning_curve`.
    * mean: :math:`\sum_j x_j \, (G(x_j)^k - G(x_{j-1})^k)`; for losses
      :math:`\sum_j x_j \, ((1 - G(x_{j-1}))^k - (1 - G(x_j))^k)`. :math:`G_+`
      puts mass :math:`u_1 > 0` at a and :math:`G_-` puts :math:`1 - l_n > 0` at
      b, so without finite bounds the band would be :math:`(-\infty, \infty)`
      (§5.4). The mean band is conservative and wide; prefer the median. The
      estimate is the same sum under the empirical CDF (the V estimator of Dodge
      et al. 2019 for whole k).

    Since the curve band is implied by the CDF band, its simultaneous coverage is
    at least the CDF band's (exact for continuous scores, i.i.d. rounds). opda
    0.8.0 computes the same bands with simulation error.

    References
    ----------
    Lourie, Cho and He (2024). Show Your Work with Confidence: Confidence Bands for
    Tuning Curves. NAACL.

    Examples
    --------
    >>> import numpy as np, evp
    >>> scores = np.random.default_rng(0).uniform(size=48)
    >>> band = evp.tuning_curve_band(scores, [1, 2, 4, 8])
    >>> bool(np.all((band.lower <= band.estimate) & (band.estimate <= band.upper)))
    True
    """
    x = as_scores(scores, sort=True)
    k, options = _curve_band_iv(ns, confidence, method, statistic, q, bounds,
                                minimize, x)
    _warn_if_ties(options["method"], scores=x)
    return _curve_band(x, k, **options)


#: rounds_needed searches no further: the LD bands cost seconds to build there.
MAX_ROUNDS = 1_000_000


def _bounded_at(n: int, levels: np.ndarray, confidence: float, method: str,
                minimize: bool) -> np.ndarray:
    """Whether the q-quantile curve band from n rounds has an informative best-side
    edge at the budgets whose CDF levels are `levels`, decided exactly as
    :func:`_curve_band` decides it: the upper edge (maximising) is the bound b
    unless the lower CDF bound reaches the level below b; the lower edge
    (minimising) is a unless the upper CDF bound at a stays under it."""
    lower, upper, _, _ = band_bounds(n, confidence, method)
    if minimize:
        return first_reaching(np.concatenate((upper, [1.0, 1.0])), levels) > 0
    return first_reaching(np.concatenate(([0.0], lower, [1.0])), levels) <= n


def rounds_needed(k, confidence: float = 0.8, *, method: str = "ld_highest_density",
                  q: float = 0.5, minimize: bool = False):
    r"""The fewest rounds of random search whose median tuning-curve band says
    something at budget k.

    With n rounds, the upper edge of the median tuning-curve band at budget k
    (:func:`tuning_curve_band`) is the score where the band's lower CDF bound
    :math:`G_-` reaches :math:`q^{1/k}`; :math:`G_-` tops out at :math:`l_n`, the
    lower CDF bound at the largest score, so the edge is the vacuous bound
    (:math:`b`, or :math:`+\infty`) unless :math:`l_n \ge q^{1/k}`. This returns
    the least such n. It depends only on k, the confidence and the method, not
    on any scores (the bands are distribution-free), and is computed exactly from
    the band's construction, with no simulation: the inverse of the sample-size
    rule of Lourie, Cho and He (2024, §5.5, about 6.25 k rounds at 80%).

    For losses (``minimize=True``) it is the *lower* edge that must be
    informative: :math:`u_1 < 1 - (1-q)^{1/k}`. The bands here are symmetric
    (:math:`u_1 = 1 - l_n`), so the count is the same.

    Parameters
    ----------
    k : float or array_like of float
        Budgets, > 0 (real budgets allowed, as in the bands).
    confidence : float in (0, 1), default 0.8
    method : {"ld_highest_density", "ld_equal_tailed", "ks", "dkw"}
    q : float in (0, 1), default 0.5
        The quantile tuning curve (0.5: the median).
    minimize : bool, default False

    Returns
    -------
    int or numpy.ndarray of int
        For each k, the least n such that the band from n rounds is informative
        at k; with n − 1 rounds it is not.

    Examples
    --------
    >>> import evp
    >>> int(evp.rounds_needed(1)), int(evp.rounds_needed(8))
    (4, 47)
    >>> evp.rounds_needed([1, 8, 64], method="dkw").tolist()
    [5, 168, 9922]
    """
    k_array, scalar = as_ns(k, "k", integer=False)
    confidence = as_probability(confidence, "confidence")
    method = as_choice(method, "method", METHODS)
    q = as_probability(q, "q")
    minimize = as_bool(minimize, "minimize")
    levels = best_of_level(q, k_array, minimize)
    # The CDF level the best-side bound must pass, as a tail probability: the
    # largest score's lower bound l_n must reach it (maximising), or the
    # smallest's upper bound u_1 must stay under 1 minus it (minimising).
    tails = 1.0 - levels if minimize else levels
    # A floor from the band's coverage alone: P(l_n <= U_(n)) >= confidence with
    # U_(n) ~ Beta(n, 1) gives l_n <= (1 - confidence)^(1/n), and likewise for u_1,
    # so no band from fewer than log(1 - confidence) / log(tail) rounds can do it.
    floors = np.floor(np.log1p(-confidence) / np.log(tails))
    order = np.argsort(tails, kind="stable")  # easiest budgets first
    needed = np.empty(k_array.size, dtype=int)
    low = 1  # the answer for a harder budget is at least that of an easier one
    for index in order:
        if floors[index] > MAX_ROUNDS:
            raise ValueError(
                f"k={k_array[index]:g}: more than {MAX_ROUNDS:,} rounds would be "
                f"needed at confidence={confidence:g}; ask about smaller budgets")
        level = levels[index : index + 1]

        def bounded(n, level=level):
            return bool(_bounded_at(n, level, confidence, method, minimize)[0])

        low = high = max(low, int(floors[index]), 1)
        while not bounded(high):  # double until informative ...
            low, high = high + 1, 2 * high
            if high > 2 * MAX_ROUNDS:
                raise ValueError(
                    f"k={k_array[index]:g}: more than {MAX_ROUNDS:,} rounds would be "
                    f"needed at confidence={confidence:g}; ask about smaller budgets")
        while low < high:  # ... then bisect: the band's reach grows with n
            middle = (low + high) // 2
            if bounded(middle):
                high = middle
            else:
                low = middle + 1
        needed[index] = low
    return int(needed[0]) if scalar else needed


def bounded_budget(n: int, confidence: float = 0.8, *,
                   method: str = "ld_highest_density") -> int:
    """The largest whole budget at which the median tuning-curve band from `n`
    rounds is informative (0 if none): the inverse of :func:`rounds_needed`,
    ``rounds_needed(k) <= n`` exactly for k up to it.

    >>> import evp
    >>> evp.bounded_budget(48), evp.rounds_needed(8), evp.rounds_needed(9)
    (8, 47, 54)
    """
    if not (isinstance(n, (int, np.integer)) and n >= 1):
        raise ValueError(f"n must be a whole number of rounds ≥ 1, got {n!r}")
    confidence = as_probability(confidence, "confidence")
    method = as_choice(method, "method", METHODS)
    top = band_bounds(int(n), confidence, method)[0][-1]  # l_n
    if top <= 0.5:
        return 0
    # l_n >= 0.5^(1/k) <=> k <= log 0.5 / log l_n; then settle the rounding
    # exactly as the band does.
    k = max(int(math.log(0.5) / math.log(top)), 1)
    while k > 1 and rounds_needed(k, confidence, method=method) > n:
        k -= 1
    while rounds_needed(k + 1, confidence, method=method) <= n:
        k += 1
    return k if rounds_needed(k, confidence, method=method) <= n else 0


def _curve_band_iv(ns, confidence, method, statistic, q, bounds, minimize, *samples):
    """Budgets and checked options of tuning-curve bands of the sorted samples."""
    k, _ = as_ns(ns, integer=False)
    statistic = as_choice(statistic, "statistic", STATISTICS)
    a, b = as_bounds(bounds, min(x[..., 0].min() for x in samples),
                     max(x[..., -1].max() for x in samples))
    if statistic == "mean" and not (math.isfinite(a) and math.isfinite(b)):
        raise ValueError(
            f"bounds must be finite for statistic='mean', got bounds={bounds!r}: "
            "without them the mean band is (-inf, +inf) (Lourie, Cho and He 2024, "
            "§5.4). Pass the metric's range, e.g. bounds=(0, 1) for accuracy, or "
            "use statistic='median'.")
    return k, dict(
        confidence=as_probability(confidence, "confidence"),
        method=as_choice(method, "method", METHODS), statistic=statistic,
        q=as_probability(q, "q", closed=True), bounds=(a, b),
        minimize=as_bool(minimize, "minimize"),
    )


def _mirrored(bound, x, k, options: dict) -> TuningCurveBand:
    """A loss's curve and edges as minus those of the negated losses.

    The best of k losses is minus the best of k negated ones, so one
    orientation serves both directions: negating the scores and flipping the
    direction negates every curve and edge exactly (with an even number of
    rounds too, where the two quantile conventions would otherwise pick
    neighbouring order statistics), and every verdict stays the same. The
    q-quantile of the best loss is minus the (1 − q)-quantile of the best
    negated one: the same for the median. `bound` is the maximising builder,
    called with the options given."""
    a, b = options["bounds"]
    flipped = bound(-x[..., ::-1], k, **{
        **options, "bounds": (-b, -a), "minimize": False,
        "q": 1.0 - options["q"] if options.get("q") is not None else None})
    cdf = flipped.cdf
    return dataclasses.replace(
        flipped, lower=-flipped.upper, estimate=-flipped.estimate,
        upper=-flipped.lower, bounds=(a, b), minimize=True,
        q=options["q"] if flipped.q is not None else None,
        cdf=dataclasses.replace(cdf, lower=1.0 - cdf.upper[::-1],
                                upper=1.0 - cdf.lower[::-1], scores=x))


def _curve_band(x, k, *, confidence, method, statistic, q, bounds, minimize,
                cdf=None, construction="band"):
    """The band for sorted scores x (rows of samples) and checked options, read
    from the CDF band `cdf` (default: the full band of x; the top band of
    :mod:`evp.comparison` passes its own, with ``construction="top_band"``);
    for losses, from the negated losses (:func:`_mirrored`)."""
    if minimize and cdf is None:
        return _mirrored(_curve_band, x, k, dict(
            confidence=confidence, method=method, statistic=statistic, q=q,
            bounds=bounds, minimize=minimize, construction=construction))
    band = _cdf_band(x, confidence, method) if cdf is None else cdf
    a, b = bounds
    edge = np.ones((*x.shape[:-1], 1))
    points = np.concatenate((a * edge, x, b * edge), axis=-1)
    # The edge distributions of the Notes: G_- and G_+ on a, Y_(1..n), b.
    cdf_low = np.concatenate(([0.0], band.lower, [1.0]))
    cdf_high = np.concatenate((band.upper, [1.0, 1.0]))
    if statistic == "median":
        lower = quantile_of_best(points, cdf_high, k, q, minimize=minimize)
        upper = quantile_of_best(points, cdf_low, k, q, minimize=minimize)
        cdf = empirical(x.shape[-1])[0]
        estimate = quantile_of_best(x, cdf, k, q, minimize=minimize)
    else:
        lower, upper = (mean_of_best(points, cdf, np.diff(cdf, prepend=0.0), k,
                                     minimize=minimize)
                        for cdf in (cdf_high, cdf_low))
        # The V estimator, negating losses as evp.expected_max does.
        estimate = (-_curve(-x[..., ::-1], k, "v") if minimize
                    else _curve(x, k, "v"))
    return TuningCurveBand(
        ns=k, lower=lower, estimate=estimate, upper=upper, confidence=confidence,
        method=method, statistic=statistic, q=q if statistic == "median" else None,
        bounds=bounds, minimize=minimize, cdf=band, construction=construction,
    )
