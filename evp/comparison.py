r"""A verdict between two models, and how it bounds each model's curve.

:func:`compare` labels each budget with the evidence that one model's tuning
curve beats another's (Lourie, Cho and He 2024, §2), read from bounds on each
curve that hold at all the budgets read at once with the stated confidence.
Three constructions give those bounds (``construction=``):

* ``"band"``: the tuning-curve band of :func:`evp.tuning_curve_band`,
  simultaneous over every budget (what a figure draws);
* ``"top_band"``: the same from a CDF band exact only over the order
  statistics a q-quantile curve reads at budgets k ≥ 1, those whose CDF level
  can reach q (the top fraction of about 1 − q for scores, the bottom q for
  losses; LD methods);
* ``"budgets"``: exact distribution-free intervals for the curve at the budgets
  read only, by order statistics (Thompson 1936), Bonferroni over the budgets
  and both sides;

and ``"auto"`` chooses, for each model, the one whose edges lie fewest order
statistics apart, from its count of rounds, the budgets and the confidence
alone, never from its scores. :func:`compare`'s Notes derive each
guarantee.

Assumptions: as :mod:`evp.bands` (i.i.d. rounds of random search); with ties
every construction keeps at least its confidence.

References
----------
Lourie, Cho and He (2024). Show Your Work with Confidence: Confidence Bands for
Tuning Curves. NAACL. arXiv:2311.09480.
Thompson (1936). On confidence ranges for the median and other expectation
distributions for populations of unknown distribution form. Ann. Math.
Statist. 7(3).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from evp._order_statistics import band_bounds, quantile_ranks
from evp._step_cdf import best_of_level, empirical, quantile_of_best
from evp._validation import as_choice, as_scores
from evp.bands import (
    CDFBand,
    TuningCurveBand,
    _cdf_band,
    _curve_band,
    _curve_band_iv,
    _mirrored,
    _warn_if_ties,
)

__all__ = ["CONSTRUCTIONS", "Comparison", "compare"]

#: How verdicts bound each curve: "band" (simultaneous over every budget, as a
#: figure needs), "top_band" (simultaneous over every budget of a quantile
#: curve, exact over the order statistics such a curve reads: the better
#: end), "budgets" (exact intervals at the budgets read only), or "auto" (the
#: sharpest of them for the budgets asked, chosen from the rounds' counts
#: alone; see :func:`compare`).
CONSTRUCTIONS = ("auto", "band", "top_band", "budgets")


def _top_first(n: int, confidence: float, method: str, q: float) -> int:
    r"""The least rank the top band constrains, for n rounds and the q-quantile
    curve of scores: the last rank whose full-band upper bound is below q.

    The curve's lower edge at budget k ≥ 1 is the largest order statistic whose
    upper bound is below :math:`q^{1/k} \ge q`. The top band's bounds are
    narrower than the full band's, so at that rank its upper bound is below q
    too, and every edge a curve at k ≥ 1 reads lies at a constrained rank. It
    depends on n, the confidence, the method and q only, never on the scores."""
    upper = band_bounds(n, confidence, method)[1]
    return max(int(np.sum(upper < q)), 1)


def _top_cdf_band(x: np.ndarray, confidence: float, method: str, q: float,
                  minimize: bool) -> CDFBand:
    """The CDF band for sorted scores x exact over the better end only: the
    ranks from :func:`_top_first` up (the mirror image, ranks up to n + 1 − that,
    for losses, whose curves read the low scores), with `confidence` spent on
    them alone. With no rank to leave out it is the full band."""
    n = x.shape[-1]
    first = _top_first(n, confidence, method, 1.0 - q if minimize else q)
    if first == 1:
        return _cdf_band(x, confidence, method)
    lower, upper, level, _ = band_bounds(n, confidence, method, first)
    if minimize:  # U → 1 − U reverses the ranks and keeps the coverage
        lower, upper = 1.0 - upper[::-1], 1.0 - lower[::-1]
    return CDFBand(lower=lower, upper=upper, scores=x, confidence=confidence,
                   method=method, level=level)


def _top_band(x, k, **options) -> TuningCurveBand:
    """The tuning-curve band of sorted scores x read from the top CDF band
    (:func:`_top_cdf_band`), for checked options (quantile curves only); for
    losses, from the negated losses (:func:`evp.bands._mirrored`)."""
    if options["minimize"]:
        return _mirrored(_top_band, x, k, options)
    cdf = _top_cdf_band(x, options["confidence"], options["method"], options["q"],
                        options["minimize"])
    return _curve_band(x, k, **options, cdf=cdf, construction="top_band")


def _interval_ranks(size: int, k, q: float, minimize: bool, alpha_worse: float,
                    alpha_better: float) -> tuple[np.ndarray, np.ndarray]:
    """Ranks (lower, upper; 0 the bound a, size + 1 the bound b) of the exact
    intervals for the q-quantile curve at budgets k (:func:`quantile_ranks`),
    missing on the worse side with probability at most `alpha_worse` and on
    the better side (the top; the bottom for losses) at most `alpha_better`."""
    levels = best_of_level(q, np.asarray(k, dtype=float), minimize)
    low, high = (alpha_better, alpha_worse) if minimize else (alpha_worse,
                                                              alpha_better)
    return quantile_ranks(int(size), levels, low, high)


def _interval_band(x, k, *, alpha_worse, alpha_better, confidence, method, q,
                   bounds, minimize) -> TuningCurveBand:
    """The q-quantile curve bounded only at the budgets k, by exact order
    statistics (:func:`_interval_ranks`) of the sorted scores x (rows of
    samples): `confidence` is what the misses add up to, as the caller spent
    them; for losses, from the negated losses (:func:`evp.bands._mirrored`)."""
    if minimize:
        return _mirrored(_interval_band, x, k, dict(
            alpha_worse=alpha_worse, alpha_better=alpha_better,
            confidence=confidence, method=method, q=q, bounds=bounds,
            minimize=minimize))
    a, b = bounds
    edge = np.ones((*x.shape[:-1], 1))
    points = np.concatenate((a * edge, x, b * edge), axis=-1)
    low, high = _interval_ranks(x.shape[-1], k, q, minimize, alpha_worse,
                                alpha_better)
    estimate = quantile_of_best(x, empirical(x.shape[-1])[0], k, q,
                                minimize=minimize)
    return TuningCurveBand(
        ns=k, lower=points[..., low], estimate=estimate, upper=points[..., high],
        confidence=confidence, method=method, statistic="median", q=q,
        bounds=bounds, minimize=minimize, cdf=_cdf_band(x, confidence, method),
        construction="budgets")


def _band_ranks(size: int, k, confidence: float, method: str, q: float,
                minimize: bool, top: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Ranks (lower, upper) of the median band's edges at budgets k from `size`
    rounds, 0 the bound a and size + 1 the bound b (the top band's with `top`):
    distribution-free, so read off the band of the scores 1, ..., size."""
    build = _top_band if top else _curve_band
    band = build(np.arange(1.0, size + 1), np.asarray(k, dtype=float),
                 confidence=confidence, method=method, statistic="median", q=q,
                 bounds=(0.0, size + 1.0), minimize=minimize)
    return band.lower.astype(int), band.upper.astype(int)


def _construction_ranks(which: str, size: int, k, *, band_confidence, method, q,
                        minimize, alpha_worse, alpha_better):
    """Ranks (lower, upper) of one construction's edges at budgets k (see
    :func:`_band_ranks` and :func:`_interval_ranks`)."""
    if which == "budgets":
        return _interval_ranks(size, k, q, minimize, alpha_worse, alpha_better)
    return _band_ranks(size, k, band_confidence, method, q, minimize,
                       top=which == "top_band")


def _sharper(size: int, k, *, band_confidence, method, q, minimize, alpha_worse,
             alpha_better) -> str:
    """"band", "top_band" or "budgets": the construction whose edges lie fewest
    order statistics apart, summed over the budgets k, for a model of `size`
    rounds; on a tie the first in that order (the top band needs an LD method).

    The ranks depend on the count of rounds, the budgets and the levels only,
    never on the scores, so choosing by them keeps each construction's
    guarantee whole (a choice made after seeing the scores would not), and one
    model's choice never depends on another's rounds. A loss's choice is
    that of the negated losses (:func:`evp.bands._mirrored`), whose curves it
    reads."""
    if minimize:
        q, minimize = 1.0 - q, False
    options = dict(band_confidence=band_confidence, method=method, q=q,
                   minimize=minimize, alpha_worse=alpha_worse,
                   alpha_better=alpha_better)
    candidates = (("band", "budgets") if method in ("dkw", "ks")
                  else ("band", "top_band", "budgets"))
    widths = {}
    for which in candidates:
        low, high = _construction_ranks(which, size, k, **options)
        widths[which] = int(np.sum(high - low))
    return min(candidates, key=widths.__getitem__)


def _bounds_by(construction: str, k: np.ndarray, options: dict):
    """The function that bounds one model's curve at budgets `k` (its sorted
    scores → a TuningCurveBand), by `construction` as checked options ask:
    the band, the exact intervals at the budgets (each model's spending 1 − c
    over its budgets and both sides, as its band does), or, for "auto", the
    one of the two whose edges lie fewer order statistics apart for that
    model's count of rounds (never its scores)."""
    construction = _construction(construction, options["statistic"],
                                 options["method"])
    alpha = (1.0 - options["confidence"]) / (2 * k.size)
    spent = dict(alpha_worse=alpha, alpha_better=alpha)
    chosen = {key: options[key] for key in ("confidence", "method", "q",
                                            "bounds", "minimize")}

    def bounded(x):
        which = construction
        if which == "auto":  # each model its own, from its count of rounds
            which = _sharper(x.shape[-1], k, band_confidence=chosen["confidence"],
                             method=chosen["method"], q=chosen["q"],
                             minimize=chosen["minimize"], **spent)
        if which == "budgets":
            return _interval_band(x, k, **spent, **chosen)
        return (_top_band if which == "top_band" else _curve_band)(x, k, **options)

    return bounded


def _joint(*constructions) -> str:
    """The constructions of several models' bounds in one word: "band",
    "top_band", "budgets", or "both" when the models' differ."""
    found = set(constructions)
    return found.pop() if len(found) == 1 else "both"


def _construction(construction, statistic: str, method: str) -> str:
    """The construction asked for, checked: exact intervals exist for the
    quantile curves only."""
    construction = as_choice(construction, "construction", CONSTRUCTIONS)
    if statistic == "mean":
        if construction in ("budgets", "top_band"):
            raise ValueError(f"construction={construction!r} bounds quantile "
                             "curves only; the mean curve needs the band "
                             "(construction='band')")
        return "band"
    if construction == "top_band" and method in ("dkw", "ks"):
        raise ValueError(f"construction='top_band' needs an LD method, got "
                         f"method={method!r}: use method='ld_highest_density' "
                         "or construction='band'")
    return construction


@dataclass(frozen=True, eq=False)
class Comparison:
    """Evidence that model a beats model b, and that b beats a, budget by budget.

    Attributes
    ----------
    ns : numpy.ndarray, shape (N,)
    evidence : numpy.ndarray of str
        The evidence that a beats b: one of "strong", "fair", "weak", "none" per
        budget (shape (N,), or (S, N) for 2-D scores).
    reverse_evidence : numpy.ndarray of str
        The evidence that b beats a, labelled the same way. At most one of the
        two is not "none" at any budget.
    band_a, band_b : TuningCurveBand
    confidence : float
    """

    ns: np.ndarray
    evidence: np.ndarray
    reverse_evidence: np.ndarray
    band_a: TuningCurveBand
    band_b: TuningCurveBand
    confidence: float
    construction: str = "band"

    def __repr__(self) -> str:
        def counts(labels):
            return ", ".join(f"{label} at {int(np.sum(labels == label))}"
                             for label in ("strong", "fair", "weak")
                             if np.any(labels == label)) or "none"

        return (f"Comparison({self.ns.size} budgets, confidence="
                f"{self.confidence:g}; a beats b: {counts(self.evidence)}; "
                f"b beats a: {counts(self.reverse_evidence)})")

    def _repr_html_(self) -> str:
        from evp import _display

        method = _display.method_name(self.band_a.method)
        title = f"Comparison of a and b at {self.confidence:.0%}, {method} bands"
        if self.evidence.ndim != 1:
            return _display.page(title, [repr(self)])
        rows = _display.spread_rows(self.ns.size)
        winner, strength = self.winner(), self.strength()
        shown = _display.table(
            {"n": self.ns[rows],
             f"a {self.band_a._curve()}": self.band_a.estimate[rows],
             f"b {self.band_b._curve()}": self.band_b.estimate[rows],
             "evidence": [_display.strength_cell(s) for s in strength[rows]],
             "for": [w or "–" for w in winner[rows]]}, raw=("evidence",))
        figure = _display.band_figure(self.ns, [
            (name, band.lower, band.estimate, band.upper)
            for name, band in (("a", self.band_a), ("b", self.band_b))])
        return _display.page(title, [], [shown, figure])

    def winner(self, names=("a", "b")) -> np.ndarray:
        """Per budget, the name of the model with evidence in its favour, or ""."""
        a, b = (str(name) for name in names)
        return np.where(self.evidence != "none", a,
                        np.where(self.reverse_evidence != "none", b, ""))

    def strength(self) -> np.ndarray:
        """Per budget, the evidence in either direction: the label that is not none."""
        return np.where(self.evidence != "none", self.evidence, self.reverse_evidence)

    def to_frame(self, names=("a", "b")):
        """One row per budget: both bands, both evidence labels (1-D scores only)."""
        import pandas as pd

        if self.evidence.ndim != 1:
            raise ValueError("to_frame needs a comparison of 1-D scores (one sample "
                             "per model)")
        a, b = (str(name) for name in names)
        whole = np.all(self.ns == np.round(self.ns))
        columns = {"n": self.ns.astype(int) if whole else self.ns}
        for name, band in ((a, self.band_a), (b, self.band_b)):
            word = "median" if band.statistic == "median" else "mean"
            columns[f"{name} lower"] = band.lower
            columns[f"{name} {word}"] = band.estimate
            columns[f"{name} upper"] = band.upper
        columns[f"{a} beats {b}"] = self.evidence
        columns[f"{b} beats {a}"] = self.reverse_evidence
        return pd.DataFrame(columns)


def compare(
    scores_a,
    scores_b,
    ns,
    confidence: float = 0.8,
    *,
    method: str = "ld_highest_density",
    statistic: str = "median",
    q: float = 0.5,
    bounds=(None, None),
    minimize: bool = False,
    construction: str = "auto",
):
    r"""How strongly do the tuning-curve bands say that model a beats model b?

    Builds the two tuning-curve bands (:func:`evp.tuning_curve_band`, same options)
    and labels each budget k with the heuristic of Lourie, Cho and He (2024, §2),
    for the claim "a's tuning curve is better than b's at k":

    * ``"strong"``: a's band lies wholly above b's, :math:`L_a > U_b`;
    * ``"fair"``: each band excludes the other's estimate,
      :math:`L_a > \hat T_b` and :math:`\hat T_a > U_b`;
    * ``"weak"``: one band excludes the other's estimate, in a's favour;
    * ``"none"`` otherwise.

    "Better" is higher for scores and lower for losses (``minimize=True``, where
    the inequalities flip: strong is :math:`U_a < L_b`, and so on). Since each
    band contains its own estimate, the labels are antisymmetric: when a beats b
    with any evidence, the reverse claim has none. Both directions come back:
    ``.evidence`` for "a beats b" and ``.reverse_evidence`` for "b beats a".

    Parameters
    ----------
    scores_a, scores_b : array_like, shape (n_a,) and (n_b,), or 2-D
        Scores of the two models' random searches (sizes may differ). 2-D
        arrays (one sample per row) broadcast against each other.
    ns, confidence, method, statistic, q, bounds, minimize
        As in :func:`evp.tuning_curve_band`, with the same defaults (confidence 0.8,
        "ld_highest_density", "median", q = 0.5, no bounds, maximising);
        `bounds` apply to both models.
    construction : {"auto", "band", "top_band", "budgets"}, default "auto"
        How each curve is bounded: "band", simultaneously at every budget (what
        a figure needs); "top_band", at every budget too, from a CDF band
        exact only over the order statistics the q-quantile curve reads (the
        better half for the median; about the better 1 − q for scores, q for
        losses; LD methods);
        "budgets", by exact intervals at the budgets `ns` only; "auto", the
        sharpest of them for these budgets and rounds (chosen from the counts
        alone, never the scores; see Notes). The mean curve has the band
        only.

    Returns
    -------
    Comparison
        Both directions' labels and both bands; ``.to_frame(names)`` gives the
        table (:func:`evp.analyses.two_models` says the verdict in words).

    Notes
    -----
    Each band holds with the stated confidence, so "strong" at one k is a
    statement at confidence at least :math:`1 - 2(1 - c)` (both bands hold); the
    weaker labels are heuristics for reading plots, not tests.

    **Intervals at the budgets read** (``construction="budgets"``). A verdict at
    budget n reads one point of each curve: the q-quantile tuning curve at n is
    the quantile :math:`\xi_p = \min\{x : F(x) \ge p\}` of one round's score
    at :math:`p = q^{1/n}` (:math:`1 - (1-q)^{1/n}` for losses). For any F,
    continuous or tied, :math:`Y_{(r)} < \xi_p` needs at least r of the N
    rounds below :math:`\xi_p`, a binomial count with success chance
    :math:`F(\xi_p-) \le p`, so :math:`P(Y_{(r)} < \xi_p) \le
    P(\mathrm{Bin}(N, p) \ge r)`; and :math:`Y_{(s)} > \xi_p` needs fewer than
    s rounds at or below it, a count with chance :math:`F(\xi_p) \ge p`, so
    :math:`P(Y_{(s)} > \xi_p) \le P(\mathrm{Bin}(N, p) \le s - 1)`: the
    distribution-free interval for a quantile (Thompson 1936; David and
    Nagaraja 2003, §7.1), exact for continuous scores and conservative with
    ties. Each model spends :math:`1 - c` over its B budgets and two sides,
    :math:`(1 - c)/(2B)` on each (Bonferroni), taking for r the least and for s
    the largest rank that spends no more; so each model's intervals hold at all
    its budgets at once with probability at least c, as its band does, and
    "strong" keeps the meaning above. A band pays for every budget; intervals
    pay only for the B read, so they are the sharper for few budgets and the
    band for many. ``"auto"`` compares the two constructions' widths in order
    statistics, summed over the budgets, for each model: those depend on its
    count of rounds, the budgets and c only, so the choice cannot favour a
    verdict and each guarantee stands as derived (the verdict needs each model's
    bounds to hold, whichever construction gave them). ``.construction`` says which
    was used.

    **The top band** (``construction="top_band"``). At a budget k ≥ 1 the
    q-quantile curve reads the CDF at levels :math:`q^{1/k} \ge q` only: its
    lower edge is the largest order statistic whose band upper bound is below
    the level, its upper edge the least whose lower bound reaches it. So the
    CDF band need only hold at the ranks :math:`i \ge i_0`, where :math:`i_0`
    is the last rank whose full-band upper bound is below q. The top band
    takes the LD intervals at a pointwise level γ solved so that
    :math:`P(l_i \le U_{(i)} \le u_i \ \forall i \ge i_0) = c` exactly, by
    the same recursion as the full band (Moscovich and Nadler 2017), and below
    :math:`i_0` the implied bounds 0 and :math:`u_{i_0}` (a sorted sample
    meets them whenever it meets the one at :math:`i_0`). Fewer constraints
    spend the same 1 − c, so γ is lower and every interval narrower (by
    about 5–9% in width for 20–200 rounds at 80%); the narrower upper bounds
    keep every edge read at :math:`i \ge i_0`. With ties the envelope argument
    of :func:`evp.cdf_band` holds rank by rank, so the top band keeps at least the
    confidence. For losses it is the mirror image, over the low ranks.

    References
    ----------
    Lourie, Cho and He (2024). Show Your Work with Confidence. NAACL.
    Moscovich and Nadler (2017). Fast calculation of boundary crossing
    probabilities for Poisson processes. Statistics & Probability Letters 123.
    Thompson (1936). On confidence ranges for the median and other expectation
    distributions for populations of unknown distribution form. Ann. Math.
    Statist. 7(3).
    David and Nagaraja (2003). Order Statistics, 3rd ed. Wiley.

    Examples
    --------
    >>> import numpy as np, evp
    >>> rng = np.random.default_rng(0)
    >>> better, worse = rng.normal(1, 0.1, 100), rng.normal(0, 0.1, 100)
    >>> evp.compare(better, worse, [1, 5, 10]).evidence
    array(['strong', 'strong', 'strong'], dtype='<U6')
    """
    x_a, x_b = (as_scores(scores_a, "scores_a", sort=True),
                as_scores(scores_b, "scores_b", sort=True))
    k, options = _curve_band_iv(ns, confidence, method, statistic, q, bounds,
                                minimize, x_a, x_b)
    try:
        shape = (*np.broadcast_shapes(x_a.shape[:-1], x_b.shape[:-1]), k.size)
    except ValueError:
        raise ValueError(
            f"scores_a and scores_b must have matching numbers of samples (rows), "
            f"got shapes {x_a.shape} and {x_b.shape}"
        ) from None
    _warn_if_ties(options["method"], scores_a=x_a, scores_b=x_b)
    bounded = _bounds_by(construction, k, options)
    band_a, band_b = bounded(x_a), bounded(x_b)
    construction = _joint(band_a.construction, band_b.construction)
    lo_a, est_a, hi_a = band_a.lower, band_a.estimate, band_a.upper
    lo_b, est_b, hi_b = band_b.lower, band_b.estimate, band_b.upper
    if band_a.minimize:  # lower is better: negate, so that higher is better
        lo_a, est_a, hi_a = -hi_a, -est_a, -lo_a
        lo_b, est_b, hi_b = -hi_b, -est_b, -lo_b
    evidence = _evidence(lo_a, est_a, hi_a, lo_b, est_b, hi_b, shape)
    reverse = _evidence(lo_b, est_b, hi_b, lo_a, est_a, hi_a, shape)
    return Comparison(ns=band_a.ns, evidence=evidence, reverse_evidence=reverse,
                      band_a=band_a, band_b=band_b, confidence=band_a.confidence,
                      construction=construction)


def _evidence(lo_a, est_a, hi_a, lo_b, est_b, hi_b, shape) -> np.ndarray:
    """Labels for "a beats b", higher being better."""
    above_estimate = lo_a > est_b  # a's band excludes b's estimate
    estimate_above = est_a > hi_b  # b's band excludes a's estimate
    evidence = np.select(
        [lo_a > hi_b, above_estimate & estimate_above,
         above_estimate | estimate_above],
        ["strong", "fair", "weak"],
        default="none",
    )
    return np.broadcast_to(evidence, shape).astype("<U6")
