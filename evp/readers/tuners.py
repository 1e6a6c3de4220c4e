r"""Search results straight from the tuners that ran them: Optuna and Ray Tune.

:func:`evp.read_results` (and with it the command line, ``evp run`` and the
notebooks) reads these sources through this module; the readers here return
:class:`evp.Results` of one row per trial, for :func:`~evp.read_results` to
validate.

**Optuna** (:func:`read_optuna`): a :class:`optuna.study.Study`, a storage URL
such as ``sqlite:///study.db`` or ``postgresql://…``, or a SQLite file (``.db``,
``.sqlite``, ``.sqlite3``). Completed and failed trials are read (a failed trial
is a failed round, its objective missing; pruned and running trials are counted
in the note and left out). The study's direction says whether
lower is better; a study with several objectives needs the objective named.
Columns, as Optuna's own ``Study.trials_dataframe`` names them:

* ``value`` — the objective (``values_0``, ``values_1``, … for several
  objectives, or the names given with ``Study.set_metric_names``);
* ``number`` — the trial number;
* ``duration_seconds`` — the trial's wall-clock time, a cost column;
* ``params_<name>`` — one column per hyperparameter;
* ``user_attrs_<name>`` and ``system_attrs_<name>`` — what the trials recorded
  with ``trial.set_user_attr`` (an accuracy beside a log-loss objective, say)
  and Optuna's own attributes. One can be the score
  (``score="user_attrs_accuracy"``); the study's direction is its objective's,
  so the score's direction is then the user's to give (``minimize``).

**Ray Tune** (:func:`read_ray_tune`): an experiment folder (``storage_path/name``,
by default ``~/ray_results/NAME``) of trial folders, each with the trial's
``result.json`` (one JSON object per ``tune.report``) or ``progress.csv``, and
``params.json``. A trial reports many times; one report per trial becomes a row:
the best (highest for ``mode="max"``, lowest for ``mode="min"``) or the last
report of the metric, as you choose — the frame's note says which. Columns: what
the chosen report holds (the metric, ``training_iteration``, ``time_total_s`` as
a cost column, ``trial_id``, …) and ``config/<name>`` per hyperparameter, as
Ray's ``ResultGrid.get_dataframe`` names them, and ``state``: ``TERMINATED``, or
``ERROR`` for a trial that stopped with an error, or ``NO_REPORT`` for one that
never reported the metric: a failed round (its metric missing, whatever it
reported before).

Each reader returns :class:`evp.Results` whose ``tuner`` is ``"optuna"`` or
``"ray tune"``, ``name`` the study's or experiment's name, ``score`` the column of
the objective or metric, ``minimize`` (and ``direction``) what the tuner says of
it, and whose one note says what was read.
"""

from __future__ import annotations

import contextlib
import fnmatch
import json
import math
import os
import re
from pathlib import Path

import numpy as np
import pandas as pd

from evp._optional import import_optional_dependency
from evp._validation import as_choice
from evp.readers._knows import EXTENSION, MARKER, Claim, Direction, Knows, Reader
from evp.readers._options import Option
from evp.readers._trials import (
    COMPLETED,
    FAILED,
    UNFINISHED,
    Objective,
    Trial,
    trial_table,
)
from evp.readers.files import (
    json_loads,
    natural,
    not_sqlite,
    number,
    sqlite_snapshot,
    sqlite_tables,
)
from evp.results import ASSUMED_DIRECTION, Results

__all__ = ["PER_TRIAL", "SQLITE_SUFFIXES", "family", "is_optuna_source",
           "is_ray_tune_source", "is_tuner_source",
           "read_optuna", "read_ray_tune"]

#: How :func:`read_ray_tune` picks one report per trial.
PER_TRIAL = ("best", "last")
#: File name endings read as an Optuna SQLite storage.
SQLITE_SUFFIXES = (".db", ".sqlite", ".sqlite3")

_URL = re.compile(r"^[a-z][a-z0-9+.\-]*://", re.IGNORECASE)
_MODES = ("max", "min")

#: The options of :func:`read_optuna` that :func:`evp.read_results` passes on
#: (its `objective` is read_results' `score`).
OPTUNA_OPTIONS = {
    "study": Option(None, "Optuna: the study to read from a storage holding "
                          "several (default: its only study); several, or all, "
                          "are one model each, named after the study",
                    metavar="NAME[,NAME...]|all", kind="str or list of str",
                    doc="The Optuna study to read, when the storage holds more "
                        "than one; several (``\"tpe,random\"`` or a list) or "
                        "``\"all\"``, grouped by study."),
    "pruned": Option("drop", "Optuna: pruned trials left out (drop, said in a "
                             "note) or read as failed rounds (failed: their "
                             "scores are not final), for --failed to count",
                     choices=("drop", "failed"),
                     doc="An Optuna study's pruned trials: left out, counted in "
                         "the note, or read as failed rounds (their scores are "
                         "not final), for `failed` to count."),
}
#: The options of :func:`read_ray_tune` that :func:`evp.read_results` passes on
#: (`metric` defaults to read_results' `score`).
RAY_TUNE_OPTIONS = {
    "metric": Option(None, "Ray Tune: the reported metric that picks each "
                           "trial's report and is the score (default: --score)",
                     metavar="NAME",
                     doc="The metric a Ray Tune experiment reported; it picks "
                         "each trial's best report and is the default `score`. "
                         "Default: `score`."),
    "mode": Option(None, "Ray Tune: whether a higher or lower --metric is "
                         "better; it picks each trial's report, and is the "
                         "score's direction only when --score is the metric "
                         "(default: none; required for Ray Tune)",
                   choices=_MODES,
                   doc="Whether a higher or lower Ray Tune `metric` is better; "
                       "needed for Ray Tune. It picks each trial's report; it is "
                       "the direction of the score only when the score is the "
                       "metric."),
    "per_trial": Option("best", "Ray Tune: each trial's best or last report of "
                                "--metric", choices=PER_TRIAL,
                        doc="Each Ray Tune trial's best report of `metric`, or "
                            "its last one."),
}

#: What an Optuna study records: its direction is its objective's, so a trial
#: attribute as the score needs the user's word; its trials are numbered.
OPTUNA_KNOWS = Knows(
    direction=Direction(
        recorded="the Optuna study {verb} its objective", other="refuse",
        why_not="{score!r} is not the Optuna study's objective, so the study's "
                "direction says nothing of it"),
    order="Optuna's trial numbers", failed=("FAIL",), identity="number",
    identity_words="Optuna's trial numbers")
#: What a Ray Tune experiment records: `mode` is the direction of `metric`,
#: the metric that picks each trial's report, and says nothing of another
#: score; Ray numbers its trials in their ids (``a1b2c_00022``).
RAY_TUNE_KNOWS = Knows(
    direction=Direction(
        other="assume",
        why_not="{option}='{value}' picks each trial's report by {objective!r} and "
                "says nothing of {score!r}",
        option="mode", values=(("min", True), ("max", False))),
    order="Ray Tune's trial counter (the 00022 of a trial id a1b2c_00022)",
    failed=("ERROR", "NO_REPORT"), identity="trial_id",
    identity_words="Ray Tune's trial ids")


def _is_study(obj) -> bool:
    """An optuna Study, recognised without importing optuna."""
    return any(cls.__module__.startswith("optuna.") and cls.__name__ == "Study"
               for cls in type(obj).__mro__)


#: The files of a Ray Tune trial folder that hold its reports.
_REPORTS = ("result.json", "progress.csv")
#: The files any trial folder holds, one that errored before it reported too:
#: its config, and the error.
_TRIAL_FILES = (*_REPORTS, "params.json", "error.txt", "error.pkl")
# Ray names a trial's folder "<trainable>_<trial id>_<counter>_<config>_<date>",
# the counter its place in the search (its experiment tag's number). The trial
# id is "<5 hex digits>_<the counter, 5 digits>" for Ray's own random and grid
# search, and 8 random hex digits for a searcher's trials (Optuna's, HyperOpt's
# in Ray), whose counter is then in the folder's name only.
_TRIAL_ID = re.compile(r"(?:^|_)([0-9a-f]{5}_\d{5}|[0-9a-f]{8})_(\d+)(?=_|$)")


def _is_trial(path: Path) -> bool:
    """A Ray Tune trial folder: its reports, or (errored before reporting) its
    config or its error."""
    return path.is_dir() and any((path / name).is_file() for name in _TRIAL_FILES)


def _is_ray_folder(path: Path) -> bool:
    """A folder of Ray Tune trial folders (or one trial folder itself): a trial
    with its reports, or, where every trial errored before it reported, trial
    folders beside Ray's record of the experiment (``experiment_state-*.json``)
    or named as Ray names them."""
    if not path.is_dir():
        return False
    if any((path / name).is_file() for name in _REPORTS):
        return True
    trials = [p for p in path.iterdir() if _is_trial(p)]
    if any(any((p / name).is_file() for name in _REPORTS) for p in trials):
        return True
    return bool(trials) and (any(path.glob("experiment_state-*.json")) or any(
        _TRIAL_ID.search(p.name) for p in trials))


def is_optuna_source(path_or_frame) -> bool:
    """An Optuna Study object, a storage URL (``scheme://…``) or a file ending
    in one of :data:`SQLITE_SUFFIXES` (no file is opened)."""
    if _is_study(path_or_frame):
        return True
    if isinstance(path_or_frame, str) and _URL.match(path_or_frame):
        return True
    return isinstance(path_or_frame, str | os.PathLike) and Path(
        path_or_frame).expanduser().suffix.lower() in SQLITE_SUFFIXES


def is_ray_tune_source(path_or_frame) -> bool:
    """A folder holding Ray Tune trial folders with ``result.json`` or
    ``progress.csv`` (a folder of ``evp search`` ``.jsonl`` files is not one),
    or one trial folder itself."""
    if not isinstance(path_or_frame, str | os.PathLike) or is_optuna_source(
            path_or_frame):
        return False
    path = Path(path_or_frame).expanduser()
    return path.is_dir() and not any(path.glob("*.jsonl")) and (
        _is_ray_folder(path) or bool(_experiments(path)))


def is_tuner_source(path_or_frame) -> str | None:
    """Which tuner wrote `path_or_frame`: ``"optuna"``, ``"ray tune"`` or None
    (:func:`is_optuna_source`, :func:`is_ray_tune_source`)."""
    if is_optuna_source(path_or_frame):
        return "optuna"
    return "ray tune" if is_ray_tune_source(path_or_frame) else None


def _experiments(path: Path) -> list[Path]:
    """The Ray Tune experiment folders inside `path` (one per seed, say), in
    natural order; none when `path` is an experiment itself."""
    if not path.is_dir() or _is_ray_folder(path):
        return []
    return sorted((p for p in path.iterdir() if _is_ray_folder(p)),
                  key=lambda p: natural(p.name))


# ------------------------------------------------------------------ Optuna

def _optuna():
    return import_optional_dependency(
        "optuna", purpose="path_or_frame: reading an Optuna study")


@contextlib.contextmanager
def _quiet(optuna):
    """Optuna's INFO lines (a study loaded) left unsaid while evp reads, and
    the user's own log level restored after: nothing process-wide changes."""
    before = optuna.logging.get_verbosity()
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    try:
        yield
    finally:
        optuna.logging.set_verbosity(before)


#: Tables every Optuna storage holds (RDBStorage's schema).
OPTUNA_TABLES = {"studies", "trials", "version_info"}


@contextlib.contextmanager
def _storage(source):
    """The storage URL to open for `source`, which reading never changes: a
    local SQLite file (a path, or ``sqlite:///PATH``) must exist and hold
    Optuna's tables, and Optuna opens a private copy of it (it would add its
    tables to any other database, and create a missing file); another URL (a
    server's database) is Optuna's to open."""
    text = os.fspath(source)
    if _URL.match(text) and not text.lower().startswith("sqlite:///"):
        yield text
        return
    path = Path(text[len("sqlite:///"):].split("?")[0] if _URL.match(text)
                else text).expanduser()
    where = f" (from {text})" if _URL.match(text) else ""
    if not path.is_file():
        raise FileNotFoundError(f"path_or_frame: no such SQLite file {path}{where}")
    tables = sqlite_tables(path)
    if tables is None:
        raise not_sqlite(path, "an Optuna storage")
    if not tables >= OPTUNA_TABLES:
        shown = ", ".join(sorted(tables)[:8]) or "none"
        raise ValueError(f"path_or_frame: {path.name} holds no Optuna study (its "
                         f"tables: {shown}); an MLflow store is read with "
                         "experiment=")
    with sqlite_snapshot(path) as copy:
        yield f"sqlite:///{copy}"


def _studies(source, study, stack: contextlib.ExitStack) -> list:
    """The studies `study` names in `source`: one name, several (a list or
    ``"a,b"``), or ``"all"``; None for the storage's only study. A storage is
    opened for as long as `stack` is."""
    optuna = _optuna()
    if _is_study(source):
        if study is not None and study != source.study_name:
            raise ValueError(f"study: the Study object given is "
                             f"{source.study_name!r}, not {study!r}; leave study out")
        return [source]
    url = stack.enter_context(_storage(source))
    stack.enter_context(_quiet(optuna))
    try:
        names = optuna.get_all_study_names(storage=url)
    except Exception as exc:  # SQLAlchemy's and the driver's errors
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ValueError(f"path_or_frame: {os.fspath(source)} is not a readable "
                         f"Optuna storage: {reason}") from None
    if not names:
        raise ValueError(f"path_or_frame: the Optuna storage {os.fspath(source)} "
                         "holds no study")
    if study is None:
        if len(names) > 1:
            raise ValueError(f"study: the Optuna storage holds {len(names)} studies "
                             f"({', '.join(names)}); name one with study='NAME', "
                             "several with study='A,B', or study='all'")
        wanted = names
    elif isinstance(study, str) and study.strip().lower() == "all":
        wanted = names
    else:
        asked = ([part.strip() for part in study.split(",") if part.strip()]
                 if isinstance(study, str) else [str(part) for part in study])
        wanted = []
        for pattern in asked:  # a name, or a pattern such as tpe-*
            found = fnmatch.filter(names, pattern)
            if not found:
                raise ValueError(f"study: no study {pattern!r} in the Optuna storage; "
                                 f"its studies: {', '.join(names)}")
            wanted += sorted(found, key=natural) if found != [pattern] else found
        if len(set(wanted)) != len(wanted):
            raise ValueError(f"study: each study once, got {', '.join(wanted)}")
    return [optuna.load_study(study_name=name, storage=url) for name in wanted]


def family(name: str) -> str:
    """The tuner a seed's study or experiment belongs to: its name without a
    trailing seed number (``tpe-3`` → ``tpe``, ``random_seed7`` → ``random``).

    >>> family("tpe-3"), family("random_seed7"), family("bohb")
    ('tpe', 'random', 'bohb')
    """
    stripped = re.sub(r"[-_.]?(seed|run|s|r)?[-_.]?\d+$", "", name,
                      flags=re.IGNORECASE)
    return stripped or name


def _objective_names(study) -> list[str]:
    """The objective columns, as ``Study.trials_dataframe`` names them."""
    named = study.metric_names
    count = len(study.directions)
    if count == 1:
        return [named[0] if named else "value"]
    return list(named) if named else [f"values_{n}" for n in range(count)]


def _attribute_columns(trial) -> dict:
    """A trial's user and system attributes as ``Study.trials_dataframe`` names
    them: ``user_attrs_<name>``, ``system_attrs_<name>``."""
    return {**{f"user_attrs_{k}": v for k, v in trial.user_attrs.items()},
            **{f"system_attrs_{k}": v for k, v in trial.system_attrs.items()}}


def _attributes(trials) -> list[str]:
    """The attribute columns the trials have, in the order first recorded."""
    return list(dict.fromkeys(c for t in trials for c in _attribute_columns(t)))


def _trial(trial, objectives, several, State, failing) -> Trial:
    """One Optuna trial: completed, failed (a failed trial, or pruned when
    read as failed: what it reported is not its final score), or not
    finished (pruned, running, waiting)."""
    values = (trial.values if trial.values is not None
              else [math.nan] * len(objectives))
    row = {**several, **dict(zip(objectives, values, strict=True)),
           "number": trial.number, "state": trial.state.name,
           "duration_seconds": (trial.duration.total_seconds()
                                if trial.duration is not None else math.nan),
           **{f"params_{k}": v for k, v in trial.params.items()},
           **_attribute_columns(trial)}
    fate = (COMPLETED if trial.state == State.COMPLETE else FAILED
            if trial.state in failing else UNFINISHED)
    return Trial(row, fate, trial.state.name, trial.number)


def read_optuna(study_or_storage, *, study=None, objective: str | None = None,
                pruned: str = "drop") -> Results:
    """The finished trials of an Optuna study (or several), one row per trial.

    Parameters
    ----------
    study_or_storage : optuna.study.Study, str or os.PathLike
        A study, a storage URL (``sqlite:///study.db``, ``postgresql://…``) or
        a SQLite file (``.db``, ``.sqlite``, ``.sqlite3``).
    study : str or list of str, optional
        The study's name; needed when the storage holds more than one. Several
        (``["tpe", "random"]``, ``"tpe,random"``) or ``"all"`` read each study as
        one model, named after it in a ``study`` column.
    objective : str, optional
        The objective column (see the module's column names); needed when the
        study has several objectives. Default: the one objective. A trial
        attribute's column (``user_attrs_accuracy``) is read as the score too;
        the study's direction is not its, so the Results say nothing of its
        direction (:data:`evp.results.ASSUMED_DIRECTION`).
    pruned : {"drop", "failed"}, default "drop"
        Pruned trials left out, counted in the note; or read as failed rounds
        (state ``PRUNED``, the score missing: what a pruned trial reported
        was not its final score), which read_results' ``failed="worst"``
        counts as worse than every score, as a pruner judged them.

    Returns
    -------
    evp.Results
        One row per trial (:func:`evp.readers._trials.trial_table`): the
        score first, then ``number``, then (for several studies) ``study`` and
        ``tuner``, the other objectives, ``state`` (``COMPLETE``, or ``FAIL``
        for a trial that raised or returned no number: a failed round, whose
        score is missing), ``duration_seconds``, ``params_<name>`` per
        hyperparameter and the attributes; pruned and running trials are left
        out and counted in the note. ``minimize`` is the objective's direction;
        the rows are in trial-number order.

    Raises
    ------
    ImportError
        optuna is not installed (the ``tuners`` extra).
    FileNotFoundError
        A SQLite file that does not exist.
    ValueError
        An unreadable storage, an unknown or missing study name, an unknown or
        missing objective, studies whose directions differ, or a study without
        completed trials.
    """
    with contextlib.ExitStack() as stack:
        return _read_optuna(study_or_storage, study, objective,
                            as_choice(pruned, "pruned", ("drop", "failed")), stack)


def _read_optuna(study_or_storage, study, objective, pruned, stack) -> Results:
    optuna = _optuna()
    studies = _studies(study_or_storage, study, stack)
    State = optuna.trial.TrialState
    frames, notes, directions = [], [], set()
    for loaded in studies:
        objectives = _objective_names(loaded)
        trials = loaded.get_trials(deepcopy=False)
        attributes = _attributes(trials)
        if objective in attributes:
            chosen = objective
        elif objective is None:
            if len(objectives) > 1:
                raise ValueError(f"score: the study {loaded.study_name!r} has "
                                 f"{len(objectives)} objectives "
                                 f"({', '.join(objectives)}); name one, e.g. "
                                 f"score='{objectives[0]}'")
            chosen = objectives[0]
        elif objective not in objectives:
            kept = ", ".join(attributes[:8]) + (", …" if len(attributes) > 8 else "")
            raise ValueError(f"score: the study {loaded.study_name!r} has no "
                             f"objective or trial attribute {objective!r}; its "
                             f"objectives: {', '.join(objectives)}"
                             + (f"; its attributes: {kept}" if kept else ""))
        else:
            chosen = objective
        if chosen in objectives:
            direction = loaded.directions[objectives.index(chosen)]
            minimize = direction == optuna.study.StudyDirection.MINIMIZE
            directions.add(minimize)
        else:
            minimize = None  # the study's direction is its objectives'
        failing = (State.FAIL, State.PRUNED) if pruned == "failed" else (State.FAIL,)
        several = ({"study": loaded.study_name, "tuner": family(loaded.study_name)}
                   if len(studies) > 1 else {})
        frame, note = trial_table(
            (_trial(t, objectives, several, State, failing) for t in trials),
            Objective(chosen, minimize,
                      None if chosen in objectives else
                      "a trial attribute: the study's direction is its "
                      "objective's, not its"),
            what=f"Optuna study {loaded.study_name!r}", order="number")
        frames.append(frame)
        notes.append(note)
    names = ", ".join(repr(s.study_name) for s in studies)
    if len(directions) > 1:
        raise ValueError(f"study: the studies {names} optimise "
                         f"{objective or 'their objective'} in different directions; "
                         "read them one at a time")
    minimize = directions.pop() if directions else None
    several = len(studies) > 1
    # A storage does not record the sampler; a Study object knows its own.
    samplers = ({type(s.sampler).__name__ for s in studies}
                if _is_study(study_or_storage) else set())
    return Results(
        pd.concat(frames, ignore_index=True), score=objective or _objective_names(
            studies[0])[0], group="study" if several else None,
        minimize=bool(minimize),
        direction=(ASSUMED_DIRECTION if minimize is None else
                   f"the Optuna study's direction "
                   f"({'minimize' if minimize else 'maximize'})"),
        notes=tuple(notes), tuner="optuna", ordered=True, order="number",
        name=None if several else studies[0].study_name,
        strategy=(f"Optuna, {samplers.pop()}" if len(samplers) == 1 else None),
        source=f"Optuna {'studies' if several else 'study'} {names}")


# ------------------------------------------------------------------ Ray Tune

def _flatten(mapping: dict, prefix: str) -> dict:
    out = {}
    for key, value in mapping.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            out.update(_flatten(value, f"{name}/"))
        else:
            out[name] = value
    return out


def _reports(trial: Path) -> list[dict]:
    """The trial's reports in order, from result.json (else progress.csv)."""
    results = trial / "result.json"
    if results.is_file():
        reports = []
        for line in results.read_text(encoding="utf-8",
                                      errors="replace").splitlines():
            if not line.strip():
                continue
            try:
                report = json_loads(line)
            except (ValueError, RecursionError):
                break  # a line cut short while the trial was being written
            if not isinstance(report, dict):
                break  # not a report: what follows is not read either
            reports.append(report)
        return reports
    progress = trial / "progress.csv"
    if progress.is_file() and progress.stat().st_size:
        try:
            return pd.read_csv(progress).to_dict("records")
        except (ValueError, UnicodeDecodeError, pd.errors.ParserError):
            return []  # unreadable: the trial reported nothing usable
    return []


def _config(trial: Path, reports: list[dict]) -> dict:
    params = trial / "params.json"
    if params.is_file():
        try:
            config = json.loads(params.read_text(encoding="utf-8"))
        except (ValueError, RecursionError):  # UnicodeDecodeError is one
            config = None
        if isinstance(config, dict):
            return config
    for report in reports:
        if isinstance(report.get("config"), dict):
            return report["config"]
    return {}


def _trial_id(trial: Path, reports: list[dict]) -> tuple[str | None, float]:
    """(the trial's id, its counter: its place in the search) as Ray numbers
    them: from its reports, else its folder's name (a trial that errored
    before it reported has no report), else (None, inf)."""
    reported = next((str(r["trial_id"]) for r in reports if "trial_id" in r), None)
    named = _TRIAL_ID.search(trial.name)
    if named and reported in (None, named.group(1)):
        return named.group(1), int(named.group(2))
    for text in (reported, trial.name):  # a name of one's own: its last number
        counter = re.search(r"_(\d+)$", text or "")
        if counter:
            return reported, int(counter.group(1))
    return reported, math.inf


def _trial_order(trial: Path, reports: list[dict]):
    """A sort key of the trial's place in the search: Ray's counter, then its
    id and folder's name (stable for folders Ray did not name)."""
    trial_id, counter = _trial_id(trial, reports)
    return (counter, trial_id or "", trial.name)


def read_ray_tune(folder, *, metric: str, mode: str | None = None,
                  per_trial: str = "best") -> Results:
    """One report per trial of a Ray Tune experiment folder, one row per trial;
    or of every experiment in a folder of them (one per seed, say), with columns
    ``experiment`` (its name) and ``tuner`` (the name without a trailing seed
    number). An experiment of several whose every trial errored (before it
    reported, even: no result file in it) is its trials' failed rounds; only
    when no experiment reported `metric` is the folder refused.

    Parameters
    ----------
    folder : str or os.PathLike
        The experiment folder (``~/ray_results/NAME`` by default in Ray), holding
        one folder per trial with ``result.json`` or ``progress.csv``; or a folder
        of such experiment folders.
    metric : str
        The reported metric: it picks each trial's best report and is the score.
    mode : {"max", "min"}
        Whether a higher (``"max"``) or lower (``"min"``) `metric` is better.
        Needed: it picks the best report.
    per_trial : {"best", "last"}, default "best"
        Each trial's best report of `metric` (as Ray's ``scope="all"``), or its
        last report holding `metric` (Ray's ``scope="last"``).

    Returns
    -------
    evp.Results
        Its frame holds the chosen report of each trial (columns as the trial
        reported them, ``config/<name>`` per hyperparameter, ``state``), in trial
        order; the rest as the module describes.

    Raises
    ------
    FileNotFoundError
        `folder` does not exist.
    ValueError
        `mode` or `per_trial` missing or not one of the above; no trial folders;
        no trial reported `metric` (the message lists what they reported).
    """
    folder = Path(folder).expanduser()
    experiments = _experiments(folder)
    if not experiments:
        return _read_experiment(folder, metric=metric, mode=mode,
                                per_trial=per_trial)
    # An experiment whose every trial failed is its model's failed rounds,
    # counted like any other; only when no experiment reported the metric is
    # the metric wrong.
    read = [_read_experiment(e, metric=metric, mode=mode, per_trial=per_trial,
                             all_failed=True) for e in experiments]
    if all(r.frame[metric].isna().all() for r in read):
        _read_experiment(experiments[0], metric=metric, mode=mode,
                         per_trial=per_trial)  # raises, naming what was reported
    frames = [r.frame.assign(experiment=e.name, tuner=family(e.name))
              for r, e in zip(read, experiments, strict=True)]
    return Results(
        pd.concat(frames, ignore_index=True), score=metric, group="experiment",
        minimize=mode == "min", direction=f"Ray Tune's mode='{mode}'",
        notes=tuple(n for r in read for n in r.notes), tuner="ray tune",
        ordered=True, source=f"{len(read)} Ray Tune experiments in {folder.name!r}")


def _read_experiment(folder: Path, *, metric: str, mode: str | None,
                     per_trial: str, all_failed: bool = False) -> Results:
    """One experiment folder (see :func:`read_ray_tune`); one whose every trial
    failed is refused, naming what they reported, unless `all_failed`."""
    if mode is None:
        raise ValueError(f"mode: say whether a higher or lower {metric!r} is better: "
                         "mode='max' or mode='min'")
    mode = as_choice(mode, "mode", _MODES)
    per_trial = as_choice(per_trial, "per_trial", PER_TRIAL)
    folder = Path(folder).expanduser()
    if not folder.is_dir():
        raise FileNotFoundError(f"path_or_frame: no such folder {folder}")
    if any((folder / name).is_file() for name in _REPORTS):
        trials = [folder]
    else:
        # Every trial, one that errored before its first report included
        # (it has its config and its error, and no result.json).
        trials = [p for p in folder.iterdir() if _is_trial(p)]
    if not trials:
        raise ValueError(f"path_or_frame: {folder} holds no Ray Tune trial folders "
                         "(folders with result.json or progress.csv)")
    seen: set[str] = set()
    read = []
    for trial in trials:
        reports = _reports(trial)
        config = _flatten(_config(trial, reports), "config/")
        place = _trial_order(trial, reports)
        trial_id, _ = _trial_id(trial, reports)
        named = {"trial_id": trial_id} if trial_id is not None else {}
        if (trial / "error.txt").is_file() or (trial / "error.pkl").is_file():
            # A failed round, whatever it reported before it stopped.
            read.append(Trial({**named, "state": "ERROR", **config}, FAILED, "ERROR",
                              place))
            continue
        for report in reports:
            seen.update(report)
        values = np.array([number(r.get(metric)) for r in reports], dtype=float)
        finite = np.flatnonzero(np.isfinite(values))
        if finite.size == 0:
            # It never reported the metric: a failed round, like an error.
            read.append(Trial({**named, "state": "NO_REPORT", **config}, FAILED,
                              "NO_REPORT", place))
            continue
        if per_trial == "last":
            chosen = finite[-1]
        else:
            pick = np.nanargmax if mode == "max" else np.nanargmin
            chosen = int(pick(np.where(np.isfinite(values), values, np.nan)))
        report = {k: v for k, v in reports[chosen].items()
                  if k != "config" and not isinstance(v, dict)}
        read.append(Trial({**report, metric: values[chosen], "state": "TERMINATED",
                           **config}, COMPLETED, "TERMINATED", place))
    if all(t.fate == FAILED for t in read) and not all_failed:
        available = sorted(k for k in seen if k != "config")
        why = (f"no trial reported {metric!r}; they reported: "
               f"{', '.join(available)}" if seen
               else f"none of its {len(trials)} trial(s) reported anything usable")
        raise ValueError(f"metric: {why}")
    which = (f"each trial's {'highest' if mode == 'max' else 'lowest'} report"
             if per_trial == "best" else "each trial's last report")
    frame, note = trial_table(
        read, Objective(metric, mode == "min",
                        more=f", {which} (per_trial='{per_trial}', mode='{mode}')"),
        what=f"Ray Tune experiment {folder.name!r}", none_completed=all_failed,
        failed_means=": failed rounds (" + "; ".join(
            words for status, words in (
                ("ERROR", "ERROR: stopped with an error"),
                ("NO_REPORT", f"NO_REPORT: never reported {metric!r}"))
            if any(t.status == status for t in read)) + ")")
    return Results(frame, score=metric, minimize=mode == "min",
                   direction=f"Ray Tune's mode='{mode}'", notes=(note,),
                   tuner="ray tune", name=folder.name, ordered=True,
                   source=f"Ray Tune experiment {folder.name!r}")


def _optuna_reader_read(source, *, score=None, **options):
    return read_optuna(source, objective=score, **options)


def _ray_tune_reader_read(source, *, score=None, metric=None, **options):
    if metric is None and score is None:
        raise ValueError("metric: name the metric the Ray Tune trials reported, "
                         "e.g. metric='accuracy'")
    return read_ray_tune(source, metric=metric or score, **options)


#: The readers of Optuna studies and Ray Tune experiments, as the registry
#: lists them.
OPTUNA_READER = Reader(
    "optuna", "an Optuna study", is_optuna_source, _optuna_reader_read, OPTUNA_OPTIONS,
    Claim(EXTENSION, ("object", "url", "file"), SQLITE_SUFFIXES, cost=0),
    OPTUNA_KNOWS)
RAY_TUNE_READER = Reader(
    "ray tune", "a Ray Tune experiment", is_ray_tune_source, _ray_tune_reader_read,
    RAY_TUNE_OPTIONS, Claim(MARKER, ("folder",), cost=2), RAY_TUNE_KNOWS)
