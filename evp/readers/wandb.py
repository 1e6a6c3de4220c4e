r"""Search results from Weights & Biases: the runs table, exported or fetched.

:func:`evp.read_results` reads through this module, without ``wandb`` installed
and without a network, the runs of a W&B project (or sweep) in either of two
shapes, one row per run:

**The CSV that the W&B app exports** from a project's runs table (*Export* →
*CSV*, a file named like ``wandb_export_2025-11-13T09_48_11.000+01_00.csv``):
the run's columns first, capitalised — ``Name``, ``State``, ``Notes``,
``User``, ``Tags``, ``Created`` (ISO time, UTC), ``Runtime`` (seconds),
``Sweep`` (the sweep's id; ``Agent`` and other columns shown in the table may be
there too) — then one column per config key, nested keys joined by ``.``
(``optimizer.lr``), then one per summary metric as logged (``val_acc``,
``val/loss``). Every cell is quoted, and an empty note is ``-``. Recognised by
its ``Name`` and ``State`` columns with ``Created`` or ``Runtime``.

**The DataFrame of the public API**, as W&B's documentation builds it from
``wandb.Api().runs(path)``: one row per run with ``name``, ``state``, and the
run's ``summary`` and ``config`` as dict columns (``run.summary._json_dict``,
``run.config``), which are flattened here to ``summary.<key>`` and
``config.<key>`` (nested keys joined by ``.``); or those columns flattened
already (``pd.json_normalize``); ``created_at`` when it was kept. Saved with
``to_csv`` (as W&B's documentation does), the dicts are written as Python
literals: they are read back as literals (``ast.literal_eval``, which runs
nothing). Recognised by its ``summary`` column of dicts or its ``summary.*``
columns.

What is read:

* the state — ``finished``; ``crashed``, ``failed`` and ``killed`` are failed
  rounds, under the ``failed`` policy of :func:`evp.read_results`, whatever
  they logged; a run still ``running`` or ``pending``, or ``preempted`` or
  ``preempting`` (stopped, to be resumed), is left out and counted in the note;
  a run in any other state (or none) is left out with a warning, never counted
  as finished; the rows named in messages are the table's rows;
* the order — by ``Created`` or ``created_at``, the runs' start; else by
  ``_timestamp`` (``summary._timestamp``), the time of a run's last log, so
  the order the runs ended, said in the note; the export (like the API) lists
  the newest run first, so the rows are sorted; without either column the
  order is unknown, and not tested;
* the cost — ``Runtime`` or ``_runtime`` (``summary._runtime``), seconds:
  pass it as ``cost``;
* the score — a summary metric, the last value the run logged (or what the
  run put in its summary): ``score="val_acc"`` (in the API's shape
  ``"summary.val_acc"``, or ``"val_acc"`` for it);
* every other column, as read (the config columns are the hyperparameters).

The export does not say how a sweep chose its runs (``method: random``, ``grid``
or ``bayes`` is in the sweep's configuration, not the table): the order is
tested for exchangeability like any other trials, and a Bayesian sweep's runs
will look adaptive. W&B records nothing of whether a metric is better high or
low: higher is better unless the name says loss (then ``minimize`` is needed).

The layouts were read from exports of the W&B app (2025) and from the public
API's documented ``Run`` attributes; the tests write files in them.
"""

from __future__ import annotations

import ast
import contextlib

import pandas as pd

from evp.readers import _trials
from evp.readers._knows import SHAPE, Claim, Direction, Knows, Reader
from evp.results import Results

__all__ = ["FAILED", "FINISHED", "UNFINISHED", "read_wandb", "wandb_shape"]

#: Run states read as finished rounds.
FINISHED = ("finished",)
#: Run states read as failed rounds.
FAILED = ("crashed", "failed", "killed")
#: Run states left out: the run has not ended, or will be resumed.
UNFINISHED = ("running", "pending", "preempted", "preempting")

_EXPORT_RUN_COLUMNS = ("Name", "Agent", "State", "Notes", "User", "Tags", "Created",
                       "Runtime", "Sweep", "ID", "Group", "Job Type",
                       "Hostname", "GPU Type", "GPU Count", "Commit", "GitHub")
_API_RUN_COLUMNS = ("name", "state", "id", "created_at", "tags", "notes", "group",
                    "job_type", "sweep", "user", "url", "path", "project",
                    "entity")


def _mapping(value):
    """A dict, or the text of one as ``DataFrame.to_csv`` writes it (read as a
    Python literal, never run); else None."""
    if isinstance(value, dict):
        return value
    if isinstance(value, str) and value.lstrip().startswith("{"):
        with contextlib.suppress(ValueError, SyntaxError, TypeError,
                                 MemoryError, RecursionError):
            parsed = ast.literal_eval(value)
            return parsed if isinstance(parsed, dict) else None
    return None


def _is_mapping_column(frame: pd.DataFrame, column: str) -> bool:
    if column not in frame:
        return False
    values = frame[column]
    mappings = values.map(_mapping)
    return bool(mappings.notna().any()) and bool(
        (mappings.notna() | values.isna()).all())


def wandb_shape(frame) -> str | None:
    """Which W&B shape `frame` has: ``"export"`` (the app's CSV), ``"api"`` (the
    public API's DataFrame), or None."""
    if not isinstance(frame, pd.DataFrame):
        return None
    columns = {str(c) for c in frame.columns}
    if {"Name", "State"} <= columns and columns & {"Created", "Runtime"}:
        return "export"
    if _is_mapping_column(frame, "summary") or any(
            c.startswith("summary.") for c in columns):
        return "api"
    return None


def _flattened(frame: pd.DataFrame) -> pd.DataFrame:
    """The ``summary`` and ``config`` dict columns as ``summary.<key>`` and
    ``config.<key>`` columns (the API's ``_wandb`` bookkeeping left out)."""
    parts = [frame.drop(columns=[c for c in ("summary", "config")
                                 if _is_mapping_column(frame, c)])]
    for column in ("summary", "config"):
        if not _is_mapping_column(frame, column):
            continue
        records = [{k: v for k, v in (_mapping(d) or {}).items() if k != "_wandb"}
                   for d in frame[column]]
        flat = pd.json_normalize(records, sep=".")
        flat.columns = [f"{column}.{c}" for c in flat.columns]
        flat.index = frame.index
        parts.append(flat)
    out = pd.concat(parts, axis=1)
    return out.loc[:, ~out.columns.duplicated()]


def _first(frame: pd.DataFrame, names) -> str | None:
    return next((n for n in names if n in frame.columns), None)


def read_wandb(frame: pd.DataFrame, *, score=None) -> Results:
    """The runs of a W&B export or API DataFrame, one row per ended run, in the
    order they were created.

    Parameters
    ----------
    frame : pandas.DataFrame
        The app's CSV export as read, or the public API's DataFrame (see the
        module).
    score : str
        The summary metric to read as the score (``"val_acc"``; in the API's
        shape ``"summary.val_acc"`` or ``"val_acc"``).

    Returns
    -------
    evp.Results
        The frame's columns as read (the API's dicts flattened), the runs in
        their order; ``tuner`` is ``"wandb"``; the note says the state, order and
        cost columns found and what was left out.

    Raises
    ------
    ValueError
        Neither shape; no `score`, or one that is not a column (the message
        lists the candidates); no ended run.
    """
    shape = wandb_shape(frame)
    if shape is None:
        raise ValueError("path_or_frame: not a W&B runs table (no Name and State "
                         "columns of the app's export, nor the public API's "
                         "summary)")
    if shape == "api":
        frame = _flattened(frame)
        state = _first(frame, ("state", "State"))
        created = _first(frame, ("created_at", "createdAt", "Created"))
        stamp = _first(frame, ("summary._timestamp", "_timestamp"))
        cost = _first(frame, ("summary._runtime", "_runtime", "runtime"))
        fixed = set(_API_RUN_COLUMNS)
        what = "W&B runs (the public API's table)"
    else:
        state, created, stamp, cost = "State", _first(frame, ("Created",)), None, \
            _first(frame, ("Runtime",))
        fixed = set(_EXPORT_RUN_COLUMNS)
        what = "W&B runs table (the app's CSV export)"
    # The index stays each run's row in the table (0 the first after the
    # header), for read_results to name the rows of the file.
    frame = frame.reset_index(drop=True)
    column = _score(score, frame, fixed, shape)
    warnings = []
    states = (frame[state].map(lambda v: v.strip().lower() if isinstance(v, str)
                               else "") if state is not None
              else pd.Series("finished", index=frame.index))
    known = states.isin(FINISHED + FAILED + UNFINISHED)
    if not known.all():
        unknown = states[~known]
        shown = ", ".join(repr(s) for s in dict.fromkeys(unknown)) or "''"
        rows = ", ".join(str(i + 1) for i in unknown.index[:10])
        warnings.append(
            f"{len(unknown)} W&B run(s) in a state evp does not know ({shown}; "
            f"rows {rows} of the table) left out: not counted as finished nor "
            "failed; a state W&B documents is finished, crashed, failed, "
            "killed, running, pending or preempted")
    ended = known & ~states.isin(UNFINISHED)
    if not ended.any():
        raise ValueError(f"path_or_frame: no W&B run has ended ({len(frame)} "
                         f"run(s), none {', '.join(FINISHED + FAILED)})")
    if created is not None:
        when = pd.to_datetime(frame[created], utc=True, errors="coerce",
                              format="mixed")
        order = f"the runs in the order created (column {created!r})"
    elif stamp is not None:
        when = pd.to_numeric(frame[stamp], errors="coerce")
        order = (f"the runs in the order of their last log (column {stamp!r}: "
                 "the order the runs ended, not started)")
    else:
        when = None
        order = ("the runs not ordered (no created_at or _timestamp column; W&B "
                 "lists the newest run first)")
    ordered = when is not None and not when[ended].isna().any()
    if when is not None and not ordered:
        order = (f"the runs not ordered: column {created or stamp!r} has "
                 "unreadable times")
    fates = states.map(lambda s: _trials.COMPLETED if s in FINISHED
                       else _trials.FAILED if s in FAILED else _trials.UNFINISHED)
    frame, note = _trials.trial_table(
        (_trials.Trial(row, fate, status or "no state", when[i] if ordered else None, i)
         for (i, row), fate, status in zip(frame.to_dict("index").items(), fates,
                                           states, strict=True)),
        _trials.Objective(column, words="its direction not recorded",
                  more=f": each run's summary, {order}"),
        what=what, failed_means=": failed rounds, whatever they logged",
        logged=True, noun="runs", details=[] if state is not None else [
            "no state column: every run read as finished"])
    if cost is not None:
        note += f"; cost column {cost!r} (seconds): pass cost={cost!r}"
    if "Sweep" in frame or "sweep" in frame:
        sweeps = frame.get("Sweep", frame.get("sweep")).dropna().astype(str)
        sweeps = sorted(set(sweeps) - {"", "-"})
        if sweeps:
            note += (f"; sweep(s) {', '.join(sweeps)} (the table does not say "
                     "their method: random, grid or bayes)")
    return Results(frame, score=column, notes=(note,),
                   warnings=tuple(warnings), tuner="wandb", ordered=ordered,
                   source=what)


def _score(score, frame: pd.DataFrame, fixed: set, shape: str) -> str:
    """The column `score` names, trying ``summary.<score>`` in the API's
    shape."""
    if score is not None and score in frame.columns:
        return score
    if score is not None and shape == "api" and f"summary.{score}" in frame.columns:
        return f"summary.{score}"
    if shape == "api":
        candidates = [c for c in frame.columns if str(c).startswith("summary.")
                      and not str(c).startswith("summary._")]
    else:
        candidates = [c for c in frame.columns if c not in fixed
                      and pd.to_numeric(frame[c], errors="coerce").notna().any()]
    shown = ", ".join(map(str, candidates)) or "none"
    if score is None:
        example = candidates[0] if candidates else "val_acc"
        raise ValueError(f"score: name the W&B metric to read, e.g. "
                         f"score='{example}'; numeric columns: {shown}")
    raise ValueError(f"score: no column {str(score)!r} in the W&B runs; numeric "
                     f"columns: {shown}")


def _read(source, *, score=None):
    return read_wandb(source, score=score).replace(source="a DataFrame")


#: The reader of W&B runs tables, as the registry lists it: rows named by their
#: place in the file read (a W&B export it reorders).
READER = Reader("wandb", "a W&B runs table",
                lambda s: isinstance(s, pd.DataFrame) and wandb_shape(s) is not None,
                _read, claim=Claim(SHAPE, ("table",), cost=0),
                knows=Knows(direction=Direction(other="assume"),
                            order="W&B's creation times",
                            failed=("crashed", "failed", "killed"), rows=True),
                names_score=True)
