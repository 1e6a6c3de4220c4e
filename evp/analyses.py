"""One analysis per question a user asks, computed once and worded once.

Each function answers one question about :class:`evp.Results` and returns a
small frozen object: the tables and result objects it computed, its sentences
(written once, from those tables), a caption, and ``.plot()``, which draws the
analysis (scikit-learn's Display pattern). The command line prints an
analysis, the report lays analyses out, and the notebooks show them; none of
them computes a table or words a finding of its own, so that the three cannot
drift apart.

* :func:`curves` — the tuning curves of one search (each model, or each
  model's repeated runs), with the median bands; by task with a task column.
* :func:`tail` — each model's fitted noisy quadratic tail, extrapolated.
* :func:`two_models` — does model A beat model B, at each budget?
* :func:`plan` — what more rounds of both would settle at a budget.

Sentences come in two forms: :attr:`Analysis.notes` for the terminal, and
:meth:`Analysis.for_paper`, which drops the advice on evp's options (a
paper's reader has no use for ``pass --minimize``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pandas as pd

from evp._display import method_name
from evp._validation import ParameterError
from evp.bands import METHODS
from evp.planning import (
    DEFAULT_MORE_ROUNDS,
    MEMORY_LIMIT,
    max_replications,
    replication_memory,
)
from evp.results import Results

__all__ = ["DEFAULT_MORE_ROUNDS", "ESTIMATORS", "METHODS", "Analysis", "Curves",
           "Plan", "Tail", "TwoModels", "curves", "for_paper", "plan", "tail",
           "two_models"]

#: The estimators of the expected best score, as a caption names them.
ESTIMATORS = {"v": "the V estimator of Dodge et al. 2019",
              "u": "the unbiased U estimator of Tang et al. 2020",
              "w": "the W estimator of Dodge et al. 2021"}


# A clause of advice on evp's options: "pass --minimize", "; give bounds=…".
_ADVICE = re.compile(r"\s*[:;,]?\s*\b(?:pass|give|use) (?:--[a-z]|[a-z_]+=|the search "
                     r"object)[^;()]*(?:\([^()]*\)[^;()]*)*")


def for_paper(note: str) -> str:
    """`note` without its advice on evp's options (the clauses that tell to
    pass an option), as a paper's reader reads it."""
    text = _ADVICE.sub("", note).strip()
    text = text.replace("(; ", "(").replace("()", "")
    return re.sub(r"\s+([;,)])", r"\1", text)  # no space left before a stop


@dataclass(frozen=True)
class Analysis:
    """What every analysis has: the results it read, its main table, what the
    table shows, and its sentences.

    Attributes
    ----------
    results : Results
        The results analysed (after any selection of models).
    table : DataFrame
        The analysis' table, as the command line prints it and ``--out``
        writes it.
    what : str
        What the table shows, the first words of its caption.
    confidence : float
        The confidence of its bands.
    method : str or None
        The CDF band's method, or None where the table holds no band.
    notes : tuple of str
        Its sentences: what it found, and what the reader must know to read it
        (budgets beyond the rounds run, a thin tail, …).
    """

    results: Results
    table: pd.DataFrame
    what: str
    confidence: float = 0.8
    method: str | None = None
    notes: tuple[str, ...] = ()

    def caption(self) -> str:
        """A table's caption: what it shows, the bands' method and confidence
        (where it holds bands), the rounds behind it, and the score."""
        results = self.results
        rounds = ", ".join(f"{results.scores_as_read[m].size} of {results.label(m)}"
                           for m in results.models)
        shown = (f"{self.confidence:.0%} {method_name(self.method)} bands; "
                 if self.method else "")
        return (f"{self.what}: {shown}rounds: {rounds}; "
                f"score: {results.score_name}"
                + (" (a loss, lower is better)" if results.minimize else "") + ".")

    def for_paper(self) -> list[str]:
        """The sentences without advice on evp's options."""
        return [for_paper(note) for note in self.notes]

    def plot(self, **options):
        """Draw the analysis; the axes (or array of axes) drawn on."""
        raise NotImplementedError(f"{type(self).__name__} has no figure")

    def _repr_html_(self) -> str:
        from evp import _display

        return _display.page(self.what, list(self.notes), [self.table.to_html(
            index=False, float_format=lambda v: f"{v:.4g}")])


def beyond_rounds(ns, results: Results) -> list[str]:
    """The sentence saying where budgets asked for lie beyond a model's rounds
    (none when every budget is within every model's rounds)."""
    if not isinstance(ns, list | tuple) or results.runs is not None:
        return []
    rounds = {m: s.size for m, s in results.scores_as_read.items()}
    short = {m: r for m, r in rounds.items() if max(ns) > r}
    if not short:
        return []
    beyond = [n for n in ns if n > min(short.values())]
    shown = ", ".join(map(str, beyond[:5])) + (", …" if len(beyond) > 5 else "")
    models = ", ".join(f"{m} {r}" for m, r in list(short.items())[:5])
    return [f"n = {shown} beyond the rounds run ({models}"
            f"{', …' if len(short) > 5 else ''}): there V and W extrapolate from "
            "the rounds run, U stops, and the bands widen"]


# ------------------------------------------------------------------ curves

@dataclass(frozen=True)
class Curves(Analysis):
    """The tuning curves of one search (:func:`curves`)."""

    estimator: str = "v"
    ns: object = None

    def plot(self, *, cost_unit: str | None = None, x: str = "trials", **options):
        """The curves and bands of every model (:func:`evp.plot.plot_tuning_curves`);
        every budget unless budgets were given."""
        if self.results.task is not None:
            raise ValueError("a figure draws one task: draw a task's rows alone")
        from evp.plot import plot_tuning_curves

        return plot_tuning_curves(
            self.results, estimator=self.estimator, method=self.method,
            confidence=self.confidence, cost_unit=cost_unit,
            ns=self.ns if isinstance(self.ns, list) else None, x=x, **options)


def curves(results: Results, *, estimator: str = "v",
           method: str | None = "ld_highest_density", confidence: float = 0.8,
           ns=None) -> Curves:
    """The tuning curves of every model of `results`, with their median bands
    (`method` None: the curves alone); for repeated runs of a tuner, the median
    best score so far across the runs and its band; with a task column, every
    task's curves, one after another (a ``task`` column first).

    `ns`: None for the readable budgets up to each model's rounds, "all" for
    every budget, or the budgets.
    """
    from evp.tables import anytime_table, tuning_curve_table

    budgets = "readable" if ns is None else None if ns == "all" else ns
    name = ESTIMATORS[estimator]
    if results.task is not None:
        if results.runs is not None:
            raise ParameterError("runs", "task: repeated runs are read one task at "
                                 "a time; analyse one task's rows")
        tables = []
        for task, study in results.by_task().items():
            table = tuning_curve_table(study, estimator=estimator, method=method,
                                       confidence=confidence, ns=budgets)
            table.insert(0, "task", task)
            tables.append(table)
        return Curves(results, pd.concat(tables, ignore_index=True),
                      f"Tuning curves ({name}) on each of {len(results.tasks)} "
                      "tasks", confidence, method, (), estimator, ns)
    if results.runs is not None:
        table = anytime_table(results, ns=ns, confidence=confidence)
        what, shown_method = ("Median best score so far across the runs",
                              method or "ld_highest_density")
    else:
        table = tuning_curve_table(results, estimator=estimator, method=method,
                                   confidence=confidence, ns=budgets)
        what = f"Tuning curves ({name})" + (
            " and median tuning curves" if method else "")
        shown_method = method
    return Curves(results, table, what, confidence, shown_method,
                  tuple(beyond_rounds(ns, results)), estimator, ns)


# -------------------------------------------------------------------- tail

@dataclass(frozen=True)
class Tail(Analysis):
    """Each model's fitted noisy quadratic tail (:func:`tail`)."""

    threshold: float = 0.0
    fits: tuple = ()
    lines: tuple[str, ...] = ()

    def plot(self, **options):
        """Each model's fit and its confidence set's band, a panel each."""
        import matplotlib.pyplot as plt

        from evp.plot import PALETTE, plot_extrapolation, theme

        with plt.rc_context(theme()):
            _, axes = plt.subplots(1, len(self.fits), squeeze=False, sharey=True,
                                   figsize=(4.4 * len(self.fits), 3.8),
                                   layout="constrained")
            for ax, found, color in zip(axes.flat, self.fits, PALETTE * 4,
                                        strict=False):
                plot_extrapolation(found.fit, found.found, found.scores,
                                   label=str(found.model),
                                   y=self.results.score_name, color=color, ax=ax)
            axes.flat[0].legend(fontsize="small")
        return axes.flat[0]


def tail(results: Results, threshold: float, confidence: float = 0.8,
         ns=None) -> Tail:
    """Each model's noisy quadratic tail beyond `threshold` (below it for a loss),
    its median curve out to ten times the rounds run with the confidence set's
    band, and the interval for the best achievable score: a line per model
    (:attr:`Tail.lines`), and a note where the tail is thin."""
    from evp.tables import tail_fits, tail_table

    minimize = results.minimize
    best = "lowest achievable" if minimize else "best achievable"
    fits = tail_fits(results, threshold, confidence)
    lines, notes = [], []
    for found in fits:
        fit, kept = found.fit, found.found
        shown = (f"the model is rejected (its {confidence:.0%} confidence set "
                 "is empty" if kept.empty else
                 f"{best} {results.score_name} in [{found.best[0]:.4g}, "
                 f"{found.best[1]:.4g}] ({confidence:.0%} confidence set; c in "
                 f"{{{', '.join(map(str, kept.c))}}}, o in [{kept.o[0]:.3g}, "
                 f"{kept.o[1]:.3g}]")
        lines.append(f"{found.model}: {shown}; {kept.n_tail} of {kept.n} rounds "
                     f"beyond {threshold:g}); fit a={fit.a:.4g}, b={fit.b:.4g}, "
                     f"c={fit.c}, o={fit.o:.3g}")
        if kept.n_tail < 30:
            notes.append(f"{found.model}: only {kept.n_tail} rounds beyond "
                         f"{threshold:g}, so the set is wide; a "
                         f"{'higher' if minimize else 'lower'} threshold keeps "
                         "more of them")
    lines.append(f"median best of n by the fitted tail, and its {confidence:.0%} "
                 f"band (-inf where the model says nothing: below {threshold:g})")
    return Tail(results, tail_table(fits, ns),
                f"Tuning curves by the fitted noisy quadratic tail beyond "
                f"{threshold:g}", confidence, "ld_highest_density", tuple(notes),
                threshold,
                tuple(fits), tuple(lines))


# -------------------------------------------------------------- two models

@dataclass(frozen=True)
class TwoModels(Analysis):
    """Model A against model B at each budget (:func:`two_models`)."""

    a: str = ""
    b: str = ""
    comparison: object = None
    costs: dict | None = None
    ns: object = None

    def plot(self, *, cost_unit: str | None = None, **options):
        """Both bands and the evidence at every budget (those given, if any)."""
        from evp.plot import plot_comparison
        from evp.tables import compare_models

        results = self.results
        drawn = self.comparison if isinstance(self.ns, list) else compare_models(
            results, self.a, self.b, "all", self.confidence,
            method=self.method or "ld_highest_density")
        return plot_comparison(drawn, (self.a, self.b), y=results.score_name,
                               minimize=results.minimize, costs=self.costs,
                               cost=results.cost, cost_unit=cost_unit, **options)


def two_models(results: Results, a: str, b: str, ns=None, confidence: float = 0.8,
               *, method: str = "ld_highest_density") -> TwoModels:
    """Does model `a` beat model `b`, at each budget? Both median bands and the
    evidence (:func:`evp.compare`), with each model's cost of n rounds where the
    results have a cost column."""
    from evp.tables import compare_models, comparison_table, mean_cost_per_round

    results = results.select([a, b])
    comparison = compare_models(results, a, b, ns, confidence, method=method)
    costs = mean_cost_per_round(results)
    return TwoModels(results, comparison_table(comparison, (a, b), costs=costs),
                     f"{a} against {b}: the evidence at each budget", confidence,
                     method, tuple(beyond_rounds(ns, results)), a, b, comparison,
                     costs, ns)


# -------------------------------------------------------------------- plan

# How to read a plan's range, said beside every plan.
_RANGE = ("read the range, 'strong, low end' to 'strong, high end': the point "
          "'strong either way' (simulated from the rounds so far) is too hopeful "
          "on real searches (on HPOBench's grids by up to 0.19 over all pairs, "
          "0.34 for near-equal ones); the low end is the least chance with each "
          "model inside its {confidence:.0%} CDF band, the high end the more "
          "hopeful simulated reading (with tails, or 'if none beyond the "
          "extremes'), which may fall short where scores pile up under a "
          "ceiling already reached")


@dataclass(frozen=True)
class Plan(Analysis):
    """What more rounds would settle (:func:`plan`)."""

    a: str = ""
    b: str = ""
    budget: int = 1
    sentence: str = ""
    replications: int = 1000

    def plot(self, **options):
        """The chance of a strong verdict against the extra rounds."""
        from evp.plot import plot_plan

        return plot_plan(self.table, (self.a, self.b), self.budget, **options)


def plan(results: Results, a: str, b: str, budget: int, more=DEFAULT_MORE_ROUNDS,
         confidence: float = 0.8, *, method: str = "ld_highest_density",
         replications: int = 1000, seed=0, tail: str = "exponential",
         unit: str | None = None) -> Plan:
    """How many more rounds of `a` and `b` give a strong verdict at `budget`:
    the verdict today, the chance after each count in `more` (a range that
    holds, and the simulated point), and one sentence read from the range.
    `unit` is the cost's unit, for the sentence."""
    from evp.tables import compare_models, plan_sentence, plan_table

    results = results.select([a, b])
    if results.runs is not None:
        raise ParameterError("runs", "runs: plans for repeated runs of an adaptive "
                             "tuner are not made yet; plan from one random search "
                             "per model")
    sizes = [len(results.scores_as_read[m]) for m in (a, b)]
    plans = [(m, m) for m in more]
    needed = replication_memory(*sizes, plans, replications)
    if needed > MEMORY_LIMIT:
        most = max_replications(*sizes, plans)
        raise ParameterError(
            "replications", f"replications={replications} would take about "
            f"{needed / 1e9:.3g} GB of memory; at most {most} fit in "
            f"{MEMORY_LIMIT / 1e9:.0f} GB: give replications={most} or fewer")
    today = compare_models(results, a, b, [budget], confidence, method=method)
    table = plan_table(results, a, b, budget, more, confidence, method=method,
                       replications=replications, rng=seed, tail=tail)
    strength, winner = today.strength()[0], today.winner((a, b))[0]
    notes = (f"today, at n = {budget}: "
             + (f"{strength} evidence that {winner} is better" if winner
                else "no evidence either way"),
             _RANGE.format(confidence=confidence))
    return Plan(results, table,
                f"{a} against {b}: the chance of a strong verdict at n = {budget} "
                f"after more rounds ({replications} simulated futures)",
                confidence, method, notes, a, b, budget,
                plan_sentence(table, budget, unit=unit), replications)
