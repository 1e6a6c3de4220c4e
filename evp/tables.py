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
* :func:`tail_fits` and :func:`tail_table` — fitted noisy quadratic tails and
  their extrapolated median curves; :func:`extrapolation_table` and
  :func:`qq_table`, what their figures draw.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
import pandas as pd

from evp._validation import as_choice, renamed
from evp.bands import cdf_band, compare, tuning_curve_band
from evp.estimators import (
    as_estimator,
    budget_to_reach,
    expected_max,
    expected_max_std,
    quantile_tuning_curve,
)
from evp.parametric import NoisyQuadraticDistribution, confidence_set
from evp.results import Results, as_results

__all__ = [
    "TailFit",
    "budget_table",
    "comparison_table",
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
    band: str | None = None,
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
    band : str, optional
        The old name of `method` (deprecated).

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
    minimize = results.minimize
    costs = (results.per_model(results.cost) if results.cost is not None else {})
    by_model = results.scores_as_read
    estimator = as_estimator(estimator)
    tables = []
    for name, scores in by_model.items():
        n = _budgets(ns, len(scores))
        table = pd.DataFrame({
            "model": name,
            "n": n,
            "curve": expected_max(scores, n, estimator=estimator, minimize=minimize),
            "std": expected_max_std(scores, n, minimize=minimize),
        })
        if results.cost is not None:
            table["budget"] = n * costs[name].mean()
        if method is not None:
            found = tuning_curve_band(scores, n, confidence, method=method,
                                      minimize=minimize)
            table["band_lower"] = found.lower
            table["median"] = found.estimate
            table["band_upper"] = found.upper
        tables.append(table)
    return pd.concat(tables, ignore_index=True)


def mean_cost_per_round(results: Results) -> dict[str, float] | None:
    """{model: mean cost of a round}, or None without a cost column."""
    if results.cost is None:
        return None
    return {m: float(v.mean()) for m, v in results.per_model(results.cost).items()}


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


def pairwise_comparisons(results: Results, ns, confidence: float = 0.8, *,
                         method: str = "ld_highest_density") -> dict:
    """{(a, b): :func:`evp.compare` of a and b} for every pair of models, in order."""
    scores = results.scores_as_read
    return {(a, b): compare(scores[a], scores[b], ns, confidence, method=method,
                            minimize=results.minimize)
            for a, b in itertools.combinations(results.models, 2)}


def verdict_table(comparisons: dict, ns) -> pd.DataFrame:
    """Per budget and pair, the model the evidence favours and how strongly
    ("strong: a") or "none"; one column per pair, from
    :func:`pairwise_comparisons`."""
    table = pd.DataFrame({"n": ns})
    for (a, b), comparison in comparisons.items():
        table[f"{a} vs {b}"] = [f"{strength}: {winner}" if winner else "none"
                                for winner, strength in zip(
                                    comparison.winner((a, b)),
                                    comparison.strength(), strict=True)]
    return table


def weakest_final_score(results: Results) -> float:
    """The weakest model's expected best score after all its rounds: a target
    every model reaches."""
    ends = [expected_max(v, len(v), minimize=results.minimize)
            for v in results.scores_as_read.values()]
    return float(max(ends) if results.minimize else min(ends))


def budget_table(results: Results, target: float, *,
                 estimator: str = "v") -> pd.DataFrame:
    """The rounds (and with a cost column, the cost) each model needs for its
    expected best score to reach `target` (:func:`evp.budget_to_reach`).

    Columns ``model``, ``rounds run``, ``trials (expected)`` (None where more
    rounds than were run would be needed) and, with a cost column,
    ``cost (expected)``.
    """
    costs = results.per_model(results.cost) if results.cost is not None else {}
    budgets = {model: budget_to_reach(values, target, estimator=estimator,
                                      cost=costs.get(model),
                                      minimize=results.minimize)
               for model, values in results.scores_as_read.items()}
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


# ------------------------------------------------------------------ tails

@dataclass(frozen=True)
class TailFit:
    """One model's noisy quadratic tail beyond a threshold.

    Attributes
    ----------
    model : str
    scores : numpy.ndarray
        All the model's scores, as read.
    fit : evp.parametric.NoisyQuadraticDistribution
        The maximum-spacing fit.
    found : evp.parametric.ConfidenceSet
        The exact confidence set (its ``best`` interval, its band).
    """

    model: str
    scores: np.ndarray
    fit: object
    found: object


def tail_fits(results: Results, threshold: float, confidence: float = 0.8,
              *, at_least: int = 5) -> list[TailFit]:
    """Fit each model's noisy quadratic tail beyond `threshold` (below it for a
    loss) and its exact confidence set (Lourie, He and Cho 2025).

    Raises ValueError naming `threshold` when fewer than `at_least` rounds of a
    model lie beyond it.
    """
    minimize = results.minimize
    found_fits = []
    for model, ys in results.scores_as_read.items():
        beyond = int(np.sum(ys <= threshold if minimize else ys > threshold))
        if beyond < at_least:
            raise ValueError(
                f"threshold {threshold:g}: only {beyond} of the {len(ys)} rounds of "
                f"{model} lie {'at or below' if minimize else 'above'} it, and a fit "
                f"needs at least {at_least}: give a "
                f"{'higher' if minimize else 'lower'} threshold")
        limits = (-np.inf, threshold) if minimize else (threshold, np.inf)
        fit = NoisyQuadraticDistribution.fit(ys, limits=limits,
                                             constraints={"convex": minimize})
        found = confidence_set(ys, threshold, confidence, minimize=minimize)
        found_fits.append(TailFit(model, ys, fit, found))
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
        low, high = tail.found.quantile_tuning_curve(ks)
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
    tail = y <= threshold if dist.convex else y > threshold
    positions = (np.arange(1, n + 1) - 0.5) / n
    x = dist.ppf(positions[tail])
    low, high = dist.ppf(found.lower[tail]), dist.ppf(found.upper[tail])
    return pd.DataFrame({
        "score": y[tail], "fitted quantile": x, "band lower": low, "band upper": high,
        "outside": (y[tail] < low) | (y[tail] > high)})
