"""Tuning-curve plots over tidy search results, in the style of seaborn.

One row per search round: a score column, optionally a model column (``hue``) and a
cost column. :func:`plot_tuning_curves` draws, per model, the expected best score
after n rounds with its ±1 standard deviation (Dodge et al. 2019, §3.3), and
optionally confidence bands (Lourie, Cho and He 2024).
"""

from __future__ import annotations

import numpy as np

from evp._validation import as_choice
from evp.estimators import (
    as_estimator,
    budget_to_reach,
    expected_max,
    expected_max_std,
)

__all__ = ["plot_tuning_curves", "save_figure", "tuning_curve_table"]


def save_figure(figure, stem, *, formats=("png", "pdf"), dpi: int = 150):
    """Write `figure` as ``<stem>.png`` and ``<stem>.pdf``, byte-for-byte reproducibly.

    The PDF's creation date is left out, so rerunning a notebook rewrites identical
    files and version control shows only real changes. Returns the paths written.
    """
    from pathlib import Path

    stem = Path(stem)
    stem.parent.mkdir(parents=True, exist_ok=True)
    paths = []
    for suffix in formats:
        path = stem.with_name(f"{stem.name}.{suffix}")
        metadata = {"CreationDate": None} if suffix == "pdf" else None
        figure.savefig(path, bbox_inches="tight", dpi=dpi, metadata=metadata)
        paths.append(path)
    return paths


def _method(method, band):
    """`method`, or the deprecated `band` that named it before."""
    if band is None:
        return method
    import warnings

    warnings.warn("band= is renamed method=; band= will be removed",
                  DeprecationWarning, stacklevel=3)
    if method is not None and method != band:
        raise ValueError(f"method={method!r} and band={band!r} disagree: pass "
                         "method only")
    return band


def _split(data, column, hue):
    """{model: values of `column`}, one entry per model in order of appearance."""
    from evp.datasets import scores_by_model

    if data is None:
        raise ValueError("data must be a DataFrame with one row per search round")
    for name in (column, hue):
        if name is not None and name not in data.columns:
            raise ValueError(f"no column {name!r} in data; columns are "
                             f"{list(data.columns)}")
    return scores_by_model(data, score=column, group=hue)


def tuning_curve_table(
    data,
    *,
    y: str = "score",
    hue: str | None = None,
    cost: str | None = None,
    estimator: str = "v",
    ns=None,
    method: str | None = None,
    confidence: float = 0.8,
    minimize: bool = False,
    band: str | None = None,
):
    """Tuning curves of every model as one tidy DataFrame, the data behind the plot.

    Columns: ``model``, ``n``, ``curve`` (the chosen estimator, default "v"),
    ``std`` (plug-in standard deviation of the best of n, Dodge et al. 2019 §3.3),
    ``budget`` (n × mean cost per round, when `cost` is given), and, when `method`
    names a CDF-band method, ``band_lower``, ``median``, ``band_upper`` of the
    median tuning curve at the given `confidence` (default 0.8). Budgets default to
    1..B per model. `band` is the old name of `method` (deprecated).
    """
    import pandas as pd

    method = _method(method, band)
    estimator = as_estimator(estimator)
    tables = []
    costs = _split(data, cost, hue) if cost is not None else {}
    for name, scores in _split(data, y, hue).items():
        n = np.arange(1, len(scores) + 1) if ns is None else np.asarray(ns)
        table = pd.DataFrame({
            "model": name,
            "n": n,
            "curve": expected_max(scores, n, estimator=estimator, minimize=minimize),
            "std": expected_max_std(scores, n, minimize=minimize),
        })
        if cost is not None:
            table["budget"] = n * costs[name].mean()
        if method is not None:
            from evp.bands import tuning_curve_band

            result = tuning_curve_band(scores, n, confidence, method=method,
                                       minimize=minimize)
            table["band_lower"] = result.lower
            table["median"] = result.estimate
            table["band_upper"] = result.upper
        tables.append(table)
    return pd.concat(tables, ignore_index=True)


def plot_tuning_curves(
    data=None,
    *,
    y: str = "score",
    hue: str | None = None,
    cost: str | None = None,
    estimator: str = "v",
    ns=None,
    std: bool = True,
    method: str | None = None,
    confidence: float = 0.8,
    target: float | None = None,
    x: str = "trials",
    logx: bool = True,
    minimize: bool = False,
    palette=None,
    ax=None,
    band: str | None = None,
):
    """Plot expected-best-score curves per model, seaborn style; return the Axes.

    Parameters
    ----------
    data : pandas.DataFrame
        Search results, one row per round.
    y : str
        Column of scores.
    hue : str, optional
        Column naming the model of each round: one curve per model.
    cost : str, optional
        Column of the cost of each round (e.g. training seconds).
    estimator : {"v", "u", "w"}
        Estimator of the expected maximum (see :func:`evp.expected_max`).
    ns : array_like, optional
        Budgets; default 1..B for each model.
    std : bool
        Shade ±1 standard deviation of the best of n, clipped to the observed score
        range (Dodge et al. 2019, §3.3): the best score can never leave it.
    method : str, optional
        A CDF-band method ("dkw", "ks", "ld_equal_tailed", "ld_highest_density"):
        also draw the median tuning curve (dashed) and its simultaneous confidence
        band (hatched) at `confidence` (Lourie, Cho and He 2024). Default: no band.
    band : str, optional
        The old name of `method`; deprecated.
    target : float, optional
        Draw dotted guides at this score and at the budget each model needs to
        reach it in expectation (:func:`evp.budget_to_reach`).
    x : {"trials", "cost"}
        Horizontal axis: rounds of search, or expected cost (rounds × mean cost of
        a round of that model; needs `cost`), as in Dodge et al. (2019), Fig. 1.
    logx : bool
        Logarithmic horizontal axis.
    minimize : bool
        Scores are losses (lower is better).
    palette : seaborn palette, optional
    ax : matplotlib.axes.Axes, optional

    Returns
    -------
    matplotlib.axes.Axes
    """
    import matplotlib.pyplot as plt
    import seaborn as sns

    method = _method(method, band)
    x = as_choice(x, "x", ("trials", "cost"))
    if x == "cost" and cost is None:
        raise ValueError("x='cost' needs the cost column: pass cost=")
    table = tuning_curve_table(data, y=y, hue=hue, cost=cost, estimator=estimator,
                               ns=ns, method=method, confidence=confidence,
                               minimize=minimize)
    if ax is None:
        ax = plt.figure(figsize=(6, 4)).gca()
    models = list(dict.fromkeys(table["model"]))
    colors = sns.color_palette(palette, n_colors=len(models))
    position = "budget" if x == "cost" else "n"
    split = _split(data, y, hue)
    for model, color in zip(models, colors, strict=True):
        rows = table[table["model"] == model]
        scores = split[model]
        low, high = float(scores.min()), float(scores.max())
        ax.plot(rows[position], rows["curve"], color=color, label=model)
        if std:
            ax.fill_between(
                rows[position],
                np.clip(rows["curve"] - rows["std"], low, high),
                np.clip(rows["curve"] + rows["std"], low, high),
                color=color, alpha=0.2, linewidth=0,
            )
        if method is not None:
            ax.plot(rows[position], rows["median"], color=color, linestyle="--",
                    linewidth=1)
        if target is not None:
            n_needed = budget_to_reach(scores, target, estimator=estimator,
                                       minimize=minimize)
            if n_needed is not None:
                where = rows.loc[rows["n"] == n_needed, position]
                spot = float(where.iloc[0]) if len(where) else float(n_needed)
                ax.axvline(spot, color=color, linestyle=":", linewidth=1)
    if method is not None:
        # A vacuous band reaches ±inf (or the bounds): draw it to the plot's edge.
        bottom, top = ax.get_ylim()
        for model, color in zip(models, colors, strict=True):
            rows = table[table["model"] == model]
            ax.fill_between(rows[position], rows["band_lower"].clip(bottom, top),
                            rows["band_upper"].clip(bottom, top), facecolor="none",
                            edgecolor=color, hatch="///", linewidth=0, alpha=0.6)
        ax.set_ylim(bottom, top)
    if target is not None:
        ax.axhline(target, color="0.4", linestyle=":", linewidth=1)
    if logx:
        ax.set_xscale("log")
    ax.set_xlabel("expected cost (rounds × mean cost per round)" if x == "cost"
                  else "rounds of random search (n)")
    word = "lowest" if minimize else "best"
    ax.set_ylabel(f"expected {word} {y}")
    if hue is not None or method is not None:
        from matplotlib.lines import Line2D
        from matplotlib.patches import Patch

        handles, _ = ax.get_legend_handles_labels()
        handles.append(Line2D([], [], color="0.3",
                              label=f"expected best ({estimator.upper()})"))
        if std:
            handles.append(Patch(color="0.3", alpha=0.2, label="± 1 std"))
        if method is not None:
            handles.append(Line2D([], [], color="0.3", linestyle="--", label="median"))
            handles.append(Patch(facecolor="none", edgecolor="0.3", hatch="///",
                                 label=f"{confidence:.0%} band ({method})"))
        ax.legend(handles=handles, title=hue, fontsize="small")
    return ax
