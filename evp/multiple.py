r"""Many models at once: the set that may still be best, and verdicts on every pair,
with their errors controlled family-wise; and the statistics across tasks.

**One task, many models.** Every verdict of :func:`evp.compare` reads two models'
tuning-curve bands, and every band holds at all budgets at once. With M models the
verdicts on all :math:`M(M-1)` ordered pairs read only M bands, so if each band is
built at confidence

.. math::

    c_M = 1 - (1 - c) / M \qquad \text{(Bonferroni over the M bands)},

all M bands hold at once, at every budget, with probability at least c, whatever
the dependence between them. On that event

* a "strong" verdict (one band wholly above the other) is never wrong, for any
  pair at any budget: the family-wise error of the strong verdicts is at most
  :math:`1 - c`;
* the best model at budget n never leaves the set of models whose upper edge at
  n reaches the highest lower edge there (:func:`best_set_mask`): that set holds
  the best model at every budget at once with probability at least c.

A pair's verdict depends on its two models' scores and on M only, never on the
other models' scores (the pitfall of mean-rank post-hoc tests that Benavoli,
Corani and Mangili 2016 show). The bands are exact for continuous scores and
conservative with ties, so both promises hold with ties too.

Holm's step-down needs one p-value per hypothesis; verdicts read from bands at many
budgets have none, and a step-down over the pairs (first step at
:math:`(1-c)/\binom{M}{2}`) would be less powerful than Bonferroni over the M
bands for every M ≥ 3. So ``adjust="holm"`` and ``adjust="bonferroni"`` give the
same bands here; Holm's step-down is used where there are p-values: the paired
tests across tasks (:func:`wilcoxon_holm`).

**Many tasks.** Across tasks the sample is the tasks: :func:`ranks` ranks the
models within each task, :func:`wilcoxon_holm` tests each pair across tasks
(Wilcoxon's signed-rank test, Holm over the pairs), :func:`win_rate` estimates the
chance that one model beats another on a task drawn like these, with a Wilson
interval. These read each task's estimated curve as exact: they cover the spread
between tasks, not the search noise within one.

References
----------
Lourie, Cho and He (2024). Show Your Work with Confidence. NAACL.
Holm (1979). A simple sequentially rejective multiple test procedure. Scand. J.
Statist. 6, 65–70.
Benavoli, Corani and Mangili (2016). Should we really use post-hoc tests based on
mean-ranks? JMLR 17(5).
Demšar (2006). Statistical comparisons of classifiers over multiple data sets.
JMLR 7, 1–30.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Mapping

import numpy as np

from evp._validation import as_choice, as_probability, as_scores
from evp.bands import TuningCurveBand, _curve_band_iv
from evp.comparison import _bounds_by, _evidence

__all__ = [
    "ADJUSTMENTS",
    "band_confidence",
    "best_set_mask",
    "holm",
    "holm_floor",
    "model_bands",
    "oriented_edges",
    "pair_evidence",
    "ranks",
    "wilcoxon_floor",
    "wilcoxon_holm",
    "win_rate",
]

ADJUSTMENTS = ("holm", "bonferroni")


def band_confidence(confidence: float, models: int, adjust: str | None = "holm"
                    ) -> float:
    """The confidence of each of `models` bands so that all hold at once with
    probability at least `confidence`: :math:`1 - (1 - c)/M` (Bonferroni), or
    `confidence` itself when ``adjust`` is None (each band alone).

    >>> band_confidence(0.8, 4)
    0.95
    """
    confidence = as_probability(confidence, "confidence")
    if adjust is None:
        return confidence
    as_choice(adjust, "adjust", ADJUSTMENTS)
    return 1.0 - (1.0 - confidence) / max(int(models), 1)


def _mapping(scores) -> dict[str, np.ndarray]:
    if not isinstance(scores, Mapping) or not scores:
        raise ValueError("scores: give a mapping of model name to its scores, "
                         "e.g. {'a': scores_a, 'b': scores_b}, with at least one "
                         "model")
    return {str(m): as_scores(s, f"scores[{m!r}]", sort=True)
            for m, s in scores.items()}


def model_bands(scores: Mapping, ns, confidence: float, *,
                method: str = "ld_highest_density", statistic: str = "median",
                q: float = 0.5, bounds=(None, None), minimize: bool = False,
                construction: str = "band") -> dict[str, TuningCurveBand]:
    """{model: its tuning-curve band at `confidence`}, every model at the same
    budgets and options (see :func:`evp.tuning_curve_band`); `bounds` are shared
    and must contain every model's scores.

    With ``construction="budgets"`` each model's curve is bounded by exact
    intervals at the budgets `ns` only, holding at all of them at once with
    probability at least `confidence` (:func:`evp.compare`, Notes: 1 −
    confidence spent evenly over the budgets and both sides); "auto" takes
    whichever of the two is sharper for each model's count of rounds and these
    budgets (chosen without the scores). Each band's ``.construction`` says
    which."""
    x = _mapping(scores)
    k, options = _curve_band_iv(ns, confidence, method, statistic, q, bounds,
                                minimize, *x.values())
    build = _bounds_by(construction, k, options)
    if any(s.ndim != 1 for s in x.values()):
        return {m: build(s) for m, s in x.items()}
    # Models with as many rounds share one band computation, row by row.
    out = {}
    sizes = {m: s.size for m, s in x.items()}
    for size in dict.fromkeys(sizes.values()):
        names = [m for m in x if sizes[m] == size]
        band = build(np.stack([x[m] for m in names]))
        for row, m in enumerate(names):
            out[m] = dataclasses.replace(
                band, lower=band.lower[row], estimate=band.estimate[row],
                upper=band.upper[row],
                cdf=dataclasses.replace(band.cdf, scores=band.cdf.scores[row]))
    return {m: out[m] for m in x}


def oriented_edges(bands: Mapping[str, TuningCurveBand]):
    """(lower, estimate, upper), each an (M, N) array, oriented so that higher is
    better (a loss's band negated and its edges swapped)."""
    rows = list(bands.values())
    lower, estimate, upper = (np.array([getattr(b, part) for b in rows])
                              for part in ("lower", "estimate", "upper"))
    if rows and rows[0].minimize:
        lower, estimate, upper = -upper, -estimate, -lower
    return lower, estimate, upper


def best_set_mask(lower: np.ndarray, upper: np.ndarray) -> np.ndarray:
    """(M, N) booleans: model m may still be best at budget n, i.e. its upper
    edge reaches the highest lower edge of any model there (oriented edges).

    If every band holds, the best model's upper edge lies above its curve, which
    lies above every other model's curve and so above their lower edges: the best
    model is never left out. A model is left out only when some model's lower
    edge lies strictly above its upper edge.

    >>> best_set_mask(np.array([[0.5], [0.1]]), np.array([[0.9], [0.4]])).ravel()
    array([ True, False])
    """
    lower, upper = np.asarray(lower, float), np.asarray(upper, float)
    return upper >= lower.max(axis=0, keepdims=True)


def pair_evidence(edges, a, b) -> np.ndarray:
    """The labels of :func:`evp.compare` for "model a beats model b", per budget,
    from oriented edges (:func:`oriented_edges`) and the models' row numbers;
    given arrays of row numbers (P,), the labels of those P pairs, (P, N)."""
    lower, estimate, upper = edges
    return _evidence(lower[a], estimate[a], upper[a], lower[b], estimate[b],
                     upper[b], lower[a].shape)


# ----------------------------------------------------------------- across tasks


def ranks(curves: np.ndarray) -> np.ndarray:
    """Ranks of the models within each task, 1 the best, ties sharing the mean
    rank; a model without rounds on a task (NaN) gets NaN there and the others
    are ranked among themselves.

    `curves` is (T, M, ...) oriented estimates (higher is better).

    >>> ranks(np.array([[0.9, 0.7, 0.9], [0.5, np.nan, 0.6]]))
    array([[1.5, 3. , 1.5],
           [2. , nan, 1. ]])
    """
    from scipy import stats  # here: `import evp` loads no scipy

    curves = np.asarray(curves, dtype=float)
    present = ~np.isnan(curves)
    # Higher is better: rank the negated values, missing ones last, then blank them.
    filled = np.where(present, -curves, np.inf)
    out = stats.rankdata(filled, axis=1, method="average")
    return np.where(present, out, np.nan)


def holm(pvalues) -> np.ndarray:
    """Holm's adjusted p-values (step-down, monotone, at most 1); NaN stays NaN.

    Reject hypothesis i at level α when its adjusted p-value is at most α: the
    chance of any false rejection is then at most α (Holm 1979).

    >>> holm([0.01, 0.04, 0.03])
    array([0.03, 0.06, 0.06])
    """
    p = np.asarray(pvalues, dtype=float)
    flat = p.ravel()
    valid = np.flatnonzero(~np.isnan(flat))
    m = valid.size
    out = np.full(flat.shape, np.nan)
    if m:
        order = valid[np.argsort(flat[valid], kind="stable")]
        scaled = flat[order] * (m - np.arange(m))
        out[order] = np.minimum(np.maximum.accumulate(scaled), 1.0)
    return out.reshape(p.shape)


def _scipy_method(d: np.ndarray) -> np.ndarray:
    """For each column of d (T × K, no NaN), the test scipy's ``method="auto"``
    chooses for that column alone: "exact" with no zero
    and no tie among the absolute differences, up to 50 rows; with zeros or
    ties, "permutation" (all 2^T sign flips) up to 13 rows; "normal" beyond
    (and for every column over 50 rows)."""
    rows = d.shape[0]
    magnitude = np.sort(np.abs(d), axis=0)
    zeros = (d == 0).any(axis=0)
    ties = ((np.diff(magnitude, axis=0) == 0) & (magnitude[1:] != 0)).any(axis=0)
    if rows > 50:
        return np.full(d.shape[1], "normal")
    return np.where(~(zeros | ties), "exact",
                    "permutation" if rows <= 13 else "normal")


def _wilcoxon(d: np.ndarray) -> np.ndarray:
    """Two-sided p-values of Wilcoxon's signed-rank test of the paired differences
    in each column of d (T × K; zero differences dropped; NaN rows of a column
    left out; 1 where no difference is left), each column tested as scipy tests
    it alone.

    scipy's ``method="auto"`` picks one test for a whole array: ties or zeros in
    any one column would send every column from the exact test to the normal
    approximation (14 to 50 rows), so that one pair's p-value hung on another
    pair's data. The columns are grouped by the test scipy chooses for each
    alone (:func:`_scipy_method`) and each group goes to scipy at once: a
    column's p-value is what scipy gives it alone."""
    from scipy import stats

    d = np.asarray(d, dtype=float)
    out = np.ones(d.shape[1])
    complete = ~np.isnan(d).any(axis=0)
    nonzero = (np.nan_to_num(d) != 0).any(axis=0)
    whole = np.flatnonzero(complete & nonzero)
    if whole.size:
        methods = _scipy_method(d[:, whole])
        for method in np.unique(methods):
            columns = whole[methods == method]
            with np.errstate(invalid="ignore", divide="ignore"):
                out[columns] = stats.wilcoxon(d[:, columns], axis=0,
                                              zero_method="wilcox").pvalue
    for column in np.flatnonzero(~complete & nonzero):  # incomplete blocks
        values = d[:, column]
        values = values[~np.isnan(values)]
        if np.any(values != 0):
            out[column] = stats.wilcoxon(values, zero_method="wilcox").pvalue
    return out


def wilcoxon_floor(tasks: int) -> float:
    """The smallest two-sided p-value :func:`wilcoxon_holm` can give a pair tested
    on `tasks` tasks, whatever the scores: below it no data can go.

    scipy's ``method="auto"`` (as :func:`_wilcoxon` calls it, for each pair and
    budget alone) chooses among three tests, and each has its own floor, reached
    when every difference has the same sign:

    * exact (up to 50 tasks, no ties or zeros in the pair's differences): the
      signed-rank statistic at its extreme has probability 1/2^k under the
      null, two-sided 2/2^k;
    * permutation (up to 13 tasks, with ties or zeros): 2^k sign flips, of which
      the extreme and its mirror are at least 2, so again at least 2/2^k (zeros
      make k smaller and the floor higher);
    * normal (over 50 tasks, or 14 to 50 with ties or zeros): the largest z has
      every difference positive and tied (the tie correction shrinks the
      standard error most), which is scipy's own p of k equal differences.

    The floor is the smallest of the tests the call may choose.

    >>> wilcoxon_floor(5)
    0.0625
    """
    from scipy import stats

    k = int(tasks)
    if k < 1:
        return 1.0
    floors = []
    if k <= 50:
        floors.append(min(1.0, 2.0 / 2.0 ** k))
    if k >= 14:
        floors.append(float(stats.wilcoxon(np.ones(k), zero_method="wilcox",
                                           method="asymptotic").pvalue))
    return min(floors)


def holm_floor(tasks) -> float:
    """The smallest Holm-adjusted p-value :func:`wilcoxon_holm` can give at one
    budget, whatever the scores, for pairs tested on `tasks` tasks each (one
    entry per pair): Holm's first step multiplies the smallest p-value by the
    number of pairs m, and every other adjusted p-value is at least that, so no
    pair can ever be found to differ at a level below ``m · min(floor)``, capped
    at 1.

    >>> holm_floor([5] * 15)  # 15 pairs on 5 tasks: 15 · 2/2^5
    0.9375
    """
    tasks = [int(k) for k in np.ravel(tasks)]
    if not tasks:
        return 1.0
    return min(1.0, len(tasks) * min(wilcoxon_floor(k) for k in tasks))


def wilcoxon_holm(curves: np.ndarray):
    """Every pair of models compared across tasks at every budget.

    Parameters
    ----------
    curves : array, shape (T, M, N)
        Each task's estimated curve of each model (oriented: higher is better),
        NaN where a model has no rounds on a task; a pair is tested on the tasks
        where both have rounds (an incomplete block).

    Returns
    -------
    pairs : list of (int, int)
        The pairs (i, j), i < j.
    pvalues, adjusted : array, shape (P, N)
        Wilcoxon's two-sided signed-rank p-value of each pair at each budget, and
        Holm's adjustment over the pairs, budget by budget (so a rejection at
        level α says the pair differs at that budget with the pairs' family-wise
        error at most α).
    tasks : array, shape (P,)
        The number of tasks each pair was tested on.
    """
    curves = np.asarray(curves, dtype=float)
    tasks_, _, budgets = curves.shape
    pairs = list(itertools.combinations(range(curves.shape[1]), 2))
    first, second = (np.array([p[side] for p in pairs], dtype=int)
                     for side in (0, 1))
    differences = curves[:, first, :] - curves[:, second, :]  # T × P × N
    pvalues = _wilcoxon(differences.reshape(tasks_, -1)).reshape(len(pairs),
                                                                  budgets)
    tasks = np.array([int(np.sum(~np.isnan(curves[:, i, 0] - curves[:, j, 0])))
                      for i, j in pairs], dtype=int)
    adjusted = np.column_stack([holm(pvalues[:, n]) for n in range(pvalues.shape[1])]
                               ) if pairs else pvalues
    return pairs, pvalues, adjusted, tasks


def win_rate(a: np.ndarray, b: np.ndarray, confidence: float = 0.8):
    """The share of tasks on which a beats b (ties count a half), with a Wilson
    score interval at `confidence` for the chance that a beats b on a task drawn
    like these; tasks where either is NaN are left out.

    Returns (estimate, low, high, tasks), each per budget when a and b are 2-D
    (T, N).

    >>> est, low, high, tasks = win_rate(np.array([0.9, 0.8, 0.7]),
    ...                                  np.array([0.5, 0.8, 0.9]))
    >>> float(est), int(tasks)
    (0.5, 3)
    """
    from scipy import stats

    confidence = as_probability(confidence, "confidence")
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    both = ~(np.isnan(a) | np.isnan(b))
    wins = np.where(both, (a > b) + 0.5 * (a == b), 0.0).sum(axis=0)
    tasks = both.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = wins / tasks
        z = stats.norm.ppf(0.5 + confidence / 2)
        centre = (p + z * z / (2 * tasks)) / (1 + z * z / tasks)
        half = (z / (1 + z * z / tasks)) * np.sqrt(
            p * (1 - p) / tasks + z * z / (4 * tasks * tasks))
    return p, np.clip(centre - half, 0, 1), np.clip(centre + half, 0, 1), tasks


# ----------------------------------------------------- measured on known truths


def true_median_curves(truths, ns, q: float = 0.5) -> np.ndarray:
    """(M, N): the exact q-quantile tuning curve of each truth at budgets ns, a
    truth being every score a round can give, drawn uniformly (a full grid, or a
    search's rounds resampled): the smallest score s with F(s)^k ≥ q."""
    ns = np.asarray(ns, dtype=float)
    out = []
    for values in truths:
        values = np.sort(np.asarray(values, dtype=float))
        # F(values[i]) ≥ i+1/N; the smallest index whose F reaches the level.
        level = q ** (1.0 / ns)
        index = np.ceil(level * values.size - 1e-9).astype(int) - 1
        out.append(values[np.clip(index, 0, values.size - 1)])
    return np.array(out)


def simulate_many(truths, rounds: int, ns, confidence: float = 0.8, *,
                  worlds: int = 1000, method: str = "ld_highest_density",
                  adjust: str | None = "holm", construction: str = "band",
                  rng=None) -> dict:
    """How the best set and the family-wise verdicts fare on known truths.

    Each of `worlds` worlds draws `rounds` rounds from every truth (uniformly with
    replacement from its scores: a grid's every configuration, or a search's
    rounds), builds the bands as :func:`evp.best_set` and :func:`evp.compare_all`
    do (`construction` as in :func:`model_bands`), and reads them against the
    exact curves (:func:`true_median_curves`).

    Returns
    -------
    dict
        ``covered``: the share of worlds whose best set holds every model that
        is truly best, at every budget at once; ``wrong_strong``: the share with
        a strong verdict against the truth (a beats b while a's true curve is not
        above b's) at some pair and budget, the family-wise error; ``bands_hold``:
        the share where every band covers its true curve at every budget;
        ``set_size``: the mean size of the set; ``strong_right``: the share of
        truly ordered pair-budgets called strong (the power), and
        ``strong_right_by_budget`` the same at each budget (with
        ``ordered_by_budget``, the ordered pairs there); each share with its
        Monte Carlo standard error under ``<name> se``.
    """
    rng = np.random.default_rng(rng)
    truths = [np.asarray(t, dtype=float) for t in truths]
    ns = np.asarray(ns, dtype=float)
    draws = {f"m{i}": rng.choice(t, size=(worlds, rounds)) for i, t in
             enumerate(truths)}
    each = band_confidence(confidence, len(truths), adjust)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # ties: said by the caller
        bands = model_bands(draws, ns, each, method=method,
                            construction=construction)
    lower, _estimate, upper = oriented_edges(bands)  # M × W × N
    truth = true_median_curves(truths, ns)[:, None, :]  # M × 1 × N
    best = truth >= truth.max(axis=0, keepdims=True)
    found = best_set_mask(lower, upper)
    covered = np.all(found | ~best, axis=(0, 2))
    hold = np.all((lower <= truth + 1e-12) & (upper >= truth - 1e-12), axis=(0, 2))
    wrong = np.zeros(worlds, dtype=bool)
    right, ordered = np.zeros(ns.size), np.zeros(ns.size)
    for a, b in itertools.permutations(range(len(truths)), 2):
        strong = lower[a] > upper[b]  # W × N
        above = truth[a] > truth[b]  # 1 × N
        wrong |= np.any(strong & ~above, axis=1)
        right += np.sum(strong & above, axis=0)
        ordered += np.sum(np.broadcast_to(above, strong.shape), axis=0)

    def share(flags):
        p = float(np.mean(flags))
        return p, float(np.sqrt(p * (1 - p) / flags.size))

    out = {}
    for name, flags in (("covered", covered), ("wrong_strong", wrong),
                        ("bands_hold", hold)):
        out[name], out[f"{name} se"] = share(flags)
    out["set_size"] = float(found.sum(axis=0).mean())
    out["strong_right"] = (right.sum() / ordered.sum() if ordered.sum()
                           else float("nan"))
    with np.errstate(invalid="ignore", divide="ignore"):
        out["strong_right_by_budget"] = right / ordered  # NaN: none ordered
    out["ordered_by_budget"] = ordered / worlds
    out["band_confidence"] = each
    return out
