r"""Search results from MLflow: the runs of one experiment, one row per run.

:func:`evp.read_results` reads through this module the runs that MLflow
tracked, given where MLflow keeps them and the experiment
(``read_results("sqlite:///mlflow.db", experiment="bert", score="metrics.val_acc")``,
``evp curve sqlite:///mlflow.db --experiment bert --score metrics.val_acc``):

* a tracking URI: a SQLite store (``sqlite:///mlflow.db``, MLflow 3's default),
  another database (``postgresql://…``), a tracking server (``http://…``) or a
  ``file:`` URI;
* a local ``mlruns`` folder (the file store, which MLflow 3 keeps in
  maintenance mode and opens only with ``MLFLOW_ALLOW_FILE_STORE=true``: set
  here while the folder is read, and restored after), or a SQLite file
  (``.db``, ``.sqlite``, ``.sqlite3``) that holds MLflow's tables.

The runs are read through MLflow's own client (``MlflowClient.search_runs``), so
the store's format stays MLflow's concern; reading needs the ``mlflow`` extra
(``pip install 'evp-tuning-curves[mlflow]'``). The columns are those of
``mlflow.search_runs``:

* ``run_id``, ``run_name``, ``experiment_id``;
* ``status`` — ``FINISHED``, or ``FAILED`` and ``KILLED``: failed rounds, under
  the ``failed`` policy of :func:`evp.read_results`, whatever they logged.
  Runs still ``RUNNING`` or ``SCHEDULED`` are left out, counted in the note;
  deleted runs are not read;
* ``start_time`` and ``end_time`` (UTC timestamps): the rows are in the order
  the runs started, the trial order; ``duration_seconds``, their difference, is
  a cost column (``cost="duration_seconds"``);
* ``metrics.<name>`` — each metric's last logged value (MLflow's run summary);
  the score is one of them (``score="metrics.val_acc"``, or ``"val_acc"``);
* ``params.<name>`` — the hyperparameters, as the strings MLflow stores;
* ``tags.<name>`` — the run's tags (``tags.mlflow.runName``, …).

MLflow does not record whether a metric is better high or low: as for a file,
higher is better unless the name says loss (then ``minimize`` is needed), and
nothing says how the runs' hyperparameters were chosen, so their order is tested
for exchangeability like any other trials.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import tempfile
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from evp._optional import import_optional_dependency
from evp._validation import _describe
from evp.readers._knows import MARKER, Claim, Direction, Knows, Reader
from evp.readers._options import Option
from evp.readers._trials import COMPLETED, FAILED, Objective, Trial, trial_table
from evp.readers._trials import UNFINISHED as UNFINISHED_RUN
from evp.readers.files import (
    not_sqlite,
    sqlite_columns,
    sqlite_snapshot,
    sqlite_tables,
)
from evp.results import Results

__all__ = ["FINISHED", "UNFINISHED", "is_mlflow_source", "read_mlflow"]

#: Run statuses read as rounds (FAILED and KILLED become failed rounds).
FINISHED = ("FINISHED", "FAILED", "KILLED")
#: Run statuses left out: the run has not ended.
UNFINISHED = ("RUNNING", "SCHEDULED")
_SQLITE_SUFFIXES = (".db", ".sqlite", ".sqlite3")
_URL = re.compile(r"^[a-z][a-z0-9+.\-]*:", re.IGNORECASE)
_FILE_STORE = "MLFLOW_ALLOW_FILE_STORE"
_PAGE = 1000
#: The options of :func:`read_mlflow` that :func:`evp.read_results` passes on.
OPTIONS = {
    "experiment": Option(None, "MLflow: the experiment to read from a tracking "
                               "URI, mlruns folder or SQLite store, by name or id "
                               "(default: the store's only experiment with runs); "
                               "--score names a metric, e.g. metrics.val_acc",
                         metavar="NAME|ID", claims=True,
                         doc="The MLflow experiment to read, by name or id; "
                             "given, `path_or_frame` is an MLflow store. Default "
                             "for a store recognised as MLflow's (an ``mlruns`` "
                             "folder, a SQLite file with MLflow's tables): its "
                             "only experiment with runs."),
}


#: Tables every MLflow SQL store holds, and columns of its runs table.
MLFLOW_TABLES = {"experiments", "runs", "metrics", "params", "tags",
                 "alembic_version"}
_RUN_COLUMNS = {"run_uuid", "experiment_id", "status", "lifecycle_stage"}


def _mlflow_tables(path: Path) -> bool:
    """Whether a SQLite file holds MLflow's schema: its tables (Alembic's
    version among them) and the columns of its runs table; read without
    writing anything."""
    tables = sqlite_tables(path)
    return (tables is not None and tables >= MLFLOW_TABLES
            and sqlite_columns(path, "runs") >= _RUN_COLUMNS)


def _is_mlruns(path: Path) -> bool:
    """A file store: a folder of experiment folders, each with a ``meta.yaml``
    that names its ``artifact_location``."""
    if not path.is_dir():
        return False
    for child in path.iterdir():
        meta = child / "meta.yaml"
        if child.is_dir() and meta.is_file():
            with contextlib.suppress(OSError, UnicodeDecodeError):
                if "artifact_location" in meta.read_text(encoding="utf-8"):
                    return True
    return False


def is_mlflow_source(path_or_frame) -> bool:
    """Whether `path_or_frame` is an MLflow store known without an experiment
    named: an ``mlruns`` folder, or a SQLite file or ``sqlite:///`` URL whose
    database holds MLflow's tables (an Optuna storage holds others)."""
    if not isinstance(path_or_frame, str | os.PathLike):
        return False
    text = os.fspath(path_or_frame)
    if text.lower().startswith("sqlite:///"):
        path = Path(text[len("sqlite:///"):].split("?")[0]).expanduser()
        return path.is_file() and _mlflow_tables(path)
    if _URL.match(text) and not re.match(r"^[a-z]:[\\/]", text, re.IGNORECASE):
        return False
    path = Path(text).expanduser()
    if path.suffix.lower() in _SQLITE_SUFFIXES:
        return path.is_file() and _mlflow_tables(path)
    return _is_mlruns(path)


def _client():
    tracking = import_optional_dependency(
        "mlflow.tracking", purpose="path_or_frame: reading MLflow runs")
    return tracking.MlflowClient


def _not_mlflow(path: Path) -> ValueError:
    tables = sqlite_tables(path)
    if tables is None:
        return not_sqlite(path, "an MLflow store")
    shown = ", ".join(sorted(tables)[:8]) or "none"
    return ValueError(f"path_or_frame: {path.name} is not an MLflow SQLite store "
                      f"(its tables: {shown}; MLflow's include "
                      f"{', '.join(sorted(MLFLOW_TABLES))})")


@contextlib.contextmanager
def _tracking_uri(source):
    """(The tracking URI to open for `source`, whether it is a file store), which
    reading never changes: a local SQLite store (a file, ``sqlite:///PATH``)
    must exist and hold MLflow's schema, and MLflow opens a private copy of it
    (it would add its tables to any other database, create a missing file, or
    record a default experiment); an ``mlruns`` folder is copied without its
    artifacts (MLflow adds a ``.trash`` folder to it); a server's URI is
    MLflow's to reach."""
    text = os.fspath(source)
    local = None
    if text.lower().startswith("sqlite:///"):
        path = Path(text[len("sqlite:///"):].split("?")[0]).expanduser()
        if not path.is_file():
            raise FileNotFoundError(f"path_or_frame: no such SQLite file {path} "
                                    f"(from {text})")
        local = path
    elif text.lower().startswith("file:"):
        local = Path(text[len("file://"):] if text.lower().startswith("file://")
                     else text[len("file:"):]).expanduser()
    elif _URL.match(text) and not re.match(r"^[a-z]:[\\/]", text, re.IGNORECASE):
        yield text, False  # a server or another database: MLflow's to reach
        return
    else:
        local = Path(text).expanduser()
    if not local.exists():
        raise FileNotFoundError(f"path_or_frame: no such file or folder {local}")
    if local.is_file():
        if not _mlflow_tables(local):
            raise _not_mlflow(local)
        with sqlite_snapshot(local) as copy:
            yield f"sqlite:///{copy}", False
        return
    with tempfile.TemporaryDirectory(prefix="evp-read-",
                                     ignore_cleanup_errors=True) as folder:
        copy = Path(folder) / "mlruns"
        shutil.copytree(local, copy, symlinks=True,
                        ignore=shutil.ignore_patterns("artifacts"))
        yield copy.as_uri(), True


@contextlib.contextmanager
def _file_store_allowed(allowed: bool):
    """MLflow 3 opens a file store only with MLFLOW_ALLOW_FILE_STORE=true: set it
    while reading one, then restore what was there."""
    if not allowed:
        yield
        return
    before = os.environ.get(_FILE_STORE)
    os.environ[_FILE_STORE] = "true"
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(_FILE_STORE, None)
        else:
            os.environ[_FILE_STORE] = before


def _first_line(error: Exception) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def _experiment(client, experiment, uri: str):
    """The experiment `experiment` names (a name, else an id); None: the only
    experiment with runs."""
    from mlflow.entities import ViewType

    if experiment is None:
        found = sorted((e for e in client.search_experiments(view_type=ViewType.ALL)
                        if client.search_runs([e.experiment_id], max_results=1)),
                       key=lambda e: e.name)
        if len(found) == 1:
            return found[0]
        names = ", ".join(repr(e.name) for e in found) or "none with runs"
        raise ValueError(f"experiment: name the MLflow experiment to read, e.g. "
                         f"experiment='{found[0].name if found else 'NAME'}'; the "
                         f"store at {uri} holds {names}")
    name = str(experiment)
    found = client.get_experiment_by_name(name)
    if found is None and name.isdigit():
        with contextlib.suppress(Exception):  # MLflow's not-found error
            found = client.get_experiment(name)
    if found is None:
        known = ", ".join(sorted(repr(e.name) for e in client.search_experiments(
            view_type=ViewType.ALL)))
        raise ValueError(f"experiment: no experiment {name!r} (by name or id) in the "
                         f"MLflow store at {uri}; its experiments: {known}")
    return found


def _trial(run) -> Trial:
    """A run: finished (a round), failed or killed (a failed round), or not
    ended (left out); its place, when it started."""
    row = _row(run)
    status = run.info.status
    fate = (COMPLETED if status == "FINISHED" else FAILED if status in FINISHED
            else UNFINISHED_RUN)
    start = row["start_time"]
    return Trial(row, fate, status, (pd.isna(start), start if pd.notna(start)
                                     else pd.Timestamp(0, tz="UTC")))


def _row(run) -> dict:
    info, data = run.info, run.data
    start = pd.to_datetime(info.start_time, unit="ms", utc=True) if (
        info.start_time is not None) else pd.NaT
    end = pd.to_datetime(info.end_time, unit="ms", utc=True) if (
        info.end_time is not None) else pd.NaT
    row = {"run_id": info.run_id, "run_name": info.run_name,
           "experiment_id": info.experiment_id, "status": info.status,
           "start_time": start, "end_time": end,
           "duration_seconds": ((end - start).total_seconds()
                                if pd.notna(start) and pd.notna(end) else np.nan)}
    row.update({f"metrics.{k}": v for k, v in data.metrics.items()})
    row.update({f"params.{k}": v for k, v in data.params.items()})
    row.update({f"tags.{k}": v for k, v in data.tags.items()})
    return row


def _runs(client, experiment_id: str) -> list:
    runs, token = [], None
    while True:
        page = client.search_runs([experiment_id], max_results=_PAGE,
                                  page_token=token)
        runs += list(page)
        token = page.token
        if not token:
            return runs


def read_mlflow(uri_or_folder, *, experiment=None, score=None) -> Results:
    """The runs of an MLflow experiment, one row per run, in the order they
    started.

    Parameters
    ----------
    uri_or_folder : str or os.PathLike
        A tracking URI (``sqlite:///mlflow.db``, ``http://…``, ``file:…``), an
        ``mlruns`` folder, or an MLflow SQLite file.
    experiment : str, int or list, optional
        The experiment's name, or its id; several (a list, or names joined by
        commas: ``"iris,wine"``) are read one after another, each named in the
        column ``experiment``, the models' grouping unless told otherwise: pass
        ``task="experiment"`` to read one experiment per task (the model then in
        `group`, e.g. ``"params.model"``). Default: the store's only experiment
        with runs.
    score : str
        The metric to read as the score: ``"metrics.val_acc"`` (or
        ``"val_acc"``).

    Returns
    -------
    evp.Results
        The columns of the module's description; ``tuner`` is ``"mlflow"``,
        ``name`` the experiment's name, the rows in start order (``ordered``).

    Raises
    ------
    ImportError
        mlflow is not installed (the ``mlflow`` extra).
    FileNotFoundError
        A folder or SQLite file that does not exist.
    ValueError
        A store MLflow cannot read; an unknown experiment, or none named where
        several have runs; no `score`, or a metric no run logged (the message
        lists the metrics); an experiment without finished runs.
    """
    if not isinstance(uri_or_folder, str | os.PathLike):
        raise TypeError(f"path_or_frame: an MLflow tracking URI or mlruns folder, "
                        f"got {_describe(uri_or_folder)}")
    MlflowClient = _client()
    names = _experiments(experiment)
    with _tracking_uri(uri_or_folder) as (uri, file_store):
        if len(names) < 2:
            return _read_mlflow(MlflowClient, uri, file_store,
                                names[0] if names else None, score,
                                os.fspath(uri_or_folder))
        parts = [_read_mlflow(MlflowClient, uri, file_store, name, score,
                              os.fspath(uri_or_folder)) for name in names]
    # Several experiments, one per task (or per model): their runs one after
    # another, each experiment's in start order, named in column 'experiment'.
    columns = {p.score for p in parts}
    if len(columns) > 1:
        raise ValueError(f"score: the experiments' metrics resolve to different "
                         f"columns ({', '.join(sorted(columns))}); name one metric "
                         "that every experiment logged")
    frame = pd.concat([p.frame.assign(experiment=p.name) for p in parts],
                      ignore_index=True)
    shown = ", ".join(repr(p.name) for p in parts)
    return Results(frame, score=parts[0].score, group="experiment",
                   notes=tuple(n for p in parts for n in p.notes), tuner="mlflow",
                   ordered=True, source=f"MLflow experiments {shown}")


def _experiments(experiment) -> list:
    """The experiments named: one, several (a list, or names joined by commas),
    or none (the store's only one)."""
    if experiment is None:
        return []
    if isinstance(experiment, str | int):
        text = str(experiment)
        return [part.strip() for part in text.split(",") if part.strip()] or [text]
    return [str(e) for e in experiment]


def _read_mlflow(MlflowClient, uri: str, file_store: bool, experiment, score,
                 shown: str) -> Results:
    with _file_store_allowed(file_store), warnings.catch_warnings():
        # MLflow's own deprecations (of SQLAlchemy's API, …) are not the user's.
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            client = MlflowClient(tracking_uri=uri)
            found = _experiment(client, experiment, shown)
            runs = _runs(client, found.experiment_id)
        except (ValueError, FileNotFoundError, ImportError):
            raise
        except Exception as error:  # MlflowException, SQLAlchemy's, the server's
            raise ValueError(f"path_or_frame: MLflow could not read {shown}: "
                             f"{_first_line(error).replace(uri, shown)}") from None
    trials = [_trial(r) for r in runs]
    ended = [t for t in trials if t.fate != UNFINISHED_RUN]
    if not ended:
        raise ValueError(f"path_or_frame: the MLflow experiment {found.name!r} has "
                         f"no finished runs ({len(runs)} in all)")
    columns = list(dict.fromkeys(c for t in ended for c in t.row))
    metrics = sorted(c for c in columns if str(c).startswith("metrics."))
    column = _score(score, columns, metrics, found.name)
    chosen = " (the store's only experiment with runs)" if experiment is None else ""
    frame, note = trial_table(
        trials, Objective(column, words="its direction not recorded", more=(
            ": each run's last logged value, the runs in the order they "
            "started")),
        what=f"MLflow experiment {found.name!r} (id {found.experiment_id}){chosen}",
        failed_means=": failed rounds, whatever they logged", logged=True,
        noun="runs")
    note += "; cost column 'duration_seconds' (end_time - start_time): pass " \
            "cost='duration_seconds'"
    return Results(frame, score=column, notes=(note,), tuner="mlflow",
                   name=found.name, ordered=True,
                   source=f"MLflow experiment {found.name!r}")


def _score(score, columns, metrics: list[str], name: str) -> str:
    shown = ", ".join(metrics) or "none"
    if score is None:
        example = metrics[0] if metrics else "metrics.val_acc"
        raise ValueError(f"score: name the metric to read, e.g. score='{example}'; "
                         f"the runs of {name!r} logged: {shown}")
    if score in columns:
        return score
    if f"metrics.{score}" in columns:
        return f"metrics.{score}"
    raise ValueError(f"score: no run of the MLflow experiment {name!r} logged "
                     f"{str(score)!r}; its metrics: {shown}")


#: The reader of MLflow stores, as the registry lists it.
READER = Reader(
    "mlflow", "an MLflow store", is_mlflow_source, read_mlflow, OPTIONS,
    Claim(MARKER, ("url", "folder", "file"), _SQLITE_SUFFIXES, cost=1),
    Knows(direction=Direction(other="assume"), order="MLflow's start times",
          failed=("FAILED", "KILLED")),
    names_score=True)
