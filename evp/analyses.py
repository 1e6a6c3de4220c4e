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
* :func:`plan` — what more rounds of both would settle at a budget;
  :func:`what_would_settle` — the same sentence for several pairs.
* :func:`many_models` — three or more models on one task: what may still be
  best, and every pair's verdict, family-wise; :func:`pairs` — each pair of a
  few models alone.
* :func:`many_tasks` — many models on many tasks: ranks, the aggregate curve,
  where the budget changes the answer, which pairs differ across tasks.
* :func:`budgets` — the rounds each model needs to reach a target.

Sentences come in two forms: :attr:`Analysis.notes` for the terminal, and
:meth:`Analysis.for_paper`, which drops the advice on evp's options (a
paper's reader has no use for ``pass --minimize``).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd

from evp._columns import (
    BOOKKEEPING,
    BOOKKEEPING_PREFIXES,
    DURATIONS,
    INFRASTRUCTURE,
    ORDER_COLUMNS,
    TASK_NAMES,
    bare_name,
    is_hyperparameter,
)
from evp._display import method_name
from evp._numbers import cost_unit, decimals, number, shown_text
from evp._optional import import_optional_dependency
from evp._validation import ParameterError
from evp.bands import METHODS
from evp.planning import (
    DEFAULT_MORE_ROUNDS,
    MEMORY_LIMIT,
    POINT_TOO_HOPEFUL,
    RANGE_HELD,
    RANGE_WIDTH,
    max_replications,
    replication_memory,
)
from evp.ranking import MAX_PAIR_ROWS  # noqa: F401 - the command line's bound
from evp.results import Results

__all__ = ["DEFAULT_MORE_ROUNDS", "ESTIMATORS", "METHODS", "TO_FILL", "Analysis",
           "Budgets", "Checklist", "Curves", "ManyModels", "ManyTasks", "Pairs",
           "Plan", "Tail", "TwoModels", "budgets", "checklist", "curves", "for_paper",
           "hyperparameters", "many_models", "many_tasks", "pairs", "paper_value",
           "plan", "tail", "two_models", "what_would_settle", "with_floor"]

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
    text = text.replace("(; ", "(").replace("()", "").strip()
    return re.sub(r"\s+([;,)])", r"\1", text)  # no space left before a stop


# What a reader says of failed rounds counted as the worst while the score has
# no floor; replaced once the floor is known (with_floor).
_NO_FLOOR = ("the expected best score needs a floor for them (bounds) and is "
             "undefined without one")


def with_floor(results: Results) -> Results:
    """`results` whose note on failed rounds says where they count, once the
    score's bounds are known (``--failed worst --bounds``): the expected best
    score is then defined, and the note that says otherwise is replaced."""
    from evp.tables import floor

    value = floor(results)
    if value is None or not any(_NO_FLOOR in note for note in results.notes):
        return results
    said = (f"the expected best score counts them at the score's "
            f"{'upper' if results.minimize else 'lower'} bound, {value:g}")
    return results.replace(notes=tuple(note.replace(_NO_FLOOR, said)
                                       for note in results.notes))


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
        plt = import_optional_dependency("matplotlib.pyplot")

        from evp.plot import PALETTE, as_written, plot_extrapolation, theme

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
        as_written(axes.flat[0].figure)  # the legend's names, too
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
_RANGE = ("read the range, 'strong, low end' to 'strong, high end', calibrated on "
          "HPOBench's grids: there it held the realised chance in at least "
          f"{RANGE_HELD:.1%} of the cases at every budget from 1 to 5, near-equal "
          f"and separated pairs alike, {RANGE_WIDTH:.2f} wide on average with 20 "
          "more rounds of each (wider the further a plan looks ahead); a measured "
          "promise on one family of search spaces, not a bound. The point 'strong "
          "either way' (simulated from the rounds so far) ran too hopeful there, by "
          f"{POINT_TOO_HOPEFUL[0]:.2f} on average for separated pairs and "
          f"{POINT_TOO_HOPEFUL[1]:.2f} for near-equal ones; the low end reads both "
          "models' CDF bands at 20%, the high end a posterior quantile of the chance")


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


# ------------------------------------------------------- many models, one task

@dataclass(frozen=True)
class ManyModels(Analysis):
    """Three or more models on one task (:func:`many_models`): what may still
    be best, and every pair's verdict, family-wise.

    ``table`` is :func:`evp.compare_all`'s (one row per ordered pair and
    budget), built when first read: ``pairs`` (:class:`evp.ranking.
    PairVerdicts`) holds the verdicts in memory linear in the models, and the
    sentences, :meth:`summary` and :meth:`matrix` are read from it. ``best``
    the :class:`evp.BestSet`; ``open_`` the budgets where every band is open (no
    verdict can be strong there); ``last`` the budget the matrix shows: the
    largest where a verdict can be strong.
    """

    best: object = None
    open_: pd.Series | None = None
    last: object = None
    adjust: str | None = "holm"
    pairs: object = None

    def __post_init__(self):
        if self.__dict__.get("table") is None and self.pairs is not None:
            object.__delattr__(self, "table")  # built on first use: see table

    @cached_property
    def table(self) -> pd.DataFrame:
        """Every pair's verdict at every budget (:func:`evp.compare_all`)."""
        return self.pairs.table()

    def summary(self) -> pd.DataFrame:
        """Each model: whether it may still be best at the largest budget, and
        how many models it beats, and is beaten by, with strong evidence at
        some budget (every strong verdict holds family-wise over the pairs and
        budgets). Every pair's rows (M(M-1) a budget: 79,600 for 200 models)
        are too many to read."""
        last = self.pairs.ns[-1]
        beats, beaten = self.pairs.counts()
        place = {m: i for i, m in enumerate(self.pairs.models)}
        models = [str(m) for m in self.best.frame.columns]
        summary = pd.DataFrame({
            "model": models,
            f"may be best at n = {last}": self.best.frame.loc[last].to_numpy(
                dtype=bool),
            "strongly beats": [int(beats[place[m]]) for m in models],
            "strongly beaten by": [int(beaten[place[m]]) for m in models]})
        return summary.sort_values(list(summary.columns[1:]),
                                   ascending=[False, False, True], kind="stable")

    def matrix(self, n=None) -> pd.DataFrame:
        """The evidence that the row beats the column at budget `n` (default
        :attr:`last`), a column of row names first ("–" on the diagonal)."""
        n = self.last if n is None else n
        models = self.results.models
        matrix = self.pairs.matrix(n).reindex(index=models, columns=models)
        # Built column by column: a model may be called "a" (the index's name).
        shown = pd.DataFrame({"beats →": matrix.index.to_numpy()})
        for column in matrix.columns:
            shown[column] = matrix[column].to_numpy()
        return shown

    def leader_pairs(self) -> list[tuple[str, str]]:
        """The leader at the largest budget against every other model, each
        pair in the results' order: the pairs worth planning for."""
        estimate = self.best.estimate.iloc[-1]
        leader = estimate.idxmin() if self.results.minimize else estimate.idxmax()
        place = {m: i for i, m in enumerate(self.results.models)}
        return [tuple(sorted((leader, m), key=place.get))
                for m in self.results.models if m != leader]

    def plot(self, *, highlight=None, **options):
        """The verdict matrix at :attr:`last`."""
        from evp.plot import plot_verdict_matrix

        return plot_verdict_matrix(self.pairs.table(self.last), self.last,
                                   highlight=highlight, **options)

    def plot_best(self, *, highlight=None, **options):
        """The set that may still be best, by budget."""
        from evp.plot import plot_best_set

        return plot_best_set(self.best.frame, highlight=highlight, **options)

    def _repr_html_(self) -> str:
        from evp import _display

        # The summary, not every pair's rows (millions for 1,000 models).
        return _display.page(self.what, list(self.notes), [self.summary().to_html(
            index=False)])


def many_models(results: Results, ns=None, confidence: float = 0.8, *,
                adjust: str | None = "holm", baseline: str | None = None,
                method: str = "ld_highest_density", most: int | None = 20
                ) -> ManyModels:
    """What may still be best among the models of one task, and every pair's
    verdict (:func:`evp.best_set`, :func:`evp.compare_all`), read where the
    verdicts can be strong: the same sentences on the terminal and in the
    report. `most` caps the verdict sentences. Every pair's table is built
    only when read (``.table``): the verdicts are held per model."""
    from evp.ranking import (
        best_set,
        open_budgets,
        pair_verdicts,
        verdict_budget,
        verdict_sentences,
    )

    budgets = ns if isinstance(ns, list) else None if ns is None else ns
    pairs = pair_verdicts(results, budgets, confidence, adjust=adjust,
                          baseline=baseline, method=method)
    found = best_set(results, budgets, confidence, method=method)
    open_ = open_budgets(results, budgets, pairs.band_confidence, method=method,
                         construction=pairs.construction)
    notes = (*found.describe(),
             *verdict_sentences(pairs, open_, confidence, adjust=adjust, most=most))
    what = ("Every pair's evidence that a beats b, family-wise" if adjust
            else "Every pair's evidence, unadjusted")
    return ManyModels(results, None, what, confidence, method, notes, found,
                      open_, verdict_budget(open_), adjust, pairs)


# ------------------------------------------------------------- many tasks

@dataclass(frozen=True)
class ManyTasks(Analysis):
    """Many models on many tasks (:func:`many_tasks`): ``table`` is
    :func:`evp.ranking.rank_table`'s (mean rank and the aggregate curve, by
    model and budget); ``curves`` each task's curves on its own scale;
    ``pairs`` the pairs' Wilcoxon tests across tasks; ``counted`` each pair's
    tasks counted one by one."""

    curves: pd.DataFrame | None = None
    pairs: pd.DataFrame | None = None
    counted: pd.DataFrame | None = None
    changes: tuple[str, ...] = ()
    across: tuple[str, ...] = ()

    def ranks(self) -> pd.DataFrame:
        """Mean rank by budget, a column per budget, the models in their order
        at the largest budget."""
        ranked = self.table
        shown = ranked.pivot(index="model", columns="n", values="mean rank")
        order = ranked[ranked["n"] == ranked["n"].max()]["model"]
        shown = shown.reindex(list(order))
        shown.columns = [f"n = {n}" for n in shown.columns]
        return shown.reset_index()

    def at_largest(self) -> pd.DataFrame:
        """The aggregate median and its band at the largest budget."""
        ranked = self.table
        return ranked[ranked["n"] == ranked["n"].max()].drop(columns="n")

    def by_task(self) -> pd.DataFrame:
        """Each task and model at the largest budget: the median best score on
        the task's own scale and its band (simultaneous over the models, tasks
        and budgets; an edge is infinite where the rounds cannot bound it)."""
        curves = self.curves
        at = curves[curves["n"] == curves["n"].max()]
        word = "lowest" if self.results.minimize else "best"
        name = self.results.score_name
        return pd.DataFrame({
            "task": at["task"].to_numpy(), "model": at["model"].to_numpy(),
            f"median {word} {name}": at["median"].to_numpy(float),
            "lower": at["lower"].to_numpy(float),
            "upper": at["upper"].to_numpy(float)})

    def best_by_task(self) -> pd.DataFrame:
        """Per task and budget, the models that may still be best (every
        task's bands at once): their names, "all", or how many."""
        curves, models = self.curves, len(self.results.models)
        members = (curves[curves["best"]].groupby(["task", "n"], sort=False)
                   ["model"].agg(list))

        def cell(chosen):
            if len(chosen) == models:
                return "all"
            return ", ".join(chosen) if len(chosen) <= 4 else f"{len(chosen)} models"

        tasks = self.results.tasks
        return pd.DataFrame({"task": tasks, **{
            f"n = {n}": [cell(members.get((task, n), [])) for task in tasks]
            for n in sorted(set(curves["n"]))}})

    def wins(self) -> pd.DataFrame:
        """At the largest budget, the share of tasks on which the row's median
        curve is ahead of the column's ("–" where no task counts)."""
        pairs = self.pairs
        matrix = pairs[pairs["n"] == pairs["n"].max()]
        share = {(a, b): w for a, b, w in matrix[["a", "b", "a wins"]].itertuples(
            index=False)}
        share |= {(b, a): 1 - w for (a, b), w in list(share.items())}
        models = self.results.models
        shown = pd.DataFrame({"wins on (share of tasks) →": models})
        def cell(a, b) -> str:
            value = share.get((a, b), math.nan)
            # No task to count on (the pair never met, or every task tied).
            return "–" if a == b or not math.isfinite(value) else f"{value:.2f}"

        for b in models:
            shown[b] = [cell(a, b) for a in models]
        return shown

    def missing(self) -> list[str]:
        """The incomplete blocks: each model without rounds on a task."""
        return [f"{m} has no rounds on {t}" for t, part in
                self.results.by_task().items() for m in self.results.models
                if m not in part.models]

    def plot(self, *, highlight=None, **options):
        """Mean rank against the budget."""
        from evp.plot import plot_ranks

        return plot_ranks(self.table, highlight=highlight, **options)


def many_tasks(results: Results, ns=None, confidence: float = 0.8, *,
               baseline: str | None = None, method: str = "ld_highest_density",
               most: int | None = None) -> ManyTasks:
    """Many models on many tasks: the ranks and the aggregate curve at every
    budget, where the budget changes the answer (ties said as ties), and which
    pairs differ across tasks, with what the tasks show when no test can reach
    its level. With `baseline`, only the pairs with it are tested."""
    from evp.ranking import (
        across_tasks_sentences,
        budget_changes,
        pair_tasks,
        pairs_across_tasks,
        rank_table,
        task_curves,
    )

    curves = task_curves(results, ns if isinstance(ns, list) else None, confidence,
                         method=method, baseline=baseline)
    ranked = rank_table(curves, confidence)
    pairs = pairs_across_tasks(curves, confidence, baseline=baseline)
    counted = pair_tasks(curves, baseline)
    changes = tuple(budget_changes(ranked))
    across = tuple(across_tasks_sentences(pairs, counted, confidence, most=most))
    return ManyTasks(results, ranked,
                     f"Ranks across {len(results.tasks)} tasks and the aggregate "
                     "median tuning curve on each task's scale", confidence,
                     method, changes + across, curves, pairs, counted, changes,
                     across)


# ----------------------------------------------------- every pair of a few

@dataclass(frozen=True)
class Pairs(Analysis):
    """Every pair of two or three models, each pair alone (:func:`pairs`):
    ``comparisons`` maps (a, b) to :func:`evp.compare`'s result; ``table`` names
    the model each budget's evidence favours."""

    comparisons: dict | None = None


def pairs(results: Results, ns=None, confidence: float = 0.8, *,
          method: str = "ld_highest_density") -> Pairs:
    """Every pair's verdict at each budget, each pair alone (as evp compare A B
    says it), and their sentences."""
    from evp.tables import pairwise_comparisons, verdict_table

    comparisons = pairwise_comparisons(results, ns, confidence, method=method)
    notes = tuple(f"{a} vs {b}, {s}" for (a, b), comparison in comparisons.items()
                  for s in comparison.describe((a, b)))
    return Pairs(results, verdict_table(comparisons),
                 "Evidence by budget (the model it favours)", confidence, method,
                 notes, comparisons)


def what_would_settle(results: Results, which, budget=None,
                      confidence: float = 0.8, *,
                      method: str = "ld_highest_density",
                      unit: str | None = None) -> list[str]:
    """For every pair in `which` without a strong verdict at the budget of
    interest, how many more rounds of each give one: :func:`plan`'s sentence,
    with its defaults (the same extra rounds, replications and seed), so that
    both say the same. The budget: `budget`, or the largest one the pair's
    rounds can bound today."""
    from evp.bands import bounded_budget
    from evp.tables import compare_models, plan_sentence, plan_table

    sentences = []
    for a, b in which:
        read_a, read_b = results.scores_as_read[a], results.scores_as_read[b]
        if read_a.size == read_b.size and np.array_equal(np.sort(read_a),
                                                         np.sort(read_b)):
            # Rounds predicted from the same scores favour neither model:
            # :func:`plan` refuses the pair, and the report says why.
            sentences.append(f"{a} vs {b}: the two scored alike, the same "
                             f"{read_a.size} scores, so more rounds predicted from "
                             "them favour neither: no number of them can be "
                             "planned for a strong verdict.")
            continue
        rounds = min(len(read_a), len(read_b))
        at = budget or max(bounded_budget(rounds, confidence, method=method), 1)
        today = compare_models(results, a, b, [at], confidence, method=method)
        if today.strength()[0] == "strong":
            continue
        table = plan_table(results, a, b, at, confidence=confidence, method=method)
        sentences.append(f"{a} vs {b}: {plan_sentence(table, at, unit=unit)}.")
    return sentences


# ---------------------------------------------------------------- budgets

@dataclass(frozen=True)
class Budgets(Analysis):
    """The rounds (and cost) for each model to reach a target (:func:`budgets`).
    ``target`` is NaN where the expected best is undefined (failed rounds
    counted as the worst outcome, and no floor): then the table is empty and
    the note says why."""

    target: float = float("nan")


def budgets(results: Results, target: float | None = None) -> Budgets:
    """Each model's budget to reach `target` in expectation (default: the weakest
    model's expected best after all its rounds); for repeated runs, the trials
    after which each tuner's median run reaches it."""
    from evp.tables import anytime_table, budget_table, weakest_final_score

    minimize, name = results.minimize, results.score_name
    sign = "≤" if minimize else "≥"
    if results.runs is not None:
        table = anytime_table(results, ns="all")
        finals = table.groupby("model", sort=False)["median"].last()
        if target is None:
            target = float(finals.max() if minimize else finals.min())
        rows = []
        for model, curve in table.groupby("model", sort=False):
            reached = curve[(curve["median"] <= target) if minimize
                            else (curve["median"] >= target)]
            rows.append({"model": model, "runs": int(curve["runs"].iloc[0]),
                         "trials (median run)": int(reached["n"].iloc[0])
                         if len(reached) else "more than were run"})
        return Budgets(results, pd.DataFrame(rows),
                       f"Trials for the median run to reach {name} {sign} "
                       f"{target:.4g}", target=target)
    if target is None:
        target = weakest_final_score(results)
    if not math.isfinite(target):
        return Budgets(results, pd.DataFrame(), "Budget to reach a target", notes=(
            "The expected best score is undefined: failed rounds count as the "
            "worst outcome and the score has no known floor (give bounds).",),
            target=target)
    table = budget_table(results, target)
    table["trials (expected)"] = table["trials (expected)"].map(
        lambda n: "more than were run" if n is None else n)
    if results.cost is not None:
        table["cost (expected)"] = table["cost (expected)"].map(
            lambda c: "" if pd.isna(c) else c)
    return Budgets(results, table, f"Budget to reach {name} {sign} {target:.4g} "
                   "in expectation", target=target)


# ------------------------------------------------------------- the checklist

#: What the checklist cannot know: the user fills it in.
TO_FILL = "to fill in"

# Columns that describe a round but are not hyperparameters (evp._columns).
_NOT_HYPERPARAMETERS = (BOOKKEEPING | set(ORDER_COLUMNS) | set(TASK_NAMES)
                        | set(INFRASTRUCTURE))


@dataclass(frozen=True)
class Checklist(Analysis):
    """The reporting checklist (:func:`checklist`): ``table`` has a row per item
    (``item``) and a column per model; what the results cannot tell is
    :data:`TO_FILL`."""


def hyperparameters(frame: pd.DataFrame, roles) -> dict[str, str]:
    """Hyperparameter columns (as recorded) and their short names; `roles` are the
    score, group and cost columns, which are not."""
    # The grouping column (a model's name recorded as a param) is no
    # hyperparameter of the models it names.
    named = [c for c in frame.columns if is_hyperparameter(c) and c not in roles]
    if not named:
        named = [c for c in frame.columns if c not in roles
                 and str(c) not in _NOT_HYPERPARAMETERS
                 and not str(c).startswith(BOOKKEEPING_PREFIXES)]
    short = {column: bare_name(column) for column in named}
    return short


def _is_bool(value) -> bool:
    return isinstance(value, bool | np.bool_)


def _missing(value) -> bool:
    return value is None or (isinstance(value, float) and np.isnan(value))


def _space(rounds: pd.DataFrame, hyper: dict) -> str:
    """Each hyperparameter's observed range (numbers) or set (anything else)."""
    lines = []
    for column, name in hyper.items():
        values = rounds[column].dropna()
        if values.empty:
            continue
        numeric = pd.to_numeric(values, errors="coerce")
        if numeric.notna().all() and not values.map(_is_bool).any():
            if numeric.nunique() <= 6 and (numeric == numeric.round()).all():
                levels = ", ".join(f"{v:g}" for v in sorted(set(numeric)))
                lines.append(f"{name} ∈ {{{levels}}}")
            else:
                lines.append(f"{name}: {numeric.min():.4g} – {numeric.max():.4g}")
        else:
            seen = sorted(map(str, set(values.map(str))))
            shown = ", ".join(seen[:8]) + (f", … ({len(seen)} values)"
                                          if len(seen) > 8 else "")
            lines.append(f"{name} ∈ {{{shown}}}")
    return "; ".join(lines) or TO_FILL


def _recorded(rounds: pd.DataFrame, columns) -> str:
    found = []
    for column in columns:
        values = rounds[column].dropna().astype(str).unique()
        if len(values):
            label = str(column).removeprefix("versions.")
            found.append(f"{label} {', '.join(sorted(values))}")
    return "; ".join(found) or TO_FILL


def _as_number(value):
    """A number recorded as text (MLflow's params are strings) as a float;
    anything else as it is."""
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return value
    if isinstance(value, int | np.integer) and not isinstance(value, bool | np.bool_):
        return value
    if isinstance(value, float | np.floating):
        return float(value)
    return value


def paper_value(value) -> str:
    """A hyperparameter's value as a paper prints it: numbers (also those
    recorded as text) in 4 significant digits, whole numbers whole."""
    number_ = _as_number(value)
    if isinstance(number_, float) and np.isfinite(number_):
        if number_ == round(number_) and abs(number_) < 1e15:
            return str(int(number_))
        return f"{number_:.4g}"
    return shown_text(value)


# What a column holds where its name does not say it, by the tool that wrote it
# where tools differ.
_DURATION_WORDS = {"mean_fit_time": "seconds per fit, mean over the folds",
                   "duration_seconds": "end - start of each run",
                   ("smac", "duration_seconds"): "the time SMAC3 measured for each "
                                                 "configuration's trials, summed"}


def _trials(results, model: str, count: int, rows=None) -> str:
    """How many trials, and for repeated runs, in how many runs; across tasks,
    how many on each task (a sum over tasks is no search's size)."""
    if results.task is not None and rows is not None:
        per = rows.groupby(results.task, sort=False).size()
        tasks = len(per)
        if per.min() == per.max():
            return (f"{per.min()} per task on {tasks} task"
                    f"{'s' if tasks != 1 else ''} ({count} in all)")
        if tasks > 8:  # too many to list
            return (f"{per.min()} to {per.max()} per task on {tasks} tasks "
                    f"({count} in all)")
        return (", ".join(f"{task} {k}" for task, k in per.items())
                + f" ({count} in all)")
    if results.runs is None:
        return str(count)
    lengths = (~np.isnan(results.by_run()[model])).sum(axis=1)
    spread = (f"{lengths.min()}" if lengths.min() == lengths.max()
              else f"{lengths.min()} to {lengths.max()}")
    return f"{count}: {lengths.size} runs of {spread} trials"


def _strategy(strategy: str, results, model: str) -> str:
    """The search strategy (the tuner and its settings as far as recorded), and
    what the trial order says of it."""
    if results.runs is not None:
        tuner = f"{results.tuner}: " if results.tuner else ""
        return (f"{tuner}{strategy}; {results.by_run()[model].shape[0]} repeated "
                f"runs (column {results.runs!r}), their median best so far with "
                "simultaneous bands (no assumption on the tuner)")
    if results.task is not None:
        return f"{strategy}; {_order_across_tasks(results, model)}"
    pvalue = results.exchangeability.get(model)
    if pvalue is None:
        test = ("trial order unknown: the random-search assumption is untested"
                if not results.knows_order else "too few trials to test the order")
    else:
        verdict = ("the trials look adaptive, not like random search"
                   if pvalue < 0.05 else "consistent with random search")
        test = f"exchangeability of the trial order: p = {pvalue:.3g} ({verdict})"
    return f"{strategy}; {test}"


def _order_across_tasks(results, model: str) -> str:
    """What the exchangeability test says of `model`'s trial order on each
    task (the readers key its p-values by task and model there)."""
    found = {key[0]: p for key, p in results.exchangeability.items()
             if isinstance(key, tuple) and len(key) == 2 and key[1] == model}
    if not found:
        return ("trial order unknown: the random-search assumption is untested"
                if not results.knows_order else "too few trials to test the order")
    low, high = min(found.values()), max(found.values())
    spread = f"p = {low:.3g}" if low == high else f"p from {low:.3g} to {high:.3g}"
    adaptive = [str(task) for task, p in found.items() if p < 0.05]
    if not adaptive:
        verdict = "consistent with random search on each"
    else:
        named = ", ".join(adaptive[:4]) + (", …" if len(adaptive) > 4 else "")
        verdict = (f"p < 0.05 on {len(adaptive)} of {len(found)} ({named}): the "
                   "trials there look adaptive, not like random search")
    tasks = f"{len(found)} task" + ("s" if len(found) != 1 else "")
    return (f"exchangeability of the trial order on {tasks}: {spread} "
            f"({verdict})")


def _best_by_task(results, rows, hyper) -> tuple[str, str]:
    """Across tasks: each task's best assignment and best score, each named by
    its task (a best over tasks would compare scores on different scales)."""
    assignments, bests = [], {}
    for task, part in rows.groupby(results.task, sort=False):
        values = pd.to_numeric(part[results.score], errors="coerce")
        if values.notna().sum() == 0:
            continue
        best = part.loc[values.idxmin() if results.minimize else values.idxmax()]
        bests[task] = float(values.loc[best.name])
        said = ", ".join(f"{name} = {paper_value(best[column])}"
                         for column, name in hyper.items()
                         if not _missing(best[column])) or TO_FILL
        assignments.append(f"{task}: {said}")
    places = decimals(list(bests.values()))
    shown = "; ".join(f"{task} {number(value, places)}"
                      for task, value in bests.items())
    return "; ".join(assignments) or TO_FILL, shown or TO_FILL


def checklist(results: Results, strategy: str | None = None) -> Checklist:
    """Fill in the reporting checklist of Dodge et al. (2019, §5) from the
    results, a column per model: the trials (per task across tasks), the search
    strategy and what the trial order says of it, the criterion, the search
    space as observed, the best assignment and score (per task across tasks),
    what the expected performance is reported as, the training duration, the
    infrastructure and library versions recorded; the rest :data:`TO_FILL`.
    `strategy` is how hyperparameters were chosen, default ``results.strategy``."""
    minimize = results.minimize
    frame = results.frame
    roles = {results.score, results.group, results.cost, results.runs,
             results.order, results.task} - {None}
    names = frame[results.group].astype(str) if results.group is not None else None
    rounds = ({m: frame[names == m] for m in results.models}
              if results.group is not None else {results.models[0]: frame})
    scores = results.scores_as_read
    hyper = hyperparameters(frame, roles)
    versions = [c for c in frame.columns if str(c).startswith("versions.")]
    infrastructure = [c for c in frame.columns if str(c) in INFRASTRUCTURE]
    score_name = results.score_name
    strategy = strategy or results.strategy or TO_FILL

    bests = {model: rows_of_model.iloc[int(np.argmin(scores[model]) if minimize
                                          else np.argmax(scores[model]))]
             for model, rows_of_model in rounds.items()}
    # The best scores in one precision, so that they read alike across models.
    places = decimals([float(b[results.score]) for b in bests.values()
                       if not _missing(_as_number(b[results.score]))])
    rows = {}
    for model, rows_of_model in rounds.items():
        best = bests[model]
        assignment = "; ".join(f"{name} = {paper_value(best[column])}"
                               for column, name in hyper.items()
                               if not _missing(best[column])) or TO_FILL
        duration = TO_FILL
        timed = results.cost or next((c for c in DURATIONS if c in frame), None)
        if timed is not None:
            cost = pd.to_numeric(rows_of_model[timed], errors="coerce").to_numpy(
                dtype=float, na_value=np.nan)
            cost = cost[np.isfinite(cost)]
            unit = cost_unit(timed) or ("s" if timed in DURATIONS else "")
            words = _DURATION_WORDS.get((results.tuner, timed),
                                        _DURATION_WORDS.get(timed))
            duration = (f"{timed}: mean {number(cost.mean())}, total "
                        f"{number(cost.sum())}" + (f" {unit}" if unit else "")
                        + (f" ({words})" if words else "")
                        ) if cost.size else TO_FILL
        score = _as_number(best[results.score])
        shown = (number(score, places) if isinstance(score, float)
                 and np.isfinite(score) else shown_text(best[results.score]))
        if results.task is not None:
            # A best across tasks mixes scales; each task's best, named.
            assignment, shown = _best_by_task(results, rows_of_model, hyper)
        rows[model] = [
            _trials(results, model, len(rows_of_model), rows_of_model),
            _strategy(strategy, results, model),
            f"best {score_name} ({'lowest' if minimize else 'highest'}) on the "
            "validation data" + (", on each task" if results.task is not None
                                 else ""),
            _space(rows_of_model, hyper), assignment, shown,
            ("the median best score so far across the runs, with its "
             "simultaneous band, below" if results.runs is not None
             else f"the median tuning curve on each of {len(results.tasks)} tasks: "
                  "ranks and the aggregate curve across them, below"
             if results.task is not None
             else "the expected best score (the V estimator of Dodge et al. 2019) "
                  "and its ±1 std, below"),
            duration, _recorded(rows_of_model, infrastructure),
            _recorded(rows_of_model, versions), TO_FILL, TO_FILL, TO_FILL,
        ]
    per_task = " (each task)" if results.task is not None else ""
    items = ["Number of search trials", "Search strategy",
             "Criterion to choose among them", "Search space (observed)",
             "Best hyperparameter assignment" + per_task,
             f"Best validation {score_name}" + per_task,
             "Expected validation performance", "Training duration",
             "Computing infrastructure", "Library versions",
             "Train / validation / test splits", "Test performance of the best model",
             "Link to the code"]
    return Checklist(results, pd.DataFrame({"item": items, **rows}),
                     "The reproducibility checklist of Dodge et al. (2019)")
