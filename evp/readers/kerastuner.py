r"""KerasTuner's project folders: one row per trial.

KerasTuner (``keras_tuner``) keeps a search in ``directory/project_name/``;
:func:`read` takes that folder (or its ``oracle.json``, or the ``directory``
when it holds one project) and returns :class:`evp.Results` for
:func:`evp.read_results` to validate. Nothing in the
folder is written, locked or created, and KerasTuner need not be installed.

**What is read.**

``oracle.json``
    The oracle's state: ``start_order`` (the trial ids in the order the trials
    were created), ``run_times`` (how often each trial ran: retries), and the
    fields that tell the oracle's kind (below). KerasTuner does not record the
    objective here (nor anywhere under its own name).
``trial_<id>/trial.json``, one per trial
    ``trial_id``; ``hyperparameters.values`` (one column
    ``hyperparameters.<name>`` each; Hyperband's own ``tuner/epochs``,
    ``tuner/bracket``, … keep their names); ``metrics.metrics.<name>`` with its
    ``direction`` and ``observations`` (``[{"value": [...], "step": n}]``, the
    values of one step averaged); ``score`` and ``best_step``; ``status``;
    ``message`` (a failed trial's traceback: its last line becomes the column
    ``message``).

Checkpoints, ``build_config.json``, ``tuner0.json`` (an empty state) and
anything else are not opened.

**The score and its direction.**

A trial's ``score`` is what the oracle made of its objective: its value at
the best epoch, averaged over the trial's executions (``executions_per_trial``:
KerasTuner 1.4 averages each execution's best epoch and records one value, so
the record does not say how many executions there were; KerasTuner 1.0 recorded
each execution's value at each epoch, and scored the best epoch of their mean).
The score column is the recorded ``score`` either way. Since KerasTuner does
not write the objective's name, the objective is the one metric whose best
recorded value equals every completed trial's score; its recorded
``direction`` (``"max"`` or ``"min"``) is the objective's own
(``"val_accuracy"`` → max, or the direction of a ``kt.Objective("name",
direction)``), and says which way is better. When two metrics are equal on
every trial, name the objective with ``score=``.

``score=`` naming another metric reads that metric at each trial's best step
(the epoch where the objective was best). KerasTuner guesses the direction of
such a metric from its name (and calls unknown names ``"min"``), so that
direction is not taken: :func:`evp.read_results` decides it (a loss-like name
needs ``minimize=``).

**Statuses.**

``COMPLETED``: a round (``state`` ``"completed"``). ``FAILED`` (every retry
failed) and ``INVALID`` (crashed or infeasible, a retry pending or the search
stopped): a failed round, its score missing and ``state`` ``"failed"``, for
the ``failed=`` policy of :func:`evp.read_results`. ``RUNNING``, ``IDLE``,
``STOPPED`` (and a record without a status): not finished, left out and
counted in the note.

**Order.**

KerasTuner numbers trials as it creates them (``trial_id`` ``"0"``, ``"1"``,
…, zero-padded): the column ``trial_number`` is that number, so the rows are
in the order the trials were created (a retried trial keeps its place), and
:func:`evp.read_results` tests them for exchangeability. Trial ids that are
not numbers (KerasTuner 1.0's hashes) are placed by ``oracle.json``'s
``start_order``; without it the order is unknown and said so.

**Strategy.**

``oracle.json`` does not name the oracle's class; its fields tell the kind:
``num_initial_points``, ``alpha``, ``beta`` are BayesianOptimization's;
``brackets``, ``max_epochs``, ``hyperband_iterations`` are Hyperband's; the
base fields alone are RandomSearch's or GridSearch's, which record the same
fields (the strategy says both).

Hyperband trains its trials for different numbers of epochs, and promotes the
best of one round to the next, so its trials are not comparable rounds of one
search. Only the trials of its last bracket (``tuner/bracket`` 0) are read:
configurations drawn at random and trained from scratch for ``max_epochs``,
exchangeable rounds of a random search at the full budget. The others are
left out and counted in the note; a search with none is refused.

**Cost.**

KerasTuner records no trial's duration (the display's start times are kept
only with ``verbose``, and no end time), so there is no cost column.

Records checked: keras-tuner 1.4.8 with Keras 3.15 (RandomSearch,
BayesianOptimization, Hyperband, a failed and an interrupted search).
"""

from __future__ import annotations

import math
import re
from pathlib import Path

from evp.readers import _trials
from evp.readers._knows import MARKER, Claim, Direction, Knows, Reader
from evp.readers.files import json_record, natural, number, record_folder
from evp.results import ASSUMED_DIRECTION, Results

__all__ = ["read", "sniff"]

#: KerasTuner's statuses and what each trial becomes.
COMPLETED = ("COMPLETED",)
FAILED = ("FAILED", "INVALID")
UNFINISHED = ("RUNNING", "IDLE", "STOPPED")

_BAYESIAN = ("num_initial_points", "alpha", "beta")
_HYPERBAND = ("brackets", "max_epochs", "hyperband_iterations")
_BASE = {"ongoing_trials", "hyperparameters", "start_order", "end_order",
         "run_times", "retry_queue", "seed", "seed_state", "tried_so_far",
         "id_to_hash", "display"}
_RESERVED = {"trial_number", "trial_id", "state", "status", "best_step", "message"}
_TRIAL_DIR = re.compile(r"^trial_(.+)$")


def _project(source) -> Path | None:
    """The folder `source` names (the folder or its oracle.json)."""
    return record_folder(source, "oracle.json")

def _is_project(path: Path) -> bool:
    """A folder holding ``oracle.json`` and a ``trial_*/trial.json`` or a
    ``tuner*.json`` (stats files, opens none)."""
    if not (path / "oracle.json").is_file():
        return False
    return (any(path.glob("tuner*.json"))
            or any((p / "trial.json").is_file() for p in path.glob("trial_*")))


def _projects(path: Path) -> list[Path]:
    """The KerasTuner projects inside `path`, the tuner's ``directory``."""
    if not path.is_dir() or (path / "oracle.json").exists():
        return []
    return sorted(p for p in path.iterdir() if p.is_dir() and _is_project(p))


def sniff(source) -> bool:
    """Whether `source` is a KerasTuner project folder (``directory/project_name``)
    or its ``oracle.json``: the folder holds ``oracle.json`` and a
    ``trial_*/trial.json`` or a ``tuner*.json``; or the tuner's ``directory``
    holding such folders (read when it holds one, else refused naming them).
    Reads no file; never raises."""
    try:
        path = _project(source)
        return path is not None and (_is_project(path) or bool(_projects(path)))
    except (OSError, ValueError):
        return False


def _load(path: Path, project: Path, what: str) -> dict:
    """A JSON object from `path`; one line naming the file when it is not one."""
    shown = path.relative_to(project.parent) if path.is_relative_to(
        project.parent) else path
    return json_record(path, str(shown), what,
                       "move its trial folder out of the project")

def _histories(record: dict, shown: str) -> dict:
    """{metric: (direction, [(step, mean of the step's values)])} of a trial."""
    metrics = record.get("metrics")
    metrics = metrics.get("metrics", {}) if isinstance(metrics, dict) else None
    if not isinstance(metrics, dict):
        raise ValueError(f"path_or_frame: {shown} has no metrics.metrics: not a "
                         "KerasTuner trial record")
    out = {}
    for name, history in metrics.items():
        if not isinstance(history, dict):
            continue
        steps = []
        for observation in history.get("observations") or []:
            if not isinstance(observation, dict):
                continue
            values = observation.get("value")
            values = values if isinstance(values, list) else [values]
            numbers = [number(v) for v in values]
            numbers = [v for v in numbers if not math.isnan(v)]
            steps.append((observation.get("step"),
                          sum(numbers) / len(numbers) if numbers else math.nan))
        out[str(name)] = (history.get("direction"), steps)
    return out


def _best(direction, steps) -> float:
    values = [v for _, v in steps if not math.isnan(v)]
    if not values or direction not in ("min", "max"):
        return math.nan
    return min(values) if direction == "min" else max(values)


def _at(steps, step) -> float:
    """The metric's value at `step` (NaN when not recorded there)."""
    return next((v for s, v in steps if s == step), math.nan)


def _same(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def _strategy(oracle: dict, hyperband: bool) -> str:
    if hyperband:
        epochs = oracle.get("max_epochs", "?")
        return (f"KerasTuner, Hyperband (its last bracket only: random "
                f"configurations trained for max_epochs={epochs})")
    if all(key in oracle for key in _BAYESIAN):
        return (f"KerasTuner, BayesianOptimization (num_initial_points="
                f"{oracle['num_initial_points']})")
    extra = sorted(set(oracle) - _BASE)
    if extra:
        return f"KerasTuner, an oracle recording {', '.join(extra[:4])}"
    return ("KerasTuner, RandomSearch or GridSearch (oracle.json records the "
            "same fields for both)")


def _message(record: dict) -> str | None:
    """A failed trial's error: the last line of its traceback."""
    text = record.get("message")
    if not isinstance(text, str) or not text.strip():
        return None
    return text.strip().splitlines()[-1].strip()


def read(source, *, score=None) -> Results:
    """The finished trials of a KerasTuner project folder, one row per trial.

    Parameters
    ----------
    source : str or os.PathLike
        The project folder (``directory/project_name`` of the tuner), or its
        ``oracle.json``, or the tuner's ``directory`` when it holds one
        project (several are refused, naming them).
    score : str, optional
        The metric to read. Default: the oracle's objective (the metric whose
        best value is every completed trial's ``score``). Another metric is read
        at each trial's best step, its direction left to
        :func:`evp.read_results`.

    Returns
    -------
    evp.Results
        Its frame: the score column (named after the metric), ``trial_number``
        (the order of creation), ``trial_id``, ``state`` (``"completed"`` or
        ``"failed"``), ``status`` (KerasTuner's), ``best_step``, every other
        recorded metric at the best step, ``hyperparameters.<name>`` per
        hyperparameter, and ``message`` (a failed trial's error), in trial order.
        ``minimize`` and ``direction`` are the objective's; ``tuner`` is
        ``"keras tuner"``, ``name`` the project's name; one note says what was
        read and left out (see the module).

    Raises
    ------
    FileNotFoundError
        No such folder, or no ``oracle.json`` in it.
    ValueError
        A ``directory`` holding several projects; a damaged record (the
        message names the file); no completed trial; an objective that cannot
        be told; `score` naming no recorded metric; a Hyperband search without
        a trial of its last bracket.
    """
    project = _project(source)
    if project is None:
        raise TypeError(f"path_or_frame: a KerasTuner project folder is a path, "
                        f"got {type(source).__name__}")
    if project.is_file():
        raise ValueError(f"path_or_frame: {project.name} is a file; give the "
                         "KerasTuner project folder (directory/project_name) or "
                         "its oracle.json")
    if not project.is_dir():
        raise FileNotFoundError(f"path_or_frame: no such folder {project}")
    inside = _projects(project)
    if len(inside) > 1:
        shown = ", ".join(p.name for p in inside[:6]) + (
            ", …" if len(inside) > 6 else "")
        raise ValueError(f"path_or_frame: {project.name or project} holds "
                         f"{len(inside)} KerasTuner projects ({shown}): give one "
                         f"project's folder, or several as {{name: folder}}")
    if inside:
        project = inside[0]  # the tuner's directory, holding one project
    if not (project / "oracle.json").is_file():
        raise FileNotFoundError(f"path_or_frame: no oracle.json in {project}: give "
                                "the KerasTuner project folder (directory/"
                                "project_name)")
    name = project.resolve().name or str(project)
    oracle = _load(project / "oracle.json", project, "the oracle's state")
    try:
        folders = sorted(project.iterdir())
    except OSError as error:
        raise ValueError(f"path_or_frame: the folder {name} cannot be listed "
                         f"({error.strerror or type(error).__name__})") from None
    records, unrecorded = [], []
    for folder in folders:
        match = _TRIAL_DIR.match(folder.name)
        if not (match and folder.is_dir()):
            continue
        if not (folder / "trial.json").is_file():
            # A trial created but never recorded (the search stopped while it
            # ran), or a record lost: said in the note, never left out unsaid.
            unrecorded.append(folder.name)
            continue
        shown = f"{name}/{folder.name}/trial.json"
        record = _load(folder / "trial.json", project, "a KerasTuner trial record")
        trial_id = record.get("trial_id")
        trial_id = str(trial_id) if trial_id is not None else match.group(1)
        values = record.get("hyperparameters", {})
        values = values.get("values", {}) if isinstance(values, dict) else {}
        records.append({"id": trial_id, "record": record, "shown": shown,
                        "status": record.get("status"),
                        "values": values if isinstance(values, dict) else {},
                        "metrics": _histories(record, shown)})
    if not records:
        raise ValueError(f"path_or_frame: {name} holds no trial_*/trial.json: the "
                         "search has not run a trial")

    # Hyperband: only its last bracket's trials are comparable rounds.
    hyperband = (all(key in oracle for key in _HYPERBAND)
                 or any("tuner/bracket" in r["values"] for r in records))
    other_brackets = 0
    if hyperband:
        kept = [r for r in records if r["values"].get("tuner/bracket") == 0
                and r["values"].get("tuner/round", 0) == 0]
        other_brackets = len(records) - len(kept)
        if not any(r["status"] in COMPLETED + FAILED for r in kept):
            raise ValueError(
                f"path_or_frame: {name} is a Hyperband search without a finished "
                f"trial of its last bracket (tuner/bracket 0, trained for "
                f"max_epochs); its {len(records)} trials ran for different numbers "
                "of epochs, and are not comparable rounds of one search: rerun "
                "with RandomSearch, or let Hyperband finish its last bracket")
        records = kept

    finished = [r for r in records if r["status"] in COMPLETED + FAILED]
    completed = [r for r in finished if r["status"] in COMPLETED
                 and not math.isnan(number(r["record"].get("score")))]
    if not completed:
        raise ValueError(f"path_or_frame: {name} has no completed trial with a "
                         f"score ({len(records)} trial(s): "
                         + ", ".join(f"{k} {v}" for k, v in _counts(records).items())
                         + ")")

    metrics = sorted({m for r in completed for m in r["metrics"]})
    if score is not None and str(score) not in metrics:
        raise ValueError(f"score: no metric {str(score)!r} in the KerasTuner trials "
                         f"of {name}; their metrics: {', '.join(metrics)}")
    objective = _objective(completed, score, name)
    column = objective if score is None else str(score)
    direction = None
    if objective is not None:
        directions = {r["metrics"][objective][0] for r in completed
                      if objective in r["metrics"]}
        if directions - {"min", "max"} or len(directions) != 1:
            raise ValueError(
                f"path_or_frame: the trials of {name} record the objective "
                f"{objective!r} with directions {sorted(map(str, directions))}; "
                "say which way is better with minimize=")
        direction = directions.pop()

    # The order the trials were created in.
    start = oracle.get("start_order")
    start = [str(t) for t in start] if isinstance(start, list) else []
    if all(r["id"].isdigit() for r in records):
        numbers = {r["id"]: int(r["id"]) for r in records}
        where = "their trial ids, numbered as KerasTuner created them"
    elif all(r["id"] in start for r in records):
        numbers = {r["id"]: start.index(r["id"]) for r in records}
        where = "oracle.json's start_order"
    else:
        numbers, where = None, None

    def trial(r) -> _trials.Trial:
        record, metrics, ok = r["record"], r["metrics"], r in completed
        best_step = record.get("best_step") if ok else None
        row = {"trial_number": numbers[r["id"]]} if numbers else {}
        row.update(trial_id=r["id"], state="completed" if ok else "failed",
                   status=r["status"], best_step=best_step)
        for metric, (_, steps) in metrics.items():
            key = f"metrics.{metric}" if metric in _RESERVED else metric
            row[key] = _at(steps, best_step) if ok else math.nan
        if ok and objective is not None:
            row[objective] = number(record.get("score"))
        if ok and column != objective:
            row[column] = _at(metrics.get(column, (None, []))[1], best_step)
        for key, value in r["values"].items():
            key = str(key)
            row[key if key.startswith("tuner/") else f"hyperparameters.{key}"] = value
        row["message"] = None if ok else _message(record)
        fate = (_trials.COMPLETED if ok else _trials.FAILED if r in finished
                else _trials.UNFINISHED)
        status = str(r["status"]) if r["status"] is not None else None
        return _trials.Trial(row, fate, status, numbers[r["id"]] if numbers else None)

    minimize = direction == "min"
    if objective is None:
        about = _trials.Objective(
            column, label="score", words="not the objective: no recorded metric "
            "equals the trials' scores; each trial's value at its best step")
    else:
        about = _trials.Objective(column, minimize, name=objective, more=(
            ", each trial's score the oracle's: the objective at the best epoch, "
            "averaged over the trial's executions" + (
                f"; score {column!r}, not the objective: each trial's value at "
                "the objective's best step" if column != objective else "")))
    runs = oracle.get("run_times")
    retried = (sum(1 for r in finished if isinstance(runs, dict)
                   and number(runs.get(r["id"])) > 1) if runs else 0)
    shown = ", ".join(sorted(unrecorded, key=natural)[:5]) + (
        ", …" if len(unrecorded) > 5 else "")
    frame, note = _trials.trial_table(
        map(trial, records), about, what=f"KerasTuner project {name!r}",
        order="trial_number", failed_means=": failed rounds (state 'failed')",
        details=(
            retried and f"{retried} trial(s) ran more than once (retries)",
            unrecorded and (
                f"{len(unrecorded)} trial folder(s) without a trial.json not read "
                f"({shown}): created but never recorded, as when the search "
                "stopped while they ran, or their records lost"),
            other_brackets and (
                f"Hyperband: only its last bracket's {len(records)} trial(s) read "
                f"(random configurations trained for max_epochs); "
                f"{other_brackets} trial(s) of its other brackets left out (fewer "
                "epochs, or promoted by successive halving: not comparable "
                "rounds)"),
            f"trials in the order they were created ({where})" if numbers
            else "the order the trials ran is not recorded"))
    if frame["best_step"].isna().all():
        frame = frame.drop(columns="best_step")
    if column == objective and objective is not None:
        said = (f"the KerasTuner objective's direction ({direction}), as the trials "
                f"record it for {objective!r}")
        minimized = minimize
    else:
        said, minimized = ASSUMED_DIRECTION, False
    return Results(frame, score=column, minimize=minimized, direction=said,
                   notes=(note,), tuner="keras tuner", name=name,
                   ordered=numbers is not None,
                   order="trial_number" if numbers else None,
                   strategy=_strategy(oracle, hyperband),
                   source=f"KerasTuner project {name!r}")


def _counts(records) -> dict:
    counts: dict = {}
    for r in records:
        status = str(r["status"]) if r["status"] is not None else "no status"
        counts[status] = counts.get(status, 0) + 1
    return counts


def _objective(completed: list, score, name: str) -> str | None:
    """The metric whose best recorded value is every completed trial's score;
    None when none is and `score` names the metric to read instead."""
    candidates = None
    for r in completed:
        value = number(r["record"].get("score"))
        matching = {metric for metric, (direction, steps) in r["metrics"].items()
                    if _same(_best(direction, steps), value)}
        candidates = matching if candidates is None else candidates & matching
    candidates = sorted(candidates or ())
    if len(candidates) == 1:
        return candidates[0]
    if score is not None and (str(score) in candidates or not candidates):
        # The named metric is read; with no metric equal to the scores, the
        # objective is unknown (None) and so is the direction.
        return str(score) if candidates else None
    if candidates:
        raise ValueError(f"score: KerasTuner does not record the objective's name, "
                         f"and {', '.join(map(repr, candidates))} each equal every "
                         f"trial's score in {name}: name the objective, e.g. "
                         f"score={candidates[0]!r}")
    raise ValueError(f"path_or_frame: no metric recorded by the trials of {name} "
                     "equals their scores, so the objective and its direction are "
                     "not known (a custom Oracle.score_trial?): name a metric with "
                     "score= and say its direction with minimize=")


#: The reader of KerasTuner projects, as the registry lists it.
READER = Reader("keras tuner", "a KerasTuner project", sniff, read,
                claim=Claim(MARKER, ("folder", "file"), (".json",), cost=1),
                knows=Knows(direction=Direction(other="assume"),
                            order="KerasTuner's trial ids", failed=("FAILED",)))
