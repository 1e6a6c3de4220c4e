"""Search results and what they mean: one :class:`Results` from every reader to
every consumer.

A tidy frame (one row per round of search) says little by itself: which column is
the score, whether lower is better and who said so, which column names the model
and which the cost, what the reader left out and why, how the hyperparameters were
chosen. :class:`Results` carries all of it beside the frame, so that nothing rides
in ``DataFrame.attrs`` (which pandas does not keep through concat, merge or
groupby) and every consumer (the tables, the plots, the report, the command line,
the notebooks) reads the same answers.

Every reader returns one (:func:`evp.read_results`, the tuner readers,
:func:`evp.datasets.load_search`); build one yourself from a frame,
``Results(frame, score="acc", group="model")``, or from arrays,
:meth:`Results.from_scores`.
"""

from __future__ import annotations

import dataclasses
import math
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pandas as pd

from evp._escape import look_alike
from evp._numbers import beyond_float as _beyond_float
from evp._validation import _describe, as_list

__all__ = ["Results", "scores_by_model"]

#: What a reader may do with failed rounds (see :func:`evp.read_results`).
FAILURES = ("error", "drop", "worst")
#: Where the direction came from when nobody said: higher is better.
ASSUMED_DIRECTION = "assumed: higher is better (pass minimize=True for a loss)"


@dataclass(frozen=True, eq=False, repr=False)
class Results:
    """Search results: a tidy frame and the roles of its columns.

    Immutable: its fields cannot be reassigned, and :meth:`select`,
    :meth:`with_notes` and :meth:`replace` return new objects. Treat ``frame`` as
    read-only; the per-model arrays (:attr:`scores`) are.

    Parameters
    ----------
    frame : pandas.DataFrame
        One row per round of search, under the user's own column names (copied).
    score : str
        The column of each round's validation score.
    group : str, optional
        The column naming each round's model (configuration, condition, …);
        None: every row is one model.
    task : str, optional
        The column naming each round's task (data set, benchmark problem): the
        same models searched on several tasks, each task's rounds a study of its
        own (:meth:`by_task`). None: one task.
    cost : str, optional
        The column of each round's cost (e.g. training seconds).
    minimize : bool, default False
        The score is a loss: lower is better.
    direction : str, optional
        Where `minimize` came from, in words ("given: minimize=True", "the
        Optuna study's direction", …); default: given when `minimize`, else
        assumed.
    notes : tuple of str
        Sentences about what was read, for wherever the results are shown.
    warnings : tuple of str
        Sentences about an assumption that looks broken (trials that do not
        look like random search), to show beside every result.
    exchangeability : mapping of str (or of (task, model)) to float
        Each model's p-value of :func:`evp.exchangeability_test` on its trials
        in order, when the order is known; with a `task` column, keyed by the
        pair (task, model), each task's search tested on its own.
    strategy : str, optional
        How the hyperparameters were chosen, when a reader recorded it.
    order : str, optional
        The column of each round's place in the search (a trial number or step),
        when known; the rows of a tuner's record are in trial order already
        (`ordered`).
    runs : str, optional
        The column naming each round's run: repeated, independent runs of a
        tuner (its seeds), each a search whose trials are in order. The curves
        are then those of the tuner's best so far (:mod:`evp.anytime`).
    ordered : bool, default False
        The rows are in the order the trials ran.
    failed : tuple of int
        The rows that are failed rounds (crashed, diverged, no score), kept and
        counted as worse than every score (``failures="worst"``); their score is
        ``-inf`` (``+inf`` for a loss). Counting the first data row as 1.
    failures : {"error", "drop", "worst"}
        What the reader did with failed rounds: refused them (there were none),
        dropped them (listed in `dropped`) or kept them as the worst outcome.
    dropped : tuple of int
        The rows left out (counting the first data row as 1).
    source : str
        Where the results came from (a path, a study), for messages.
    tuner : str, optional
        The tool that ran the search and whose record was read ("optuna",
        "ray tune"), or None.
    name : str, optional
        The name of the one model of results without `group` (a study's or a
        file's name); default the score column's name.
    model_order : tuple of str, optional
        The models, in the order to analyse them; default: every model, in order
        of first appearance.
    labels : mapping of str to str
        Display names of models (a paper's spelling); default the names as read.
    score_name : str, optional
        What the score is called in labels ("accuracy"); default the column name.
    limits : (float, float)
        The score's possible range, when known (``(0, 1)`` for an accuracy);
        default unbounded. In the user's units (the loss itself when minimizing).
    paper : bool, default False
        These are the data of one of the papers evp reproduces: notebooks assert
        the paper's claims on them.

    Examples
    --------
    >>> import pandas as pd
    >>> from evp.results import Results
    >>> runs = pd.DataFrame({"acc": [0.8, 0.7, 0.9], "arm": ["a", "b", "a"]})
    >>> results = Results(runs, score="acc", group="arm")
    >>> results.models, results.scores["a"]
    (['a', 'b'], array([0.8, 0.9]))
    """

    frame: pd.DataFrame
    score: str
    group: str | None = None
    cost: str | None = None
    task: str | None = None
    minimize: bool = False
    direction: str | None = None
    notes: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    strategy: str | None = None
    order: str | None = None
    ordered: bool = False
    runs: str | None = None
    failed: tuple[int, ...] = ()
    failures: str = "error"
    dropped: tuple[int, ...] = ()
    exchangeability: Mapping[str | tuple[str, str], float] = field(
        default_factory=dict)
    source: str = ""
    tuner: str | None = None
    name: str | None = None
    model_order: tuple[str, ...] | None = None
    labels: Mapping[str, str] = field(default_factory=dict)
    score_name: str | None = None
    limits: tuple[float, float] = (-math.inf, math.inf)
    paper: bool = False

    def __post_init__(self):
        frame = self.frame
        if not isinstance(frame, pd.DataFrame):
            raise TypeError(f"frame must be a pandas DataFrame, got "
                            f"{_describe(frame)}")
        for role in ("score", "group", "cost", "order", "runs", "task"):
            column = getattr(self, role)
            if (column is not None or role == "score") and column not in frame:
                raise ValueError(f"no column {column!r} in data; columns are "
                                 f"{list(frame.columns)}")
        minimize = bool(self.minimize)
        direction = self.direction or (
            "given: minimize=True" if minimize else ASSUMED_DIRECTION)
        present = self._present(frame)
        order = self.model_order
        if order is not None:
            order = tuple(str(m) for m in order)
            missing = [m for m in order if m not in present]
            if missing:
                raise ValueError(f"models: no rounds of "
                                 f"{', '.join(map(repr, missing))}; models present: "
                                 f"{', '.join(present)}")
            if len(set(order)) != len(order):
                raise ValueError(f"models: each model once, got {list(order)}")
        if self.failures not in FAILURES:
            raise ValueError(f"failures must be one of {list(FAILURES)}, got "
                             f"{_describe(self.failures)}")
        set_ = object.__setattr__  # the fields are frozen once set here
        set_(self, "frame", frame.copy())
        set_(self, "minimize", minimize)
        set_(self, "direction", direction)
        set_(self, "notes", tuple(self.notes))
        set_(self, "warnings", tuple(self.warnings))
        set_(self, "failed", tuple(self.failed))
        set_(self, "dropped", tuple(self.dropped))
        set_(self, "exchangeability", dict(self.exchangeability))
        set_(self, "model_order", order)
        set_(self, "labels", dict(self.labels))
        set_(self, "score_name", self.score_name or str(self.score))

    def _present(self, frame) -> list[str]:
        if self.group is None:
            return [str(self.name or self.score)]
        present = [str(m) for m in pd.unique(frame[self.group].astype(str).to_numpy())]
        # Two models that print alike would be shown as one and counted as two
        # (read_results refuses them, naming the row's column, or joins
        # decomposed accents; Results built by hand are checked here).
        alike = look_alike(present)
        if alike is not None:
            raise ValueError(f"models {alike[0]!r} and {alike[1]!r} differ only in "
                             f"{alike[2]} and print alike: write them alike, or "
                             "rename one")
        return present

    @cached_property
    def _models(self) -> tuple[str, ...]:
        # Read once: a frame of many rounds is not walked for every question.
        return (tuple(self.model_order) if self.model_order is not None
                else tuple(self._present(self.frame)))

    # ------------------------------------------------------------ making them

    @classmethod
    def from_scores(cls, scores: Mapping, *, score_name: str = "score",
                    source: str = "", minimize: bool = False) -> Results:
        """Results of one's own making (a simulated bag, say), from {model: scores}:
        a frame with ``score`` and ``group`` columns, the scores as given."""
        frame = pd.concat([pd.DataFrame({"score": np.asarray(s, dtype=float),
                                         "group": str(m)})
                           for m, s in scores.items()], ignore_index=True)
        return cls(frame, score="score", group="group", minimize=minimize,
                   source=source, score_name=score_name)

    def replace(self, **changes) -> Results:
        """A copy with some fields changed (see :func:`dataclasses.replace`)."""
        return dataclasses.replace(self, **changes)

    def select(self, models) -> Results:
        """The rounds of these models only, in this order (a str is one model)."""
        models = as_list(models, "models")
        if models is None:
            return self
        present = (self.models if self.model_order is None
                   else self._present(self.frame))
        # A name asked for with decomposed accents (NFD, as a macOS terminal
        # may type it) is the model read composed (NFC).
        models = [m if m in present or unicodedata.normalize("NFC", m) not in present
                  else unicodedata.normalize("NFC", m) for m in models]
        missing = [m for m in models if m not in present]
        if missing:
            column = f" in column {self.group!r}" if self.group is not None else ""
            raise ValueError(f"models: no rounds of {', '.join(map(repr, missing))}"
                             f"{column}; models present: {', '.join(present)}")
        if len(set(models)) != len(models):
            raise ValueError(f"models: each model once, got {models}")
        if self.group is None:
            return self
        keep = self.frame[self.group].astype(str).isin(models).to_numpy()
        return self.replace(frame=self.frame[keep].reset_index(drop=True),
                            model_order=tuple(models))

    def with_notes(self, *notes: str) -> Results:
        """A copy with more notes (each said once)."""
        return self.replace(notes=tuple(dict.fromkeys((*self.notes, *notes))))

    # ------------------------------------------------------------ reading them

    @property
    def models(self) -> list[str]:
        """The models, in order."""
        return list(self._models)

    @property
    def tasks(self) -> list[str]:
        """The tasks, in order of first appearance; ``[]`` without a task column."""
        if self.task is None:
            return []
        return [str(t) for t in pd.unique(self.frame[self.task].astype(str)
                                          .to_numpy())]

    def by_task(self) -> dict[str, Results]:
        """{task: the Results of that task's rounds}, in order; each without a task
        column of its own, holding the models that have rounds there (in the same
        order), the notes and warnings of the whole. Without a task column, one
        entry named after the results (``{name: self}``)."""
        if self.task is None:
            return {str(self.name or self.source or "results"): self}
        # Split once (a scan of every row per task grew with tasks x rows).
        names = self.frame[self.task].astype(str).to_numpy()
        rows = pd.Series(np.arange(len(names))).groupby(names, sort=False).indices
        # Each row's number within its task (1-based), for the failed rounds.
        within = np.empty(len(names), dtype=int)
        for positions in rows.values():
            within[positions] = np.arange(1, len(positions) + 1)
        failed: dict = {}
        for row in self.failed:
            failed.setdefault(names[row - 1], []).append(int(within[row - 1]))
        exchangeability: dict = {}
        for key, p in self.exchangeability.items():
            if isinstance(key, tuple):
                exchangeability.setdefault(key[0], {})[key[1]] = p
        out = {}
        for task in self.tasks:
            frame = self.frame.take(rows[task]).reset_index(drop=True)
            order = None
            if self.model_order is not None and self.group is not None:
                present = set(frame[self.group].astype(str))
                order = tuple(m for m in self.model_order if m in present)
            out[task] = self.replace(
                frame=frame, task=None, model_order=order,
                failed=tuple(failed.get(task, ())),
                exchangeability=exchangeability.get(task, {}), name=self.name)
        return out

    @property
    def rounds(self) -> int:
        """Rounds of search in all."""
        return len(self.frame)

    def per_model(self, column: str | None = None) -> dict[str, np.ndarray]:
        """{model: the values of `column` (default the score) as read}, in order."""
        column = self.score if column is None else column
        if column not in self.frame:
            raise ValueError(f"no column {column!r} in data; columns are "
                             f"{list(self.frame.columns)}")
        try:
            values = pd.to_numeric(self.frame[column], errors="coerce").to_numpy(
                dtype=float, na_value=np.nan)
        except OverflowError:  # an integer of 400 digits: no float holds it
            beyond = self.frame[column].map(_beyond_float).to_numpy(dtype=bool)
            rows = ", ".join(str(r + 1) for r in np.flatnonzero(beyond)[:5])
            raise ValueError(f"column {column!r} holds numbers beyond the range of "
                             f"a float (±1.8e308) in rows {rows} (row 1 is the "
                             "first data row): rescale the column (its logarithm, "
                             "say)") from None
        if self.group is None:
            return {self.models[0]: values}
        names = self.frame[self.group].astype(str).to_numpy()
        return {m: values[names == m] for m in self.models}

    @cached_property
    def scores(self) -> dict[str, np.ndarray]:
        """{model: scores} oriented so that higher is better (a loss negated), in
        file order; read-only arrays."""
        sign = -1.0 if self.minimize else 1.0
        out = {}
        for model, values in self.per_model().items():
            values = sign * values
            values.flags.writeable = False
            out[model] = values
        return out

    @cached_property
    def scores_as_read(self) -> dict[str, np.ndarray]:
        """{model: scores} as read (a loss stays a loss); read-only arrays."""
        out = self.per_model()
        for values in out.values():
            values.flags.writeable = False
        return out

    @property
    def knows_order(self) -> bool:
        """Whether the order the trials ran in is known (an order column, or rows
        a tuner wrote in trial order)."""
        return self.order is not None or self.ordered

    def in_trial_order(self) -> dict[str, np.ndarray]:
        """{model: oriented scores in the order the trials ran}: sorted by the
        order column (stably), else as the rows are. See :attr:`knows_order`."""
        if self.order is None:
            return dict(self.scores)
        frame = self.frame
        position = pd.to_numeric(frame[self.order], errors="coerce").to_numpy(
            dtype=float, na_value=np.nan)
        names = (frame[self.group].astype(str).to_numpy() if self.group is not None
                 else np.full(len(frame), self.models[0]))
        out = {}
        for model, values in self.scores.items():
            where = np.flatnonzero(names == model)
            out[model] = values[np.argsort(position[where], kind="stable")]
        return out

    def by_run(self) -> dict[str, np.ndarray]:
        """{model: its runs' scores as read, an (R, N) array}: one row per run (in
        the natural order of their names: seed 2 before seed 10), the trials in
        order (see
        :meth:`in_trial_order`), shorter runs padded with NaN. Needs `runs`."""
        if self.runs is None:
            raise ValueError("runs: these results name no run column; pass "
                             "runs='COLUMN' to read_results")
        frame = self.frame
        names = (frame[self.group].astype(str).to_numpy() if self.group is not None
                 else np.full(len(frame), self.models[0]))
        run_of = frame[self.runs].astype(str).to_numpy()
        scores = pd.to_numeric(frame[self.score], errors="coerce").to_numpy(
            dtype=float, na_value=np.nan)
        position = (np.arange(len(frame), dtype=float) if self.order is None else
                    pd.to_numeric(frame[self.order], errors="coerce").to_numpy(
                        dtype=float, na_value=np.nan))
        out = {}
        for model in self.models:
            mine = np.flatnonzero(names == model)
            runs = sorted(set(run_of[mine]), key=_natural)
            trials = []
            for run in runs:
                where = mine[run_of[mine] == run]
                trials.append(scores[where[np.argsort(position[where],
                                                      kind="stable")]])
            width = max(t.size for t in trials)
            out[model] = np.array([np.pad(t, (0, width - t.size),
                                          constant_values=np.nan) for t in trials])
        return out

    @property
    def has_failures(self) -> bool:
        """Whether failed rounds are kept as the worst outcome (``-inf``)."""
        return bool(self.failed)

    def first(self, count: int) -> list[str]:
        """The first `count` models, with a printed note when there are more."""
        chosen = self.models[:count]
        if len(self.models) > count:
            names = " and ".join(self.label(m) for m in chosen)
            print(f"note: analysing the first {'model' if count == 1 else 'models'}, "
                  f"{names}, of {len(self.models)}; choose with models")
        return chosen

    @property
    def is_paper(self) -> bool:
        """True on a paper's data (the claims are then asserted)."""
        return self.paper

    def label(self, model: str) -> str:
        """The model's display name."""
        return self.labels.get(model, model)

    def show(self, values):
        """Oriented values (:attr:`scores`) as the user knows them: the loss again
        when `minimize`."""
        return -np.asarray(values) if self.minimize else values

    def axis_label(self, statistic: str = "") -> str:
        """E.g. "median best accuracy", or "median lowest val_loss" for losses."""
        word = "lowest" if self.minimize else "best"
        return " ".join(part for part in (statistic, word, self.score_name) if part)

    def bounds(self, lower=None, upper=None) -> tuple[float, float]:
        """The score's known range, oriented like :attr:`scores`; ±inf where unknown.

        `lower` and `upper` are in the user's units (the loss itself when
        `minimize`); both None means `limits` (unbounded unless a reader knows).
        The range must contain every score.
        """
        if lower is None and upper is None:
            lower, upper = (None if math.isinf(v) else v for v in self.limits)
        for value in (lower, upper):
            if value is not None and _beyond_float(value):
                raise ValueError(f"lower_bound, upper_bound: {str(value)[:24]} is "
                                 "beyond the range of a float (±1.8e308)")
        low = -math.inf if lower is None else float(lower)
        high = math.inf if upper is None else float(upper)
        if not low < high:
            raise ValueError(f"lower_bound, upper_bound: need lower_bound < "
                             f"upper_bound, got {lower} and {upper}")
        # Failed rounds (infinite) are outside every range: they are no scores.
        shown = [s[np.isfinite(s)] for s in self.scores_as_read.values()]
        shown = [s for s in shown if s.size] or [np.zeros(1)]
        smallest = min(float(s.min()) for s in shown)
        largest = max(float(s.max()) for s in shown)
        if low > smallest or high < largest:
            raise ValueError(
                f"lower_bound, upper_bound: the range [{lower}, {upper}] must contain "
                f"every score, which run from {smallest:g} to {largest:g}; set them "
                f"to the metric's possible range, or None if unknown")
        return (-high, -low) if self.minimize else (low, high)

    def sizes(self, values, name: str, *, models=None, at_least: int = 1,
              at_most: int | None = None, reason: str = "") -> list[int]:
        """Sample sizes that the data allow, in order, without repeats.

        A size above the rounds of the smallest model (or above `at_most`, for
        the `reason` given) is replaced by that number, with a printed note; a
        size below `at_least`, or data too small for it, is an error naming the
        parameter.
        """
        values = as_list(values, name, kind=int)
        if values is None:
            raise ValueError(f"{name}: give one or more sample sizes, not None")
        models = self.models if models is None else models
        smallest = min(models, key=lambda m: self.scores[m].size)
        limit = self.scores[smallest].size
        why = f"the {limit} rounds of model {self.label(smallest)!r}"
        if at_most is not None and at_most < limit:
            limit, why = at_most, reason or f"at most {at_most}"
        low = [v for v in values if v < at_least]
        if low:
            raise ValueError(f"{name}: sizes must be at least {at_least}, got {low}")
        if limit < at_least:
            raise ValueError(f"{name}: at most {limit} fit ({why}), but this "
                             f"analysis needs at least {at_least}")
        clipped = [v for v in values if v > limit]
        if clipped:
            shown = ", ".join(map(str, clipped))
            print(f"note: {name} {shown} {'exceeds' if len(clipped) == 1 else 'exceed'}"
                  f" {why}; using {limit} instead")
        return list(dict.fromkeys(min(v, limit) for v in values))

    def __repr__(self) -> str:
        models = self.models
        shown = ", ".join(models[:3]) + (", …" if len(models) > 3 else "")
        roles = "".join(f"; {role} {getattr(self, role)!r}"
                        for role in ("group", "task", "cost") if getattr(self, role))
        extra = (f"; {len(self.failed)} failed round(s) counted as worst"
                 if self.failed else "")
        extra += f"; {len(self.notes)} note(s)" if self.notes else ""
        extra += f"; {len(self.warnings)} warning(s)" if self.warnings else ""
        return (f"Results({len(models)} model(s): {shown}; {self.rounds} rounds; "
                f"score {self.score!r}, "
                f"{'lower' if self.minimize else 'higher'} is better{roles}{extra})")

    def _repr_html_(self) -> str:
        from evp import _display

        read = self.scores_as_read
        best, worst = (np.min, np.max) if self.minimize else (np.max, np.min)
        shown = _display.table({
            "model": [self.label(m) for m in self.models],
            "rounds": [read[m].size for m in self.models],
            "best": [best(read[m]) if read[m].size else np.nan for m in self.models],
            "median": [np.median(read[m]) if read[m].size else np.nan
                       for m in self.models],
            "worst": [worst(read[m]) if read[m].size else np.nan
                      for m in self.models]})
        direction = "lower" if self.minimize else "higher"
        title = (f"Results: {self.rounds} rounds of {len(self.models)} model(s); "
                 f"score {self.score_name}, {direction} is better")
        return _display.page(title, self.notes, [shown], warnings=self.warnings)

    def __getitem__(self, column):
        """A column of the frame, as when readers returned a DataFrame (deprecated):
        ``results["score"]``, ``["group"]`` and ``["cost"]`` are the role columns
        (the old tidy names), anything else the column of that name."""
        import warnings

        warnings.warn("Results is not a DataFrame: use results.frame[column], and "
                      "results.score, .group and .cost for the roles",
                      DeprecationWarning, stacklevel=2)
        roles = {"score": self.score, "group": self.group, "cost": self.cost}
        if column not in self.frame and roles.get(column) is not None:
            column = roles[column]
        return self.frame[column]

    @property
    def data(self) -> pd.DataFrame:
        """The old name of :attr:`frame` (deprecated)."""
        import warnings

        warnings.warn("Results.data is renamed Results.frame; .data will be removed",
                      DeprecationWarning, stacklevel=2)
        return self.frame


def _natural(name: str) -> list:
    """Sort key: "2" before "10", "seed-2" before "seed-10"."""
    return [(0, int(part), "") if part.isdigit() else (1, 0, part)
            for part in re.split(r"(\d+)", str(name))]


def scores_by_model(results, models=None, *, minimize: bool = False,
                    score: str = "score", group: str | None = "group") -> dict:
    """Split results into one array of scores per model.

    Parameters
    ----------
    results : Results or pandas.DataFrame
        A :class:`Results` (its roles and direction are used, `score` and
        `group` ignored), or a tidy frame with the columns named by `score` and
        `group`.
    models : sequence of str, optional
        The models to return, in this order; default every model, in order of
        first appearance.
    minimize : bool, default False
        The scores are losses (Results: also when they say so). They are returned
        negated, so that higher is better for every model: pass them on with
        ``minimize=False``.
    score, group : str
        Columns of a frame's scores and model names. Without a `group` column the
        whole frame is one model, named after the score column.

    Returns
    -------
    dict of str to numpy.ndarray
        Each model's scores (float, in file order), keyed by model name.

    Raises
    ------
    ValueError
        A column is missing, or a model in `models` has no rounds (the message
        lists the models present).

    Examples
    --------
    >>> import pandas as pd
    >>> from evp.results import scores_by_model
    >>> runs = pd.DataFrame({"acc": [0.8, 0.7, 0.9], "arm": ["a", "b", "a"]})
    >>> scores_by_model(runs, score="acc", group="arm")
    {'a': array([0.8, 0.9]), 'b': array([0.7])}
    """
    if isinstance(results, Results):
        chosen = as_results(results, minimize=minimize or None).select(models)
        return {m: np.array(s) for m, s in chosen.scores.items()}
    if not isinstance(results, pd.DataFrame):
        raise TypeError(f"results must be a DataFrame of search rounds, got "
                        f"{_describe(results)}")
    if score not in results.columns:
        raise ValueError(f"results have no score column {score!r}; columns: "
                         f"{list(results.columns)}")
    if group is not None and group not in results.columns:
        group = None
    if group is None and models is not None and list(as_list(models, "models")) != [
            str(score)]:
        raise ValueError(f"models: the results have no model column, so they "
                         f"hold one model only; drop models={list(models)!r} "
                         "or name the model column")
    chosen = Results(results, score=score, group=group, minimize=minimize)
    if models is not None:
        chosen = chosen.select(models)
    return {m: np.array(s) for m, s in chosen.scores.items()}


def as_results(data, *, score: str | None = None, group: str | None = None,
               cost: str | None = None, minimize: bool | None = None) -> Results:
    """`data` as :class:`Results`: Results as they are, or a tidy frame with the
    columns `score` (default ``"score"``), `group` and `cost` (seaborn's ``y``,
    ``hue``; ``minimize`` default False).

    Roles given beside Results must agree with theirs: Results say themselves
    which column is which. `minimize` may turn an assumed or given direction, not
    the one a tuner recorded.
    """
    if isinstance(data, Results):
        given = {"y": (score, data.score), "hue": (group, data.group),
                 "cost": (cost, data.cost)}
        for name, (value, own) in given.items():
            if value is not None and value != own:
                raise ValueError(f"{name}={value!r}: the Results say {own!r}; leave "
                                 f"{name} out, or change it with results.replace")
        if minimize is None or bool(minimize) == data.minimize:
            return data
        if data.tuner is not None:
            raise ValueError(f"minimize={minimize!r} contradicts the direction "
                             f"{data.direction}; leave minimize out")
        return data.replace(minimize=bool(minimize),
                            direction=f"given: minimize={bool(minimize)}")
    if data is None or not isinstance(data, pd.DataFrame):
        raise ValueError("data must be evp.Results or a DataFrame with one row per "
                         f"search round, got {_describe(data)}")
    return Results(data, score="score" if score is None else score, group=group,
                   cost=cost, minimize=bool(minimize))
