"""One builder of a tuner's trials into a table: the readers of tuners' records
say what each trial was (:class:`Trial`) and what the objective is
(:class:`Objective`); :func:`trial_table` does the rest, the same way for
every tuner:

* the tally: completed trials are rounds; failed trials are failed rounds,
  their score missing whatever they reported (for the ``failed=`` policy of
  :func:`evp.read_results`); unfinished trials (running, pruned, waiting) are
  left out, and counted;
* the order: the trials sorted by their place in the search, where the record
  says it (stable: trials without a place keep the order read);
* the layout: the score first, then the order column, then the rest as the
  reader wrote each row;
* one note, in one grammar: ``"WHAT: N completed trials, objective 'x'
  (maximized); k failed (FAIL k); m not finished, left out (RUNNING m)"``,
  then what else the reader has to say.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from operator import attrgetter

import pandas as pd

__all__ = ["COMPLETED", "FAILED", "UNFINISHED", "Objective", "Trial", "trial_table"]

#: A trial's fate: a round, a failed round, or left out.
COMPLETED, FAILED, UNFINISHED = "completed", "failed", "unfinished"


@dataclass(frozen=True)
class Trial:
    """One trial as a tuner recorded it.

    Attributes
    ----------
    row : dict
        Its columns as the tool names them: the score (or metrics), the
        hyperparameters, its number and bookkeeping.
    fate : str
        :data:`COMPLETED`, :data:`FAILED` or :data:`UNFINISHED`.
    status : str, optional
        The tool's own word for its state (``FAIL``, ``PRUNED``), tallied in
        the note.
    place : object, optional
        Its place in the search (a sortable key), where the record says it.
    label : object, optional
        Its row's label in the table read (W&B's: its row in the file), kept
        as the frame's index where every trial has one.
    """

    row: dict
    fate: str
    status: str | None = None
    place: object = None
    label: object = None


@dataclass(frozen=True)
class Objective:
    """What the score is: its column, its direction where the tool records
    one, and the words the note says of it.

    Attributes
    ----------
    column : str
        The score's column in each :attr:`Trial.row`.
    minimize : bool, optional
        Lower is better (True), higher (False), or the record says nothing of
        this column (None).
    words : str, optional
        What the note says in parentheses after the objective's name; default
        ``minimized`` or ``maximized``, or that the direction is not recorded.
    more : str, optional
        What follows, in the same clause (how each trial's score was made).
    name : str, optional
        The objective's name, where the score's column is another.
    label : str, default "objective"
        What the note calls it.
    """

    column: str
    minimize: bool | None = None
    words: str | None = None
    more: str = ""
    name: str | None = None
    label: str = "objective"

    @property
    def said(self) -> str:
        if self.words is not None:
            return self.words
        return ("minimized" if self.minimize else "maximized"
                if self.minimize is not None else "its direction not recorded")


def _tally(trials) -> str:
    counts: dict = {}
    for trial in trials:
        status = trial.status if trial.status is not None else "no status"
        counts[status] = counts.get(status, 0) + 1
    return ", ".join(f"{status} {count}" for status, count in counts.items())


def trial_table(trials, objective: Objective, *, what: str, order: str | None = None,
                failed_means: str = "", details=(), logged: bool = False,
                noun: str = "trials",
                none_completed: bool = False) -> tuple[pd.DataFrame, str]:
    """The rounds of `trials` as a table, and the note that says what was read.

    Parameters
    ----------
    trials : iterable of Trial
        Every trial the record holds, in the order read.
    objective : Objective
        The score's column and direction.
    what : str
        What was read, opening the note (``"Optuna study 'tpe'"``).
    order : str, optional
        The column of each row that numbers the trials, placed after the score.
    failed_means : str, optional
        What a failed trial is in this tool's words, after its tally.
    details : iterable of str
        Further clauses of the note, each said after the tally.
    logged : bool, default False
        Keep what failed trials logged as their score, where each row's state
        column marks it failed in words :func:`evp.read_results` knows
        (:data:`evp._columns.FAILED_STATES`: MLflow's ``FAILED`` and
        ``KILLED``), so that its messages say why.
    noun : str, default "trials"
        What the rows are (SMAC3's: ``configurations``, each the mean of its
        trials).
    none_completed : bool, default False
        Whether a record with no completed trial is read (one search of
        several, whose every trial failed: its model's failed rounds) rather
        than refused.

    Returns
    -------
    (pandas.DataFrame, str)
        One row per completed or failed trial, in their place's order; a
        failed trial's score is missing (unless `logged`). The note.

    Raises
    ------
    ValueError
        No trial completed (unless `none_completed`).
    """
    trials = list(trials)
    fates: dict = {COMPLETED: [], FAILED: [], UNFINISHED: []}
    for trial in trials:
        fates[trial.fate].append(trial)
    completed, failed, unfinished = fates.values()
    if not completed and not none_completed:
        raise ValueError(f"path_or_frame: {what} has no completed {noun} "
                         f"({len(trials)} in all: {_tally(trials) or 'none'})")
    kept = [t for t in trials if t.fate != UNFINISHED]
    if None not in [t.place for t in kept]:
        kept = sorted(kept, key=attrgetter("place"))
    score = objective.column
    # A failed trial's score is missing, whatever it reported (unless its state
    # says it failed, and the score is `logged`).
    labels = [t.label for t in kept]
    frame = pd.DataFrame([t.row if t.fate == COMPLETED or logged
                          else {**t.row, score: math.nan} for t in kept],
                         index=None if None in labels else labels)
    first = [score] + ([order] if order is not None and order in frame else [])
    frame = frame[[*first, *[c for c in frame.columns if c not in first]]]
    note = (f"{what}: {len(completed)} completed {noun}, {objective.label} "
            f"{objective.name or score!r} ({objective.said}){objective.more}")
    if failed:
        note += f"; {len(failed)} failed ({_tally(failed)}){failed_means}"
    if unfinished:
        note += f"; {len(unfinished)} not finished, left out ({_tally(unfinished)})"
    note += "".join(f"; {detail}" for detail in details if detail)
    return frame, note
