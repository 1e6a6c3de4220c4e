r"""Many models, many tasks, every budget: which models may still be best, verdicts
on every pair with their family-wise error controlled, and the views across tasks.

One task (a mapping of model → scores, or :class:`evp.Results`):

* :func:`best_set` — the models that may still be best at each budget,
  simultaneously over the models and the budgets;
* :func:`compare_all` — every ordered pair's verdict (the labels of
  :func:`evp.compare`), family-wise over all pairs and budgets; or every model
  against a named baseline.

Many tasks (:class:`evp.Results` with a ``task`` role), budget by budget:

* :func:`task_curves` — each task's median curves and bands, the scores placed
  on one scale (:func:`normalise`);
* :func:`rank_table` — mean ranks, the aggregate normalised curve with a band
  simultaneous over models, tasks and budgets, and how often each model is in its
  task's best set;
* :func:`pairs_across_tasks` — the chance that one model beats another on a task
  drawn like these (Wilson interval), with Wilcoxon's signed-rank test and Holm
  over the pairs;
* :func:`profile_table` (fixed budget) and :func:`target_table` (fixed target) —
  the views COCO and IOHanalyzer show for optimisers;
* :func:`leaders`, :func:`first_alone` — who leads at each budget (ties kept);
  :func:`wilcoxon_limits` — the least p-value the tests across tasks can give.

The statistics are those of :mod:`evp.multiple`; every frame says what its
intervals cover.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from evp._validation import as_choice, as_probability
from evp.bands import METHODS
from evp.comparison import CONSTRUCTIONS, _joint
from evp.multiple import (
    band_confidence,
    best_set_mask,
    holm,
    holm_floor,
    model_bands,
    oriented_edges,
    pair_evidence,
    ranks,
    wilcoxon_holm,
    win_rate,
)
from evp.results import Results
from evp.tables import _finite, readable_budgets

__all__ = [
    "MAX_PAIR_ROWS",
    "BestSet",
    "PairVerdicts",
    "all_open",
    "as_verdicts",
    "best_set",
    "compare_all",
    "first_alone",
    "leaders",
    "normalise",
    "open_budgets",
    "pair_tasks",
    "pair_verdicts",
    "pairs_across_tasks",
    "profile_table",
    "rank_table",
    "target_table",
    "task_curves",
    "verdict_budget",
    "wilcoxon_limits",
]


def _one_task(scores, minimize, who: str):
    """({model: scores as read, failed rounds as a finite stand-in}, minimize) of a
    mapping or of Results holding one task."""
    if isinstance(scores, Results):
        if len(scores.tasks) > 1:
            shown = ", ".join(scores.tasks[:5]) + (", …" if len(scores.tasks) > 5
                                                   else "")
            raise ValueError(
                f"scores: these results hold {len(scores.tasks)} tasks ({shown}); "
                f"{who} judges one task: pass results.by_task()[TASK], or use "
                "evp.ranking.rank_table for the view across tasks")
        if minimize not in (None, scores.minimize):
            raise ValueError(f"minimize={minimize!r} contradicts the results' "
                             f"direction ({scores.direction}); leave minimize out")
        finite, _ = _finite(scores)
        return dict(finite), scores.minimize
    if not isinstance(scores, Mapping):
        raise ValueError("scores: give a mapping of model name to its scores "
                         "({'a': scores_a, 'b': scores_b, ...}) or evp.Results")
    return dict(scores), bool(minimize)


def _construction(construction, ns) -> str:
    """The construction for verdicts at `ns` as the user gave it: "auto" is the
    band unless budgets were named (the readable budgets are a figure's, and a
    figure needs the band at every budget)."""
    construction = as_choice(construction, "construction", CONSTRUCTIONS)
    named = ns is not None and not isinstance(ns, str)
    return "band" if construction == "auto" and not named else construction


def _ns(ns, scores: Mapping) -> np.ndarray:
    """Budgets: given, or the readable ones up to the smallest model's rounds."""
    if ns is None or (isinstance(ns, str) and ns == "readable"):
        return np.asarray(readable_budgets(min(len(np.ravel(s))
                                                for s in scores.values())))
    if isinstance(ns, str) and ns == "all":
        return np.arange(1, min(len(np.ravel(s)) for s in scores.values()) + 1)
    return np.atleast_1d(np.asarray(ns))


@dataclass(frozen=True, eq=False)
class BestSet:
    """The models that may still be best at each budget.

    Attributes
    ----------
    frame : pandas.DataFrame
        Booleans, index the budgets (``n``), one column per model: True where
        the model may still be best at n. The set holds the best model at every
        budget at once with probability at least `confidence`.
    lower, estimate, upper : pandas.DataFrame
        Each model's band and median curve (same shape; the user's units).
    confidence : float
        The simultaneous confidence of the set.
    band_confidence : float
        The confidence of each model's band: ``1 - (1 - confidence) / M``.
    method : str
    minimize : bool
    """

    frame: pd.DataFrame
    lower: pd.DataFrame
    estimate: pd.DataFrame
    upper: pd.DataFrame
    confidence: float
    band_confidence: float
    method: str
    minimize: bool
    construction: str = "band"

    def members(self) -> dict:
        """{n: [models that may still be best at n]}, models in column order."""
        return {n: [m for m in self.frame.columns if row[m]]
                for n, row in self.frame.iterrows()}

    def open_budgets(self) -> pd.Series:
        """Booleans by budget: True where every model's band is open on the side
        that bounds its best (too few rounds to bound the best of so many)."""
        return all_open(self.lower, self.upper, self.minimize)

    def __repr__(self) -> str:
        sizes = self.frame.sum(axis=1)
        return (f"BestSet({self.frame.shape[1]} models, {len(self.frame)} budgets, "
                f"confidence={self.confidence:g}; set sizes {int(sizes.min())}–"
                f"{int(sizes.max())})")

    def _repr_html_(self) -> str:
        from evp import _display

        shown = _display.table({"n": list(self.frame.index),
                                "may still be best": [", ".join(m) for m in
                                                      self.members().values()]})
        return _display.page(f"Best set at {self.confidence:.0%}", [], [shown])


def best_set(scores, ns=None, confidence: float = 0.8, *,
             method: str = "ld_highest_density", minimize: bool | None = None,
             adjust: str = "holm", statistic: str = "median", bounds=(None, None),
             construction: str = "auto") -> BestSet:
    r"""The models that may still be best at each budget, simultaneously.

    Each model's tuning-curve band is built at confidence
    :math:`1 - (1 - c)/M` (Bonferroni over the M models), so all M bands hold at
    every budget at once with probability at least c. A model leaves the set at
    budget n only when another model's lower edge lies strictly above its upper
    edge there. The best model at n (the highest median tuning curve; the
    lowest for a loss) is then in the set at every n at once with probability at
    least `confidence`, for continuous and for tied scores (the bands are exact
    for the first and conservative for the second).

    Parameters
    ----------
    scores : mapping of str to array_like, or evp.Results
        Each model's scores from its own random search (sizes may differ), or
        Results of one task (failed rounds count as the worst outcome).
    ns : sequence of float, "readable", "all" or None
        Budgets; default the readable ones up to the smallest model's rounds.
    confidence : float in (0, 1), default 0.8
    method : str, default "ld_highest_density"
        The CDF band (:func:`evp.cdf_band`).
    minimize : bool, optional
        Scores are losses; Results say it themselves.
    adjust : {"holm", "bonferroni"}, default "holm"
        Both give Bonferroni over the M bands (see :mod:`evp.multiple` for why
        Holm's step-down has nothing to step through here).
    statistic, bounds
        As in :func:`evp.tuning_curve_band` ("mean" needs bounds).
    construction : {"auto", "band", "top_band", "budgets"}, default "auto"
        How each model's curve is bounded (:func:`evp.compare`): with budgets
        named, "auto" takes the sharpest of the band over every budget, the
        band exact over the better half of the order statistics, and exact
        intervals at the budgets named (chosen from the counts of rounds and
        budgets, never the scores); with `ns` left out, the band. Either
        way each model's bounds hold at all the budgets at once with
        probability at least :math:`1 - (1 - c)/M`, so the set's promise is
        the same. ``.construction`` says which was used.

    Notes
    -----
    Only the best model's upper side and the others' lower sides can drop the
    best model, yet one-sided bounds do not pay here: when several models tie
    for best (the global null, or atoms at the quantile read), each of them
    needs its upper side and every model its lower side, so the worst case
    spends as much as both sides of every model.

    Returns
    -------
    BestSet
        ``.frame`` (budgets × models, True where a model may still be best),
        the bands, ``.members()`` and ``.describe()``.

    Examples
    --------
    >>> import numpy as np, evp
    >>> rng = np.random.default_rng(0)
    >>> scores = {"a": rng.normal(1, .1, 60), "b": rng.normal(0, .1, 60),
    ...           "c": rng.normal(1, .1, 60)}
    >>> evp.best_set(scores, [1, 3]).frame.loc[3].tolist()
    [True, False, True]
    """
    scores, minimize = _one_task(scores, minimize, "best_set")
    if adjust is None:
        raise ValueError("adjust: a best set needs its bands adjusted for the "
                         "number of models; pass adjust='holm' or 'bonferroni'")
    as_choice(method, "method", METHODS)
    each = band_confidence(confidence, len(scores), adjust)
    construction = _construction(construction, ns)
    ns = _ns(ns, scores)
    bands = model_bands(scores, ns, each, method=method, statistic=statistic,
                        bounds=bounds, minimize=minimize, construction=construction)
    lower, _, upper = oriented_edges(bands)
    mask = best_set_mask(lower, upper)
    budgets = next(iter(bands.values())).ns
    whole = np.all(budgets == np.round(budgets))
    index = pd.Index(budgets.astype(int) if whole else budgets, name="n")

    def frame(values):
        return pd.DataFrame(np.asarray(values).T, index=index, columns=list(bands))

    return BestSet(
        frame=frame(mask), confidence=as_probability(confidence, "confidence"),
        lower=frame([b.lower for b in bands.values()]),
        estimate=frame([b.estimate for b in bands.values()]),
        upper=frame([b.upper for b in bands.values()]),
        band_confidence=each, method=method, minimize=minimize,
        construction=_joint(*(b.construction for b in bands.values())))


def compare_all(scores, ns=None, confidence: float = 0.8, *,
                adjust: str | None = "holm", baseline: str | None = None,
                method: str = "ld_highest_density", minimize: bool | None = None,
                statistic: str = "median", bounds=(None, None),
                construction: str = "auto") -> pd.DataFrame:
    r"""Every pair's verdict, with the family-wise error of the strong verdicts
    controlled over all pairs and budgets at once.

    The labels are those of :func:`evp.compare` ("strong", "fair", "weak",
    "none") for "a beats b", read from bands built at confidence
    :math:`1 - (1 - c)/M` for M models (Bonferroni over the bands the verdicts
    read). All bands then hold at every budget with probability at least c, and
    on that event no strong verdict is wrong: the chance of any wrong strong
    verdict, over every pair and budget, is at most :math:`1 - c`. Each pair's
    verdict depends on its two models' scores and on M, never on the other
    models' scores. "Fair" and "weak" remain heuristics for reading plots.

    Parameters
    ----------
    scores : mapping of str to array_like, or evp.Results
        As in :func:`best_set`.
    ns : sequence of float, "readable", "all" or None
        Budgets; default the readable ones up to the smallest model's rounds.
    confidence : float in (0, 1), default 0.8
    adjust : {"holm", "bonferroni"} or None, default "holm"
        "holm" and "bonferroni" adjust the bands as above (see
        :mod:`evp.multiple`); None gives the unadjusted labels, each pair at
        `confidence` alone, as :func:`evp.compare` does, labelled so in the
        ``adjust`` column.
    baseline : str, optional
        Compare every model with this one only (both directions). The bands are
        the same M bands, so the verdicts are those of all pairs, fewer of them.
    method, minimize, statistic, bounds, construction
        As in :func:`best_set`: with budgets named, the verdicts read the
        sharper of the bands and exact intervals at those budgets; the family-wise
        promise is the same either way.

    Returns
    -------
    pandas.DataFrame
        One row per ordered pair (a, b) and budget: ``a``, ``b``, ``n``,
        ``evidence`` (that a beats b), ``a median``, ``b median`` (or mean;
        the user's units), ``band confidence``, ``adjust`` (in words) and
        ``construction`` ("band", "top_band", "budgets", or "both" when the
        models' differ).

    Examples
    --------
    >>> import numpy as np, evp
    >>> rng = np.random.default_rng(0)
    >>> scores = {m: rng.normal(mu, .1, 80) for m, mu in zip("abc", (1, 0, 0))}
    >>> table = evp.compare_all(scores, [5])
    >>> table[table.evidence == "strong"][["a", "b"]].values.tolist()
    [['a', 'b'], ['a', 'c']]
    """
    return pair_verdicts(scores, ns, confidence, adjust=adjust, baseline=baseline,
                         method=method, minimize=minimize, statistic=statistic,
                         bounds=bounds, construction=construction).table()


#: Labels computed at once (each takes about 80 bytes while it is worked out):
#: a piece of pairs is about 40 MB, however many models.
PIECE = 500_000
#: The most rows of every pair's verdict that are printed or written (about
#: 100 bytes a row held): 1,000 models at 6 budgets make 5,994,000.
MAX_PAIR_ROWS = 2_000_000


@dataclass(frozen=True)
class PairVerdicts:
    """Every ordered pair's verdict (:func:`compare_all`), held as each model's
    bounds rather than a row per pair and budget: M models' verdicts take
    memory linear in M, however many pairs (M(M-1) of them) there are. The
    labels are computed pair by pair, in pieces, when asked for: the whole
    table (:meth:`table`), each model's strong verdicts (:meth:`counts`), the
    strong verdicts at some budgets (:meth:`strong`), one budget's matrix
    (:meth:`matrix`).

    ``lower``, ``estimate`` and ``upper`` are the oriented edges (higher is
    better), (M, N); ``shown`` the estimates in the user's units.
    """

    models: tuple[str, ...]
    budgets: np.ndarray
    lower: np.ndarray
    estimate: np.ndarray
    upper: np.ndarray
    shown: np.ndarray
    word: str = "median"
    band_confidence: float = 0.8
    adjust: str = ""
    construction: str = "band"
    baseline: int | None = None

    @property
    def pairs(self) -> int:
        """The ordered pairs judged: M(M-1), or 2(M-1) against a baseline."""
        m = len(self.models)
        return 2 * (m - 1) if self.baseline is not None else m * (m - 1)

    @property
    def rows(self) -> int:
        """The rows of :meth:`table`: a row per ordered pair and budget."""
        return self.pairs * len(self.budgets)

    @property
    def ns(self) -> list:
        """The budgets, whole numbers as int."""
        whole = np.all(self.budgets == np.round(self.budgets))
        return [int(n) if whole else float(n) for n in self.budgets]

    def _pieces(self):
        """(first, second): the ordered pairs' model rows, in the order of
        :func:`itertools.permutations` (a before b), a piece at a time of at
        most about :data:`PIECE` labels."""
        m, width = len(self.models), max(len(self.budgets), 1)
        others = np.arange(m)
        if self.baseline is not None:
            at = self.baseline
            first = np.concatenate([[a] * (1 if a != at else m - 1)
                                    for a in range(m)]).astype(int)
            second = np.concatenate([others[others != a] if a == at else [at]
                                     for a in range(m)]).astype(int)
            yield first, second
            return
        step = max(1, PIECE // (m * width))
        for start in range(0, m, step):
            rows = np.arange(start, min(start + step, m))
            first = np.repeat(rows, m)
            second = np.tile(others, rows.size)
            keep = first != second
            yield first[keep], second[keep]

    def labels(self, first, second) -> np.ndarray:
        """The labels of "a beats b" for the pairs (first[i], second[i]), (P, N)."""
        return pair_evidence((self.lower, self.estimate, self.upper), first, second)

    def table(self, n=None) -> pd.DataFrame:
        """Every ordered pair's verdict at every budget (only at budget `n`,
        given): :func:`compare_all`'s table."""
        keep = (np.ones(len(self.budgets), dtype=bool) if n is None
                else np.isclose(self.budgets, float(n)))
        budgets = self.budgets[keep]
        names = np.array(self.models, dtype=object)
        pieces = []
        for first, second in self._pieces():
            pieces.append(pd.DataFrame({
                "a": np.repeat(names[first], budgets.size),
                "b": np.repeat(names[second], budgets.size),
                "n": np.tile(budgets, first.size),
                "evidence": self.labels(first, second)[:, keep].ravel().astype(
                    object),
                f"a {self.word}": self.shown[first][:, keep].ravel(),
                f"b {self.word}": self.shown[second][:, keep].ravel()}))
        table = pd.concat(pieces, ignore_index=True)
        if np.all(budgets == np.round(budgets)):
            table["n"] = table["n"].astype(int)
        table["band confidence"] = self.band_confidence
        table["adjust"] = self.adjust
        table["construction"] = self.construction
        return table

    def counts(self) -> tuple[np.ndarray, np.ndarray]:
        """(how many models each beats, how many beat it), with strong evidence
        at some budget, each model's counts in :attr:`models` order."""
        m = len(self.models)
        beats, beaten = np.zeros(m, dtype=int), np.zeros(m, dtype=int)
        for first, second in self._pieces():
            strong = (self.labels(first, second) == "strong").any(axis=1)
            beats += np.bincount(first[strong], minlength=m)
            beaten += np.bincount(second[strong], minlength=m)
        return beats, beaten

    def strong(self, readable, most: int | None = None):
        """The strong verdicts at the budgets marked `readable` (booleans by
        budget): (strong pair-budgets, pairs with one either way, ordered pairs
        with one, [(a, b, [budgets])] for the first `most` of those ordered
        pairs in :meth:`table`'s order)."""
        readable = np.asarray(readable, dtype=bool)
        budgets = [n for n, yes in zip(self.ns, readable, strict=True) if yes]
        found = chosen = twice = 0
        kept = []
        for first, second in self._pieces():
            strong = self.labels(first, second)[:, readable] == "strong"
            found += int(strong.sum())
            hit = strong.any(axis=1)
            chosen += int(hit.sum())
            # A pair strong both ways (at different budgets) is one pair: its
            # two ordered pairs are each counted here once.
            back = self.labels(second[hit], first[hit])[:, readable] == "strong"
            twice += int(back.any(axis=1).sum())
            for row in np.flatnonzero(hit):
                if most is not None and len(kept) >= most:
                    break
                kept.append((self.models[first[row]], self.models[second[row]],
                             [n for n, yes in zip(budgets, strong[row], strict=True)
                              if yes]))
        return found, chosen - twice // 2, chosen, kept

    def matrix(self, n) -> pd.DataFrame:
        """The evidence that the row beats the column at budget `n`: a frame
        indexed by model, a column per model, "–" on the diagonal."""
        k = int(np.flatnonzero(np.isclose(self.budgets, float(n)))[0])
        m = len(self.models)
        labels = np.full((m, m), "–", dtype=object)
        for first, second in self._pieces():
            labels[first, second] = self.labels(first, second)[:, k]
        return pd.DataFrame(labels, index=list(self.models), columns=list(self.models))


class _TableVerdicts:
    """A table of every pair's verdict (:func:`compare_all`'s columns) read as
    :class:`PairVerdicts` is, for the verdicts' words (:func:`as_verdicts`)."""

    def __init__(self, table: pd.DataFrame):
        self._table = table
        self.ns = sorted(set(table["n"]))
        self.models = tuple(dict.fromkeys([*table["a"], *table["b"]]))
        self.pairs = len(table[["a", "b"]].drop_duplicates())
        self.construction = (str(table["construction"].iloc[0])
                             if "construction" in table and len(table) else "band")
        self.adjust = str(table["adjust"].iloc[0])
        self.band_confidence = float(table["band confidence"].iloc[0])

    def strong(self, readable, most: int | None = None):
        table = self._table
        budgets = [n for n, yes in zip(self.ns, readable, strict=True) if yes]
        strong = table[table["n"].isin(budgets) & (table["evidence"] == "strong")]
        chosen = strong[["a", "b"]].drop_duplicates()
        either = {frozenset(pair) for pair in chosen.itertuples(index=False)}
        kept = [(a, b, list(part["n"])) for (a, b), part in
                strong.groupby(["a", "b"], sort=False)][:most]
        return len(strong), len(either), len(chosen), kept


def pair_verdicts(scores, ns=None, confidence: float = 0.8, *,
                  adjust: str | None = "holm", baseline: str | None = None,
                  method: str = "ld_highest_density", minimize: bool | None = None,
                  statistic: str = "median", bounds=(None, None),
                  construction: str = "auto") -> PairVerdicts:
    """Every pair's verdict as :func:`compare_all` reads it, held compactly
    (:class:`PairVerdicts`): the same arguments."""
    scores, minimize = _one_task(scores, minimize, "compare_all")
    if len(scores) < 2:
        raise ValueError(f"scores: compare_all needs two or more models, got "
                         f"{len(scores)}")
    if adjust is not None:
        as_choice(adjust, "adjust", ("holm", "bonferroni"))
    models = [str(m) for m in scores]
    if baseline is not None and str(baseline) not in models:
        raise ValueError(f"baseline={baseline!r} is not one of the models: "
                         f"{', '.join(models)}")
    each = band_confidence(confidence, len(models), adjust)
    construction = _construction(construction, ns)
    ns = _ns(ns, scores)
    bands = model_bands(scores, ns, each, method=method, statistic=statistic,
                        bounds=bounds, minimize=minimize, construction=construction)
    lower, estimate, upper = oriented_edges(bands)
    said = (f"Bonferroni over {len(models)} models' bands: family-wise over all "
            "pairs and budgets" if adjust is not None
            else "none: each pair alone")
    return PairVerdicts(
        models=tuple(models), budgets=next(iter(bands.values())).ns,
        lower=lower, estimate=estimate, upper=upper,
        shown=np.array([bands[m].estimate for m in models], dtype=float),
        word="median" if statistic == "median" else "mean",
        band_confidence=each, adjust=said,
        construction=_joint(*(b.construction for b in bands.values())),
        baseline=None if baseline is None else models.index(str(baseline)))


# ------------------------------------------------------------------ many tasks

NORMALISATIONS = ("random", "baseline")


def normalise(values, low, high):
    """Scores placed on one scale: 0 at `low`, 1 at `high` (oriented: higher is
    better); NaN where the task's range is empty."""
    with np.errstate(invalid="ignore", divide="ignore"):
        span = np.asarray(high, dtype=float) - np.asarray(low, dtype=float)
        return np.where(span > 0, (np.asarray(values, float) - low) / span, np.nan)


def _task_scale(study: Results, baseline: str | None):
    """(low, high) of one task, oriented: low the expected best score of one round
    (the mean of all its rounds' finite scores, or the baseline model's), high the
    best score observed there."""
    finite = {m: s[np.isfinite(s)] for m, s in study.scores.items()}
    pooled = np.concatenate([s for s in finite.values()]) if finite else np.zeros(0)
    if pooled.size == 0:
        return math.nan, math.nan
    high = float(pooled.max())
    if baseline is not None:
        mine = finite.get(baseline, np.zeros(0))
        return (float(mine.mean()) if mine.size else math.nan), high
    return float(pooled.mean()), high


def task_curves(results: Results, ns=None, confidence: float = 0.8, *,
                method: str = "ld_highest_density", baseline: str | None = None
                ) -> pd.DataFrame:
    r"""Each task's median tuning curves and bands, and the same on one scale.

    The bands are built at confidence :math:`1 - (1 - c)/(T M)` for T tasks and
    M models, so every band of every task holds at every budget at once with
    probability at least c; the ``best`` column marks the models that may still be
    best on their task at n with that simultaneous confidence.

    Scores are placed on one scale per task (:func:`normalise`): 0 at the
    task's expected best score of one round (the mean score of all its rounds,
    every model's, i.e. one round of the whole search) or, with `baseline`, at
    the baseline model's; 1 at the best score observed on the task. The scale is
    read from the data and taken as fixed, so the bands on it cover the curves
    given the scale.

    Returns
    -------
    pandas.DataFrame
        ``task``, ``model``, ``n``, ``lower``, ``median``, ``upper`` (the user's
        units), ``best`` (may still be best on the task), and the oriented
        normalised ``scaled lower``, ``scaled median``, ``scaled upper`` (higher
        is better, losses too). Models without rounds on a task have no rows
        for it.
    """
    if not isinstance(results, Results):
        raise ValueError("results: the views across tasks need evp.Results with "
                         "a task role (read_results(..., task='COLUMN'))")
    studies = results.by_task()
    models = results.models
    if baseline is not None and baseline not in models:
        raise ValueError(f"baseline={baseline!r} is not one of the models: "
                         f"{', '.join(models)}")
    if ns is None or isinstance(ns, str):
        ns = readable_budgets(min(s.size for st in studies.values()
                                  for s in st.scores.values()))
    each = band_confidence(confidence, len(studies) * len(models))
    frames = []
    for task, study in studies.items():
        finite, restore = _finite(study)
        bands = {m: restore(b) for m, b in model_bands(
            finite, ns, each, method=method, minimize=study.minimize).items()}
        lower, estimate, upper = oriented_edges(bands)
        best = best_set_mask(lower, upper)
        low, high = _task_scale(study, baseline)
        for row, (model, band) in enumerate(bands.items()):
            frames.append(pd.DataFrame({
                "task": task, "model": model, "n": band.ns.astype(int),
                "lower": band.lower, "median": band.estimate, "upper": band.upper,
                "best": best[row],
                "scaled lower": normalise(lower[row], low, high),
                "scaled median": normalise(estimate[row], low, high),
                "scaled upper": normalise(upper[row], low, high)}))
    table = pd.concat(frames, ignore_index=True)
    table["band confidence"] = each
    return table


def _cube(curves: pd.DataFrame, column: str):
    """(tasks, models, budgets, array T × M × N of `column`, NaN where a model has
    no rounds on a task)."""
    tasks = list(dict.fromkeys(curves["task"]))
    models = list(dict.fromkeys(curves["model"]))
    budgets = sorted(set(curves["n"]))
    cube = (curves.pivot_table(index=["task", "model"], columns="n", values=column,
                               dropna=False)
            .reindex(pd.MultiIndex.from_product([tasks, models]))
            .reindex(columns=budgets))
    return tasks, models, budgets, cube.to_numpy(float).reshape(
        len(tasks), len(models), len(budgets))


def rank_table(curves: pd.DataFrame, confidence: float = 0.8) -> pd.DataFrame:
    """Per budget and model, across tasks: the mean rank (1 the best; within each
    task among the models with rounds there), the aggregate curve (the mean over
    tasks of the scaled median) with its band (the mean of the scaled band edges:
    simultaneous over models, tasks and budgets at the confidence of
    :func:`task_curves`, given each task's scale), and on how many tasks the model
    may still be best. Sorted by budget, then mean rank.

    `curves` is :func:`task_curves`'s table.
    """
    _tasks, models, budgets, median = _cube(curves, "scaled median")
    _, _, _, low = _cube(curves, "scaled lower")
    _, _, _, high = _cube(curves, "scaled upper")
    _, _, _, best = _cube(curves, "best")
    _, _, _, raw = _cube(curves, "median")
    # A task whose curves all tie has no scale (its scaled curves are NaN), yet
    # its models have rounds there: they tie, and are not absent.
    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a task no model has
        same = np.nanmax(raw, axis=1, keepdims=True) == np.nanmin(raw, axis=1,
                                                                  keepdims=True)
    tied = np.isnan(median) & ~np.isnan(raw) & same
    ranked = ranks(np.where(tied, 0.0, median))
    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        # Tasks that all tie leave no scaled value to average: NaN, said by
        # the report, not numpy's "mean of empty slice".
        warnings.simplefilter("ignore", RuntimeWarning)
        rows = []
        for k, n in enumerate(budgets):
            present = ~np.isnan(raw[:, :, k])
            rows.append(pd.DataFrame({
                "n": n, "model": models,
                "mean rank": np.nanmean(ranked[:, :, k], axis=0),
                "scaled median": np.nanmean(median[:, :, k], axis=0),
                "scaled lower": np.nanmean(low[:, :, k], axis=0),
                "scaled upper": np.nanmean(high[:, :, k], axis=0),
                "may be best on": np.nansum(best[:, :, k], axis=0).astype(int),
                "tasks": present.sum(axis=0)}))
    table = pd.concat(rows, ignore_index=True)
    return table.sort_values(["n", "mean rank"], kind="stable").reset_index(drop=True)


def pairs_across_tasks(curves: pd.DataFrame, confidence: float = 0.8, *,
                       baseline: str | None = None) -> pd.DataFrame:
    """Every pair across tasks, per budget: the share of tasks on which a beats b
    (``a wins``) with a Wilson interval at `confidence` for the chance that a
    beats b on a task drawn like these, Wilcoxon's signed-rank p-value of the
    scaled medians and Holm's adjustment over the pairs (at each budget);
    ``differ`` is True where Holm's p ≤ 1 − confidence. The task is the unit:
    the search noise within a task is not in these intervals.

    With `baseline`, only the pairs with that model are tested, and Holm's
    adjustment runs over those M − 1 pairs."""
    confidence = as_probability(confidence, "confidence")
    _tasks, models, budgets, median = _cube(curves, "scaled median")
    pairs, pvalues, adjusted, counts = wilcoxon_holm(median)
    if baseline is not None:
        if baseline not in models:
            raise ValueError(f"baseline={baseline!r} is not one of the models: "
                             f"{', '.join(models)}")
        at = models.index(baseline)
        kept = [row for row, pair in enumerate(pairs) if at in pair]
        pairs, pvalues, counts = ([pairs[r] for r in kept], pvalues[kept],
                                  counts[kept])
        # Holm over the pairs tested, not over every pair.
        adjusted = (np.column_stack([holm(pvalues[:, n])
                                     for n in range(pvalues.shape[1])])
                    if kept else pvalues)
    if not pairs:
        return pd.DataFrame(columns=["a", "b", "n", "tasks", "a wins", "low", "high",
                                     "p", "p (Holm)", "differ"])
    first = np.array([i for i, _ in pairs])
    second = np.array([j for _, j in pairs])
    # Every pair at once: T × P × N.
    est, low, high, _ = win_rate(median[:, first, :], median[:, second, :],
                                 confidence)
    names = np.asarray(models, dtype=object)
    shape = (len(pairs), len(budgets))
    return pd.DataFrame({
        "a": np.repeat(names[first], len(budgets)),
        "b": np.repeat(names[second], len(budgets)),
        "n": np.tile(budgets, len(pairs)),
        "tasks": np.repeat(counts, len(budgets)),
        "a wins": est.reshape(shape).ravel(), "low": low.reshape(shape).ravel(),
        "high": high.reshape(shape).ravel(), "p": pvalues.ravel(),
        "p (Holm)": adjusted.ravel(), "differ": (adjusted <= 1 - confidence).ravel()})


def profile_table(curves: pd.DataFrame, n: int, taus=None) -> pd.DataFrame:
    """The performance profile at budget `n` (fixed budget): for each model and
    level τ of the scaled score, the share of its tasks on which its median
    curve at n reaches τ."""
    taus = np.linspace(0, 1, 21) if taus is None else np.asarray(taus, float)
    at = curves[curves["n"] == n]
    if at.empty:
        raise ValueError(f"n={n} is not one of the table's budgets: "
                         f"{sorted(set(curves['n']))}")
    rows = []
    for model, part in at.groupby("model", sort=False):
        values = part["scaled median"].to_numpy(float)
        values = values[~np.isnan(values)]
        rows.append(pd.DataFrame({"model": model, "tau": taus,
                                  "share of tasks": [np.mean(values >= t)
                                                     for t in taus]}))
    return pd.concat(rows, ignore_index=True)


def target_table(curves: pd.DataFrame, target: float = 0.9) -> pd.DataFrame:
    """The fixed-target view: per task and model, the smallest budget of the table
    whose scaled median reaches `target` (NaN: not within the budgets), and per
    model the share of tasks reached by each budget (``reached by n``)."""
    rows = []
    for (task, model), part in curves.groupby(["task", "model"], sort=False):
        part = part.sort_values("n")
        hit = part["n"][part["scaled median"].to_numpy(float) >= target]
        rows.append({"task": task, "model": model, "target": target,
                     "budget": float(hit.iloc[0]) if len(hit) else math.nan})
    return pd.DataFrame(rows)


def pair_tasks(curves: pd.DataFrame, baseline: str | None = None) -> pd.DataFrame:
    """Every pair, per budget, counted task by task: on how many tasks both have
    rounds (``tasks``), on how many each one's median curve is ahead (``a
    ahead``, ``b ahead``; equal curves count for neither), and on how many each
    one's within-task verdict is strong (``a strong``, ``b strong``: its lower
    edge above the other's upper edge, the bands of :func:`task_curves`, which
    hold on every task, model and budget at once). `baseline`: only the pairs
    with that model. The pairs are those of :func:`pairs_across_tasks`."""
    _tasks, models, budgets, median = _cube(curves, "scaled median")
    _, _, _, present = _cube(curves, "median")
    _, _, _, low = _cube(curves, "scaled lower")
    _, _, _, high = _cube(curves, "scaled upper")
    pairs = [(i, j) for i in range(len(models)) for j in range(i + 1, len(models))
             if baseline is None or baseline in (models[i], models[j])]
    rows = []
    with np.errstate(invalid="ignore"):
        for i, j in pairs:
            both = ~np.isnan(present[:, i]) & ~np.isnan(present[:, j])
            rows.append(pd.DataFrame({
                "a": models[i], "b": models[j], "n": budgets,
                "tasks": both.sum(axis=0),
                "a ahead": (median[:, i] > median[:, j]).sum(axis=0),
                "b ahead": (median[:, j] > median[:, i]).sum(axis=0),
                "a strong": (low[:, i] > high[:, j]).sum(axis=0),
                "b strong": (low[:, j] > high[:, i]).sum(axis=0)}))
    if not rows:
        return pd.DataFrame(columns=["a", "b", "n", "tasks", "a ahead", "b ahead",
                                     "a strong", "b strong"])
    return pd.concat(rows, ignore_index=True)


def open_budgets(scores, ns=None, band_confidence: float = 0.8, *,
                 method: str = "ld_highest_density", minimize: bool | None = None,
                 construction: str = "band") -> pd.Series:
    """Booleans by budget: True where every model's band at `band_confidence` (the
    confidence of each band, as :func:`compare_all`'s ``band confidence``
    column) is open on the side that bounds its best, so that no verdict read
    from them can be strong there; `construction` as that table's
    ``construction`` column ("band", "top_band", "budgets" or "both")."""
    scores, minimize = _one_task(scores, minimize, "open_budgets")
    # "both": each model's own choice again, made from its rounds as before.
    bands = model_bands(scores, _ns(ns, scores), band_confidence, method=method,
                        minimize=minimize, construction="auto"
                        if construction == "both" else construction)
    _, _, upper = oriented_edges(bands)
    budgets = next(iter(bands.values())).ns
    whole = np.all(budgets == np.round(budgets))
    return pd.Series(np.all(np.isposinf(upper), axis=0),
                     index=budgets.astype(int) if whole else budgets)


def all_open(lower: pd.DataFrame, upper: pd.DataFrame, minimize: bool) -> pd.Series:
    """Booleans by budget (the frames' index): True where every band (one column
    per model, the user's units) is open on the side that bounds its best."""
    edge = -lower if minimize else upper
    return pd.Series(np.all(np.isposinf(edge.to_numpy(float)), axis=1),
                     index=lower.index)


# ------------------------------------------------------------ the leaders
# Data for the sentences (evp.analyses.wording words them): who leads at each
# budget, a tie said as a tie.


def leaders(ranked: pd.DataFrame) -> dict:
    """{n: ([the models of the smallest mean rank], that mean rank)} from
    :func:`rank_table`'s table: one model where it leads alone, every tied model
    (in the table's order) where the first place is shared."""
    out = {}
    for n, part in ranked.groupby("n", sort=True):
        values = part["mean rank"].to_numpy(float)
        if np.all(np.isnan(values)):
            out[n] = ([], math.nan)
            continue
        best = float(np.nanmin(values))
        # A mean rank is a sum of half-integers over a count of tasks, so equal
        # means are equal floats; the margin only guards the summation order.
        tied = np.abs(values - best) <= 1e-9
        out[n] = (list(part["model"][tied]), best)
    return out


def first_alone(ranked: pd.DataFrame) -> pd.Series:
    """The model that leads alone at each budget (``None`` where the first place
    is tied), by budget."""
    return pd.Series({n: (who[0] if len(who) == 1 else None)
                      for n, (who, _) in leaders(ranked).items()}, dtype=object)


def verdict_budget(open_: pd.Series):
    """The budget at which to show the family-wise verdicts as a matrix: the
    largest where not every band is open (where a verdict can be strong), or
    the largest of all when every band is open everywhere."""
    readable = [n for n, shut in open_.items() if not shut]
    return max(readable) if readable else max(open_.index)


def as_verdicts(pairs) -> PairVerdicts | _TableVerdicts:
    """Every pair's verdicts as :class:`PairVerdicts` reads them: `pairs`
    itself, or :func:`compare_all`'s table behind the same methods."""
    return _TableVerdicts(pairs) if isinstance(pairs, pd.DataFrame) else pairs


def wilcoxon_limits(pairs: pd.DataFrame, confidence: float = 0.8) -> dict:
    """What the tests across tasks can give at all, from
    :func:`pairs_across_tasks`'s table, whatever the scores: ``floor``, the
    least Holm-adjusted p-value; ``alone``, the least p-value of the pair
    tested on the most tasks; ``widest``, that most; ``pairs``, how many are
    tested; and ``needed``, the fewest tasks (each pair on all of them) from
    which the floor reaches the level 1 − `confidence` (None past 1,000)."""
    from evp.multiple import wilcoxon_floor

    tested = pairs.groupby(["a", "b"], sort=False)["tasks"].first()
    widest = int(tested.max()) if len(tested) else 0
    count = len(tested)
    needed = next((t for t in range(2, 1001)
                   if holm_floor([t] * max(count, 1)) <= 1 - confidence), None)
    return {"floor": holm_floor(tested.to_numpy()), "widest": widest,
            "alone": wilcoxon_floor(widest) if widest else 1.0, "pairs": count,
            "needed": needed}
