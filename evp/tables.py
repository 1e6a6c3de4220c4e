"""Tables: the statistics of search results, one tidy DataFrame each.

Each function takes :class:`evp.Results` (or, seaborn style, a tidy frame with
``y``, ``hue`` and ``cost`` column names) or the result objects of the statistics
cores, computes, and returns a DataFrame. The plots draw these tables
(:mod:`evp.plot`); the command line prints and writes them; the report lays them
out. Nothing here draws.

* :func:`tuning_curve_table` — the expected best score (V, U or W), its standard
  deviation, the budget in cost units and the median band, per model and budget;
* :func:`comparison_table` — two models' bands and the evidence, per budget;
* :func:`pairwise_comparisons` and :func:`verdict_table` — every pair of models;
* :func:`budget_table` — the budget each model needs to reach a target;
* :func:`plan_table` — how likely more rounds are to settle a comparison, and
  what they cost;
* :func:`tail_fits` and :func:`tail_table` — fitted noisy quadratic tails and
  their extrapolated median curves; :func:`extrapolation_table` and
  :func:`qq_table`, what their figures draw.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from evp._validation import as_choice, as_scores, renamed
from evp.anytime import anytime_band, best_so_far, compare_runs
from evp.bands import (
    TuningCurveBand,
    cdf_band,
    rounds_needed,
    tuning_curve_band,
)
from evp.comparison import Comparison, compare
from evp.estimators import (
    as_estimator,
    budget_to_reach,
    expected_max,
    expected_max_std,
    quantile_tuning_curve,
)
from evp.parametric import confidence_set, fit_tail, in_tail
from evp.planning import (
    DEFAULT_MORE_ROUNDS,
    verdict_power,
)
from evp.results import Results, as_results

__all__ = [
    "TailFit",
    "anytime_table",
    "budget_table",
    "comparison_table",
    "default_construction",
    "extrapolation_table",
    "mean_cost_per_round",
    "pairwise_comparisons",
    "qq_table",
    "readable_budgets",
    "tail_fits",
    "tail_table",
    "tuning_curve_table",
    "verdict_table",
]


def readable_budgets(rounds: int) -> list[int]:
    """1, 2, 3, 5, 10, 20, 50, 100, 200, 500, … up to `rounds`, and `rounds`.

    >>> readable_budgets(297)
    [1, 2, 3, 5, 10, 20, 50, 100, 200, 297]
    """
    budgets, scale = [1, 2, 3, 5], 10
    while scale <= rounds:
        budgets += [scale, 2 * scale, 5 * scale]
        scale *= 10
    return sorted({n for n in budgets if n < rounds} | {rounds})


def _budgets(ns, rounds: int) -> np.ndarray:
    """The budgets of one model of `rounds` rounds: every one (None), the readable
    ones ("readable"), or those given."""
    if ns is None:
        return np.arange(1, rounds + 1)
    if isinstance(ns, str):
        as_choice(ns, "ns", ("readable",))
        return np.asarray(readable_budgets(rounds))
    return np.asarray(ns)


# ------------------------------------------------------------ failed rounds
# Failed rounds kept as the worst outcome (failures="worst") hold -inf (+inf for a
# loss). The quantile curves and their bands depend only on the order of the
# scores, so a failed round may stand as any finite value below every score and
# be mapped back: their values are order statistics, never sums. The mean curves
# (V, U, W) and their spread sum the scores: a failed round counts as the floor,
# the score's known lower bound (upper, for a loss), or the curve is undefined.


def _finite(results: Results, beyond: float | None = None):
    """(Scores as read, failed rounds as one finite stand-in worse than every
    score and than `beyond`; a function that maps the stand-in back to the failed
    value in an array, a TuningCurveBand or a Comparison)."""
    scores = results.scores_as_read
    if not results.has_failures:
        return scores, lambda found: found
    sign = 1.0 if results.minimize else -1.0  # the way to worse
    finite = np.concatenate([s[np.isfinite(s)] for s in scores.values()])
    edges = [finite.max() if results.minimize else finite.min()]
    if beyond is not None:
        edges.append(beyond)
    edge = max(edges) if results.minimize else min(edges)
    stand_in = float(edge + sign * (1.0 + abs(edge)))
    worst = sign * math.inf

    def back(values):
        return np.where(values == stand_in, worst, values)

    def restore(found):
        if isinstance(found, Comparison):
            return dataclasses.replace(found, band_a=restore(found.band_a),
                                       band_b=restore(found.band_b))
        if isinstance(found, TuningCurveBand):
            return dataclasses.replace(found, lower=back(found.lower),
                                       estimate=back(found.estimate),
                                       upper=back(found.upper))
        return back(found)

    replaced = {m: np.where(np.isfinite(s), s, stand_in) for m, s in scores.items()}
    return replaced, restore


def floor(results: Results, bounds=None) -> float | None:
    """The value a failed round counts as in the mean curves: the known lower
    bound of the score (upper for a loss), from `bounds` or ``results.limits``;
    None where it is unknown."""
    low, high = results.limits if bounds is None else (
        -math.inf if bounds[0] is None else bounds[0],
        math.inf if bounds[1] is None else bounds[1])
    value = high if results.minimize else low
    return float(value) if math.isfinite(value) else None


def _floored(results: Results, bounds=None) -> dict:
    """{model: scores as read with failed rounds at the floor}; None for a model
    with failed rounds where there is no floor (its mean curves are then
    undefined). A model without failed rounds keeps its scores: another
    model's failures change nothing of its curves."""
    scores = results.scores_as_read
    if not results.has_failures:
        return dict(scores)
    value = floor(results, bounds)
    return {m: s if np.isfinite(s).all() else None if value is None
            else np.where(np.isfinite(s), s, value) for m, s in scores.items()}


def tuning_curve_table(
    data,
    *,
    y: str | None = None,
    hue: str | None = None,
    cost: str | None = None,
    estimator: str = "v",
    ns=None,
    method: str | None = None,
    confidence: float = 0.8,
    minimize: bool | None = None,
    bounds=None,
    band: str | None = None,
    construction: str = "band",
) -> pd.DataFrame:
    """Tuning curves of every model as one tidy DataFrame, the data behind the plot.

    Parameters
    ----------
    data : evp.Results or pandas.DataFrame
        Search results. From :class:`evp.Results` the score, model and cost
        columns and the direction are its own; from a frame they are `y`
        (default ``"score"``), `hue`, `cost` and `minimize` (default False).
    estimator : {"v", "u", "w"}
        Of the expected best score (:func:`evp.expected_max`).
    ns : array_like or "readable", optional
        Budgets; default 1..B per model; "readable": 1, 2, 3, 5, 10, 20, 50, …
        and B, per model (:func:`readable_budgets`).
    method : str, optional
        A CDF-band method: add the median tuning curve and its simultaneous band.
    confidence : float, default 0.8
        Of the band.
    bounds : (float or None, float or None), optional
        The score's possible range; default ``results.limits``. Where failed
        rounds count as the worst outcome (see :func:`evp.read_results`), the
        lower bound (upper, for a loss) stands in for them in the expected best
        score and its std; without it those are undefined (NaN). The median
        curve and its band need no bound: their failed values are ``-inf``
        (``+inf`` for a loss), exactly.
    band : str, optional
        The old name of `method` (deprecated).
    construction : {"band", "top_band"}, default "band"
        The median band: the full band, or the top band (exact over the order
        statistics a median curve reads; LD methods), as :func:`evp.compare`
        builds them; both hold at every budget at once.

    Returns
    -------
    pandas.DataFrame
        Columns ``model``, ``n``, ``curve`` (the estimator), ``std`` (plug-in
        standard deviation of the best of n, Dodge et al. 2019 §3.3), ``budget``
        (n × mean cost per round, with a cost column), and with `method`,
        ``band_lower``, ``median``, ``band_upper`` of the median tuning curve.
    """
    method = renamed(method, band, "method", "band", stacklevel=3)
    results = as_results(data, score=y, group=hue, cost=cost, minimize=minimize)
    if results.runs is not None:
        raise ValueError(f"data: these are repeated runs of a tuner (column "
                         f"{results.runs!r}), not one random search: their curve is "
                         "anytime_table's")
    minimize = results.minimize
    costs = (results.per_model(results.cost) if results.cost is not None else {})
    floored = _floored(results, bounds)
    ordered, restore = _finite(results)
    estimator = as_estimator(estimator)
    tables = []
    for name, scores in ordered.items():
        n = _budgets(ns, len(scores))
        table = pd.DataFrame({"model": name, "n": n})
        if floored[name] is None:  # failed rounds and no floor: undefined
            table["curve"] = table["std"] = np.nan
        else:
            table["curve"] = expected_max(floored[name], n, estimator=estimator,
                                          minimize=minimize)
            table["std"] = expected_max_std(floored[name], n, minimize=minimize)
        if results.cost is not None:
            known = costs[name][np.isfinite(costs[name])]  # a failed round's may not
            table["budget"] = n * known.mean()
        if method is not None:
            found = restore(_median_band(scores, n, confidence, method, minimize,
                                         construction))
            table["band_lower"] = found.lower
            table["median"] = found.estimate
            table["band_upper"] = found.upper
        tables.append(table)
    return pd.concat(tables, ignore_index=True)


def _median_band(scores, ns, confidence, method, minimize, construction):
    """One model's median band at budgets `ns`: the full band, or the top band
    (as :func:`evp.compare` reads it with ``construction="top_band"``)."""
    if construction != "top_band":
        return tuning_curve_band(scores, ns, confidence, method=method,
                                 minimize=minimize)
    from evp.bands import _curve_band_iv, _warn_if_ties
    from evp.comparison import _construction, _top_band

    _construction(construction, "median", method)
    x = as_scores(scores, sort=True)
    k, options = _curve_band_iv(ns, confidence, method, "median", 0.5,
                                (None, None), minimize, x)
    _warn_if_ties(options["method"], scores=x)
    return _top_band(x, k, **options)


def _shortest(runs: np.ndarray) -> int:
    """The number of trials of the shortest of these runs (NaN-padded rows)."""
    return int((~np.isnan(runs)).sum(axis=1).min())


def anytime_table(results: Results, *, ns=None,
                  confidence: float = 0.8) -> pd.DataFrame:
    """The median best score after n trials of each model's tuner, across its
    repeated runs, with the simultaneous band of :func:`evp.anytime_band`.

    Budgets: the readable ones up to each model's shortest run (default), "all",
    or those given. Columns ``model``, ``n``, ``runs``, ``median``,
    ``band_lower``, ``band_upper``, and ``mean``, ``std`` (the mean best-so-far
    across runs and its standard deviation, what benchmark papers plot; NaN
    where a run failed every trial so far).
    """
    tables = []
    for model, runs in results.by_run().items():
        shortest = _shortest(runs)
        n = (readable_budgets(shortest) if ns is None
             else list(range(1, shortest + 1)) if isinstance(ns, str)
             else [int(v) for v in ns])
        band = anytime_band(runs, n, confidence, minimize=results.minimize)
        best = best_so_far(runs, minimize=results.minimize)[:, np.asarray(n) - 1]
        with np.errstate(invalid="ignore"):
            mean, std = best.mean(axis=0), best.std(axis=0, ddof=1)
        tables.append(pd.DataFrame({
            "model": model, "n": n, "runs": runs.shape[0], "median": band.estimate,
            "band_lower": band.lower, "band_upper": band.upper,
            "mean": np.where(np.isfinite(mean), mean, np.nan),
            "std": np.where(np.isfinite(std), std, np.nan)}))
    return pd.concat(tables, ignore_index=True)


def mean_cost_per_round(results: Results) -> dict[str, float] | None:
    """{model: mean cost of a round}, or None without a cost column."""
    if results.cost is None:
        return None
    return {m: float(v[np.isfinite(v)].mean())
            for m, v in results.per_model(results.cost).items()}


def comparison_table(comparison, names=("a", "b"), *, costs=None) -> pd.DataFrame:
    """Two models' bands and the evidence, one row per budget.

    `comparison` is what :func:`evp.compare` returns; with `costs` ({model: mean
    cost of a round}), each model's expected cost of n rounds follows ``n``.
    """
    table = comparison.to_frame(names)
    if costs is not None:
        for place, model in enumerate(names, start=1):
            table.insert(place, f"{model} cost", table["n"] * costs[model])
    return table


def comparison_budgets(rounds_a: int, rounds_b: int, ns=None) -> list[int]:
    """The budgets at which two models are compared: one rule for the command
    line and the report. The readable budgets (:func:`readable_budgets`) up to
    the smaller model's rounds by default, every budget up to them for "all", or
    those given."""
    rounds = min(rounds_a, rounds_b)
    if ns is None:
        return readable_budgets(rounds)
    if isinstance(ns, str):
        as_choice(ns, "ns", ("all",))
        return list(range(1, rounds + 1))
    return [int(n) for n in ns]


def default_construction(ns, construction: str | None = None,
                         method: str = "ld_highest_density") -> str:
    """The construction a pair's verdict reads by default: when no budgets are
    named, a band over every budget, so that compare, plan, curve and the
    report agree, each verdict at n the same whatever other budgets are shown:
    the top band for the LD methods (exact over the order statistics a median
    curve reads: at n = 3 from 90 rounds it finds strong verdicts about as
    often as exact intervals at eight readable budgets, more than the full
    band), the band for KS and DKW; with budgets named, the sharpest for them
    ("auto")."""
    if construction is not None:
        return construction
    if ns is None or isinstance(ns, str):
        return "top_band" if method.startswith("ld_") else "band"
    return "auto"


def compare_models(results: Results, a: str, b: str, ns=None,
                   confidence: float = 0.8, *,
                   method: str = "ld_highest_density",
                   construction: str | None = None):
    """:func:`evp.compare` of models `a` and `b` of `results`, at
    :func:`comparison_budgets` (failed rounds as the worst outcome, see
    :func:`tuning_curve_table`); for repeated runs, :func:`evp.compare_runs` of
    their best-so-far curves, up to the shorter model's shortest run (`method`
    does not apply). `construction`: default the band over every budget unless
    budgets are named (:func:`default_construction`)."""
    if results.runs is not None:
        runs = results.by_run()
        budgets = comparison_budgets(_shortest(runs[a]), _shortest(runs[b]), ns)
        return compare_runs(runs[a], runs[b], budgets, confidence,
                            minimize=results.minimize)
    scores, restore = _finite(results)
    budgets = comparison_budgets(len(scores[a]), len(scores[b]), ns)
    return restore(compare(scores[a], scores[b], budgets, confidence,
                           method=method, minimize=results.minimize,
                           construction=default_construction(ns, construction,
                                                             method)))


def pairwise_comparisons(results: Results, ns=None, confidence: float = 0.8, *,
                         method: str = "ld_highest_density") -> dict:
    """{(a, b): :func:`compare_models` of a and b} for every pair of models, in
    order, each at its own :func:`comparison_budgets`."""
    return {(a, b): compare_models(results, a, b, ns, confidence, method=method)
            for a, b in itertools.combinations(results.models, 2)}


def verdict_table(comparisons: dict) -> pd.DataFrame:
    """Per budget and pair, the model the evidence favours and how strongly
    ("strong: a"), "none", or "–" beyond the pair's rounds; one column per pair,
    from :func:`pairwise_comparisons`."""
    ns = sorted({int(n) for c in comparisons.values() for n in c.ns})
    table = pd.DataFrame({"n": ns})
    for (a, b), comparison in comparisons.items():
        said = {int(n): f"{strength}: {winner}" if winner else "none"
                for n, winner, strength in zip(comparison.ns,
                                               comparison.winner((a, b)),
                                               comparison.strength(), strict=True)}
        table[f"{a} vs {b}"] = [said.get(n, "–") for n in ns]
    return table


def plan_table(results: Results, a: str, b: str, budget: int,
               more=DEFAULT_MORE_ROUNDS, confidence: float = 0.8, *,
               method: str = "ld_highest_density", replications: int = 1000,
               rng=0, tail: str = "exponential", family=None,
               construction: str = "band") -> pd.DataFrame:
    """What more rounds of models `a` and `b` would settle at `budget`.

    One row per count in `more` (extra rounds of each model): the predicted
    chance of strong evidence that a is better, that b is better, and either way
    (with its Monte Carlo standard error), and either way if no score lay beyond
    the extremes seen so far, from :func:`evp.verdict_power`; the range for
    the chance either way (``strong, low end`` and ``strong, high end``,
    calibrated on real searches, where the point is too hopeful); the
    rounds each model would then still lack for its median band to be
    informative at `budget` (:func:`evp.rounds_needed`); and, with a cost
    column, the expected cost of the extra rounds (both models). Failed rounds
    count as the worst outcome, as in :func:`compare_models`. `tail`,
    `family` (the budgets the verdict's bounds hold over together, default
    `budget` alone) and `construction` (default the band over every budget, as
    :func:`compare_models` reads without budgets named) are
    :func:`evp.verdict_power`'s: the plan predicts the verdict compare gives
    with the same budgets and construction.
    """
    if results.runs is not None:
        raise ValueError("plan: repeated runs of an adaptive tuner (runs) are not "
                         "planned yet; plan from one random search per model")
    scores, _ = _finite(results)
    # The failed rounds' stand-in lies outside the known limits: use them only
    # when every round is a score.
    bounds = results.limits if not results.has_failures else (None, None)
    plan = verdict_power(scores[a], scores[b], budget, list(more), confidence,
                         method=method, bounds=bounds, replications=replications,
                         rng=rng, minimize=results.minimize, tail=tail,
                         family=family, construction=construction)
    extra = plan.more_rounds[:, 0]
    needed = rounds_needed(budget, confidence, method=method)
    table = pd.DataFrame({
        "more rounds of each": extra,
        f"strong: {a} better": plan.strong_a,
        f"strong: {b} better": plan.strong_b,
        "strong either way": plan.strong,
        "s.e.": plan.strong_error,
        "if none beyond the extremes": plan.strong_light,
        "strong, low end": plan.strong_low,
        "strong, high end": plan.strong_high,
        f"{a} rounds still needed": np.maximum(needed - (len(scores[a]) + extra), 0),
        f"{b} rounds still needed": np.maximum(needed - (len(scores[b]) + extra), 0),
    })
    costs = mean_cost_per_round(results)
    if costs is not None:
        table["expected cost"] = extra * (costs[a] + costs[b])
    return table


def weakest_final_score(results: Results, bounds=None) -> float:
    """The weakest model's expected best score after all its rounds: a target
    every model reaches (NaN where failed rounds have no floor)."""
    floored = _floored(results, bounds)
    if any(v is None for v in floored.values()):
        return math.nan  # a model's expected best is undefined
    ends = [expected_max(v, len(v), minimize=results.minimize)
            for v in floored.values()]
    return float(max(ends) if results.minimize else min(ends))


def budget_table(results: Results, target: float, *, estimator: str = "v",
                 bounds=None) -> pd.DataFrame:
    """The rounds (and with a cost column, the cost) each model needs for its
    expected best score to reach `target` (:func:`evp.budget_to_reach`).

    Columns ``model``, ``rounds run``, ``trials (expected)`` (None where more
    rounds than were run would be needed, or where failed rounds have no floor:
    see :func:`tuning_curve_table`) and, with a cost column, ``cost (expected)``.
    """
    costs = results.per_model(results.cost) if results.cost is not None else {}
    floored = _floored(results, bounds)
    budgets = {model: None if floored[model] is None else budget_to_reach(
                   floored[model], target, estimator=estimator,
                   cost=_known(costs.get(model)), minimize=results.minimize)
               for model in results.models}
    table = pd.DataFrame({
        "model": list(budgets),
        "rounds run": [len(v) for v in results.scores_as_read.values()],
        # object: whole numbers stay whole beside the None of a budget not reached
        "trials (expected)": pd.Series([None if b is None else int(b)
                                        for b in budgets.values()], dtype=object)})
    if results.cost is not None:
        table["cost (expected)"] = [None if b is None else b.expected_cost
                                    for b in budgets.values()]
    return table


def _known(costs):
    """Costs with an unknown one (a failed round's) at the mean of the known: the
    mean cost of a round is that of the rounds whose cost is known."""
    if costs is None:
        return None
    known = np.isfinite(costs)
    return np.where(known, costs, costs[known].mean())


# ------------------------------------------------------------------ tails

@dataclass(frozen=True)
class TailFit:
    """One model's noisy quadratic tail beyond a threshold.

    Attributes
    ----------
    model : str
    scores : numpy.ndarray
        All the model's scores, as read (failed rounds at a finite stand-in
        worse than the threshold: the fit counts them, censored, below it).
    fit : evp.parametric.NoisyQuadraticDistribution
        The maximum-spacing fit.
    found : evp.parametric.ConfidenceSet
        The exact confidence set (its band).
    best : (float, float)
        The interval for the best achievable score: the set's, within the
        bounds when given; ``±inf`` where neither bounds it.
    bounds : (float, float)
        The score's possible range (``±inf`` where unknown).
    """

    model: str
    scores: np.ndarray
    fit: object
    found: object
    best: tuple
    bounds: tuple = (-math.inf, math.inf)

    def band(self, ks) -> tuple[np.ndarray, np.ndarray]:
        """The set's band on the median curve at budgets `ks`, within the bounds."""
        low, high = self.found.quantile_tuning_curve(ks)
        return (_within(low, self.bounds, self.scores),
                _within(high, self.bounds, self.scores))


def _within(values, bounds, scores) -> np.ndarray:
    """`values` clipped to `bounds`, and an edge the data cannot place at all
    (farther from the scores than a million times their spread: what is left of
    an unbounded set after a numerical search) as ``±inf``."""
    values = np.asarray(values, dtype=float)
    finite = scores[np.isfinite(scores)]
    span = max(float(np.ptp(finite)), float(np.abs(finite).max()), 1e-12)
    far = np.abs(values - np.median(finite)) > 1e6 * span
    values = np.where(far, np.sign(values) * np.inf, values)
    return np.clip(values, bounds[0], bounds[1])


def tail_fits(results: Results, threshold: float, confidence: float = 0.8,
              *, bounds=None, at_least: int = 5) -> list[TailFit]:
    """Fit each model's noisy quadratic tail beyond `threshold` (below it for a
    loss) and its exact confidence set (Lourie, He and Cho 2025).

    With `bounds` (default ``results.limits``), the score's possible range, the
    fit keeps the best achievable score within it, and the set's intervals and
    bands are cut to it: the true parameters lie in both, so the cut set keeps
    its confidence. Failed rounds count as rounds below the threshold (above it
    for a loss).

    Raises ValueError naming `threshold` when fewer than `at_least` rounds of a
    model lie beyond it.
    """
    minimize = results.minimize
    low, high = results.limits if bounds is None else (
        -math.inf if bounds[0] is None else float(bounds[0]),
        math.inf if bounds[1] is None else float(bounds[1]))
    constraints = {}
    if math.isfinite(low) or math.isfinite(high):
        constraints["a" if minimize else "b"] = (low, high)
    scores, _ = _finite(results, beyond=threshold)
    found_fits = []
    for model, ys in scores.items():
        beyond = int(np.sum(in_tail(ys, threshold, minimize=minimize)))
        if beyond < at_least:
            raise ValueError(
                f"threshold {threshold:g}: only {beyond} of the {len(ys)} rounds of "
                f"{model} lie {'below' if minimize else 'above'} it, and a fit "
                f"needs at least {at_least}: give a "
                f"{'higher' if minimize else 'lower'} threshold")
        fit = fit_tail(ys, threshold, minimize=minimize, constraints=constraints)
        found = confidence_set(ys, threshold, confidence, minimize=minimize)
        best = tuple(float(v) for v in _within(found.best, (low, high), ys))
        found_fits.append(TailFit(model, ys, fit, found, best, (low, high)))
    return found_fits


def tail_table(fits: list[TailFit], ns=None) -> pd.DataFrame:
    """Each fit's median curve and its band, one row per model and budget.

    Budgets default to the readable ones up to 10 × the rounds run; "all" is
    every budget up to the rounds run.
    """
    tables = []
    for tail in fits:
        size = len(tail.scores)
        ks = (readable_budgets(10 * size) if ns is None
              else list(range(1, size + 1)) if isinstance(ns, str) else ns)
        low, high = tail.band(ks)
        tables.append(pd.DataFrame({
            "model": tail.model, "n": ks,
            "fitted median": tail.fit.quantile_tuning_curve(ks),
            "band lower": low, "band upper": high}))
    return pd.concat(tables, ignore_index=True)


def extrapolation_table(fit, found, ys, *, extrapolate: float = 10) -> pd.DataFrame:
    """What :func:`evp.plot.plot_extrapolation` draws: the fit's median curve and
    the confidence set's band at 200 budgets up to `extrapolate` × the rounds run
    (``curve`` "fitted"), and the empirical median curve at 25 budgets up to the
    rounds run ("empirical"), in columns ``n``, ``median``, ``lower``, ``upper``."""
    ys = np.asarray(ys, dtype=float)
    size = len(ys)
    ks = np.unique(np.geomspace(1, extrapolate * size, 200).round())
    low, high = found.quantile_tuning_curve(ks)
    fitted = fit.quantile_tuning_curve(ks)
    seen = np.unique(np.geomspace(1, size, 25).round())
    empirical = quantile_tuning_curve(ys, seen, minimize=bool(found.minimize))
    return pd.concat([
        pd.DataFrame({"curve": "fitted", "n": ks, "median": fitted, "lower": low,
                      "upper": high}),
        pd.DataFrame({"curve": "empirical", "n": seen, "median": empirical,
                      "lower": np.nan, "upper": np.nan}),
    ], ignore_index=True)


def qq_table(dist, ys, threshold: float, *, confidence: float = 0.95,
             method: str = "ld_highest_density") -> pd.DataFrame:
    r"""What :func:`evp.plot.plot_tail_fit` draws: each score of the fitted region
    against the fitted quantile at its plotting position,
    :math:`F^{-1}((i - 1/2)/n)`, with the CDF band mapped through the fit,
    :math:`[F^{-1}(l_i), F^{-1}(u_i)]`, and whether the score lies outside it.
    """
    found = cdf_band(ys, confidence, method=method)
    y, n = found.scores, found.n
    tail = in_tail(y, threshold, minimize=dist.convex)
    positions = (np.arange(1, n + 1) - 0.5) / n
    x = dist.ppf(positions[tail])
    low, high = dist.ppf(found.lower[tail]), dist.ppf(found.upper[tail])
    return pd.DataFrame({
        "score": y[tail], "fitted quantile": x, "band lower": low, "band upper": high,
        "outside": (y[tail] < low) | (y[tail] > high)})
