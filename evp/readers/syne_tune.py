r"""Syne Tune's experiment folders: one row per trial.

Syne Tune writes each tuning experiment to ``~/syne-tune/<tuner name>/`` (or
under ``$SYNETUNE_FOLDER``); :func:`read` takes that folder, or its results
file, and returns :class:`evp.Results` for :func:`evp.read_results` to
validate. Nothing is written, and Syne Tune need not be installed; the
tuner's pickle (``tuner.dill``) is never opened (loading it runs code).

**What is read.**

``metadata.json``
    ``metric_names`` (the metrics the scheduler optimises, the first one
    first) and ``metric_mode`` (``"min"`` or ``"max"``, or one per metric):
    which way is better, recorded by the tool; ``scheduler_name`` (the
    strategy: ``RandomSearch``, ``FIFOScheduler``, ``BayesianOptimization``,
    ``ASHA``, …).
``results.csv.zip`` (or ``results.csv``)
    One row per report of a trial: the metrics, ``trial_id`` (Syne Tune's
    counter, 0, 1, 2, … in the order the trials were started: the trial
    order), ``st_status`` (the trial's status when the report was stored:
    ``InProgress``, ``Completed``, ``Failed``, ``Stopped``, …),
    ``st_decision``, ``st_worker_time`` (seconds since the trial started),
    ``st_tuner_time`` and ``config_<name>`` per hyperparameter.

**One row per trial.** Each trial's best report of the metric (by
``metric_mode``), or its last (``per_trial="last"``), as Ray Tune's reader
does. A trial whose last report says ``Failed`` is a failed round (its score
missing, whatever it reported before); so is a trial number with no report (a
trial that failed before its first report leaves no row in the results, and
Syne Tune numbers every trial it starts), unless its folder (the local
backend's ``<trial_id>/``) holds ``stop`` or ``pause``: the tuner stopped it
before it reported, and it is left out, counted in the note. ``st_status`` is
what Syne Tune knew when it stored the report (often ``InProgress``), so a
trial that failed after its last report is not known to have failed.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pandas as pd

from evp._validation import as_choice
from evp.readers._knows import MARKER, Claim, Direction, Knows, Reader
from evp.readers._options import Option
from evp.readers._trials import (
    COMPLETED,
    FAILED,
    UNFINISHED,
    Objective,
    Trial,
    trial_table,
)
from evp.readers.files import json_record, keep_beyond_float, number
from evp.results import Results

__all__ = ["READER", "read", "sniff"]

#: The results files Syne Tune writes, newest first.
RESULTS = ("results.csv.zip", "results.csv")
METADATA = "metadata.json"
_MODES = ("min", "max")
#: Syne Tune's word for a failed trial.
FAILED_STATUS = "Failed"

OPTIONS = {
    "per_trial": Option("best", "Syne Tune: each trial's best or last report of "
                                "the experiment's first metric",
                        choices=("best", "last"),
                        doc="Each Syne Tune trial's best report of the "
                            "experiment's first metric, or its last one."),
}


def _folder(source) -> Path | None:
    """The experiment folder a path names (the folder, or its results file)."""
    if not isinstance(source, str | os.PathLike):
        return None
    path = Path(source).expanduser()
    return path.parent if path.name in RESULTS else path


def sniff(source) -> bool:
    """Whether `source` is a Syne Tune experiment folder (``metadata.json``
    beside ``results.csv.zip`` or ``results.csv``) or its results file. Reads
    no file; never raises."""
    try:
        path = _folder(source)
        return (path is not None and (path / METADATA).is_file()
                and any((path / name).is_file() for name in RESULTS))
    except (OSError, ValueError):
        return False


def _results(path: Path) -> pd.DataFrame:
    """The results table, one row per report."""
    found = next(path / name for name in RESULTS if (path / name).is_file())
    try:
        # pandas unzips results.csv.zip by its name; a metric beyond float
        # range (1e400) is kept as written, for number() to refuse.
        return keep_beyond_float(pd.read_csv(found), found, {})
    except (ValueError, OSError, pd.errors.ParserError) as error:
        reason = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise ValueError(f"path_or_frame: {found.name} in {path.name} could not be "
                         f"read ({reason}): restore it from Syne Tune's run") from None


def _metric(metadata: dict, score, shown: str) -> tuple[str, bool]:
    """(the metric that picks each trial's report, whether lower is better)."""
    names = metadata.get("metric_names")
    names = [names] if isinstance(names, str) else names
    modes = metadata.get("metric_mode")
    if not isinstance(names, list) or not names or not all(
            isinstance(n, str) for n in names):
        raise ValueError(f"path_or_frame: {shown} names no metric (metric_names): "
                         "restore it from Syne Tune's run")
    modes = [modes] * len(names) if isinstance(modes, str) else modes
    if not isinstance(modes, list) or len(modes) != len(names) or not all(
            m in _MODES for m in modes):
        raise ValueError(f"path_or_frame: {shown} does not say min or max for each "
                         f"metric (metric_mode: {metadata.get('metric_mode')!r})")
    metric = score if score in names else names[0]
    return metric, modes[names.index(metric)] == "min"


def _config(folder: Path) -> dict:
    """A trial's hyperparameters from its folder's ``config.json`` (the local
    backend's), as ``config_<name>`` columns; none where it has none."""
    try:
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return {}
    if not isinstance(config, dict):
        return {}
    return {f"config_{k}": v for k, v in config.items()
            if not str(k).startswith("st_")}


def read(source, *, score=None, per_trial: str = "best") -> Results:
    """The trials of a Syne Tune experiment, one row each.

    Parameters
    ----------
    source : str or os.PathLike
        The experiment folder (``~/syne-tune/<tuner name>``), or its
        ``results.csv.zip``.
    score : str, optional
        One of the metrics the experiment optimised (``metric_names``): each
        trial's report is picked by it, in its mode. Default: the first
        metric (another column named as the score is read beside it by
        :func:`evp.read_results`, its direction not the metric's).
    per_trial : {"best", "last"}, default "best"
        Each trial's best report of the metric, or its last one.

    Returns
    -------
    evp.Results
        One row per trial in ``trial_id`` order: the score, ``trial_id``,
        ``state`` (``Completed``; ``Failed`` or ``NO_REPORT`` for a failed
        round, its score missing), the chosen report's columns and
        ``config_<name>``; ``minimize`` is the metric's ``metric_mode``.

    Raises
    ------
    FileNotFoundError
        No experiment folder.
    ValueError
        A damaged ``metadata.json`` or results file, a metric no trial
        reported, or `per_trial` not one of the above.
    """
    per_trial = as_choice(per_trial, "per_trial", ("best", "last"))
    path = _folder(source)
    if path is None or not sniff(path):
        raise FileNotFoundError(f"path_or_frame: no Syne Tune experiment in "
                                f"{source} (a folder with {METADATA} and "
                                f"{RESULTS[0]})")
    shown = f"{path.name}/{METADATA}"
    metadata = json_record(path / METADATA, shown, "Syne Tune's metadata",
                           "read the results file as a table of your own")
    metric, minimize = _metric(metadata, score, shown)
    reports = _results(path)
    if "trial_id" not in reports:
        raise ValueError(f"path_or_frame: the results in {path.name} have no "
                         "trial_id column: not Syne Tune's")
    if metric not in reports:
        shown_columns = ", ".join(c for c in reports.columns
                                  if not str(c).startswith(("st_", "config_")))
        raise ValueError(f"score: no trial of {path.name} reported {metric!r}; "
                         f"they reported: {shown_columns}")
    ids = pd.to_numeric(reports["trial_id"], errors="coerce")
    trials = []
    for trial_id, rows in reports.groupby(ids, sort=True):
        values = np.array([number(v) for v in rows[metric]], dtype=float)
        status = str(rows["st_status"].iloc[-1]) if "st_status" in rows else ""
        finite = np.flatnonzero(np.isfinite(values))
        if status == FAILED_STATUS or finite.size == 0:
            row = rows.iloc[-1].to_dict()
            row.update({metric: np.nan, "state": status or "NO_REPORT"})
            trials.append(Trial(row, FAILED, status or "NO_REPORT", trial_id))
            continue
        chosen = finite[-1] if per_trial == "last" else int(
            (np.nanargmin if minimize else np.nanargmax)(
                np.where(np.isfinite(values), values, np.nan)))
        row = rows.iloc[chosen].to_dict()
        trials.append(Trial({**row, "state": "Completed"}, COMPLETED, status,
                            trial_id))
    counted = {int(t.place) for t in trials}
    started = [int(p.name) for p in path.iterdir()
               if p.is_dir() and p.name.isdigit()]
    # Syne Tune numbers every trial it starts (and its local backend gives
    # each a folder): a number with no report is a trial stopped by the tuner
    # before it reported (its folder holds "stop" or "pause": not finished),
    # or one that failed before its first report.
    for trial_id in range(max([*counted, *started], default=-1) + 1):
        if trial_id in counted:
            continue
        folder = path / str(trial_id)
        stopped = any((folder / mark).is_file() for mark in ("stop", "pause"))
        status = "Stopped" if stopped else "NO_REPORT"
        trials.append(Trial({"trial_id": trial_id, metric: np.nan,
                             "state": status, **_config(folder)},
                            UNFINISHED if stopped else FAILED, status, trial_id))
    which = (f"each trial's {'lowest' if minimize else 'highest'} report"
             if per_trial == "best" else "each trial's last report")
    frame, note = trial_table(
        trials, Objective(metric, minimize, more=f", {which} (per_trial="
                                                 f"'{per_trial}')"),
        what=f"Syne Tune experiment {path.name!r}", order="trial_id",
        failed_means=": failed rounds (Failed: the trial failed; NO_REPORT: "
                     "started, and no report)")
    scheduler = metadata.get("scheduler_name")
    # The score is the metric: another column the user names is read beside
    # it (read_results), its direction not the metric's.
    return Results(frame, score=metric, minimize=minimize,
                   direction=f"Syne Tune's metric_mode='"
                             f"{'min' if minimize else 'max'}'",
                   notes=(note,), tuner="syne tune", name=path.name,
                   order="trial_id", ordered=True,
                   strategy=(f"Syne Tune, {scheduler}"
                             if isinstance(scheduler, str) else None),
                   source=f"Syne Tune experiment {path.name!r}")


READER = Reader(
    "syne tune", "a Syne Tune experiment", sniff, read, OPTIONS,
    Claim(MARKER, ("folder", "file"), RESULTS, cost=1),
    Knows(direction=Direction(
        other="assume",
        why_not="Syne Tune's metric_mode is {objective!r}'s and says nothing of "
                "{score!r}"),
        order="Syne Tune's trial_id counter", failed=("Failed", "NO_REPORT"),
        identity="trial_id", identity_words="Syne Tune's trial ids"))
