r"""SMAC3's output folders: one row per configuration SMAC ran.

SMAC3 (2.x) writes each optimisation run to ``output_directory/<name>/<seed>/``;
:func:`read` takes that run folder (or its ``runhistory.json``), or the
``<name>`` folder holding one run folder per seed, and returns
:class:`evp.Results` for :func:`evp.read_results` to validate. Nothing in the
folders is written, locked or created, and SMAC need not be installed.

**What is read.**

``runhistory.json``
    ``data``: one record per trial (an object since SMAC 2.3; a list of
    ``config_id, instance, seed, budget, cost, time, status, starttime,
    endtime, additional_info`` in SMAC 2.0 to 2.2, without ``cpu_time``),
    in the order SMAC submitted the trials
    (SMAC enters a trial when it starts and updates it in place when it ends),
    with ``config_id``, ``instance``, ``seed`` (the trial's), ``budget``,
    ``cost`` (a number, or a list with one entry per objective), ``time`` and
    ``cpu_time`` (seconds), ``status``, and ``additional_info`` (a crashed
    trial's ``error``); ``configs`` (``config_id`` → the hyperparameters, one
    column ``hp_<name>`` each); ``config_origins`` (``config_id`` → how SMAC
    chose the configuration).
``scenario.json``
    ``name``, ``seed`` (the run's), ``objectives`` (the objective's name, or a
    list of names), ``min_budget``/``max_budget``, and ``_meta`` (the facade,
    initial design, intensifier, model and acquisition function SMAC used: the
    strategy).

``configspace.json``, ``intensifier.json``, ``optimization.json`` and anything
else are not opened.

**The score and its direction.**

SMAC minimizes ``cost``: the score is the cost, in a column named after
``scenario.json``'s objective (SMAC's default name is ``"cost"``), and lower is
better. With several objectives (``cost`` a list), ``score=`` names one of
them and the others become columns; without it, the read is refused, listing
them.

**Statuses.**

SMAC 2.x's ``StatusType`` is written as its number: ``0`` RUNNING, ``1``
SUCCESS, ``2`` CRASHED, ``3`` TIMEOUT, ``4`` MEMORYOUT. SUCCESS is a finished
trial (``state`` ``"completed"``). CRASHED (``state`` ``"crashed"``), TIMEOUT and
MEMORYOUT (``state`` ``"killed"``) are failed rounds: the score is missing
(whatever ``crash_cost`` SMAC recorded), for the ``failed=`` policy of
:func:`evp.read_results`; so is a SUCCESS without a finite cost (``state``
``"failed"``). RUNNING trials are left out and counted in the note; any other
number is refused. These numbers hold since SMAC 2.0.0; SMAC
1.x (trials as ``[key, value]`` lists, statuses by name) and the 2.0 alphas
(``_meta.version`` ``2.0.0a…``, where 2 was TIMEOUT and 3 CRASHED) are refused.

**One row per configuration.**

A round of search is a configuration. Where SMAC ran a configuration on several
seeds (``deterministic=False``: the intensifier runs each configuration up to
``max_config_calls`` times), its row's score is the mean cost over its trials,
as SMAC's own ``RunHistory.average_cost`` (column ``n_trials`` says how many;
the rejected challengers have fewer, so their means are noisier). A
configuration with a failed trial is a failed round. Where the configurations
ran on *instances* (the algorithm-configuration facade), a mean over some
instances is not comparable with a mean over others (an instance is a problem
of its own, with its own scale), and SMAC's intensifier races challengers on a
few instances only: such a run is read only when every configuration ran on the
same instances, and otherwise refused in one line.

**Budgets.**

Multi-fidelity runs (Hyperband, successive halving) run configurations at
several budgets and promote the best of one budget to the next: a promoted
configuration is the survivor of a race, not one round. Only the
configurations that ran at the highest budget (``max_budget``) and at no other
are read: those Hyperband's last bracket started at the full budget. The others
are left out and counted in the note; a run with none (successive halving
alone) is refused.

**Order.**

SMAC numbers configurations (``config_id`` 1, 2, …) as it first runs them, and
``data`` lists the trials in the order they were submitted: the rows are in
the order of each configuration's first trial in ``data``, which is
``config_id`` order (the order column), the order in which SMAC proposed the
configurations, and :func:`evp.read_results` tests them for exchangeability.
Where the ``config_id`` are not in that order (a run history merged or
edited), the order column is ``first_trial``, the position (from 1) of the
configuration's first trial in ``data``, and the note says so. SMAC is
adaptive: its model proposes configurations from the earlier ones; the note
counts, from
``config_origins``, the configurations of the initial design, those drawn at
random (``"Random Search"``: SMAC's interleaved random configurations) and
those the model proposed (``"Acquisition Function Maximizer: …"``).

**Several seeds.**

The ``<name>`` folder of several runs (one per seed) is read run by run, with
columns ``seed`` (each run's seed) and ``tuner`` (the run's name): each seed is
a model of its own (``group`` is ``seed``), never pooled into one search, which
would treat an adaptive tuner's runs as one random search. Read them as
repeated runs of one tuner with ``evp.read_results(path, runs="seed")``.
The ``output_directory`` above the names is not one search: give the
``<name>`` folder, or one run folder.

**Cost.**

``duration_seconds``: the configuration's trials' ``time`` summed (the target
function's wall-clock seconds, as SMAC measured it); ``cpu_seconds`` their
``cpu_time`` (absent before SMAC 2.3, which did not record it). A column of
the reader's own that an objective's name takes (an objective ``"error"``)
is written ``smac.<column>``.

Records checked: SMAC3 2.4.1 (ConfigSpace 1.2.2): the hyperparameter
optimization, random, multi-fidelity (Hyperband) and algorithm-configuration
facades, a non-deterministic run, two objectives, trials that raised; the
layouts of SMAC 2.0.0 to 2.2.0 and the status numbers of every release from
2.0.0 to 2.4.0 as SMAC3's source writes them (``RunHistory.save``,
``StatusType``).
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import pandas as pd

from evp.readers._knows import MARKER, Claim, Direction, Knows, Reader
from evp.readers._trials import COMPLETED, FAILED, Objective, Trial, trial_table
from evp.readers.files import json_record, natural, record_folder
from evp.readers.files import number as _number
from evp.results import Results

__all__ = ["STATUSES", "read", "sniff"]

#: SMAC 2.x's StatusType numbers, and the state each trial's row takes.
STATUSES = {0: "RUNNING", 1: "SUCCESS", 2: "CRASHED", 3: "TIMEOUT", 4: "MEMORYOUT"}
_STATE = {"SUCCESS": "completed", "CRASHED": "crashed", "TIMEOUT": "killed",
          "MEMORYOUT": "killed"}
_RECORDS = ("runhistory.json", "scenario.json")
#: The fields of a trial as SMAC 2.0 to 2.2 wrote it: a list, without cpu_time.
_FIELDS = ("config_id", "instance", "seed", "budget", "cost", "time", "status",
           "starttime", "endtime", "additional_info")


def _is_run(path: Path) -> bool:
    return all((path / name).is_file() for name in _RECORDS)


def _folder(source) -> Path | None:
    """The folder `source` names (the folder or its runhistory.json)."""
    return record_folder(source, "runhistory.json")

def _seed_runs(path: Path) -> list[Path]:
    """The run folders inside a ``<name>`` folder, in natural order."""
    return sorted((p for p in path.iterdir() if p.is_dir() and _is_run(p)),
                  key=lambda p: natural(p.name))


def sniff(source) -> bool:
    """Whether `source` is a SMAC3 run folder (``output_directory/<name>/<seed>``,
    holding ``runhistory.json`` and ``scenario.json``), its ``runhistory.json``,
    or a ``<name>`` folder of such run folders. Reads no file; never raises."""
    try:
        path = _folder(source)
        if path is None or not path.is_dir():
            return False
        return _is_run(path) or bool(_seed_runs(path))
    except (OSError, ValueError):
        return False


def _shown(path: Path, top: Path) -> str:
    try:
        return path.relative_to(top.parent).as_posix()
    except ValueError:
        return str(path)


def _load(path: Path, top: Path, what: str) -> dict:
    """A JSON object from `path`; one line naming the file when it is not one."""
    return json_record(path, _shown(path, top), what, "move its run folder away")

def _objectives(scenario: dict) -> list[str]:
    named = scenario.get("objectives", "cost")
    if isinstance(named, str):
        return [named]
    if isinstance(named, list) and named and all(isinstance(n, str) for n in named):
        return list(named)
    return ["cost"]


def _origin(text) -> str:
    """initial design, random, model or other, from a config_origins entry."""
    if not isinstance(text, str):
        return "other"
    lowered = text.lower()
    if lowered.startswith("initial design"):
        return "initial design"
    if lowered.startswith("acquisition function maximizer"):
        return "model"
    if lowered.startswith("random search"):
        return "random"
    return "other"


def _strategy(scenario: dict) -> str | None:
    meta = scenario.get("_meta")
    if not isinstance(meta, dict):
        return None

    def name(key):
        part = meta.get(key)
        return part.get("name") if isinstance(part, dict) else None

    facade = name("facade")
    parts = [p for p in (name("initial_design"), name("model"),
                         name("acquisition_function"), name("intensifier")) if p]
    random_design = meta.get("random_design")
    if isinstance(random_design, dict) and "probability" in random_design:
        parts.append(f"random configurations with probability "
                     f"{random_design['probability']}")
    version = meta.get("version")
    head = "SMAC3" + (f" {version}" if isinstance(version, str) else "")
    if facade:
        head += f", {facade}"
    return head + (f" ({', '.join(parts)})" if parts else "")


def _trials(history: dict, shown: str) -> list[dict]:
    data = history.get("data")
    if not isinstance(data, list):
        raise ValueError(f"path_or_frame: {shown} has no list 'data' of trials: "
                         "not a SMAC3 run history")
    trials = []
    for number, trial in enumerate(data, start=1):
        if isinstance(trial, list) and len(trial) == len(_FIELDS) and not any(
                isinstance(part, list) for part in trial[:4]):
            # SMAC 2.0 to 2.2 wrote each trial as a list of these fields.
            trial = dict(zip(_FIELDS, trial, strict=True))
        elif isinstance(trial, list):
            raise ValueError(f"path_or_frame: {shown} was written by SMAC 1.x or "
                             "older (trials as [key, value] lists); evp reads SMAC3 "
                             "2.x's run histories")
        if not isinstance(trial, dict) or isinstance(
                trial.get("config_id"), bool) or not isinstance(
                trial.get("config_id"), int):
            raise ValueError(f"path_or_frame: {shown}: trial {number} of 'data' has "
                             "no config_id: not a SMAC3 run history")
        status = trial.get("status")
        if isinstance(status, bool) or not isinstance(status, int) \
                or status not in STATUSES:
            raise ValueError(f"path_or_frame: {shown}: trial {number} has status "
                             f"{status!r}, not one of SMAC 2.x's "
                             f"({', '.join(f'{k} {v}' for k, v in STATUSES.items())})")
        odd = next((f for f in ("instance", "seed", "budget")
                    if isinstance(trial.get(f), list | dict)), None)
        if odd is not None:
            raise ValueError(f"path_or_frame: {shown}: trial {number} has {odd} "
                             f"{trial[odd]!r}, not a name or a number: not a SMAC3 "
                             "run history")
        trials.append(trial)
    return trials


def _read_run(run: Path, top: Path, score) -> dict:
    """One run folder: its rows and what the note says of them."""
    shown = _shown(run / "runhistory.json", top)
    scenario = _load(run / "scenario.json", top, "a SMAC3 scenario")
    history = _load(run / "runhistory.json", top, "a SMAC3 run history")
    meta = scenario.get("_meta")
    version = meta.get("version") if isinstance(meta, dict) else None
    if isinstance(version, str) and re.match(r"^(0|1)\.|^2\.0\.0a", version):
        # SMAC 2.0's alphas numbered the statuses otherwise (2 TIMEOUT, 3 CRASHED).
        raise ValueError(f"path_or_frame: {_shown(run / 'scenario.json', top)} was "
                         f"written by SMAC {version}, whose statuses are numbered "
                         "otherwise; evp reads SMAC3 2.0.0 and later")
    trials = _trials(history, shown)
    configs = history.get("configs")
    configs = configs if isinstance(configs, dict) else {}
    origins = history.get("config_origins")
    origins = origins if isinstance(origins, dict) else {}
    name = scenario.get("name") if isinstance(scenario.get("name"), str) else (
        run.parent.name)
    objectives = _objectives(scenario)
    if score is None:
        if len(objectives) > 1:
            raise ValueError(f"score: the SMAC3 run {name!r} has {len(objectives)} "
                             f"objectives ({', '.join(objectives)}); name one, e.g. "
                             f"score='{objectives[0]}'")
        column = objectives[0]
    elif str(score) not in objectives:
        raise ValueError(f"score: the SMAC3 run {name!r} has no objective "
                         f"{str(score)!r}; its objective"
                         f"{'s' if len(objectives) > 1 else ''}: "
                         f"{', '.join(objectives)}")
    else:
        column = str(score)
    index = objectives.index(column)

    running = [t for t in trials if STATUSES[t["status"]] == "RUNNING"]
    finished = [t for t in trials if STATUSES[t["status"]] != "RUNNING"]

    # Budgets: only configurations started at the highest budget.
    budgets = {_number(t.get("budget")) for t in trials
               if t.get("budget") is not None}
    promoted = 0
    top_budget = None
    if budgets:
        top_budget = _number(scenario.get("max_budget"))
        if math.isnan(top_budget):
            top_budget = max(budgets)
        by_config: dict = {}
        for t in trials:
            by_config.setdefault(t["config_id"], set()).add(_number(t.get("budget")))
        kept = {c for c, seen in by_config.items() if seen == {top_budget}}
        promoted = len(by_config) - len(kept)
        if not any(t["config_id"] in kept for t in finished):
            raise ValueError(
                f"path_or_frame: the SMAC3 run {name!r} ran its configurations at "
                f"budgets {', '.join(f'{b:g}' for b in sorted(budgets))} and none "
                f"started at the highest ({top_budget:g}): configurations promoted "
                "by successive halving are survivors of a race, not comparable "
                "rounds of one search; use Hyperband (its last bracket starts "
                "configurations at max_budget) or a single-fidelity facade")
        finished = [t for t in finished if t["config_id"] in kept]
        running = [t for t in running if t["config_id"] in kept]

    # Instances: the same ones for every configuration, or refused.
    instances: dict = {}
    for t in finished:
        instances.setdefault(t["config_id"], set()).add(t.get("instance"))
    every = set().union(*instances.values()) if instances else set()
    if every - {None}:
        sizes = sorted({len(s) for s in instances.values()})
        if len(sizes) > 1 or len({frozenset(s) for s in instances.values()}) > 1:
            listed = sorted(str(i) for i in every)
            raise ValueError(
                f"path_or_frame: SMAC3 ran the configurations of {name!r} on "
                f"different instances ("
                + (f"{sizes[0]} to {sizes[-1]}" if len(sizes) > 1
                   else f"each on {sizes[0]}")
                + f" of {len(listed)}: {', '.join(listed[:5])}"
                f"{', …' if len(listed) > 5 else ''}), so their mean costs are not "
                "comparable rounds (each instance has its own scale, and the "
                "intensifier races challengers on a few); evp reads runs whose "
                "configurations all ran on the same instances")

    rows = []
    first_trial = {}
    for number, t in enumerate(trials, start=1):
        first_trial.setdefault(t["config_id"], number)
    grouped: dict = {}
    for t in finished:
        grouped.setdefault(t["config_id"], []).append(t)
    for config_id, own in grouped.items():
        statuses = [STATUSES[t["status"]] for t in own]
        failed = [s for s in statuses if s != "SUCCESS"]
        costs = []
        for t in own:
            cost = t.get("cost")
            if isinstance(cost, list):
                if len(cost) != len(objectives):
                    raise ValueError(
                        f"path_or_frame: {shown}: configuration {config_id} has "
                        f"{len(cost)} costs, but scenario.json names "
                        f"{len(objectives)} objective(s) ({', '.join(objectives)})")
                costs.append([_number(c) for c in cost])
            else:
                costs.append([_number(cost)])
        if not failed and len(objectives) > 1 and any(len(c) == 1 for c in costs):
            raise ValueError(f"path_or_frame: {shown}: configuration {config_id} "
                             "has one cost, but scenario.json names "
                             f"{len(objectives)} objectives")
        means = None if failed else [sum(c[k] for c in costs) / len(costs)
                                     for k in range(len(costs[0]))]
        if failed:
            status, state = failed[0], _STATE[failed[0]]
            counted = status
        elif not math.isfinite(means[index]):
            # SMAC records a non-finite cost as CRASHED; a hand-made record may not.
            status, state, counted = "SUCCESS", "failed", "SUCCESS without a cost"
            means = None
        else:
            status, state, counted = "SUCCESS", "completed", "SUCCESS"
        row = {column: math.nan if means is None else means[index]}
        for k, other in enumerate(objectives):
            if other != column:
                row[other] = math.nan if means is None else means[k]
        own_columns = {"config_id": int(config_id), "state": state,
                       "status": status, "n_trials": len(own)}
        if top_budget is not None:
            own_columns["budget"] = top_budget
        own_columns["duration_seconds"] = sum(_number(t.get("time")) for t in own)
        own_columns["cpu_seconds"] = sum(_number(t.get("cpu_time")) for t in own)
        own_columns["origin"] = origins.get(str(config_id))
        errors = [t.get("additional_info", {}).get("error") for t in own
                  if STATUSES[t["status"]] != "SUCCESS"
                  and isinstance(t.get("additional_info"), dict)]
        own_columns["error"] = next((str(e) for e in errors if e), None)
        own_columns["first_trial"] = first_trial[config_id]
        # An objective named like one of these columns keeps its name.
        row.update({_own(key, objectives): value
                    for key, value in own_columns.items()})
        values = configs.get(str(config_id))
        for key, value in (values.items() if isinstance(values, dict) else ()):
            row[f"hp_{key}"] = value
        rows.append(Trial(row, COMPLETED if state == "completed" else FAILED,
                          counted, first_trial[config_id]))
    if not any(t.fate == COMPLETED for t in rows):
        tally = ", ".join(f"{k} {v}" for k, v in _tally(trials).items())
        raise ValueError(f"path_or_frame: the SMAC3 run {shown.rsplit('/', 1)[0]} "
                         "has no completed configuration ("
                         + (f"{len(trials)} trial(s): {tally})" if trials
                            else "no trials recorded yet)"))
    # The rows in the order of their first trial in data (SMAC's submission
    # order), in which SMAC numbers the configurations.
    what = f"the SMAC3 run {shown.rsplit('/', 1)[0]}"
    frame, note = trial_table(
        rows, Objective(column, True), what=what, noun="configurations",
        failed_means=": failed rounds (state 'crashed', 'killed' or 'failed')",
        details=_details(rows, objectives, len(finished), every - {None},
                         len(running), top_budget, promoted))
    cpu = _own("cpu_seconds", objectives)
    if frame[cpu].isna().all():
        frame = frame.drop(columns=cpu)  # SMAC before 2.3 recorded no cpu_time
    return {"frame": frame, "name": name, "seed": scenario.get("seed"),
            "column": column, "objectives": objectives,
            "said": note[len(what) + 2:], "strategy": _strategy(scenario)}


def _own(column: str, objectives: list[str]) -> str:
    """The name of a column of the reader's own: ``smac.<column>`` where an
    objective has that name."""
    return f"smac.{column}" if column in objectives else column


def _tally(trials) -> dict:
    counts: dict = {}
    for t in trials:
        status = STATUSES[t["status"]]
        counts[status] = counts.get(status, 0) + 1
    return counts


def _details(rows, objectives: list[str], trials: int, instances, running: int,
             top_budget, promoted: int) -> list[str]:
    """What the note says of a run besides the tally: trials averaged per
    configuration, running trials, budgets, and where configurations came
    from."""
    details = []
    if trials != len(rows):
        counts = [t.row[_own("n_trials", objectives)] for t in rows]
        details.append(
            f"{trials} trials: each configuration's score the mean cost over its "
            f"{min(counts)} to {max(counts)} trials (seeds"
            f"{' and instances' if instances else ''}), as SMAC averages them")
    if running:
        details.append(f"{running} RUNNING trial(s) left out")
    if top_budget is not None:
        details.append(
            f"multi-fidelity: only the configurations run at the highest budget "
            f"({top_budget:g}) alone are read; {promoted} configuration(s) run at "
            "lower budgets left out (promoted by successive halving, or stopped "
            "early: not comparable rounds)")
    kinds = pd.Series([_origin(t.row[_own("origin", objectives)]) for t in rows],
                      dtype=object).value_counts()
    details.append(f"config_origins: {kinds.get('initial design', 0)} from the "
                   f"initial design, {kinds.get('random', 0)} drawn at random, "
                   f"{kinds.get('model', 0)} proposed by the model"
                   + (f", {kinds.get('other')} other" if kinds.get("other", 0)
                      else ""))
    return details


def read(source, *, score=None) -> Results:
    """The configurations of a SMAC3 run (or of one run per seed), one row each.

    Parameters
    ----------
    source : str or os.PathLike
        A run folder (``output_directory/<name>/<seed>``) or its
        ``runhistory.json``; or the ``<name>`` folder holding one run folder per
        seed.
    score : str, optional
        The objective to read, when the run has several (``scenario.json``'s
        ``objectives``). Default: the one objective.

    Returns
    -------
    evp.Results
        Its frame: the score column (named after the objective), ``config_id``
        (the order SMAC ran the configurations in), ``state`` (``"completed"``,
        ``"crashed"`` or ``"killed"``), ``status`` (SMAC's), ``n_trials``, the
        other objectives, ``budget`` (multi-fidelity runs),
        ``duration_seconds``, ``cpu_seconds``, ``origin`` (``config_origins``),
        ``error`` (a crashed trial's), ``first_trial`` (only where the
        ``config_id`` are not in the order of ``data``) and ``hp_<name>`` per
        hyperparameter; for
        several seeds, ``seed`` and ``tuner`` first after the score, the runs in
        seed order. ``minimize`` is True (SMAC minimizes cost); ``tuner`` is
        ``"smac"``; one note says what was read and left out (see the module).

    Raises
    ------
    FileNotFoundError
        No such folder, or no SMAC run in it.
    ValueError
        A damaged record (the message names the file); an unknown status; no
        completed configuration; several objectives without `score`, or `score`
        naming none of them; configurations run on different instances; a
        multi-fidelity run without a configuration started at the highest
        budget; seeds whose objectives differ.
    """
    path = _folder(source)
    if path is None:
        raise TypeError(f"path_or_frame: a SMAC3 output folder is a path, got "
                        f"{type(source).__name__}")
    if not path.is_dir():
        raise FileNotFoundError(f"path_or_frame: no such folder {path}")
    try:
        runs = [path] if _is_run(path) else _seed_runs(path)
    except OSError as error:
        raise ValueError(f"path_or_frame: {path} cannot be listed "
                         f"({error.strerror or type(error).__name__})") from None
    if not runs:
        raise FileNotFoundError(
            f"path_or_frame: no SMAC3 run in {path} (a folder with "
            "runhistory.json and scenario.json): give output_directory/<name>/"
            "<seed>, or output_directory/<name> for all its seeds")
    top = path if len(runs) > 1 else runs[0].parent
    read_runs = [_read_run(run, top, score) for run in runs]
    first = read_runs[0]
    column = first["column"]
    if len({tuple(r["objectives"]) for r in read_runs}) > 1:
        shown = "; ".join(f"{run.name}: {', '.join(r['objectives'])}"
                          for run, r in zip(runs, read_runs, strict=True))
        raise ValueError(f"path_or_frame: the SMAC3 runs in {path.name} have "
                         f"different objectives ({shown}); read them one by one")
    name = first["name"]
    direction = (f"SMAC3 minimizes cost (scenario.json's objective {column!r})")
    ids, firsts = (_own("config_id", first["objectives"]),
                   _own("first_trial", first["objectives"]))
    if all(r["frame"][ids].is_monotonic_increasing for r in read_runs):
        order = ids
        order_note = ("rows in the order SMAC first ran each configuration "
                      "(config_id, as in runhistory.json's data)")
        for r in read_runs:
            r["frame"] = r["frame"].drop(columns=firsts)
    else:
        order = firsts
        order_note = ("rows in the order of each configuration's first trial in "
                      "runhistory.json's data (column first_trial; the config_ids "
                      "are not in that order: a merged or edited run history?)")
    strategy = first["strategy"]
    if len(read_runs) == 1:
        note = (f"SMAC3 run {name!r} (seed {first['seed']}): "
                f"{first['said']}; {order_note}")
        frame = first["frame"]
        return Results(frame, score=column, minimize=True, direction=direction,
                       notes=(note,), tuner="smac", name=name, ordered=True,
                       order=order, strategy=strategy,
                       source=f"SMAC3 run {_shown(runs[0], top)}")
    seeds = [r["seed"] if r["seed"] is not None else run.name
             for run, r in zip(runs, read_runs, strict=True)]
    if len(set(map(str, seeds))) != len(seeds):
        seeds = [run.name for run in runs]  # the folders' names are unique
    frames = []
    for r, seed in zip(read_runs, seeds, strict=True):
        part = r["frame"]
        part.insert(1, _own("seed", r["objectives"]), str(seed))
        part.insert(2, "tuner", r["name"])
        frames.append(part)
    strategies = {r["strategy"] for r in read_runs}
    note = (f"SMAC3 runs of {name!r}, {len(seeds)} seeds "
            f"({', '.join(map(str, seeds))}) in column 'seed': runs of one "
            "adaptive tuner, never pooled as one search: each seed is a model of "
            "its own unless read as repeated runs of the tuner (pass "
            "runs='seed'); "
            + "; ".join(f"seed {seed}: {r['said']}"
                        for r, seed in zip(read_runs, seeds, strict=True))
            + f"; {order_note}")
    return Results(pd.concat(frames, ignore_index=True), score=column,
                   group=_own("seed", first["objectives"]),
                   minimize=True, direction=direction, notes=(note,), tuner="smac",
                   name=name, ordered=True, order=order,
                   strategy=strategy if len(strategies) == 1 else None,
                   source=f"{len(seeds)} SMAC3 runs in {path.name!r}")


#: The reader of SMAC3 runs, as the registry lists it.
READER = Reader("smac", "a SMAC3 run", sniff, read,
                claim=Claim(MARKER, ("folder", "file"), (".json",), cost=1),
                knows=Knows(direction=Direction(other="assume"),
                            order="SMAC3's configuration ids", failed=("CRASHED",)))
