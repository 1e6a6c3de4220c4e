r"""Tuning curves of adaptive tuners, from repeated runs: exact simultaneous bands.

The tuning curves of :mod:`evp.bands` need the rounds of a search to be
independent draws, as in random search. An adaptive tuner (TPE, Bayesian
optimisation, evolutionary search, Hyperband/ASHA) breaks that: each trial
depends on the ones before. Its curve is still well defined, as the curve of a
*procedure*: the best score the tuner has found after n trials,

.. math::

    B(n) = \max_{t \le n} Y_t ,

a random variable over the tuner's randomness (its seed) and the training noise.
One run gives one trajectory :math:`B(1) \le B(2) \le \dots`; R runs with
independent seeds give R independent trajectories, so at every n the values
:math:`B_1(n), \dots, B_R(n)` are independent draws of :math:`B(n)`. Nothing is
assumed of the tuner.

:func:`anytime_band` bounds the median of :math:`B(n)` (the median best score after
n trials) at every budget asked for, simultaneously. At one budget the bound is
the classical distribution-free interval for a median from order statistics: with
:math:`B_{(1)} \le \dots \le B_{(R)}` and :math:`K \sim \mathrm{Binomial}(R, 1/2)`,

.. math::

    P\bigl(B_{(l)} \le m \le B_{(R+1-l)}\bigr) \ge 1 - 2\,P(K \le l - 1),

for any distribution of :math:`B(n)`, ties included (Hahn and Meeker 1991,
§5.2). Over K budgets the intervals hold together with probability at least
:math:`1 - K\alpha'` (Bonferroni), so each budget gets the rank l whose
:math:`\alpha' = 2P(K \le l - 1) \le (1 - c)/K`. Nothing tighter holds without an
assumption on how the trajectories of a tuner depend on each other across n;
show fewer budgets for narrower bands. Where no rank is small enough (too few
runs for that many budgets), the edges are infinite, drawn open.

:func:`compare_runs` labels budgets with the evidence scale of
:func:`evp.compare` (strong, fair, weak, none; both directions).

References
----------
Hahn and Meeker (1991). Statistical Intervals: A Guide for Practitioners. Wiley.
§5.2, distribution-free confidence intervals for a quantile.

Lourie, Cho and He (2024). Show Your Work with Confidence: Confidence Bands for
Tuning Curves. NAACL. §2 (the evidence scale) and Limitations (random search).

Agarwal, Schwarzer, Castro, Courville and Bellemare (2021). Deep Reinforcement
Learning at the Edge of the Statistical Precipice. NeurIPS (rliable's pointwise
bootstrap intervals across runs, which these bands make simultaneous and exact).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from evp._validation import _describe, as_bool, as_ns, as_probability
from evp.comparison import Comparison, _evidence

__all__ = ["AnytimeBand", "anytime_band", "best_so_far", "compare_runs",
           "median_rank"]


@dataclass(frozen=True, eq=False)
class AnytimeBand:
    """A simultaneous band for the median best-so-far curve of a tuner.

    Attributes
    ----------
    ns : numpy.ndarray, shape (K,)
        The budgets (trials of the tuner).
    lower, estimate, upper : numpy.ndarray, shape (K,)
        The band and the median best score after n trials across the runs (the
        lower median: the ⌈R/2⌉-th of R). ``-inf``/``+inf`` where too few runs
        bound it.
    confidence : float
        The probability, at least, that the band holds at every budget at once.
    pointwise : float
        The confidence of each budget's interval (Bonferroni: 1 − (1 − c)/K,
        or more where the ranks allow it).
    rank : int
        l: the band at n is the l-th lowest and the l-th highest best-so-far
        value of the R runs (0 where the band is unbounded).
    runs : int
        R, the number of runs.
    minimize : bool
    method, statistic : str
        "order statistics, Bonferroni over budgets" and "median", as the plots
        label bands.
    """

    ns: np.ndarray
    lower: np.ndarray
    estimate: np.ndarray
    upper: np.ndarray
    confidence: float
    pointwise: float
    rank: int
    runs: int
    minimize: bool
    method: str = "order statistics, Bonferroni over budgets"
    statistic: str = "median"

    def __repr__(self) -> str:
        edges = (f"rank {self.rank} of {self.runs} runs from each end" if self.rank
                 else f"unbounded: {self.runs} runs are too few")
        return (f"AnytimeBand(median best after n trials, {self.ns.size} budgets "
                f"from {self.ns[0]:g} to {self.ns[-1]:g}, {self.runs} runs, "
                f"confidence={self.confidence:g} together ({edges})"
                f"{', minimize' if self.minimize else ''})")

    def _repr_html_(self) -> str:
        from evp import _display

        rows = _display.spread_rows(self.ns.size)
        shown = _display.table({"n": self.ns[rows], "lower": self.lower[rows],
                                "median": self.estimate[rows],
                                "upper": self.upper[rows]})
        figure = _display.band_figure(self.ns, [("median best so far", self.lower,
                                                 self.estimate, self.upper)])
        return _display.page(
            f"{self.confidence:.0%} band for the median best after n trials, "
            f"{self.runs} runs", [self.method], [shown, figure])


def median_rank(runs: int, alpha: float) -> int:
    """The largest rank l with :math:`2P(\\mathrm{Binomial}(R, 1/2) \\le l - 1) \\le
    \\alpha`, so that the l-th lowest and l-th highest of R draws bound the median
    with confidence at least 1 − α; 0 when even the extremes cannot.

    >>> median_rank(20, 0.05), median_rank(5, 0.05)
    (6, 0)
    """
    from scipy.stats import binom  # `import evp` leaves scipy out

    ls = np.arange(1, runs // 2 + 1)
    ok = 2 * binom.cdf(ls - 1, runs, 0.5) <= alpha
    return int(ls[ok].max()) if ok.any() else 0


def _as_runs(runs, minimize: bool, name: str = "runs") -> np.ndarray:
    """`runs` as an (R, N) float array: NaN only after a run's end; a failed
    trial as the worst value (``-inf``, ``+inf`` for a loss)."""
    try:
        array = np.asarray(runs, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be numeric, got {_describe(runs)}") from None
    if array.ndim != 2:
        raise ValueError(f"{name} must be 2-D, one run per row and its trials in the "
                         f"order they ran, got shape {array.shape}")
    if array.shape[0] < 2:
        raise ValueError(f"{name}: one run is one trajectory; a band needs repeated "
                         f"runs (independent seeds), got {array.shape[0]}")
    missing = np.isnan(array)
    # NaN pads a shorter run after its end: never before a trial.
    inside = missing[:, :-1] & ~missing[:, 1:]
    if inside.any():
        run, trial = (int(i) for i in np.argwhere(inside)[0])
        raise ValueError(f"{name}: run {run} has a missing score at trial {trial + 1} "
                         "before later ones; NaN may only pad a run after its last "
                         "trial (a failed trial is -inf)")
    if missing[:, 0].any():
        run = int(np.flatnonzero(missing[:, 0])[0])
        raise ValueError(f"{name}: run {run} has no trials")
    best = -np.inf if minimize else np.inf
    if (array == best).any():
        what = "loss" if minimize else "score"
        raise ValueError(f"{name} must not hold {best}: a failed trial is {-best} "
                         f"(worse than every {what})")
    return array


def best_so_far(runs, *, minimize: bool = False) -> np.ndarray:
    """Each run's best score after n trials, for every n (NaN after its end).

    >>> best_so_far([[0.2, 0.5, 0.4], [0.6, 0.1, np.nan]])
    array([[0.2, 0.5, 0.5],
           [0.6, 0.6, nan]])
    """
    minimize = as_bool(minimize, "minimize")
    array = _as_runs(runs, minimize)
    oriented = -array if minimize else array
    best = np.fmax.accumulate(np.where(np.isnan(oriented), -np.inf, oriented), axis=1)
    best = np.where(np.isnan(array), np.nan, best)
    return -best if minimize else best


def anytime_band(runs, ns, confidence: float = 0.8, *,
                 minimize: bool = False) -> AnytimeBand:
    r"""A simultaneous band for the median best score after n trials of a tuner.

    Parameters
    ----------
    runs : array_like, shape (R, N)
        R independent runs of the tuner (different seeds), each its N trials'
        scores in the order they ran. A shorter run is padded with NaN after its
        end; a failed trial is the worst value, ``-inf`` (``+inf`` for a loss).
    ns : int or array_like
        Budgets, whole numbers of trials, at most the shortest run's length.
    confidence : float, default 0.8
        The band holds at every budget of `ns` at once with at least this
        probability.
    minimize : bool, default False
        The scores are losses: the best so far is the lowest.

    Returns
    -------
    AnytimeBand

    Assumptions
    -----------
    The runs are independent (separate seeds, nothing shared between them) and
    identically set up. Nothing is assumed of the tuner: it may be adaptive,
    stop trials early, or fail. The band is conservative: at least `confidence`
    (the order-statistic intervals are exact at each budget only for a
    continuous best-so-far distribution; Bonferroni adds the rest).

    Raises
    ------
    ValueError
        Fewer than 2 runs, a NaN before a run's end, the best value infinite
        (``+inf`` for a score), budgets beyond the shortest run, or a confidence
        outside (0, 1).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> band = anytime_band(rng.random((20, 50)), [1, 10, 50])
    >>> bool(np.all(band.lower <= band.estimate)
    ...      and np.all(band.estimate <= band.upper))
    True
    """
    minimize = as_bool(minimize, "minimize")
    array = _as_runs(runs, minimize)
    confidence = as_probability(confidence, "confidence")
    k, _ = as_ns(ns)
    shortest = int((~np.isnan(array)).sum(axis=1).min())
    if k.max() > shortest:
        raise ValueError(f"ns: n = {k.max():g} exceeds the shortest run ({shortest} "
                         f"trials); give budgets up to {shortest}, or leave the "
                         "short runs out")
    index = k.astype(int) - 1
    best = best_so_far(array, minimize=minimize)[:, index]
    oriented = np.sort(-best if minimize else best, axis=0)  # higher is better
    runs_count = array.shape[0]
    rank = median_rank(runs_count, (1 - confidence) / k.size)
    estimate = oriented[(runs_count + 1) // 2 - 1]
    if rank:
        from scipy.stats import binom

        lower, upper = oriented[rank - 1], oriented[runs_count - rank]
        pointwise = 1 - 2 * binom.cdf(rank - 1, runs_count, 0.5)
    else:
        lower = np.full(k.size, -np.inf)
        upper = np.full(k.size, np.inf)
        pointwise = 1.0
    if minimize:
        lower, estimate, upper = -upper, -estimate, -lower
    return AnytimeBand(ns=k, lower=lower, estimate=estimate, upper=upper,
                       confidence=confidence, pointwise=float(pointwise), rank=rank,
                       runs=runs_count, minimize=minimize)


def compare_runs(runs_a, runs_b, ns, confidence: float = 0.8, *,
                 minimize: bool = False) -> Comparison:
    """How strongly do repeated runs say that tuner (or model) a beats b?

    The two :func:`anytime_band` bands, labelled budget by budget with the scale of
    :func:`evp.compare` (Lourie, Cho and He 2024, §2): "strong" where a's band
    lies wholly above b's (both bands hold, so at confidence at least
    1 − 2(1 − c)), "fair" where each band excludes the other's estimate, "weak"
    where one does, "none" otherwise; both directions.

    Parameters
    ----------
    runs_a, runs_b : array_like, shape (R_a, N_a) and (R_b, N_b)
        Each one's independent runs, trials in order (see :func:`anytime_band`).
    ns, confidence, minimize
        As in :func:`anytime_band`.

    Returns
    -------
    evp.Comparison
        ``.band_a`` and ``.band_b`` are :class:`AnytimeBand`.
    """
    band_a = anytime_band(runs_a, ns, confidence, minimize=minimize)
    band_b = anytime_band(runs_b, ns, confidence, minimize=minimize)
    sides = [band_a.lower, band_a.estimate, band_a.upper,
             band_b.lower, band_b.estimate, band_b.upper]
    if minimize:  # lower is better: negate, so that higher is better
        sides = [-band_a.upper, -band_a.estimate, -band_a.lower,
                 -band_b.upper, -band_b.estimate, -band_b.lower]
    shape = (band_a.ns.size,)
    return Comparison(ns=band_a.ns, evidence=_evidence(*sides, shape),
                      reverse_evidence=_evidence(*sides[3:], *sides[:3], shape),
                      band_a=band_a, band_b=band_b, confidence=band_a.confidence)
