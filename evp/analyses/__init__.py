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
paper's reader has no use for ``pass --minimize``). Every sentence is made by
:mod:`evp.analyses.wording` from the analysis' data; every verdict, band and
best set names its :class:`Family`: the budgets its bounds hold over together
and what read them. By default every analysis reads the same family, the band
over every budget, so that a pair at a budget gets one answer from
:func:`curves`, :func:`two_models`, :func:`plan`, :func:`many_models` and the
report; budgets named (``ns``) read the sharpest bounds for those budgets, and
the sentences say so ("at n = 5 alone").
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
    is_measured,
)
from evp._display import method_name
from evp._numbers import cost_unit, decimals, number, shown_text
from evp._optional import import_optional_dependency
from evp._validation import ParameterError
from evp.analyses import wording
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

__all__ = [
    "DEFAULT_MORE_ROUNDS",
    "ESTIMATORS",
    "METHODS",
    "TO_FILL",
    "Analysis",
    "Budgets",
    "Checklist",
    "Curves",
    "Family",
    "ManyModels",
    "ManyTasks",
    "Pairs",
    "Plan",
    "Tail",
    "TwoModels",
    "budgets",
    "checklist",
    "curves",
    "data_notes",
    "describe_best_set",
    "describe_comparison",
    "for_paper",
    "hyperparameters",
    "many_models",
    "many_tasks",
    "negated",
    "pairs",
    "paper_value",
    "plan",
    "tail",
    "two_models",
    "what_would_settle",
    "with_floor",
]

#: The estimators of the expected best score, as a caption names them.
ESTIMATORS = {"v": "the V estimator of Dodge et al. 2019",
              "u": "the unbiased U estimator of Tang et al. 2020",
              "w": "the W estimator of Dodge et al. 2021"}


# A clause of advice on evp's options: "pass --minimize", "; give bounds=…".
_ADVICE = re.compile(r"\s*[:;,]?\s*\b(?:pass|give|use) (?:--[a-z]|[a-z_]+=|the search "
                     r"object)[^;()]*(?:\([^()]*\)[^;()]*)*")


# A list of row or trial numbers in parentheses: the reader's own, for the
# terminal, where the user fixes the rows; no paper's reader needs them.
_ROW_LIST = re.compile(r"\s*\((?:rows?|trials?|lines?) [\d, ]+(?:(?:,| and) \d+ "
                       r"more)?\)")
# The same list leading a parenthesis that says more: "(rows 4, 9; models a, b)".
_ROW_PART = re.compile(r"(?<=\()(?:rows?|trials?|lines?) [\d, ]+(?:(?:,| and) \d+ "
                       r"more)?; ")


def for_paper(note: str) -> str:
    """`note` without its advice on evp's options (the clauses that tell to
    pass an option) and without lists of row numbers, as a paper's reader
    reads it."""
    text = _ROW_PART.sub("", _ROW_LIST.sub("", _ADVICE.sub("", note))).strip()
    # "1 failed round(s)": a count's noun in its number, as a paper writes it.
    text = re.sub(r"\b(\d[\d,]*) ((?:\w+ )?)(\w+)\(s\)",
                  lambda m: f"{m[1]} {m[2]}{m[3]}{'' if m[1] == '1' else 's'}",
                  text)
    text = text.replace("(; ", "(").replace("()", "").strip()
    return re.sub(r"\s+([;,)])", r"\1", text)  # no space left before a stop


# What a reader says of failed rounds counted as the worst while the score has
# no floor; replaced once the floor is known (with_floor).
_NO_FLOOR = ("the expected best score needs a floor for them (bounds) and is "
             "undefined without one")


def data_notes(results: Results, strategy: str | None = None) -> list[str]:
    """What was read and assumed, for a paper's reader: the rounds, models and
    score (the score's display name for its column), then the reader's notes
    without their advice on evp's options or lists of row numbers; a note
    that the strategy is unknown is left out when `strategy` says it."""
    models = len(results.models)
    said = [f"{results.rounds} rounds of {models} model{'s' if models != 1 else ''}; "
            f"score: {wording.score(results.score_name, results.minimize)}"]
    column, name = str(results.score), results.score_name
    for note in results.notes:
        text = for_paper(note).replace("a floor for them (bounds)",
                                       "a floor for them (the score's bounds)")
        if name != column:
            text = text.replace(f"'{column}'", name)
        if strategy and "strateg" in text and ("unknown" in text
                                                or "not recorded" in text):
            continue
        said.append(text)
    return said


def negated(results: Results, score_name: str | None = None) -> Results:
    """`results` with the score negated and its direction flipped: a score
    recorded as its negation (``neg_log_loss``, maximised) reported as itself
    (log loss, minimised), under `score_name`. Every analysis of the two reads
    the same, its numbers' signs flipped (direction is data: the sign test of
    the analyses)."""
    frame = results.frame.copy()
    frame[results.score] = -pd.to_numeric(frame[results.score], errors="coerce")
    low, high = results.limits
    return results.replace(
        frame=frame, minimize=not results.minimize, limits=(-high, -low),
        direction=f"{results.direction}, negated for the report",
        score_name=score_name or f"negated {results.score_name}")


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
class Family:
    """What a verdict, band or best set was read from: the budgets its bounds
    hold over together and the construction that bounds them.

    Attributes
    ----------
    construction : str
        "band" or "top_band" (simultaneous over every budget), "budgets"
        (exact intervals at the budgets named), "both" (each model's sharper
        of the two), or "runs" (bands across a tuner's repeated runs, at the
        budgets named).
    budgets : tuple of float
        The budgets read (for a band, those shown; it holds at every one).
    confidence : float
        The promise of all the bounds together.
    each : float
        Each bound's confidence (``confidence`` unless adjusted for many
        models or tasks).
    method : str
        The CDF band.
    models, tasks : int
        How many models' (and tasks') bounds the promise is over.
    """

    construction: str = "band"
    budgets: tuple = ()
    confidence: float = 0.8
    each: float = 0.8
    method: str = "ld_highest_density"
    models: int = 2
    tasks: int = 1
    q: float = 0.5
    minimize: bool = False

    def __str__(self) -> str:
        return wording.family(self)

    @property
    def every_budget(self) -> bool:
        """Whether the bounds hold at every budget (a band)."""
        return self.construction in ("band", "top_band")


def _budgets_of(values) -> tuple:
    return tuple(float(n) if not float(n).is_integer() else int(n)
                 for n in np.ravel(values))


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
    family : Family or None
        What its verdicts, bands or best set were read from (None where it
        reads none).
    """

    results: Results
    table: pd.DataFrame
    what: str
    confidence: float = 0.8
    method: str | None = None
    notes: tuple[str, ...] = ()
    family: Family | None = None

    def caption(self) -> str:
        """A table's caption: what it shows, the bands' method and confidence
        (where it holds bands), the rounds behind it, and the score."""
        results = self.results
        rounds = ", ".join(f"{results.scores_as_read[m].size} of {results.label(m)}"
                           for m in results.models)
        shown = (f"{self.family}; " if self.family is not None else
                 f"{self.confidence:.0%} {method_name(self.method)} bands; "
                 if self.method else "")
        return (f"{self.what}: {shown}rounds: {rounds}; score: "
                f"{wording.score(results.score_name, results.minimize)}.")

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
    return wording.beyond_rounds(
        ns, {m: s.size for m, s in results.scores_as_read.items()})


# ------------------------------------------------------------------ curves

@dataclass(frozen=True)
class Curves(Analysis):
    """The tuning curves of one search (:func:`curves`)."""

    estimator: str = "v"
    ns: object = None

    def plot(self, *, cost_unit: str | None = None, x: str = "trials",
             std: bool = True, bands: bool = True, **options):
        """The curves of every model (:func:`evp.plot.plot_tuning_curves`):
        the expected best score (± 1 std with `std`) and, with `bands`, the
        median curve and its band, drawn from the analysis' table at every
        budget (those given, if any), computed once."""
        if self.results.task is not None:
            raise ValueError("a figure draws one task: draw a task's rows alone")
        from evp.plot import plot_tuning_curves

        return plot_tuning_curves(
            self.results, table=self.drawn(), estimator=self.estimator,
            method=self.method if bands else None, confidence=self.confidence,
            cost_unit=cost_unit, std=std, x=x, **options)

    def drawn(self) -> pd.DataFrame:
        """The table a figure draws: every budget up to each model's rounds
        (the budgets given, if any), computed once and kept."""
        if self.ns == "all" or isinstance(self.ns, list):
            return self.table
        kept = self.__dict__.get("_drawn")
        if kept is None:
            kept = curves(self.results, estimator=self.estimator,
                          method=self.method if self.results.runs is None
                          else None, confidence=self.confidence, ns="all").table
            object.__setattr__(self, "_drawn", kept)
        return kept


def curves(results: Results, *, estimator: str = "v",
           method: str | None = "ld_highest_density", confidence: float = 0.8,
           ns=None, drawn: bool = False) -> Curves:
    """The tuning curves of every model of `results`, with their median bands
    (`method` None: the curves alone); for repeated runs of a tuner, the median
    best score so far across the runs and its band; with a task column, every
    task's curves, one after another (a ``task`` column first).

    `ns`: None for the readable budgets up to each model's rounds, "all" for
    every budget, or the budgets. `drawn`: the figure will be drawn too, so
    compute every budget once, the table being its rows at the readable
    budgets (:meth:`Curves.drawn`).
    """
    from evp.tables import (
        anytime_table,
        default_construction,
        readable_budgets,
        tuning_curve_table,
    )

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
        table = pd.concat(tables, ignore_index=True)
        family = (Family("band", _budgets_of(sorted(set(table["n"]))), confidence,
                         confidence, method) if method else None)
        return Curves(results, table,
                      f"Tuning curves ({name}) on each of {len(results.tasks)} "
                      "tasks", confidence, method,
                      _band_notes(family), family, estimator=estimator, ns=ns)
    if results.runs is not None:
        table = anytime_table(results, ns=ns, confidence=confidence)
        what, shown_method = ("Median best score so far across the runs",
                              method or "ld_highest_density")
        family = Family("runs", _budgets_of(sorted(set(table["n"]))), confidence,
                        confidence, shown_method)
    else:
        every = drawn and ns is None
        built = default_construction(None, method=method or "ld_highest_density")
        table = tuning_curve_table(results, estimator=estimator, method=method,
                                   confidence=confidence,
                                   ns=None if every else budgets,
                                   construction=built)
        if every:  # the figure's table, and its rows at the readable budgets
            full = table
            sizes = {m: s.size for m, s in results.scores_as_read.items()}
            keep = [n in readable_budgets(sizes[m]) for m, n in
                    zip(full["model"], full["n"], strict=True)]
            table = full[keep].reset_index(drop=True)
        what = f"Tuning curves ({name})" + (
            " and median tuning curves" if method else "")
        shown_method = method
        family = (Family(built, _budgets_of(sorted(set(table["n"]))), confidence,
                         confidence, method) if method else None)
    found = Curves(results, table, what, confidence, shown_method,
                   tuple(beyond_rounds(ns, results)) + _band_notes(family), family,
                   estimator=estimator, ns=ns)
    if drawn and ns is None and results.runs is None:
        object.__setattr__(found, "_drawn", full)
    return found


def _band_notes(family) -> tuple[str, ...]:
    """What the curves' bands were read from, said once beside them."""
    return () if family is None else (f"the median bands: {family}",)


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

    best = "best achievable"
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
                         f"{threshold:g}, so the set is wide; a threshold further "
                         "from the best scores keeps more of them")
    # Where a curve of the set is not beyond the threshold the model says nothing,
    # and the band's worse edge is open: -inf for a score, +inf for a loss.
    open_edge = "+inf" if results.minimize else "-inf"
    lines.append(f"median best of n by the fitted tail, and its {confidence:.0%} "
                 f"band (its worse edge {open_edge} where the model says nothing: "
                 f"not beyond {threshold:g})")
    return Tail(results, tail_table(fits, ns),
                f"Tuning curves by the fitted noisy quadratic tail beyond "
                f"{threshold:g}", confidence, "ld_highest_density", tuple(notes),
                threshold=threshold, fits=tuple(fits), lines=tuple(lines))


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
        """Both bands and the evidence at every budget (those given, if any),
        drawn from the comparison the analysis holds (:meth:`drawn`)."""
        from evp.plot import plot_comparison

        results = self.results
        return plot_comparison(self.drawn(), (self.a, self.b), y=results.score_name,
                               minimize=results.minimize, costs=self.costs,
                               cost=results.cost, cost_unit=cost_unit, **options)

    def drawn(self):
        """The comparison a figure draws: at every budget up to the pair's
        rounds (the budgets given, if any), computed once and kept."""
        if isinstance(self.ns, list):
            return self.comparison
        kept = self.__dict__.get("_drawn")
        if kept is None:
            from evp.tables import compare_models

            kept = compare_models(self.results, self.a, self.b, "all",
                                  self.confidence,
                                  method=self.method or "ld_highest_density")
            object.__setattr__(self, "_drawn", kept)
        return kept


def two_models(results: Results, a: str, b: str, ns=None, confidence: float = 0.8,
               *, method: str = "ld_highest_density",
               drawn: bool = False) -> TwoModels:
    """Does model `a` beat model `b`, at each budget? Both median bands and the
    evidence (:func:`evp.compare`), with each model's cost of n rounds where the
    results have a cost column. `drawn`: the figure will be drawn too, so
    compare at every budget once, the table being its rows at the readable
    budgets (the band's verdict at a budget is the same whatever others are
    read)."""
    from evp.tables import (
        compare_models,
        comparison_budgets,
        comparison_table,
        mean_cost_per_round,
    )

    results = results.select([a, b])
    every = None
    if drawn and ns is None and results.runs is None:
        every = compare_models(results, a, b, "all", confidence, method=method)
        shown = comparison_budgets(*(len(results.scores_as_read[m]) for m in (a, b)))
        comparison = _at_budgets(every, shown)
    else:
        comparison = compare_models(results, a, b, ns, confidence, method=method)
    costs = mean_cost_per_round(results)
    family = comparison_family(results, comparison, confidence, method)
    unit = cost_unit(results.cost)
    table = comparison_table(comparison, (a, b), costs=costs)
    if unit:  # the unit where a heading says "cost"
        table = table.rename(columns={f"{m} cost": f"{m} cost ({unit})"
                                      for m in (a, b)})
    notes = (*beyond_rounds(ns, results),
             *wording.comparison(comparison, (results.label(a), results.label(b)),
                                 family))
    found = TwoModels(results, table,
                      f"{a} against {b}: the evidence at each budget", confidence,
                      method, notes, family, a=a, b=b, comparison=comparison,
                      costs=costs, ns=ns)
    if every is not None:
        object.__setattr__(found, "_drawn", every)
    return found


def _at_budgets(comparison, budgets):
    """`comparison` (of bands, at every budget) read at `budgets` only."""
    import dataclasses

    keep = np.isin(comparison.ns, budgets)

    def band(found):
        return dataclasses.replace(found, ns=found.ns[keep],
                                   lower=found.lower[..., keep],
                                   estimate=found.estimate[..., keep],
                                   upper=found.upper[..., keep])

    return dataclasses.replace(
        comparison, ns=comparison.ns[keep], evidence=comparison.evidence[..., keep],
        reverse_evidence=comparison.reverse_evidence[..., keep],
        band_a=band(comparison.band_a), band_b=band(comparison.band_b))


def describe_comparison(comparison, names=("a", "b")) -> list[str]:
    """:func:`evp.compare`'s verdicts in words (1-D scores), each naming what
    it was read from: what :func:`two_models` says of its comparison."""
    band = comparison.band_a
    family = Family(comparison.construction, _budgets_of(comparison.ns),
                    comparison.confidence, comparison.confidence, band.method,
                    q=0.5 if band.q is None else band.q, minimize=band.minimize)
    return wording.comparison(comparison, names, family)


def describe_best_set(best) -> list[str]:
    """:func:`evp.best_set`'s set in words: what :func:`many_models` says of
    it."""
    models = best.frame.shape[1]
    family = Family(best.construction, _budgets_of(best.frame.index),
                    best.confidence, best.band_confidence, best.method, models)
    return wording.best_set(best.members(), best.open_budgets().to_dict(), models,
                            family)


def comparison_family(results: Results, comparison, confidence: float,
                      method: str, *, models: int = 2, each=None) -> Family:
    """The family a comparison was read from: its construction and budgets."""
    construction = ("runs" if results.runs is not None
                    else getattr(comparison, "construction", "band"))
    return Family(construction, _budgets_of(comparison.ns), confidence,
                  confidence if each is None else each, method, models)


# -------------------------------------------------------------------- plan

@dataclass(frozen=True)
class Plan(Analysis):
    """What more rounds would settle (:func:`plan`)."""

    a: str = ""
    b: str = ""
    budget: int = 1
    sentence: str = ""
    replications: int = 1000
    strong_today: bool = False

    def plot(self, **options):
        """The chance of a strong verdict against the extra rounds."""
        from evp.plot import plot_plan

        return plot_plan(self.table, (self.a, self.b), self.budget, **options)


def plan(results: Results, a: str, b: str, budget: int, more=DEFAULT_MORE_ROUNDS,
         confidence: float = 0.8, *, method: str = "ld_highest_density",
         replications: int = 1000, seed=0, tail: str = "exponential",
         unit: str | None = None, ns=None) -> Plan:
    """How many more rounds of `a` and `b` give a strong verdict at `budget`:
    the verdict today, the chance after each count in `more` (a range that
    holds, and the simulated point), and one sentence read from the range.
    `unit` is the cost's unit, for the sentence.

    The verdict is the one :func:`two_models` gives with the same budgets:
    by default the band over every budget (as compare, curve and the report
    read it), or with `ns` (budgets, `budget` among them) the sharpest bounds
    for those budgets, as ``two_models(…, ns)`` reads them. The plan predicts
    that verdict after the extra rounds, and says so."""
    from evp.tables import compare_models, default_construction, plan_table

    if isinstance(budget, bool) or not isinstance(budget, int | np.integer) \
            or budget < 1:
        raise ParameterError("budget", f"budget must be a whole number of rounds "
                             f"≥ 1, got {budget!r}")
    if isinstance(replications, bool) or not isinstance(
            replications, int | np.integer) or replications < 2:
        raise ParameterError("replications", f"replications must be a whole "
                             f"number ≥ 2, got {replications!r}")
    if len(results.tasks) > 1:
        raise ParameterError("task", f"task: a plan compares two models on one "
                             f"task, and these results hold {len(results.tasks)}; "
                             "plan on one task's rows")
    results = results.select([a, b])
    if results.runs is not None:
        raise ParameterError("runs", "runs: plans for repeated runs of an adaptive "
                             "tuner are not made yet; plan from one random search "
                             "per model")
    if ns is not None and (isinstance(ns, str) or budget not in list(ns)):
        raise ParameterError("ns", f"ns: the budgets a plan's verdict is read "
                             f"over must hold budget={budget}, got {ns!r}")
    sizes = [len(results.scores_as_read[m]) for m in (a, b)]
    plans = [(m, m) for m in more]
    needed = replication_memory(*sizes, plans, replications)
    if needed > MEMORY_LIMIT:
        most = max_replications(*sizes, plans)
        raise ParameterError(
            "replications", f"replications={replications} would take about "
            f"{needed / 1e9:.3g} GB of memory; at most {most} fit in "
            f"{MEMORY_LIMIT / 1e9:.0f} GB: give replications={most} or fewer")
    read = [budget] if ns is None else list(ns)
    construction = default_construction(ns, method=method)
    today = compare_models(results, a, b, read, confidence, method=method,
                           construction=construction)
    at = read.index(budget)
    table = plan_table(results, a, b, budget, more, confidence, method=method,
                       replications=replications, rng=seed, tail=tail,
                       family=None if ns is None else read,
                       construction=construction)
    # Today's family as compare reads it: a band holds at every budget; the
    # exact intervals at the budgets named.
    family = comparison_family(results, today, confidence, method)
    notes = (wording.plan_today(budget, today.strength()[at], (a, b),
                                today.winner((a, b))[at], family),
             wording.plan_range(RANGE_HELD, RANGE_WIDTH, POINT_TOO_HOPEFUL))
    return Plan(results, table,
                f"{a} against {b}: the chance of a strong verdict at n = {budget} "
                f"after more rounds ({replications} simulated futures)",
                confidence, method, notes, family, a=a, b=b, budget=budget,
                sentence=wording.plan(table, budget, family, unit=unit,
                                      held=RANGE_HELD, hopeful=POINT_TOO_HOPEFUL),
                replications=replications,
                strong_today=bool(today.strength()[at] == "strong"))


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
    best_notes: tuple[str, ...] = ()
    verdict_notes: tuple[str, ...] = ()
    verdict_head: tuple[str, ...] = ()

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

    def strong_table(self) -> pd.DataFrame:
        """Each ordered pair with a strong verdict where one can be strong, and
        the budgets: what :attr:`verdict_notes` says pair by pair, as a
        compact table for a paper (a long list of sentences is none)."""
        budgets = list(self.pairs.ns)
        readable = [not bool(self.open_.get(n, False)) for n in budgets]
        _, _, _, shown = self.pairs.strong(readable, None)
        rows = [{"model": a, "beats (strong)": b,
                 "at": wording.span(at, budgets).removeprefix("n = ")}
                for a, b, at in shown]
        return pd.DataFrame(rows, columns=["model", "beats (strong)", "at"])

    def pairs_without_strong(self, n=None) -> list[tuple[str, str]]:
        """The pairs (in the results' order) without a strong verdict either
        way at budget `n` (default :attr:`last`): the pairs a plan may settle."""
        n = self.last if n is None else n
        matrix = self.pairs.matrix(n)
        models = self.results.models
        return [(a, b) for i, a in enumerate(models) for b in models[i + 1:]
                if "strong" not in (matrix.loc[a, b], matrix.loc[b, a])]

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
    from evp.ranking import best_set, open_budgets, pair_verdicts, verdict_budget

    budgets = ns if isinstance(ns, list) else None if ns is None else ns
    pairs = pair_verdicts(results, budgets, confidence, adjust=adjust,
                          baseline=baseline, method=method)
    found = best_set(results, budgets, confidence, method=method)
    open_ = open_budgets(results, budgets, pairs.band_confidence, method=method,
                         construction=pairs.construction)
    models = len(results.models)
    family = Family(str(pairs.construction), _budgets_of(pairs.ns), confidence,
                    float(pairs.band_confidence), method, models if adjust else 2)
    best_family = Family(found.construction, _budgets_of(found.frame.index),
                         confidence, found.band_confidence, method, models)
    said_best = tuple(wording.best_set(found.members(),
                                       found.open_budgets().to_dict(), models,
                                       best_family))
    said_verdicts = tuple(wording.verdicts(pairs, open_, family, adjust=adjust,
                                           most=most))
    head = tuple(wording.verdicts(pairs, open_, family, adjust=adjust, most=0))
    head = head[:-1] if head and head[-1].endswith("lists them.") else head
    what = ("Every pair's evidence that a beats b, family-wise" if adjust
            else "Every pair's evidence, unadjusted")
    return ManyModels(results, None, what, confidence, method,
                      said_best + said_verdicts, family, best=found, open_=open_,
                      last=verdict_budget(open_), adjust=adjust, pairs=pairs,
                      best_notes=said_best, verdict_notes=said_verdicts,
                      verdict_head=head)


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
    ties: tuple[str, ...] = ()
    settle: tuple[str, ...] = ()
    heading: str = ""
    across_head: tuple[str, ...] = ()
    cannot_decide: bool = False

    def tasks_table(self) -> pd.DataFrame:
        """What the tasks show of each pair, as :attr:`across` says it line by
        line, as a compact table: a row per pair and run of budgets alike."""
        rows = []
        for a, b, run, ns, counts in wording.pair_runs(self.counted):
            tasks, ahead_a, ahead_b, strong_a, strong_b = counts
            rows.append({"pair": f"{a} vs {b}",
                         "at": wording.span(run, ns).removeprefix("n = "),
                         "tasks": tasks, "first ahead": ahead_a,
                         "second ahead": ahead_b, "first strong": strong_a,
                         "second strong": strong_b})
        return pd.DataFrame(rows)

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
        name = self.results.score_name
        return pd.DataFrame({
            "task": at["task"].to_numpy(), "model": at["model"].to_numpy(),
            f"median best {name}": at["median"].to_numpy(float),
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
        first_alone,
        leaders,
        pair_tasks,
        pairs_across_tasks,
        rank_table,
        task_curves,
        wilcoxon_limits,
    )

    curves = task_curves(results, ns if isinstance(ns, list) else None, confidence,
                         method=method, baseline=baseline)
    ranked = rank_table(curves, confidence)
    pairs = pairs_across_tasks(curves, confidence, baseline=baseline)
    counted = pair_tasks(curves, baseline)
    ties = tuple(wording.tied_tasks(*_tied_tasks(results)))
    changes = tuple(wording.budget_changes(leaders(ranked), first_alone(ranked)))
    limits = wilcoxon_limits(pairs, confidence)
    across = tuple(wording.across_tasks(pairs, counted, confidence,
                                        limits["floor"], limits["alone"],
                                        most=most))
    head = tuple(s for s in wording.across_tasks(
        pairs, counted, confidence, limits["floor"], limits["alone"], most=0)
        if not s.endswith("lists them."))
    cannot = bool(limits["widest"] == 0 or limits["floor"] > 1 - confidence)
    settle = ((wording.settle_tasks(len(results.tasks), limits["needed"],
                                    limits["pairs"], confidence),)
              if limits["widest"] and limits["floor"] > 1 - confidence else ())
    family = Family("band", _budgets_of(sorted(set(ranked["n"]))), confidence,
                    float(curves["band confidence"].iloc[0]), method,
                    len(results.models), len(results.tasks))
    return ManyTasks(results, ranked,
                     f"Ranks across {len(results.tasks)} tasks and the aggregate "
                     "median tuning curve on each task's scale", confidence,
                     method, ties + changes + across, family, curves=curves,
                     pairs=pairs, counted=counted, changes=changes, across=across,
                     ties=ties, settle=settle,
                     heading=wording.across_heading(len(results.tasks),
                                                    confidence),
                     across_head=head, cannot_decide=cannot)


def _tied_tasks(results: Results) -> tuple[list, int, set]:
    """The tasks on which every round of every model scores the same, how many
    tasks there are, and the values they score."""
    scores = {task: part.frame[part.score].dropna().unique()
              for task, part in results.by_task().items()}
    tied = [task for task, values in scores.items() if len(values) == 1]
    values = {paper_value(one[0]) for one in scores.values() if len(one)}
    return tied, len(scores), values


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
    families = {pair: comparison_family(results, comparison, confidence, method)
                for pair, comparison in comparisons.items()}
    notes = tuple(f"{a} vs {b}, {s}" for (a, b), comparison in comparisons.items()
                  for s in wording.comparison(comparison, (a, b), families[a, b]))
    family = next(iter(families.values()), None)
    return Pairs(results, verdict_table(comparisons),
                 "Evidence by budget (the model it favours)", confidence, method,
                 notes, family, comparisons=comparisons)


def what_would_settle(results: Results, which, budget=None,
                      confidence: float = 0.8, *,
                      method: str = "ld_highest_density",
                      unit: str | None = None) -> list[str]:
    """For every pair in `which` without a strong verdict at the budget of
    interest, how many more rounds of each give one: :func:`plan`'s sentence,
    with its defaults (the same family, extra rounds, replications and seed),
    so that both say the same. The budget: `budget`, or the largest one the
    pair's rounds can bound today."""
    from evp.bands import bounded_budget
    from evp.tables import compare_models, default_construction

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
        today = compare_models(results, a, b, [at], confidence, method=method,
                               construction=default_construction(None,
                                                                 method=method))
        if today.strength()[0] == "strong":
            continue
        found = plan(results, a, b, at, confidence=confidence, method=method,
                     unit=unit)
        if found.strong_today:
            continue
        sentences.append(f"{a} vs {b}: {found.sentence}.")
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
                       f"Trials for the median run to reach a best {name} of "
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
        unit = cost_unit(results.cost)
        if unit:  # the unit where the heading says "cost"
            table = table.rename(columns={"cost (expected)":
                                          f"cost (expected, {unit})"})
    return Budgets(results, table, f"Budget to reach an expected best {name} of "
                   f"{target:.4g}", target=target)


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
    if not named:  # no namespace (a plain file): what a round did not measure
        named = [c for c in frame.columns if c not in roles
                 and str(c) not in _NOT_HYPERPARAMETERS
                 and not str(c).startswith(BOOKKEEPING_PREFIXES)
                 and not is_measured(c)]
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
                   "duration_seconds": "end − start of each run",
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
    return f"{strategy}; {_order(results, model)}"


def _order(results, model: str) -> str:
    """What the exchangeability test says of `model`'s trial order (on each
    task, where the readers key its p-values by task and model), adjusted by
    Holm over every search tested, as the readers adjust it: one test, one
    adjustment, one sentence on every surface."""
    from evp.multiple import holm

    tested = dict(results.exchangeability)
    adjusted = dict(zip(tested, holm(list(tested.values())), strict=True))
    mine = [key for key in tested if key == model or (
        isinstance(key, tuple) and len(key) == 2 and key[1] == model)]
    return wording.exchangeability({k: tested[k] for k in mine},
                                   {k: adjusted[k] for k in mine}, len(tested),
                                   results.knows_order)


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
            shown = f" {unit}" if unit else ""
            duration = (f"{timed}: mean {number(cost.mean())}{shown}, total "
                        f"{number(cost.sum())}{shown}"
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
            f"the best {wording.score(score_name, minimize)} on the "
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
