r"""Tuning-curve bands that stay valid however often a running search is read.

The bands of :mod:`evp.bands` are exact for one look at a number of rounds
fixed in advance. Read after every trial and acted on at the first strong
verdict, they are wrong far more often than their level says (optional
stopping). A *sequential* band holds at every number of rounds at once:

.. math::

    P\bigl(L_t(k) \le T(k) \le U_t(k)\ \text{for every budget } k
    \text{ and every number of rounds } t \ge 1\bigr) \ge c,

for i.i.d. rounds arriving one at a time, whatever the order of looks and
whenever the search is stopped, by a rule that may depend on everything seen.

**The construction kept ("stitched").** Let the *epochs* be the counts
:math:`n_j = \lceil m\,\eta^j \rceil` (m = 8, η = 1.25: 8, 10, 13, 16, 20, 25,
…). At each epoch take the exact fixed-n band of :mod:`evp.bands` (the
Learned-Miller–DeStefano band, or the exact intervals at the budgets read,
the sharper for the budgets asked, chosen from the counts alone) of the first
:math:`n_j` rounds, at confidence :math:`1 - \alpha_j` with
:math:`\sum_j \alpha_j = 1 - c`: with a horizon H (the most rounds a search
will run), H itself is the last epoch and takes half of 1 − c, the epochs
before it the other half equally (as group-sequential designs keep most of
their power for the final look: a search run to its maximum settles nearly as
often as a fixed design of H rounds, and one far apart still stops early);
without one, :math:`\alpha_j = (1 - c)\,(j + 1)^{-s} / \zeta(s)`, s = 1.4.
By the union bound every epoch's band holds at once with probability at
least c. A band bounds a functional of F that does not change with t, so
after t rounds every epoch band up to t is still a valid bound, and so is
their intersection: the sequential band after t rounds is the largest of
their lower edges and the least of their upper edges (intersecting the CDF
envelopes gives the same edges, since the curve is monotone in F and each
edge is the first point where its envelope reaches a level). Between epochs
the band does not move. With ties each epoch band holds as a step envelope
(:func:`evp.cdf_band`), so the sequential band keeps at least its confidence;
losses read the mirror image, as :func:`evp.tuning_curve_band` does.

**Exact at the budgets named ("exact"), what a watch reads.** Where the
budgets are few and the most rounds known (a horizon H), each budget's bound
is the exact interval for one quantile (:func:`evp.compare`'s "budgets"
construction): order statistics :math:`Y_{(s_j)}` and :math:`Y_{(r_j)}` of
the first :math:`n_j` rounds, at the level :math:`p = q^{1/k}`. One side
misses at some epoch exactly when a count of rounds at most (below)
:math:`\xi_p` crosses a boundary: a Bernoulli walk whose crossing chance is
largest at success chance p, for any F, ties included; propagating the
walk's law epoch by epoch gives it exactly (:func:`exact_epoch_ranks`). Every
epoch takes one pointwise level, the largest whose crossing over all the
epochs up to H is at most (1 − c)/(2N) for each side of each of the N
budgets: the union bound is over sides and budgets only, never over the
epochs. At 80%, budgets 1 and 5, 200 rounds, the bounds missed at some epoch
in 16% of uniform paths (the stitched band: 9.5%, so the stitched one pays
for epochs it need not); two normal models 1 sd apart, at most 100 rounds
each, settled at both budgets in 83% of searches with a median of 75 rounds
used (stitched: 77%, 100; a fixed design of 100 rounds, read once: 90%).

**Two others, weighed and set aside** (their widths below; both valid, both
offered as `boundary`):

* ``"union"`` — the exact band at *every* round t, at confidence
  :math:`1 - (1-c)/(t(t+1))` (or :math:`1 - (1-c)/H` up to a horizon H): a
  union bound over rounds. Spending on every round costs more than a band
  that waits for the next epoch.
* ``"howard_ramdas"`` — the time-uniform DKW inequality of Howard and Ramdas
  (2022, Theorem 2): for :math:`A > 1/\sqrt 2` and :math:`t \ge m`,
  :math:`\sup_x |\hat F_t(x) - F(x)| \le A\sqrt{(\log(1 + \log(t/m)) + C)/t}`
  at every t at once with probability at least :math:`1 - \alpha`, where C
  solves :math:`\alpha = \min_\eta 4 e^{-\gamma^2 C}(1 + 1/((\gamma^2 - 1)
  \log\eta))`, :math:`\gamma^2 = (2/\eta)(A - \sqrt{2(\eta - 1)/C})^2`
  (A = 0.85, m = 1, as the authors' package confseq solves it; the paper's
  closed form :math:`C \approx 0.8\log(1612/\alpha)` is slightly larger). A
  band of constant width ε in F: it pays at the extremes, where tuning curves
  live, the price the fixed-n DKW band pays against the LD band.

Mean width of the median curve band on uniform scores (the F scale, where
every continuous law looks the same to these bands; budgets 1, 2, 3, 5, 8, 10;
200 paths; 80%; ``benchmarks/sequential_band_widths.py``) after 20, 50, 100
and 200 rounds, with the fixed-n LD band, valid for one look only, beside:

==============================  =====  =====  =====  =====
construction                     20     50     100    200
==============================  =====  =====  =====  =====
stitched, horizon 200            0.52   0.37   0.27   0.15
stitched, no horizon             0.50   0.37   0.29   0.22
union over rounds, horizon 200   0.56   0.39   0.29   0.21
union over rounds, 1/(t(t+1))    0.56   0.43   0.34   0.26
Howard–Ramdas DKW                0.73   0.53   0.41   0.31
fixed n (one look only)          0.40   0.26   0.19   0.14
==============================  =====  =====  =====  =====

So the stitched band is kept: at every count of rounds the narrowest of the
three valid constructions, with or without a horizon; a horizon spends half
of 1 − c at its end, so the band is nearly as narrow as a fixed-n band there
(0.15 against 0.14 at 200 rounds), at a small cost before it.

References
----------
Howard and Ramdas (2022). Sequential estimation of quantiles with applications
to A/B-testing and best-arm identification. Bernoulli 28(3), 1704–1728.
Howard, Ramdas, McAuliffe and Sekhon (2021). Time-uniform, nonparametric,
nonasymptotic confidence sequences. Annals of Statistics 49(2) (stitching).
Lourie, Cho and He (2024). Show Your Work with Confidence. NAACL.
Learned-Miller and DeStefano (2008). A Probabilistic Upper Bound on
Differential Entropy. IEEE Trans. Inf. Theory 54(11).
"""

from __future__ import annotations

import functools
import math
import warnings
from dataclasses import dataclass

import numpy as np

from evp._validation import as_choice, as_scores
from evp.bands import CDFBand, _curve_band, _curve_band_iv, _warn_if_ties
from evp.comparison import CONSTRUCTIONS, _bounds_by, _evidence
from evp.estimators import expected_max, quantile_tuning_curve

__all__ = ["BOUNDARIES", "SequentialBand", "SettlePlan", "epochs", "evidence",
           "family_confidence", "howard_ramdas_epsilon", "monitor_paths", "next_epoch",
           "rounds_to_settle",
           "sequential_band", "settled_budgets"]

#: The time-uniform constructions: see the module.
BOUNDARIES = ("stitched", "exact", "union", "howard_ramdas")
#: The stitched band's first epoch and the ratio of one epoch to the next.
FIRST_EPOCH = 8
RATIO = 1.25
#: The power s of the stitched band's spending (j + 1)^-s / zeta(s) without a
#: horizon (Howard et al. 2021 use 1.4).
POWER = 1.4
#: The share of 1 − c a stitched band with a horizon spends at the horizon
#: itself (the rest equally over the epochs before it): as group-sequential
#: designs keep most of their power for the final look, a search that runs to
#: its maximum settles nearly as often as a fixed design of that many rounds,
#: and one that settles early still stops early.
FINAL_SHARE = 0.5
#: Howard and Ramdas' constant A (their Theorem 2 and confseq's default).
HR_A = 0.85


# ------------------------------------------------------------------ epochs

def epochs(rounds: int, confidence: float = 0.8, *, boundary: str = "stitched",
           horizon: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    r"""The looks a sequential band is built at, up to `rounds`, and the miss
    probability spent at each: ``(sizes, alphas)``.

    ``"stitched"``: sizes :math:`\lceil 8 \cdot 1.25^j \rceil`, with the
    horizon itself as the last when one is given; with a horizon, half of
    1 − c at the horizon and half equally over the epochs before it, else
    :math:`(1 - c)(j + 1)^{-1.4}/\zeta(1.4)`.
    ``"union"``: every round, :math:`(1 - c)/H` each up to a horizon H, else
    :math:`(1 - c)/(t(t + 1))`. ``"howard_ramdas"``: every round; its alpha is
    the whole 1 − c (one time-uniform inequality). Beyond a horizon no epoch is
    added: the band stays as it was at the horizon (still valid). The alphas
    of all epochs, those after `rounds` included, sum to at most 1 − c.

    >>> sizes, alphas = epochs(50, 0.8, horizon=200)
    >>> sizes.tolist()
    [8, 10, 13, 16, 20, 25, 31, 39, 48]
    >>> round(float(alphas[0]), 6)  # 0.1 over the 15 epochs before 200
    0.006667
    """
    alpha = 1.0 - confidence
    rounds = int(rounds)
    last = rounds if horizon is None else min(rounds, int(horizon))
    if boundary == "exact":
        schedule = _stitched_sizes(int(horizon), closed=True)
        keep = schedule <= last
        return schedule[keep], np.full(int(keep.sum()), np.nan)  # spent jointly
    if boundary == "stitched":
        if horizon is None:  # a fixed schedule, whatever the rounds seen
            schedule = _stitched_sizes(max(last, FIRST_EPOCH), closed=False)
            spent = alpha * _stitch_weights(schedule.size)
        else:
            schedule = _stitched_sizes(int(horizon), closed=True)
            spent = np.full(schedule.size, alpha * FINAL_SHARE / max(
                schedule.size - 1, 1))
            spent[-1] = alpha * FINAL_SHARE if schedule.size > 1 else alpha
        keep = schedule <= last
        return schedule[keep], spent[keep]
    sizes = np.arange(1, last + 1)
    if boundary == "howard_ramdas":
        return sizes, np.full(sizes.size, alpha)
    if horizon is not None:
        return sizes, np.full(sizes.size, alpha / int(horizon))
    return sizes, alpha / (sizes * (sizes + 1.0))


def next_epoch(rounds: int, *, boundary: str = "stitched",
               horizon: int | None = None) -> float:
    """The least number of rounds above `rounds` at which the band can move
    (an epoch), or inf when none comes (past the horizon)."""
    rounds = int(rounds)
    if horizon is not None and rounds >= horizon:
        return math.inf
    if boundary not in ("stitched", "exact"):
        return float(rounds + 1)
    if rounds < FIRST_EPOCH:
        return float(FIRST_EPOCH)
    sizes = (_stitched_sizes(int(horizon), closed=True) if horizon is not None
             else _stitched_sizes(2 * rounds + FIRST_EPOCH, closed=False))
    later = sizes[sizes > rounds]
    return float(later[0]) if later.size else math.inf


@functools.lru_cache(maxsize=64)
def _stitched_sizes(until: int, closed: bool) -> np.ndarray:
    """Epoch sizes ceil(8 · 1.25^j), distinct, up to `until`; with `closed`,
    `until` itself is the last (a horizon is an epoch of its own)."""
    sizes, j = [], 0
    while True:
        size = math.ceil(FIRST_EPOCH * RATIO ** j - 1e-9)
        if size > until or (closed and size >= until):
            break
        if not sizes or size > sizes[-1]:
            sizes.append(size)
        j += 1
    if closed:
        sizes.append(until)
    out = np.array(sizes, dtype=int)
    out.flags.writeable = False
    return out


def _stitch_weights(count: int) -> np.ndarray:
    """The first `count` of (j + 1)^-s / zeta(s), j = 0, 1, …: they sum to 1 over
    every j."""
    from scipy import special

    return (np.arange(1, count + 1, dtype=float) ** -POWER) / special.zeta(POWER)


# ---------------------------------------------------- Howard and Ramdas' DKW

@functools.lru_cache(maxsize=64)
def _howard_ramdas_constant(alpha: float, a: float = HR_A) -> float:
    """C of Howard and Ramdas' Theorem 2 for miss probability alpha, solved as
    their package confseq solves it: the least C whose error bound,
    minimised over the epoch ratio η, is alpha."""
    from scipy import optimize

    def error(c: float, eta: float) -> float:
        gamma_sq = 2.0 / eta * (a - math.sqrt(2.0 * (eta - 1.0) / c)) ** 2
        if gamma_sq <= 1.0:
            return math.inf
        return 4.0 * math.exp(-gamma_sq * c) * (1.0 + 1.0 / ((gamma_sq - 1.0)
                                                             * math.log(eta)))

    def best(c: float) -> float:
        top = optimize.brentq(lambda eta: math.sqrt(eta / 2.0)
                              + math.sqrt(2.0 * (eta - 1.0) / c) - a,
                              1.0, 2.0 * a * a)
        found = optimize.minimize_scalar(lambda eta: error(c, eta),
                                         bounds=(1.0 + 1e-12, top),
                                         method="bounded",
                                         options={"xatol": 1e-10})
        return float(found.fun)

    return float(optimize.brentq(lambda c: best(c) - alpha, 1.0, 500.0,
                                 xtol=1e-12))


def howard_ramdas_epsilon(t, alpha: float, *, t_min: float = 1.0,
                          a: float = HR_A) -> np.ndarray:
    r"""Half-width ε_t of Howard and Ramdas' time-uniform DKW band after t rounds:
    :math:`P(\exists t \ge t_{\min}: \sup_x|\hat F_t(x) - F(x)| > \varepsilon_t)
    \le \alpha`, with :math:`\varepsilon_t = A\sqrt{(\log(1 + \log(t/t_{\min}))
    + C)/t}` (their Theorem 2; C as confseq solves it).

    >>> round(float(howard_ramdas_epsilon(1000, 0.05, t_min=100)), 6)  # confseq
    0.082048
    """
    t = np.asarray(t, dtype=float)
    c = _howard_ramdas_constant(float(alpha), float(a))
    with np.errstate(invalid="ignore", divide="ignore"):
        eps = a * np.sqrt((np.log1p(np.log(t / t_min)) + c) / t)
    return np.where(t >= t_min, eps, np.inf)


def _howard_ramdas_band(x: np.ndarray, confidence: float) -> CDFBand:
    """The time-uniform DKW band of the sorted scores x (rows of samples)."""
    n = x.shape[-1]
    eps = float(howard_ramdas_epsilon(n, 1.0 - confidence))
    i = np.arange(1, n + 1)
    return CDFBand(lower=np.clip(i / n - eps, 0.0, 1.0),
                   upper=np.clip((i - 1) / n + eps, 0.0, 1.0), scores=x,
                   confidence=confidence, method="howard_ramdas", epsilon=eps)


# ---------------------------------------------------------------- the band

@dataclass(frozen=True, eq=False)
class SequentialBand:
    """A tuning-curve band valid at every budget and every number of rounds.

    Attributes
    ----------
    ns : numpy.ndarray, shape (N,)
        The budgets.
    lower, estimate, upper : numpy.ndarray, shape (N,) or (S, N)
        The band after the rounds seen, and the empirical curve of all of them
        (a vacuous edge is the bound a or b, ±inf without bounds).
    rounds : int
        The rounds seen.
    read : int
        The rounds the band reads: the last epoch's (the band moves at epochs
        only; 0 before the first).
    sizes, alphas : numpy.ndarray
        The epochs up to `rounds` and the miss probability spent at each.
    confidence, boundary, horizon, method, statistic, q, bounds, minimize
        As passed (checked).
    constructions : tuple of str
        Each epoch's fixed-n construction ("band", "top_band", "budgets", or
        "howard_ramdas").
    """

    ns: np.ndarray
    lower: np.ndarray
    estimate: np.ndarray
    upper: np.ndarray
    rounds: int
    read: int
    sizes: np.ndarray
    alphas: np.ndarray
    confidence: float
    boundary: str
    horizon: int | None
    method: str
    statistic: str
    q: float | None
    bounds: tuple[float, float]
    minimize: bool
    constructions: tuple[str, ...] = ()

    def _curve(self) -> str:
        return "mean" if self.q is None else "median" if self.q == 0.5 else (
            f"{self.q:g}-quantile")

    def describe(self) -> str:
        """What the band is, in one sentence."""
        horizon = (f" up to a horizon of {self.horizon} rounds"
                   if self.horizon is not None else "")
        return (f"{self.confidence:.0%} sequential band for the {self._curve()} "
                f"tuning curve after {self.rounds} rounds: it holds at every "
                f"budget and every number of rounds at once{horizon} "
                f"({self.boundary}); it reads the first {self.read} rounds "
                "(it moves at epochs only)")

    def __repr__(self) -> str:
        return (f"SequentialBand({self._curve()}, {self.ns.size} budgets, "
                f"rounds={self.rounds}, read={self.read}, confidence="
                f"{self.confidence:g}, boundary={self.boundary!r}"
                f"{', minimize' if self.minimize else ''})")

    def _repr_html_(self) -> str:
        from evp import _display

        title = (f"{self.confidence:.0%} sequential band for the {self._curve()} "
                 f"tuning curve, {self.rounds} rounds")
        if self.estimate.ndim != 1:
            return _display.page(title, [repr(self)])
        rows = _display.spread_rows(self.ns.size)
        shown = _display.table({"n": self.ns[rows], "lower": self.lower[rows],
                                self._curve(): self.estimate[rows],
                                "upper": self.upper[rows]})
        figure = _display.band_figure(self.ns, [(self._curve(), self.lower,
                                                 self.estimate, self.upper)])
        return _display.page(title, [self.describe()], [shown, figure])


def _checked(scores, ns, confidence, boundary, horizon, method, construction,
             statistic, q, bounds, minimize):
    """Scores in arrival order and the checked options."""
    x = as_scores(scores)
    k, options = _curve_band_iv(ns, confidence, method, statistic, q, bounds,
                                minimize, np.sort(x, axis=-1))
    boundary = as_choice(boundary, "boundary", BOUNDARIES)
    construction = as_choice(construction, "construction", CONSTRUCTIONS)
    if horizon is not None:
        if not (isinstance(horizon, (int, np.integer)) and horizon >= 1):
            raise ValueError(f"horizon must be a whole number of rounds ≥ 1 (the "
                             f"most a search will run) or None, got {horizon!r}")
        horizon = int(horizon)
    if boundary == "exact" and (horizon is None or options["statistic"] != "median"):
        raise ValueError("boundary='exact' bounds the median (quantile) curves up to "
                         "a horizon: give horizon=N (the most rounds the search "
                         "will run) and statistic='median', or boundary='stitched'")
    if boundary == "howard_ramdas" and horizon is not None:
        raise ValueError("horizon: the Howard–Ramdas band holds over every round "
                         "without one; give horizon=None, or boundary='stitched'")
    return x, k, options, boundary, horizon, construction


def _edge_path(x: np.ndarray, k: np.ndarray, options: dict, boundary: str,
               horizon: int | None, construction: str, rounds: int | None = None):
    """The sequential band's edges after each epoch, for scores x in arrival
    order (rows of samples, shape (..., T)): ``(sizes, alphas, lower, upper,
    constructions)``, lower and upper of shape (E, ..., N), the running
    intersection up to each epoch. `rounds` (default T) is the rounds seen."""
    rounds = x.shape[-1] if rounds is None else rounds
    sizes, alphas = epochs(rounds, options["confidence"], boundary=boundary,
                           horizon=horizon)
    a, b = options["bounds"]
    shape = (*x.shape[:-1], k.size)
    lower, upper = np.full(shape, a), np.full(shape, b)
    lows, highs, built = [], [], []
    with warnings.catch_warnings():
        # The ties were the caller's to hear about, once (see sequential_band).
        warnings.simplefilter("ignore", RuntimeWarning)
        for size, alpha in zip(sizes.tolist(), alphas.tolist(), strict=True):
            prefix = np.sort(x[..., :size], axis=-1)
            if boundary == "exact":
                band = _exact_band(prefix, k, options, horizon, len(built))
                built.append("exact")
            elif boundary == "howard_ramdas":
                band = _curve_band(prefix, k, **options,
                                   cdf=_howard_ramdas_band(prefix,
                                                           1.0 - alpha))
                built.append("howard_ramdas")
            else:
                spent = dict(options, confidence=1.0 - alpha)
                band = _bounds_by(construction, k, spent)(prefix)
                built.append(band.construction)
            lower = np.maximum(lower, band.lower)
            upper = np.minimum(upper, band.upper)
            lows.append(lower)
            highs.append(upper)
    if not lows:
        return sizes, alphas, np.full((0, *shape), a), np.full((0, *shape), b), ()
    return sizes, alphas, np.stack(lows), np.stack(highs), tuple(built)


def _levels(q: float, k: np.ndarray, minimize: bool) -> np.ndarray:
    """The CDF level of the q-quantile of the best of k rounds (the least of
    k, for losses, on the unnegated scores)."""
    if minimize:
        return -np.expm1(np.log1p(-q) / k)
    return q ** (1.0 / k)


class _Edges:
    """A band's edges at the budgets (what the running intersection reads)."""

    def __init__(self, lower, upper):
        self.lower, self.upper = lower, upper


def _exact_band(prefix: np.ndarray, k: np.ndarray, options: dict, horizon: int,
                epoch: int) -> _Edges:
    """The bounds of epoch `epoch` (its first rounds, sorted: `prefix`) on the
    q-quantile curve at budgets k, each side of each budget missing at some
    epoch up to `horizon` with probability at most (1 − c)/(2 N), exactly
    (:func:`exact_epoch_ranks`)."""
    sizes = tuple(_stitched_sizes(int(horizon), closed=True).tolist())
    alpha = (1.0 - options["confidence"]) / (2 * k.size)
    a, b = options["bounds"]
    edge = np.ones((*prefix.shape[:-1], 1))
    points = np.concatenate((a * edge, prefix, b * edge), axis=-1)
    low, high = [], []
    for p in _levels(options["q"], k, options["minimize"]).tolist():
        low.append(exact_epoch_ranks(sizes, float(p), alpha, "lower")[epoch])
        high.append(exact_epoch_ranks(sizes, float(p), alpha, "upper")[epoch])
    return _Edges(points[..., np.array(low)], points[..., np.array(high)])


def _estimate(x_sorted: np.ndarray, k: np.ndarray, options: dict) -> np.ndarray:
    """The empirical curve of all the rounds, as :func:`evp.tuning_curve_band`
    gives it."""
    if options["statistic"] == "mean":
        return expected_max(x_sorted, k, minimize=options["minimize"])
    return quantile_tuning_curve(x_sorted, k, q=options["q"],
                                 minimize=options["minimize"])


def sequential_band(scores, ns, confidence: float = 0.8, *,
                    boundary: str = "stitched", horizon: int | None = None,
                    method: str = "ld_highest_density",
                    construction: str = "auto", statistic: str = "median",
                    q: float = 0.5, bounds=(None, None), minimize: bool = False):
    r"""A tuning-curve band valid at every budget and every number of rounds.

    For the rounds of a random search *in the order they arrived*, a band for
    the median (q-quantile) or mean tuning curve that holds at all the budgets
    `ns` and after every number of rounds at once, with probability at least
    `confidence`: it may be read after every trial, and the search stopped by
    any rule, the first strong verdict included, without losing its level.
    See the module for the construction (exact fixed-n bands at geometric
    epochs, intersected; the union bound over rounds and Howard and Ramdas'
    time-uniform DKW band compared) and the price it pays.

    Parameters
    ----------
    scores : array_like, shape (n,) or (S, n)
        The rounds so far in arrival order (each row one search, for 2-D
        input). The order matters: the band reads the first rounds of each
        epoch. Parallel trials should be fed in the order they were started
        (trial number), not finished, when a trial's duration may depend on
        its score.
    ns : float or sequence of float
        Budgets k ≥ 1.
    confidence : float in (0, 1), default 0.8
        The chance that the band holds at every budget and every number of
        rounds at once.
    boundary : {"stitched", "exact", "union", "howard_ramdas"}, default "stitched"
        The time-uniform construction (see the module): "exact" bounds the
        median (quantile) curve at the budgets `ns` only, up to `horizon`
        (needed), with the crossing over the epochs computed exactly.
    horizon : int or None
        The most rounds the search will run, when known: the miss probability
        is spent on the epochs up to it only, which narrows the band (beyond
        it the band stays as it was at the horizon).
    method : str, default "ld_highest_density"
        The fixed-n CDF band of each epoch (:func:`evp.cdf_band`).
    construction : {"auto", "band", "top_band", "budgets"}, default "auto"
        Each epoch's fixed-n bounds, as :func:`evp.compare` chooses them (from
        the counts alone, never the scores).
    statistic, q, bounds, minimize
        As in :func:`evp.tuning_curve_band`.

    Returns
    -------
    SequentialBand
        The band after the rounds seen, the estimate from all of them, the
        epochs and what each spent.

    Notes
    -----
    Assumes i.i.d. rounds (random search with a fixed search distribution);
    with ties it holds with at least the stated confidence. The estimate is
    the empirical curve of every round seen; the band moves at epochs only,
    so the estimate may lie outside it between epochs (a verdict reads it
    clipped to the band).

    Examples
    --------
    >>> import numpy as np, evp
    >>> scores = np.random.default_rng(0).normal(size=120)
    >>> band = evp.sequential_band(scores, [1, 2, 4], horizon=200)
    >>> band.read, bool(np.all(band.lower <= band.upper))
    (117, True)
    """
    x, k, options, boundary, horizon, construction = _checked(
        scores, ns, confidence, boundary, horizon, method, construction,
        statistic, q, bounds, minimize)
    x_sorted = np.sort(x, axis=-1)
    _warn_if_ties(options["method"] if boundary != "howard_ramdas" else "dkw",
                  scores=x_sorted)
    sizes, alphas, lows, highs, built = _edge_path(x, k, options, boundary,
                                                   horizon, construction)
    a, b = options["bounds"]
    shape = (*x.shape[:-1], k.size)
    lower = lows[-1] if len(lows) else np.full(shape, a)
    upper = highs[-1] if len(highs) else np.full(shape, b)
    return SequentialBand(
        ns=k, lower=lower, estimate=_estimate(x_sorted, k, options), upper=upper,
        rounds=int(x.shape[-1]), read=int(sizes[-1]) if sizes.size else 0,
        sizes=sizes, alphas=alphas, confidence=options["confidence"],
        boundary=boundary, horizon=horizon, method=options["method"],
        statistic=options["statistic"],
        q=options["q"] if options["statistic"] == "median" else None,
        bounds=options["bounds"], minimize=options["minimize"],
        constructions=built)


def evidence(band_a, band_b) -> tuple[np.ndarray, np.ndarray]:
    """The evidence that a beats b and that b beats a (strong, fair, weak,
    none), from two bands' edges and estimates as :func:`evp.compare` reads
    them; each estimate is read clipped to its own band (between epochs a
    sequential band may not contain the estimate of every round seen)."""
    def edges(band):
        est = np.clip(band.estimate, band.lower, band.upper)
        if band.minimize:
            return -band.upper, -est, -band.lower
        return band.lower, est, band.upper

    lo_a, est_a, hi_a = edges(band_a)
    lo_b, est_b, hi_b = edges(band_b)
    shape = np.broadcast_shapes(np.shape(lo_a), np.shape(lo_b))
    return (_evidence(lo_a, est_a, hi_a, lo_b, est_b, hi_b, shape),
            _evidence(lo_b, est_b, hi_b, lo_a, est_a, hi_a, shape))



# ------------------------------------------------------- many models, settled

def family_confidence(confidence: float, models: int) -> float:
    """Each model's band confidence so that all `models` bands hold at once
    with probability at least `confidence` (Bonferroni): then no strong
    verdict between any pair, at any budget, after any number of rounds, is
    wrong."""
    return 1.0 - (1.0 - confidence) / max(int(models), 1)


def settled_budgets(lower: np.ndarray, upper: np.ndarray,
                    minimize: bool = False) -> np.ndarray:
    """Per budget, whether one model has strong evidence against every other:
    its band lies wholly above (below, for a loss) every other model's band.
    `lower` and `upper` have the models first, shape (M, ..., N); the answer
    has shape (..., N). One model alone settles nothing."""
    lower, upper = np.asarray(lower, float), np.asarray(upper, float)
    if lower.shape[0] < 2:
        return np.zeros(lower.shape[1:], dtype=bool)
    if minimize:  # lower is better: negate, so that higher is better
        lower, upper = -upper, -lower
    best = np.argmax(lower, axis=0)
    top = np.take_along_axis(lower, best[None], axis=0)[0]
    others = np.where(np.arange(lower.shape[0]).reshape(-1, *[1] * best.ndim)
                      == best[None], -np.inf, upper)
    return top > others.max(axis=0)


@dataclass(frozen=True, eq=False)
class SettlePlan:
    """An estimate of the further rounds that settle a comparison.

    Attributes
    ----------
    further : numpy.ndarray, shape (R,)
        Per simulated future, the further rounds of each model (all models
        advancing together) until the comparison settled at every budget; inf
        where it had not settled by the horizon.
    horizon : int
        The most rounds of each model simulated.
    within : float
        The share of futures settled by the horizon.
    median, quartiles
        Of `further` (inf where more than half, or a quarter, did not settle).
    replications : int
    predictive : str
        How the futures were drawn, in words.
    """

    further: np.ndarray
    horizon: int
    within: float
    median: float
    quartiles: tuple[float, float]
    replications: int
    predictive: str

    def describe(self) -> str:
        """The estimate in one sentence, said as an estimate."""
        if not math.isfinite(self.median):
            return (f"an estimate from {self.replications} simulated futures: "
                    f"{self.within:.0%} of them settle within {self.horizon} "
                    "rounds of each model, so the maximum is likely reached "
                    "unsettled")
        return (f"an estimate from {self.replications} simulated futures: about "
                f"{self.median:g} more rounds of each model settle it (half of "
                f"them between {self.quartiles[0]:g} and "
                f"{self.quartiles[1]:g}; {self.within:.0%} settle within "
                f"{self.horizon} rounds of each); too hopeful on real searches, "
                "as verdict_power's point is")


def rounds_to_settle(scores, ns, confidence: float = 0.8, *, horizon: int,
                     boundary: str = "stitched", construction: str = "auto",
                     method: str = "ld_highest_density", bounds=(None, None),
                     minimize: bool = False, replications: int = 200,
                     rng=None) -> SettlePlan:
    r"""How many more rounds of each model until one model's sequential band
    lies wholly beyond every other's at every budget `ns`: an estimate.

    The future rounds are simulated as :func:`evp.verdict_power` simulates
    them (each model's observed rounds kept, new ones ranked among them as
    i.i.d. rounds are, interpolated, with exponential tails of uncertain
    scale beyond the extremes), all models advancing one round at a time up
    to `horizon` rounds each, and read with the same sequential bands
    (each at :func:`family_confidence`) at every epoch.

    Parameters
    ----------
    scores : sequence of array_like
        Each model's rounds so far, in arrival order (two distinct scores at
        least).
    ns, confidence, boundary, construction, method, bounds, minimize
        As in :func:`sequential_band`; `confidence` is the family's.
    horizon : int
        The most rounds of each model.
    replications : int, default 200
    rng : int, numpy.random.Generator or None
    """
    from evp.planning import PREDICTIVE, _future_rounds

    models = [as_scores(s, f"scores[{i}]", ndim=(1,)) for i, s in enumerate(scores)]
    if len(models) < 2:
        raise ValueError(f"scores: a comparison needs two models at least, got "
                         f"{len(models)}")
    for i, x in enumerate(models):
        if np.unique(x).size < 2:
            raise ValueError(f"scores[{i}] needs two distinct scores to simulate "
                             f"new rounds from, got {np.unique(x).size}")
    if not (isinstance(horizon, (int, np.integer)) and horizon >= 1):
        raise ValueError(f"horizon must be a whole number of rounds ≥ 1, got "
                         f"{horizon!r}")
    if not (isinstance(replications, (int, np.integer)) and replications >= 2):
        raise ValueError(f"replications must be a whole number ≥ 2, got "
                         f"{replications!r}")
    horizon = int(horizon)
    rng = np.random.default_rng(rng)
    everything = np.concatenate(models)
    k, options = _curve_band_iv(ns, family_confidence(confidence, len(models)),
                                method, "median", 0.5, bounds, minimize,
                                np.sort(everything))
    boundary = as_choice(boundary, "boundary", BOUNDARIES)
    construction = as_choice(construction, "construction", CONSTRUCTIONS)
    paths = []
    for x in models:
        more = max(horizon - x.size, 0)
        observed = np.broadcast_to(x, (replications, x.size))
        if more:
            new = _future_rounds(np.sort(x), more, replications, options["bounds"],
                                 rng)[0]
            paths.append(np.concatenate((observed, new), axis=1))
        else:
            paths.append(np.array(observed))
    found = [_edge_path(path, k, options, boundary,
                        None if boundary == "howard_ramdas" else horizon,
                        construction) for path in paths]
    sizes = [f[0] for f in found]
    seen = [x.size for x in models]
    steps = sorted({0} | {int(s) - n for size, n in zip(sizes, seen, strict=True)
                          for s in size if s - n > 0 and s <= horizon})
    a, b = options["bounds"]
    further = np.full(replications, np.inf)
    shape = (replications, k.size)
    for step in steps:
        lows, highs = [], []
        for (size, _, lower, upper, _), n in zip(found, seen, strict=True):
            at = int(np.searchsorted(size, min(n + step, max(horizon, n)),
                                     side="right")) - 1
            lows.append(lower[at] if at >= 0 else np.full(shape, a))
            highs.append(upper[at] if at >= 0 else np.full(shape, b))
        done = settled_budgets(np.stack(lows), np.stack(highs),
                               options["minimize"]).all(axis=-1)
        further = np.where(np.isinf(further) & done, step, further)
    finite = np.isfinite(further)
    quartiles = np.quantile(further, [0.25, 0.5, 0.75], method="inverted_cdf")
    return SettlePlan(further=further, horizon=horizon, within=float(finite.mean()),
                      median=float(quartiles[1]),
                      quartiles=(float(quartiles[0]), float(quartiles[2])),
                      replications=int(replications), predictive=PREDICTIVE)


# ---------------------------------------------------- continuous monitoring

def monitor_paths(paths, ns, confidence: float = 0.8, *, reading: str = "sequential",
                  truth=None, horizon: int | None = None, first: int = 1,
                  family: bool = True, boundary: str = "stitched",
                  construction: str = "auto", minimize: bool = False) -> dict:
    r"""Simulated searches read after every round: when the first wrong strong
    verdict came, and when the comparison first settled.

    Parameters
    ----------
    paths : sequence of array_like, each shape (R, T)
        Each model's rounds in arrival order, R simulated searches of T rounds
        (the models advance together: after t rounds of each, a look).
    ns : sequence of float
        The budgets read.
    confidence : float
        The family's (`family`: each model's band at
        :func:`family_confidence`), else each band's.
    reading : {"sequential", "fixed"}
        The sequential bands (the looks that change them: the epochs), or the
        fixed-n bands of :func:`evp.compare` (construction `construction`)
        rebuilt at every look from `first` rounds on: the optional-stopping
        reading.
    truth : array_like, shape (M, N), optional
        The models' true curves at `ns`: a strong verdict for a model whose
        true curve is not better (higher; lower with `minimize`) than the
        other's is wrong.
    horizon : int, optional
        The sequential bands' horizon.

    Returns
    -------
    dict
        ``wrong`` and ``settled``: per search, the rounds at the first look
        with a wrong strong verdict (at any budget, between any pair), and at
        the first look settled at every budget (:func:`settled_budgets`); inf
        where none came within T.
    """
    models = [np.asarray(p, dtype=float) for p in paths]
    if minimize:  # the median curves of losses are those of the negated scores
        models = [-p for p in models]
        truth = None if truth is None else -np.asarray(truth, dtype=float)
        minimize = False
    replications, rounds = models[0].shape
    each = family_confidence(confidence, len(models)) if family else confidence
    k, options = _curve_band_iv(ns, each, "ld_highest_density", "median", 0.5,
                                (None, None), minimize,
                                *[np.sort(p, axis=1) for p in models])
    reading = as_choice(reading, "reading", ("sequential", "fixed"))
    truth = None if truth is None else np.asarray(truth, dtype=float)
    wrong = np.full(replications, np.inf)
    settled = np.full(replications, np.inf)

    def look(t, lowers, uppers):
        lowers, uppers = np.stack(lowers), np.stack(uppers)
        done = settled_budgets(lowers, uppers, minimize).all(axis=-1)
        settled[np.isinf(settled) & done] = t
        if truth is None:
            return
        low, high = (-uppers, -lowers) if minimize else (lowers, uppers)
        best = -truth if minimize else truth
        bad = np.zeros(replications, dtype=bool)
        for a in range(len(models)):
            for b in range(len(models)):
                if a != b:
                    strong = low[a] > high[b]  # (R, N): a beats b, strongly
                    bad |= (strong & (best[a] <= best[b])).any(axis=-1)
        wrong[np.isinf(wrong) & bad] = t

    if reading == "sequential":
        found = [_edge_path(p, k, options, boundary, horizon, construction)
                 for p in models]
        sizes = found[0][0]
        for j, t in enumerate(sizes.tolist()):
            look(t, [f[2][j] for f in found], [f[3][j] for f in found])
    else:
        edge = np.ones((replications, 1))
        for t in range(max(int(first), 1), rounds + 1):
            low, high = _fixed_ranks(t, tuple(k.tolist()), each, construction)
            lowers, uppers = [], []
            for p in models:
                points = np.concatenate((-np.inf * edge, np.sort(p[:, :t], axis=1),
                                         np.inf * edge), axis=1)
                lowers.append(points[:, low])
                uppers.append(points[:, high])
            look(t, lowers, uppers)
    return {"wrong": wrong, "settled": settled}


@functools.lru_cache(maxsize=4096)
def _fixed_ranks(size: int, budgets: tuple, confidence: float,
                 construction: str) -> tuple[np.ndarray, np.ndarray]:
    """Ranks (0 the lower bound, size + 1 the upper) of the edges of
    :func:`evp.compare`'s bounds on the median curve at `budgets` from `size`
    rounds (higher is better), chosen as compare chooses them: they depend on
    the counts only, so a simulation reads them once per count."""
    from evp.comparison import _construction_ranks, _sharper

    k = np.asarray(budgets, dtype=float)
    alpha = (1.0 - confidence) / (2 * k.size)
    options = dict(band_confidence=confidence, method="ld_highest_density",
                   q=0.5, minimize=False, alpha_worse=alpha, alpha_better=alpha)
    which = construction if construction != "auto" else _sharper(size, k,
                                                                 **options)
    return _construction_ranks(which, size, k, **options)


# ------------------------------------------ exact crossing over the epochs

def _crossing(sizes: tuple, p: float, ranks: np.ndarray, side: str) -> float:
    r"""P(some epoch's bound misses), exactly, for the p-quantile and the ranks
    of the bound at each epoch (sizes n_1 < n_2 < …, the first n_j rounds).

    ``side="lower"``: the lower bound :math:`Y^{(j)}_{(s_j)}` of epoch j lies
    above :math:`\xi_p` iff fewer than :math:`s_j` of the first :math:`n_j`
    rounds are at most :math:`\xi_p`: a count :math:`C_j` of a Bernoulli
    process whose success chance :math:`F(\xi_p) \ge p`; ``"upper"``: the
    upper bound :math:`Y^{(j)}_{(r_j)}` lies below iff at least :math:`r_j`
    are below it, a count with chance :math:`F(\xi_p-) \le p`. A larger
    chance raises every count on the same draws, so each side's miss is
    largest at chance exactly p, for any F, ties included; there the counts
    are a binomial random walk, whose law at the epochs is propagated
    epoch by epoch (one convolution with Binomial(n_j − n_{j−1}, p) each), the
    mass that crosses the boundary taken out as it crosses."""
    from scipy import stats

    alive = np.ones(1)  # P(count = c, no miss yet), c = 0, 1, …
    previous = 0
    for size, rank in zip(sizes, ranks.tolist(), strict=True):
        step = stats.binom.pmf(np.arange(size - previous + 1), size - previous, p)
        alive = np.convolve(alive, step)
        if side == "lower":
            alive[: max(int(rank), 0)] = 0.0  # fewer than s_j at most xi_p
        else:
            alive[max(int(rank), 0):] = 0.0  # at least r_j below xi_p
        previous = size
    return float(min(max(1.0 - alive.sum(), 0.0), 1.0))


def _ranks_at(sizes: tuple, p: float, gamma: float, side: str) -> np.ndarray:
    """Each epoch's rank for the p-quantile's bound at pointwise miss `gamma`:
    the largest s with P(Bin(n, p) ≤ s − 1) ≤ gamma (lower), the least r with
    P(Bin(n, p) ≥ r) ≤ gamma (upper); 0 and n + 1 are the vacuous bounds."""
    from scipy import stats

    out = []
    for size in sizes:
        k = np.arange(size + 1)
        if side == "lower":
            cdf = stats.binom.cdf(k[:size], size, p)
            out.append(int(np.sum(cdf <= gamma)))
        else:
            sf = stats.binom.sf(k, size, p)
            out.append(int(min(1 + np.sum(sf > gamma), size + 1)))
    return np.array(out)


@functools.lru_cache(maxsize=512)
def exact_epoch_ranks(sizes: tuple, p: float, alpha: float, side: str):
    """Ranks of the exact bounds on the p-quantile at every epoch of `sizes`
    whose crossing probability over all the epochs together is at most
    `alpha` (:func:`_crossing`): one pointwise level γ for every epoch, the
    largest (by bisection on log γ) that keeps the joint miss within alpha.
    Bonferroni over the E epochs, γ = alpha / E, is the floor it starts from.
    Read-only array."""
    low, high = math.log(alpha / len(sizes)), math.log(alpha)
    best = _ranks_at(sizes, p, math.exp(low), side)
    if _crossing(sizes, p, _ranks_at(sizes, p, alpha, side), side) <= alpha:
        best = _ranks_at(sizes, p, alpha, side)
    else:
        for _ in range(40):
            middle = 0.5 * (low + high)
            ranks = _ranks_at(sizes, p, math.exp(middle), side)
            if _crossing(sizes, p, ranks, side) <= alpha:
                low, best = middle, ranks
            else:
                high = middle
            if high - low < 1e-4:
                break
    best = np.asarray(best)
    best.flags.writeable = False
    return best
