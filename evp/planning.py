r"""Planning the next rounds: will more random search settle a comparison?

:func:`evp.rounds_needed` (in :mod:`evp.bands`, exact and distribution-free) says
how many rounds make the median tuning-curve band informative at a budget at all.
:func:`verdict_power` asks the question that follows "does A beat B?": after m
more rounds of each model, how likely is :func:`evp.compare` to give *strong*
evidence, either way, at budget n?

That depends on the two score distributions, known only through the rounds
observed so far, so the answer is a prediction. Each replication simulates the m
future rounds of each model given its N observed ones:

1. **Ranks, exactly.** For i.i.d. rounds from a continuous distribution, where a
   new round falls among the observed ones does not depend on the distribution: it
   lands in each of the N + 1 gaps with probability 1/(N + 1), and jointly the
   ranks of all rounds are a uniformly random permutation (Hill's A(n), 1968).
   Each replication draws the observed rounds' and the new rounds' positions as
   uniforms u, which gives exactly that law.
2. **Values between observed scores** are interpolated linearly in u between the
   two neighbours.
3. **Values beyond the observed extremes** follow exponential tails in u (a
   quantile function :math:`x_{(N)} + s \log\frac{1 - u_{(N)}}{1 - u}` above the
   largest score, mirrored below the smallest). The scale s is drawn, per
   replication, from its posterior given the excesses of the k most extreme scores
   over the next one (prior 1/s, k a fifth of the rounds, at least 2), so that a
   tail seen in a few rounds counts as uncertain. New rounds are reflected inside
   known bounds.
4. The observed rounds and the new ones are compared as :func:`evp.compare`
   compares them, at budget n.

The share of replications with a strong verdict is the prediction, with its Monte
Carlo standard error.

**On real searches that point is too hopeful, so a range comes with it.**
``benchmarks/verdict_power_real_calibration.py`` measures it on HPOBench's grids
(8 datasets; every configuration's score over 5 seeds: exact truths): pairs made
by splitting a grid on one hyperparameter, 12, 24 or 48 rounds of each observed,
20 or 50 more, budgets 3 and 5, the realised chance exact given the rounds
observed (14,396 predictions; bins of tenths with at least 100). The point falls
short in every bin from 0.1 up: worst 0.35 predicted, 0.16 realised over all
pairs, and 0.34 against 0.01 for near-equal pairs (whose observed gap the
simulation carries into the future rounds); the reading with nothing beyond the
extremes, worse (0.65 against 0.36). ``benchmarks/plan_range_frontier.py`` puts
the point beside the realised chance at every budget 1 to 5 (14,530
predictions): 20 more rounds of each, it is too hopeful by 0.16 on average for
near-equal pairs (0.21 predicted, 0.05 realised) and by 0.07 for separated ones,
its mean absolute error 0.11 to 0.17 in every bin (0.17 to 0.31 with 50 more).
So :func:`verdict_power` gives a range, ``strong_low`` to ``strong_high``, built
to be read instead, and calibrated on those grids:

* ``strong_low``: the least chance of a strong verdict either way with each
  model's distribution anywhere inside its CDF band at confidence
  :data:`RANGE_BAND_CONFIDENCE` (0.2). The band's edges are order statistics, so
  the chance under a step distribution is a sum of binomial terms
  (:func:`_strong_chance`); each direction's chance is monotone in the two
  distributions, so it is least at the band's extremes.
* ``strong_high``: the :data:`RANGE_LEVEL` (0.8) quantile of the chance over
  the posterior of the two models' distributions: the Bayesian bootstrap
  (Rubin 1981), Dirichlet(1, ..., 1) weights on each model's observed rounds,
  :data:`POSTERIOR_DRAWS` draws, each draw's chance exact
  (:func:`_posterior_chances`).

Both ends read the verdict :func:`evp.compare` gives at the one budget n (the
band, or the exact interval for the quantile at n where that is sharper:
:func:`_edge_ranks`).

Why these two: the exact bounds of the bands at the verdict's own confidence
(a range that holds whenever both bands do, chance at least 1 − 2(1 − c)) held
the realised chance in 99.8% of the cases but were 0.77 wide on average, nearly
"between 0 and 1"; the posterior alone is too hopeful for near-equal pairs (it
carries their observed gap forward, as the simulation does), so its low end
misses there. The benchmark measures every pairing of a band's low end (bands at
0.1 to 0.8) with a high end (the bands' most, or a posterior quantile), and the
frontier between the worst bin's containment and the mean width is its CSV. The
narrowest range that holds the realised chance in at least 0.8 of the cases in
every bin (near-equal and separated pairs, n = 1 to 5; 20 more rounds of each)
is 0.28 wide (bands at 0.2, the posterior's 0.65 quantile: worst bin 0.81); the
one chosen keeps a margin of about 0.1 for search spaces other than these grids,
at 0.35 wide, still narrower than the 0.40 asked. With 20 more rounds of each it
held 0.898 to 0.973 of
the cases in every bin (worst: separated pairs at n = 4), 0.35 wide on average
(0.27 to 0.39 by bin); with 50 more, 0.91 to 0.97, but 0.58 wide: the further
ahead a plan looks, the less the rounds so far pin down. Its misses are the
realised chance above the high end (separated pairs, up to 7.6%) or below the
low end (near-equal pairs, up to 6.3%). The promise is empirical, measured on
one family of search spaces: the low end is no longer a bound that holds
whenever the bands do. On a continuous synthetic pair (normal scores 1 s.d.
apart, 20 rounds observed, 20 more) it held 0.77 to 0.90 of 30 worlds at each
budget: less, from fewer rounds of a long-tailed score.

Calibration of the point on simulated families
(``benchmarks/verdict_power_calibration.py``: 400 worlds per family, the gap
between the models uniform up to two standard deviations, 12 observed rounds
each, 10, 30 and 100 more, budget 4; predictions binned by fifths against the
realised share of strong verdicts; the worst bin):

* within about 0.1 on normal scores (0.92 predicted, 0.82 realised), uniform ones
  (0.71, 0.82), with a 20% failure mass (0.70, 0.64), on a noisy quadratic tail
  with c = 4 (0.70, 0.56) and with 48 rounds of scores with a long best-side tail
  (0.29, 0.20);
* too cautious where the scores pile up under a ceiling (a noisy quadratic tail
  with c = 1: 0.72 predicted, 0.95 realised) or have a long *bad* tail (0.72,
  0.84): the exponential tail beyond the best score seen is then too long;
* too hopeful from 12 rounds of scores with a long *best* tail and no ceiling
  (0.91, 0.63): a few rounds cannot show how far it reaches.

With ``tail="quadratic"`` the best side's tail is a noisy quadratic fitted to
the best scores where one passes its goodness-of-fit check (Lourie, He and Cho
2025). From 12 rounds those fits are short-tailed and the predictions too hopeful
(200 worlds per family, worst bins: normal 0.95 predicted, 0.77 realised; 20%
failed rounds 0.94, 0.70; quadratic c = 4 0.92, 0.65), and no better under the
c = 1 ceiling (0.52, 0.71): hence the exponential default.

``strong_light`` reads the same simulated rounds with nothing beyond the extremes
seen: the reading for a ceiling already reached (0.28 predicted, 0.37 realised,
for c = 1), too hopeful elsewhere. Where the two readings differ, the answer hangs
on the tail, and the rounds so far cannot settle which reading holds.

References
----------
Lourie, Cho and He (2024). Show Your Work with Confidence: Confidence Bands for
Tuning Curves. NAACL (§2: the evidence scale; §5.5: sample sizes).
Hill (1968). Posterior distribution of percentiles: Bayes' theorem for sampling
from a population. JASA 63(322) (the A(n) assumption).
Rubin (1981). The Bayesian bootstrap. Annals of Statistics 9(1).
"""

from __future__ import annotations

import functools
import math
import warnings
from dataclasses import dataclass

import numpy as np

from evp._validation import as_bool, as_bounds, as_choice, as_probability, as_scores
from evp.bands import METHODS, _cdf_band
from evp.comparison import _construction_ranks, _sharper, compare

__all__ = ["VerdictPower", "calibration", "max_replications", "replication_memory",
           "verdict_power"]

#: The plan's range (``strong_low`` to ``strong_high``), calibrated on HPOBench's
#: grids (``benchmarks/plan_range_frontier.py``): the low end reads both models'
#: CDF bands at this confidence, the high end is this quantile of the chance over
#: POSTERIOR_DRAWS draws of the two distributions' posterior.
RANGE_BAND_CONFIDENCE = 0.2
RANGE_LEVEL = 0.8
POSTERIOR_DRAWS = 400
#: What that calibration measured, with 20 more rounds of each, for the sentences
#: that say how far to trust the range and the point: the share of cases the range
#: held in its worst bin (pair kind x budget 1-5), its mean width, and by how much
#: the simulated point ran too hopeful on average (separated, near-equal pairs).
RANGE_HELD = 0.898
RANGE_WIDTH = 0.35
POINT_TOO_HOPEFUL = (0.07, 0.16)

#: The extra rounds of each model that a plan weighs by default.
DEFAULT_MORE_ROUNDS = (10, 20, 50, 100)

#: How future rounds are simulated, in words (see the module).
PREDICTIVE = ("observed rounds kept; new rounds ranked among them as i.i.d. rounds "
              "are (Hill's A(n)), interpolated between observed scores, with "
              "exponential tails of uncertain scale beyond the extremes")


@dataclass(frozen=True, eq=False)
class VerdictPower:
    """Predicted chances of each verdict at budget `n` after more rounds.

    Attributes
    ----------
    more_rounds : numpy.ndarray, shape (M, 2)
        The extra rounds of model a and of model b, one row per plan.
    n : float
        The budget the verdict is read at.
    strong : numpy.ndarray, shape (M,)
        Probability of strong evidence either way.
    strong_error : numpy.ndarray, shape (M,)
        Its Monte Carlo standard error, :math:`\\sqrt{p(1-p)/R}`.
    strong_a, strong_b : numpy.ndarray, shape (M,)
        Strong evidence that a beats b, and that b beats a.
    fair, weak : numpy.ndarray, shape (M,)
        Probability that the best verdict either way is fair, or weak.
    strong_low, strong_high : numpy.ndarray, shape (M,)
        A range for the chance of strong evidence either way, to read instead of
        the point `strong`, which is too hopeful on real searches (see the
        module). The low end is the least chance with each model's distribution
        anywhere inside its CDF band at confidence :data:`RANGE_BAND_CONFIDENCE`
        (exact, by :func:`_strong_chance`); the high end the :data:`RANGE_LEVEL`
        quantile of the exact chance over the posterior of the two
        distributions (the Bayesian bootstrap). Calibrated on HPOBench's grids:
        with 20 more rounds of each it held the realised chance in at least 0.898
        of the cases at every budget 1 to 5, near-equal and separated pairs
        alike, 0.35 wide on average (0.58 with 50 more). An empirical promise,
        not a bound that holds whenever the bands do.
    strong_light : numpy.ndarray, shape (M,)
        Probability of strong evidence either way if no score lay beyond the
        extremes seen so far (the same simulated rounds, their tails cut back to
        the extremes): the reading for scores with a ceiling already reached.
        Where it differs from `strong`, the answer hangs on the tail, which the
        rounds so far cannot show.
    tails : tuple of str
        The tail beyond the best score seen, for model a and model b: a noisy
        quadratic fitted to the best scores where one passes its
        goodness-of-fit check, else exponential.
    replications : int
    predictive : str
        How future rounds were drawn, in words.
    confidence, method, minimize
        As passed.
    """

    more_rounds: np.ndarray
    n: float
    strong: np.ndarray
    strong_error: np.ndarray
    strong_a: np.ndarray
    strong_b: np.ndarray
    fair: np.ndarray
    weak: np.ndarray
    strong_light: np.ndarray
    strong_low: np.ndarray
    strong_high: np.ndarray
    tails: tuple[str, str]
    replications: int
    predictive: str
    confidence: float
    method: str
    minimize: bool

    def to_frame(self, names=("a", "b")):
        """One row per plan: the extra rounds and each verdict's probability."""
        import pandas as pd

        a, b = names
        return pd.DataFrame({
            f"more rounds of {a}": self.more_rounds[:, 0],
            f"more rounds of {b}": self.more_rounds[:, 1],
            "strong either way": self.strong,
            "s.e.": self.strong_error,
            f"strong: {a} better": self.strong_a,
            f"strong: {b} better": self.strong_b,
            "fair": self.fair,
            "weak": self.weak,
            "strong, none beyond the extremes": self.strong_light,
            "strong: low end": self.strong_low,
            "strong: high end": self.strong_high,
        })

    def _repr_html_(self) -> str:
        from evp import _display

        frame = self.to_frame()
        return _display.page(
            f"Chance of a strong verdict at n = {self.n:g} after more rounds "
            f"({self.confidence:.0%}, "
            f"{_display.method_name(self.method)} bands)",
            [f"{self.replications:,} simulated futures; tails: "
             f"{', '.join(self.tails)}"],
            [_display.table({c: frame[c].to_numpy() for c in frame})])


#: Memory verdict_power may take for its simulated futures (bytes).
MEMORY_LIMIT = 4e9
#: Bytes per simulated future and round (observed and new, both models), measured
#: with tracemalloc: 40 to 66; the larger is used.
_BYTES_PER_ROUND = 70


def replication_memory(size_a: int, size_b: int, plans, replications: int) -> float:
    """Bytes that `replications` simulated futures take at the largest plan (the
    plans are simulated one at a time)."""
    plans = np.asarray(plans).reshape(-1, 2)
    rounds = size_a + size_b + int(plans.sum(axis=1).max())
    return float(_BYTES_PER_ROUND) * rounds * int(replications)


def max_replications(size_a: int, size_b: int, plans) -> int:
    """The most simulated futures that fit in :data:`MEMORY_LIMIT`."""
    return int(MEMORY_LIMIT // replication_memory(size_a, size_b, plans, 1))


def _as_plans(more_rounds) -> np.ndarray:
    """more_rounds as an (M, 2) array of counts ≥ 0: an int, a list of ints (the
    same for both models), or pairs (a's, b's)."""
    try:
        plans = np.asarray(more_rounds, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"more_rounds must be counts, got {more_rounds!r}") from None
    if plans.ndim == 0:
        plans = plans.reshape(1, 1)
    elif plans.ndim == 1:
        plans = plans[:, None]
    if plans.ndim != 2 or plans.shape[1] not in (1, 2) or plans.size == 0:
        raise ValueError("more_rounds must be a count, a list of counts, or a list of "
                         f"(rounds of a, rounds of b) pairs, got {more_rounds!r}")
    if not np.all(np.isfinite(plans)) or np.any(plans < 0) or np.any(
            plans != np.round(plans)):
        raise ValueError("more_rounds must be whole numbers ≥ 0 (extra rounds of "
                         f"each model), got {more_rounds!r}")
    return np.broadcast_to(plans, (plans.shape[0], 2)).astype(int)


def _tail_scales(x: np.ndarray, replications: int, rng) -> tuple[np.ndarray, ...]:
    """Exponential scales of the lower and upper tails, one per replication, drawn
    from their posterior given the k most extreme scores' excesses over the next
    one (k a fifth of the rounds, at least 2): with the prior 1/s, s given the
    excesses' sum S is S / Gamma(k, 1). A scale seen in a few rounds is uncertain,
    and the heavier tails it may have must count in the prediction."""
    k = min(max(2, x.size // 5), x.size - 1)
    floor = np.ptp(x) / x.size  # tied extremes: no spacing to go by
    high = max(float(np.sum(x[-k:] - x[-k - 1])), floor * k)
    low = max(float(np.sum(x[k] - x[:k])), floor * k)
    draws = rng.gamma(k, 1.0, size=(2, replications, 1))
    return low / draws[0], high / draws[1]


def _best_tail(x: np.ndarray, minimize: bool):
    """A noisy quadratic fitted to the best side of the sorted scores x, at the
    widest threshold whose fit passes its goodness-of-fit check
    (:func:`evp.parametric.choose_threshold`: the threshold and the fit), or
    None when none passes or x is too small to fit."""
    from evp.parametric import choose_threshold

    if x.size < _QUADRATIC_ROUNDS:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a fit that fails is simply not used
        try:
            chosen = choose_threshold(x, minimize=minimize)
        except (ValueError, ArithmeticError):
            return None
    return chosen if chosen.fit is not None else None


#: Rounds below which no tail is fitted (the maximum-spacing fit needs some).
_QUADRATIC_ROUNDS = 10


def _future_rounds(x, more, replications, bounds, rng, best=None,
                   minimize=False):
    """(replications, more) new rounds whose ranks among the observed x follow
    exactly the law of i.i.d. continuous rounds (Hill's A(n)): each replication
    draws the N observed and the new rounds' positions as uniforms u, so that a
    new round falls in each of the N + 1 gaps with probability 1/(N + 1);
    inside a gap its value is interpolated linearly in u, beyond the observed
    extremes it follows an exponential tail fitted to the extreme scores, or on
    the best side (the top; the bottom when `minimize`) the fitted distribution
    `best` conditioned beyond the best score seen, when one is given.

    Returns those rounds, and the same rounds had no score lain beyond the
    observed extremes (the extremes repeat there): a light-tailed reading with
    the same random numbers."""
    size = x.size
    u_obs = np.sort(rng.random((replications, size)), axis=1)
    # (Never exactly 0, where the lower tail's quantile function is infinite.)
    u_new = np.maximum(rng.random((replications, more)), np.finfo(float).tiny)
    # Gap of each new round: the observed uniforms below it.
    gap = np.empty((replications, more), dtype=int)
    for r in range(replications):
        gap[r] = np.searchsorted(u_obs[r], u_new[r])
    inner = (gap > 0) & (gap < size)
    left = np.clip(gap - 1, 0, size - 1)
    right = np.clip(gap, 0, size - 1)
    u_left = np.take_along_axis(u_obs, left, axis=1)
    u_right = np.take_along_axis(u_obs, right, axis=1)
    share = np.where(inner, (u_new - u_left) / np.where(inner, u_right - u_left, 1.0),
                     0.0)
    values = x[left] + share * (x[right] - x[left])
    low_scale, high_scale = _tail_scales(x, replications, rng)
    with np.errstate(divide="ignore"):
        above = x[-1] + high_scale * np.log((1 - u_obs[:, -1:]) / (1 - u_new))
        below = x[0] - low_scale * np.log(u_obs[:, :1] / u_new)
    if best is not None:
        # Beyond the best score seen, the fitted tail's own quantiles: the share
        # of the way from u at the best score to the end carries over to the
        # fitted distribution's probability beyond that score.
        if minimize:
            hit = gap == 0
            at = float(best.cdf(x[0]))
            levels = at * (u_new / u_obs[:, :1])
        else:
            hit = gap == size
            at = float(best.cdf(x[-1]))
            levels = at + (1 - at) * (u_new - u_obs[:, -1:]) / (1 - u_obs[:, -1:])
        if hit.any():
            fitted = np.asarray(best.ppf(np.clip(levels[hit], 0.0, 1.0)), float)
            (below if minimize else above)[hit] = fitted
    tailed = np.where(gap == size, above, np.where(gap == 0, below, values))
    # The same rounds if no score lay beyond those seen: the extremes repeat.
    light = np.where(gap == size, x[-1], np.where(gap == 0, x[0], values))
    return _reflected(tailed, *bounds), light


def _reflected(values, a, b):
    """Values folded into [a, b] by reflection at the bounds (as a kernel's mass
    is kept inside a bounded range), however far outside they fall."""
    if math.isfinite(a) and math.isfinite(b):
        width = b - a
        offset = np.mod(values - a, 2 * width)
        return a + np.where(offset <= width, offset, 2 * width - offset)
    if math.isfinite(a):
        return np.where(values < a, 2 * a - values, values)
    if math.isfinite(b):
        return np.where(values > b, 2 * b - values, values)
    return values


def verdict_power(scores_a, scores_b, n, more_rounds, confidence: float = 0.8, *,
                  method: str = "ld_highest_density", bounds=(None, None),
                  replications: int = 1000, rng=None, minimize: bool = False,
                  tail: str = "exponential", family=None,
                  construction: str = "auto"):
    r"""Predicted chance that more rounds give a strong verdict at budget n.

    After ``more_rounds`` more rounds of random search for each model, will
    :func:`evp.compare` (median tuning curves, this `confidence` and `method`)
    give *strong* evidence at budget `n`, either way? The prediction simulates
    the new rounds from the observed ones (see the module: their ranks exactly,
    their values interpolated, exponential tails of uncertain scale beyond the
    extremes). That point is too hopeful on real searches (HPOBench's grids:
    by 0.16 on average for near-equal models, 0.07 for separated ones, with 20
    more rounds; 0.34 predicted where 0.01 came in the worst bin), so read the
    range ``.strong_low`` to ``.strong_high``, calibrated there: it held the
    realised chance in at least 0.898 of the cases at every budget 1 to 5, 0.35
    wide on average with 20 more rounds (see the module).
    On simulated families the point is within about 0.1 for normal, uniform and
    failure-prone scores; too cautious under a ceiling the scores pile up
    against; too hopeful from a few rounds of scores with a long best-side tail.
    ``.strong_light`` gives the reading with nothing beyond the extremes seen.

    Parameters
    ----------
    scores_a, scores_b : array_like, shape (N_a,) and (N_b,)
        The rounds observed so far, each model's scores (losses with
        ``minimize=True``). At least two distinct scores each.
    n : float
        The budget (rounds of search) the verdict is read at, ≥ 1.
    more_rounds : int, sequence of int, or sequence of (int, int)
        Extra rounds: the same count for both models, several counts to compare
        plans, or (rounds of a, rounds of b) pairs.
    confidence : float in (0, 1), default 0.8
    method : {"ld_highest_density", "ld_equal_tailed", "ks", "dkw"}
    bounds : pair of float or None, default (None, None)
        Known bounds on the scores (e.g. (0, 1) for accuracy); new rounds are
        reflected inside them.
    replications : int, default 1000
        Simulated futures per plan; the standard error of a probability p is
        :math:`\sqrt{p(1-p)/R}` (at most 0.016 at the default).
    rng : int, numpy.random.Generator or None
    minimize : bool, default False
    tail : {"exponential", "quadratic"}, default "exponential"
        Beyond the best score seen: an exponential tail of uncertain scale, or
        ("quadratic") a noisy quadratic fitted to the model's best scores
        (:func:`evp.parametric.choose_threshold`) where one passes its
        goodness-of-fit check, else the exponential tail. ``.tails`` says which
        each model got. The quadratic tail is the worse calibrated from a few
        rounds (see the module).
    family : sequence of float, optional
        The budgets the future verdict's bounds hold over together, `n` among
        them: the verdict predicted is ``evp.compare(…, family,
        construction=construction)`` read at `n`. Default `n` alone.
    construction : {"auto", "band", "top_band", "budgets"}, default "auto"
        As in :func:`evp.compare` (the band's verdict at `n` is the same
        whatever the family).

    Returns
    -------
    VerdictPower
        ``.strong`` (either way) with ``.strong_error``, ``.strong_a`` and
        ``.strong_b`` (each direction), ``.fair``, ``.weak``; the range
        ``.strong_low`` to ``.strong_high``; ``.to_frame()``.

    Raises
    ------
    ValueError
        Where the simulated futures would take more than :data:`MEMORY_LIMIT`
        bytes (about 70 bytes per future and round): ask for fewer
        replications.

    Examples
    --------
    >>> import numpy as np, evp
    >>> rng = np.random.default_rng(0)
    >>> a, b = rng.normal(0.8, 0.05, 12), rng.normal(0.75, 0.05, 12)
    >>> evp.compare(a, b, [2]).evidence  # today: fair evidence that a is better
    array(['fair'], dtype='<U6')
    >>> plan = evp.verdict_power(a, b, n=2, more_rounds=[20, 100], rng=0)
    >>> plan.strong_a.round(2), plan.strong_b.round(2)
    (array([0.82, 0.92]), array([0., 0.]))
    """
    x_a = as_scores(scores_a, "scores_a", ndim=(1,), sort=True)
    x_b = as_scores(scores_b, "scores_b", ndim=(1,), sort=True)
    for name, x in (("scores_a", x_a), ("scores_b", x_b)):
        if x.size < 2 or x[0] == x[-1]:
            raise ValueError(f"{name} needs at least two distinct scores to predict "
                             f"new rounds from, got {x.size} round(s) with "
                             f"{np.unique(x).size} distinct value(s)")
    if x_a.size == x_b.size and np.array_equal(x_a, x_b):
        raise ValueError("scores_a and scores_b hold the same scores: more rounds "
                         "predicted from them favour neither, so no number of them "
                         "can be planned for a strong verdict (the same model "
                         "twice?)")
    try:
        n = float(n)
    except (TypeError, ValueError):
        raise ValueError(f"n must be a budget ≥ 1, got {n!r}") from None
    if not (math.isfinite(n) and n >= 1):
        raise ValueError(f"n must be a budget ≥ 1 (rounds of search), got {n!r}")
    plans = _as_plans(more_rounds)
    family = [n] if family is None else [float(k) for k in np.ravel(family)]
    if n not in family:
        raise ValueError(f"family must hold the budget n={n:g}, got "
                         f"{', '.join(f'{k:g}' for k in family)}")
    column = family.index(n)
    confidence = as_probability(confidence, "confidence")
    method = as_choice(method, "method", METHODS)
    minimize = as_bool(minimize, "minimize")
    if not (isinstance(replications, (int, np.integer)) and replications >= 2):
        raise ValueError(f"replications must be a whole number ≥ 2, got "
                         f"{replications!r}")
    needed = replication_memory(x_a.size, x_b.size, plans, replications)
    if needed > MEMORY_LIMIT:
        most = max_replications(x_a.size, x_b.size, plans)
        raise ValueError(f"replications: {int(replications):,} simulated futures "
                         f"would take about {needed / 1e9:.3g} GB of memory; at most "
                         f"{most:,} fit in {MEMORY_LIMIT / 1e9:.0f} GB: ask for fewer")
    a, b = as_bounds(bounds, min(x_a[0], x_b[0]), max(x_a[-1], x_b[-1]))
    tail = as_choice(tail, "tail", ("exponential", "quadratic"))
    rng = np.random.default_rng(rng)
    # One orientation: losses are negated (the best of k losses is minus the
    # best of k negated ones), so that a loss and its negation, maximised, get
    # the same plan, future by future.
    loss, minimize = minimize, False
    if loss:
        x_a, x_b, (a, b) = -x_a[::-1], -x_b[::-1], (-b, -a)
    fitted = {name: _best_tail(x, minimize) if tail == "quadratic" else None
              for name, x in (("a", x_a), ("b", x_b))}
    labels = {name: np.empty((len(plans), replications), dtype="<U6")
              for name in ("a", "b")}
    light = np.empty((len(plans), replications), dtype=bool)
    for i, (more_a, more_b) in enumerate(plans):
        futures = {"tailed": [], "light": []}
        for x, more, chosen in ((x_a, more_a, fitted["a"]),
                                (x_b, more_b, fitted["b"])):
            observed = np.broadcast_to(x, (replications, x.size))
            tailed, light_new = _future_rounds(
                x, more, replications, (a, b), rng,
                None if chosen is None else chosen.fit, minimize)
            futures["tailed"].append(np.concatenate((observed, tailed), axis=1))
            futures["light"].append(np.concatenate((observed, light_new), axis=1))
        with warnings.catch_warnings():
            # The observed scores' ties, if any, were the caller's to hear about;
            # a warning per simulated future would say nothing new (and the light
            # reading repeats the extremes on purpose).
            warnings.simplefilter("ignore", RuntimeWarning)
            verdict, verdict_light = (
                compare(*futures[reading], family, confidence, method=method,
                        bounds=(a, b), minimize=minimize,
                        construction=construction)
                for reading in ("tailed", "light"))
        labels["a"][i] = verdict.evidence[:, column]
        labels["b"][i] = verdict.reverse_evidence[:, column]
        light[i] = ((verdict_light.evidence[:, column] == "strong")
                    | (verdict_light.reverse_evidence[:, column] == "strong"))
    strong_a = np.mean(labels["a"] == "strong", axis=1)
    strong_b = np.mean(labels["b"] == "strong", axis=1)
    strong = strong_a + strong_b  # the two are exclusive (antisymmetric labels)
    best = {label: np.mean((labels["a"] == label) | (labels["b"] == label), axis=1)
            for label in ("fair", "weak")}
    # The range, in the orientation where higher is better (see the module):
    # the low end the least chance with both models inside their
    # RANGE_BAND_CONFIDENCE CDF bands, the high end the RANGE_LEVEL quantile of
    # the chance over the two distributions' posterior, each draw's chance exact;
    # both of compare's verdict with the family and construction asked for
    # (the scores are oriented above).
    edges, reading = np.array([a, b]), (family, construction)
    low, _ = _strong_range(x_a, x_b, n, plans, confidence, method, edges,
                           RANGE_BAND_CONFIDENCE, reading)
    posterior = _posterior_chances(x_a, x_b, n, plans, confidence, method, edges,
                                   POSTERIOR_DRAWS, rng, reading)
    high = np.maximum(np.quantile(posterior, RANGE_LEVEL, axis=1), low)
    light_share = light.mean(axis=1)
    return VerdictPower(
        more_rounds=plans, n=n, strong=strong,
        strong_error=np.sqrt(strong * (1 - strong) / replications),
        strong_a=strong_a, strong_b=strong_b, fair=best["fair"], weak=best["weak"],
        strong_light=light_share, strong_low=low, strong_high=high,
        tails=tuple("exponential" if chosen is None else
                    f"noisy quadratic (c = {chosen.fit.c}, fitted "
                    f"{'below' if loss else 'above'} "
                    f"{-chosen.threshold if loss else chosen.threshold:.4g})"
                    for chosen in fitted.values()),
        replications=replications,
        predictive=PREDICTIVE,
        confidence=confidence, method=method, minimize=loss)


# ------------------------------------------------------------ the exact chance


def _edge_ranks(size: int, n: float, confidence: float, method: str,
                reading=(None, "auto")):
    """Ranks of the order statistics that are the median curve's lower and upper
    bounds at budget n, from `size` rounds, as :func:`evp.compare` at the one
    budget n builds them (the band, the top band or the exact interval at n,
    whichever is the sharpest: the verdict rule a plan's future verdict
    uses): 0 is the lower bound, size + 1 the upper. They depend on the size,
    budget, confidence and method only (every construction is
    distribution-free), so they are cached. `reading` is (the family of
    budgets, n among them, or None for n alone; the construction), as
    :func:`verdict_power` takes them."""
    family, construction = reading
    family = None if family is None else tuple(float(k) for k in family)
    return _ranks_at(int(size), float(n), float(confidence), str(method), family,
                     str(construction))


@functools.lru_cache(maxsize=4096)
def _ranks_at(size: int, n: float, confidence: float, method: str, family,
              construction: str):
    """:func:`_edge_ranks`, cached: a plan asks for the same few many times."""
    k = np.asarray([float(n)] if family is None else family, dtype=float)
    at = int(np.flatnonzero(k == float(n))[0])
    # The budgets and both sides, as compare spends 1 − c.
    alpha = (1.0 - confidence) / (2 * k.size)
    spent = dict(alpha_worse=alpha, alpha_better=alpha)
    options = dict(band_confidence=confidence, method=method, q=0.5,
                   minimize=False, **spent)
    which = (_sharper(size, k, **options) if construction == "auto"
             else construction)
    low, high = _construction_ranks(which, size, k, **options)
    return int(low[at]), int(high[at])


def _order_statistic_cdf(observed, support, cdf, more, rank, bounds, at):
    r"""P(X_(rank) ≤ t) at each t of `at`, where X is the sorted `observed`
    rounds together with `more` i.i.d. rounds from the step distribution whose
    CDF is `cdf` at the sorted `support` (ties and infinite points allowed;
    `cdf` may hold one distribution per row, shape (..., S), and the answer
    then has a row each); rank 0 is the lower bound, rank N + more + 1 the
    upper one.

    X_(r) ≤ t exactly when at least r rounds are ≤ t: with c(t) observed ones
    and G(t) the new rounds' CDF, :math:`P(c(t) + \mathrm{Bin}(m, G(t)) ≥ r)`."""
    from scipy import special

    at = np.asarray(at, dtype=float)
    total = observed.size + more
    if rank <= 0:
        return (at >= bounds[0]).astype(float)
    if rank > total:
        return (at >= bounds[1]).astype(float)
    seen = np.searchsorted(observed, at, side="right")
    index = np.searchsorted(support, at, side="right") - 1
    g = np.where(index >= 0, np.asarray(cdf)[..., np.maximum(index, 0)], 0.0)
    # P(Bin(more, g) > k), by scipy.special (what stats.binom.sf computes,
    # without its dispatch: this is the inner loop of a plan's exact chances);
    # k ≥ more has no chance, which bdtrc would return as NaN.
    k = np.minimum(rank - seen - 1, more)
    return special.bdtrc(k, more, np.clip(g, 0.0, 1.0))


def _exceeds(low, high):
    """P(L > U) for independent L and U given as (CDF, points) pairs on the same
    points, which hold every value U takes (a CDF with rows: one answer each)."""
    (cdf_low, _), (cdf_high, _) = low, high
    mass = np.diff(cdf_high, prepend=0.0, axis=-1)
    chance = np.clip(np.sum(mass * (1.0 - cdf_low), axis=-1), 0.0, 1.0)
    return float(chance) if np.ndim(chance) == 0 else chance


def _strong_chance(observed_a, law_a, more_a, observed_b, law_b, more_b, n,
                   confidence, method, bounds, reading=(None, "auto")):
    """Exact chances of strong evidence that a beats b and that b beats a at
    budget n (higher is better) after `more_a` and `more_b` i.i.d. rounds from
    the step distributions `law_a` and `law_b` (pairs: sorted support, CDF there;
    a CDF with rows gives one chance per row) joined to the sorted observed
    rounds.

    :func:`evp.compare` calls a strong verdict when a's band's lower edge lies
    above b's band's upper edge, L_a > U_b; each edge is an order statistic of
    the model's rounds (:func:`_edge_ranks`), so both chances are sums over the
    values U_b can take of P(U_b = t) P(L_a > t), every term exact."""
    ranks = {"a": _edge_ranks(observed_a.size + more_a, n, confidence, method,
                              reading),
             "b": _edge_ranks(observed_b.size + more_b, n, confidence, method,
                              reading)}
    points = np.unique(np.concatenate((observed_a, observed_b, law_a[0], law_b[0],
                                       bounds)))
    edges = {}
    for name, observed, law, more in (("a", observed_a, law_a, more_a),
                                      ("b", observed_b, law_b, more_b)):
        low_rank, high_rank = ranks[name]
        edges[name] = [(_order_statistic_cdf(observed, *law, more, rank, bounds,
                                             points), points)
                       for rank in (low_rank, high_rank)]
    return (_exceeds(edges["a"][0], edges["b"][1]),
            _exceeds(edges["b"][0], edges["a"][1]))


def _band_extremes(x, confidence, method, bounds):
    """The stochastically smallest and largest step distributions inside the CDF
    band of the sorted scores x, read as a step envelope: l_i ≤ F(x_(i)) and
    F(x_(i)−) ≤ u_i. The smallest puts mass u_1 on the lower bound and
    u_(i+1) − u_i on x_(i); the largest puts l_i − l_(i−1) on x_(i) and 1 − l_N
    on the upper bound. Each as (support, CDF there)."""
    band = _cdf_band(x, confidence, method)
    support = np.concatenate(([bounds[0]], x, [bounds[1]]))
    smallest = np.concatenate((band.upper, [1.0, 1.0]))
    largest = np.concatenate(([0.0], band.lower, [1.0]))
    return (support, smallest), (support, largest)


def _strong_range(x_a, x_b, n, plans, confidence, method, bounds, range_confidence,
                  reading=(None, "auto")):
    """Bounds on the chance of strong evidence either way that hold whenever
    both models' distributions lie inside their `range_confidence` CDF bands:
    each direction's chance is monotone in the two distributions (a stochastically
    larger model a, or smaller b, can only raise a's lower edge or lower b's
    upper edge), so it is least and most at the bands' extremes; the chance
    either way is the sum of the two directions', bounded by the sums of their
    least and of their most."""
    low_a, high_a = _band_extremes(x_a, range_confidence, method, bounds)
    low_b, high_b = _band_extremes(x_b, range_confidence, method, bounds)
    lows, highs = [], []
    for more_a, more_b in plans:
        def chance(law_a, law_b, more_a=int(more_a), more_b=int(more_b)):
            return _strong_chance(x_a, law_a, more_a, x_b, law_b, more_b, n,
                                  confidence, method, bounds, reading)

        a_up = chance(high_a, low_b)  # a as high, b as low as the bands allow
        a_down = chance(low_a, high_b)
        lows.append(a_down[0] + a_up[1])
        highs.append(min(a_up[0] + a_down[1], 1.0))
    return np.array(lows), np.array(highs)


def _posterior_laws(x: np.ndarray, draws: int, rng):
    """`draws` distributions for the rounds behind the sorted scores x, from the
    Bayesian bootstrap (Rubin 1981): Dirichlet(1, ..., 1) weights on the rounds
    observed, whose posterior they are under a noninformative Dirichlet process.
    As (support, CDF there, one row per draw); tied rounds share their point."""
    support, first = np.unique(x, return_index=True)
    weights = rng.gamma(1.0, size=(draws, x.size))
    # x is sorted, so the rounds at one support point are a contiguous run.
    mass = np.add.reduceat(weights, first, axis=1)
    cdf = np.cumsum(mass, axis=1) / weights.sum(axis=1, keepdims=True)
    return support, np.minimum(cdf, 1.0)


def _posterior_chances(x_a, x_b, n, plans, confidence, method, bounds, draws,
                       rng, reading=(None, "auto")) -> np.ndarray:
    """The chance of strong evidence either way at budget n after each plan's
    rounds, under each of `draws` posterior distributions of the two models
    (:func:`_posterior_laws`), exactly given each draw (:func:`_strong_chance`):
    shape (plans, draws), higher is better."""
    law_a, law_b = _posterior_laws(x_a, draws, rng), _posterior_laws(x_b, draws, rng)
    return np.array([np.add(*_strong_chance(x_a, law_a, int(more_a), x_b, law_b,
                                            int(more_b), n, confidence, method,
                                            bounds, reading))
                     for more_a, more_b in plans])


def calibration(draw, largest_gap: float, observed: int, *, n: float = 4,
                more=(10, 30, 100), worlds: int = 400, replications: int = 300,
                confidence: float = 0.8, method: str = "ld_highest_density",
                rng=None, progress=None, ranges: bool = False):
    """Predicted against realised strong verdicts over simulated worlds.

    Each world draws a gap uniformly from [0, `largest_gap`], then `observed` rounds
    of model a, ``draw(rng, size, gap)``, and of model b, ``draw(rng, size, 0)``,
    drawn again where either has fewer than two distinct scores (a plan needs two).
    :func:`verdict_power` predicts, from those rounds alone, the chance of a strong
    verdict at budget `n` after each count of `more` rounds; the world then draws
    those rounds and :func:`evp.compare` gives the realised verdict. `progress`
    optionally wraps the worlds' range (a progress bar).

    Returns
    -------
    predicted, light, realised : numpy.ndarray, shape (worlds, len(more))
        The predicted chances (``.strong`` and ``.strong_light``), and whether
        the realised verdict was strong.
    low, high : numpy.ndarray, shape (worlds, len(more))
        With ``ranges=True``, after those: the range (``.strong_low`` and
        ``.strong_high``).
    """
    rng = np.random.default_rng(rng)
    more = list(more)
    predicted = np.zeros((worlds, len(more)))
    light = np.zeros((worlds, len(more)))
    realised = np.zeros((worlds, len(more)), dtype=bool)
    low, high = np.zeros((worlds, len(more))), np.zeros((worlds, len(more)))
    for w in (progress or (lambda r: r))(range(worlds)):
        gap = rng.uniform(0, largest_gap)
        # A plan needs two distinct scores of each model: a world whose rounds
        # have fewer (few rounds, many of them failed) is drawn again, as a
        # user would run more rounds before planning.
        for _ in range(100):
            a, b = draw(rng, observed, gap), draw(rng, observed, 0.0)
            if min(np.unique(a).size, np.unique(b).size) >= 2:
                break
        else:
            raise ValueError(
                f"observed: {observed} rounds drawn 100 times never held two "
                "distinct scores of each model, which a plan needs; draw more "
                "rounds, or from a law with fewer ties")
        plan = verdict_power(a, b, n, more, confidence, method=method,
                             replications=replications, rng=rng)
        predicted[w], light[w] = plan.strong, plan.strong_light
        low[w], high[w] = plan.strong_low, plan.strong_high
        for j, m in enumerate(more):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)  # tied draws
                verdict = compare(np.r_[a, draw(rng, m, gap)],
                                  np.r_[b, draw(rng, m, 0.0)], [n], confidence,
                                  method=method)
            realised[w, j] = "strong" in (verdict.evidence[0],
                                          verdict.reverse_evidence[0])
    if ranges:
        return predicted, light, realised, low, high
    return predicted, light, realised


def reliability(predicted, realised, *, bins: int = 5, least: int = 20):
    """Binned calibration: for each bin of predicted chances (fifths by default)
    holding at least `least` predictions, (low, high, count, mean predicted,
    realised share), as a list of tuples."""
    p, r = np.ravel(predicted), np.ravel(realised)
    index = np.minimum((p * bins).astype(int), bins - 1)
    return [(k / bins, (k + 1) / bins, int((index == k).sum()),
             float(p[index == k].mean()), float(r[index == k].mean()))
            for k in range(bins) if (index == k).sum() >= least]
