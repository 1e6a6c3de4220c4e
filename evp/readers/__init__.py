r"""Readers: where search results live, read into one :class:`evp.Results`.

The readers are small objects in one list (:mod:`evp.readers.registry`), each
a ``sniff`` and a ``read``; :func:`read_results` picks one there, and checks
what it read here, once.

* :func:`read_results` — the one entry point: users' files
  (:mod:`evp.readers.files`: delimited text, JSON Lines, Parquet, folders of
  ``evp search`` trials), DataFrames, and the records of the tuners that ran the
  search (:mod:`evp.readers.tuners`: Optuna studies, Ray Tune experiments;
  :mod:`evp.readers.kerastuner`; :mod:`evp.readers.smac`) and
  the tools that tracked it (:mod:`evp.readers.sklearn`: scikit-learn's
  searches; :mod:`evp.readers.mlflow`: MLflow runs; :mod:`evp.readers.wandb`:
  W&B's runs table). It checks the roles' columns once, here, and says what it
  left out.
* :func:`load_search` — what ``evp search`` writes.

The paper's own data (sources, checksums, the mirror) are the registry of
:mod:`evp.datasets`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from evp._columns import FAILED_STATES
from evp._validation import as_choice
from evp.readers import _policy as policy
from evp.readers import _roles, sklearn
from evp.readers._options import document
from evp.readers._policy import LOSS_WORDS, POOLED_MODELS, looks_like_loss
from evp.readers.files import Columns, load_search
from evp.readers.registry import (
    READERS,
    READERS_GROUP,
    option_flags,
    plugin_readers,
    read_source,
)
from evp.results import FAILURES, Results

__all__ = ["FAILED_STATES", "LOSS_WORDS", "POOLED_MODELS", "READERS_GROUP",
           "load_search", "looks_like_loss", "plugin_readers", "read_results"]

# What readers that resolve the score's name themselves (a scorer's, a
# metric's) call themselves: Results they made, read again, keep that score.
_NAMING = {r.name for r in READERS if r.names_score}


def read_results(path_or_frame, *, score=None, group=None, cost=None, order=None,
                 runs=None, task=None, failed: str = "error",
                 drop_bad_rows: bool = False, minimize: bool | None = None,
                 bounds=None, reader: str | None = None, **options) -> Results:
    """Read search results into validated :class:`evp.Results`.

    What reaches the statistics must be what you meant, so three things are
    settled here, once, and said in the notes: which way is better, what
    happened to failed rounds, and whether the trials look like random search.

    Parameters
    ----------
    path_or_frame : str, os.PathLike, pandas.DataFrame, evp.Results or dict
        A file with one row per search round and a header — delimited text
        (``.csv``, ``.tsv``, ``.tab``, ``.txt``: the delimiter and a decimal comma
        are sniffed, see `sep` and `decimal`), JSON Lines (``.jsonl``,
        ``.ndjson``; one object per line; nested objects become ``outer.inner``
        columns), optionally compressed (``.gz``, ``.bz2``, ``.xz``, ``.zst``,
        ``.zip``), or Parquet (``.parquet``, ``.pq``; needs pyarrow, the
        ``parquet`` extra); a folder of ``evp search`` trials (see
        :func:`load_search`); a DataFrame with the same content; or Results
        another reader returned (their notes, strategy and direction are kept).
        A relative path is relative to the current folder. Also, straight from
        the tuner that ran the search (:mod:`evp.readers.tuners`; Optuna needs the
        ``tuners`` extra): an Optuna study, its storage URL
        (``sqlite:///study.db``) or SQLite file (``.db``, ``.sqlite``,
        ``.sqlite3``), one row per finished trial; or a Ray Tune experiment
        folder, one report per trial; a KerasTuner project folder
        (:mod:`evp.readers.kerastuner`, one row per trial); or a SMAC3 run folder
        (:mod:`evp.readers.smac`, one row per configuration). From the tools that
        tracked it: a fitted
        scikit-learn search (``RandomizedSearchCV``, ``GridSearchCV``, the
        halving searches), its ``cv_results_`` dict, or that as a DataFrame or
        CSV file (:mod:`evp.readers.sklearn`; one row per candidate; a pickle
        file is never loaded); an MLflow tracking URI (``sqlite:///mlflow.db``,
        ``http://…``), ``mlruns`` folder or SQLite file, one row per run of
        `experiment` (:mod:`evp.readers.mlflow`; needs the ``mlflow`` extra);
        or a W&B runs table, the CSV the W&B app exports or the public API's
        DataFrame (:mod:`evp.readers.wandb`; one row per run).
        Several searches in one call: ``{"logreg": search_1, "svc": search_2}``
        (fitted scikit-learn searches, Optuna studies, DataFrames, paths, each
        holding one model), read one by one with the same options, each a model
        named by its key (column ``model``); their scores must share a column
        name and a direction. A single fitted search is named after its
        estimator (``LogisticRegression``).
    score : str
        Column holding each round's validation score. Optional for a tuner's
        results: an Optuna study's one objective (``value``), or a Ray Tune
        experiment's `metric`. For a scikit-learn search, the scorer
        (``"accuracy"`` reads ``mean_test_accuracy``; default the one scorer);
        for MLflow, the metric (``"metrics.val_acc"`` or ``"val_acc"``); for a
        W&B table of the API's shape, ``"summary.val_acc"`` or ``"val_acc"``.
    group : str, optional
        Column naming the model, configuration or condition a round belongs to.
        Several Optuna studies are grouped by their name (column ``study``).
    cost : str, optional
        Column holding each round's cost (e.g. training seconds); non-negative.
    order : str, optional
        Column giving each round's place in the search (a trial number). Default:
        a column named ``trial``, ``number``, ``iteration``, ``step``, … when
        there is one; a tuner's trials are in order already. With the order
        known, each model's trials are tested for exchangeability (see below).
    runs : str, optional
        Column naming each round's run: repeated, independent runs of a tuner
        (its seeds), each a search whose trials are in `order` (default: a
        column found by name, else the file's order, said in a note). The
        curves are then the tuner's best so far (:mod:`evp.anytime`), which
        assume nothing of the trials within a run, so they are not tested for
        exchangeability. Several Optuna studies or Ray Tune experiments read as
        runs with ``runs="study"`` or ``runs="experiment"``; their models are
        then the names without a trailing seed number (column ``tuner``).
    task : str, optional
        Column naming each round's task (data set, benchmark problem), when the
        same models were searched on several tasks: each task's rounds are then
        a study of their own (``Results.by_task``), tested for exchangeability
        task by task, and the many-task views (:mod:`evp.ranking`) compare the
        models across them. A folder of ``evp search`` trials with one
        subfolder per task sets it (column ``task``); several Optuna studies,
        one per task, are read with ``task="study"`` and the model's column as
        `group` (a parameter, ``params_model``).
    failed : {"error", "drop", "worst"}, default "error"
        Failed rounds: rows whose score is missing, non-numeric or infinite, and
        rows that a ``state`` or ``status`` column marks crashed, failed or killed
        (W&B, MLflow, Ray Tune, Optuna's failed trials), even where they logged a
        score. ``"error"`` refuses them, listing the rows. ``"drop"`` leaves them
        out, listing them in a warning and ``.dropped``; the curves then describe
        the rounds that finished, optimistic if failing is a real outcome of the
        search. ``"worst"`` keeps each as a round worse than every score (its
        score becomes ``-inf``, ``+inf`` for a loss; rows in ``.failed``): medians,
        quantiles and their bands stay exact, while the expected best score needs
        a floor (bounds) for them. Other bad rows (a missing model name, a
        missing or negative cost) are refused, or dropped with ``"drop"``.
    drop_bad_rows : bool, default False
        The old name of ``failed="drop"``.
    minimize : bool, optional
        The score is a loss (lower is better), or not (False). Default: what the
        tuner says of its objective; else higher is better, said in a note, but
        a score whose name says loss (:func:`looks_like_loss`: ``val_loss``,
        ``error_rate``, ``perplexity``, …) is refused until you say. A value that
        contradicts the tuner is an error.
    bounds : (float, float), optional
        The score's possible range, e.g. ``(0, 1)`` for an accuracy: every
        score must lie inside it (else an error), failed rounds kept under
        ``failed="worst"`` count at its lower end (upper for a loss) in the
        expected best score, and the tail fits know it (``.limits``). Default:
        unbounded, or what the reader knows.
    reader : str or Reader, optional
        The reader to read `path_or_frame` with, by its name (``"optuna"``,
        ``"ray tune"``, ``"mlflow"``, ``"wandb"``, ``"file"``, a plug-in's
        name; :data:`evp.readers.registry.READERS`) or itself, as pandas'
        ``engine=``: no other reader is asked. Default: the first reader that claims it.
    **options
        The readers' own options (each reader's :attr:`~evp.readers.registry.
        Reader.options`, a plug-in's included): the one that reads is given
        its own, and an option of another kind of source is refused. evp's,
        as each reader declares them:
{options}
    Returns
    -------
    evp.Results
        A fresh frame (new index, bad rows dropped if asked) under the user's own
        column names: the score (float), the group (str) and the cost (float)
        columns converted, every other column as read. ``.score``, ``.group``,
        ``.cost`` and ``.order`` name the columns; ``.minimize`` and
        ``.direction`` say which way is better and who said so; ``.failed``,
        ``.dropped`` and ``.failures`` what became of failed rounds; from a
        tuner, ``.tuner`` and ``.name`` (the study or experiment). With the
        trial order known (a tool's record: Optuna's trial numbers, the order
        scikit-learn drew its candidates, MLflow's start times, W&B's creation
        times), ``.exchangeability`` holds each model's p-value of
        :func:`evp.exchangeability_test`, ``.notes`` report them, and
        ``.warnings`` says which models' trials look adaptive (p < 0.05): the
        curves and bands assume independent draws (random search). Without
        `group`, ``.warnings`` also names a column that looks like it names
        models (:func:`evp._columns.model_columns`; their rounds pooled as one
        model's, which ``evp curve`` refuses without ``--pool``) or tasks.

    Raises
    ------
    ValueError
        A named column is missing (the message lists the available columns); a
        failed round or a bad row under ``failed="error"`` (the message names the
        column and lists the offending rows, counting the first data row, after
        the header, as row 1); every row is bad; a loss-like score name without
        `minimize`; or the file extension is not one of the above.
    ImportError
        A Parquet file without pyarrow installed, an Optuna study without
        optuna (the ``tuners`` extra), or an MLflow store without mlflow (the
        ``mlflow`` extra).
    TypeError
        `path_or_frame` is neither a path, a DataFrame nor Results.
    FileNotFoundError
        The file does not exist.

    Examples
    --------
    >>> import pandas as pd
    >>> from evp import read_results
    >>> runs = pd.DataFrame({"acc": [0.81, 0.84], "lr": [1e-5, 3e-5]})
    >>> results = read_results(runs, score="acc")
    >>> results.score, results.frame.columns.tolist()
    ('acc', ['acc', 'lr'])
    """
    if _is_several(path_or_frame):
        return _read_several(
            path_or_frame, score=score, cost=cost, order=order, runs=runs,
            task=task, failed=failed, drop_bad_rows=drop_bad_rows,
            minimize=minimize, group=group, bounds=bounds, reader=reader,
            **options)
    failed = as_choice(failed, "failed", FAILURES)
    if drop_bad_rows:
        if failed == "worst":
            raise ValueError("drop_bad_rows=True and failed='worst' contradict each "
                             "other: pass failed only")
        failed = "drop"
    user = {"score": score, "group": group, "cost": cost, "order": order,
            "runs": runs, "task": task}
    reader, base, frame, origin = read_source(
        path_or_frame, score=score, reader=reader,
        columns=Columns(score, group, cost, order, runs, task,
                        names=(group, task, runs)), **options)
    roles, name = _roles.reconcile(
        user, base, frame, _roles.kind(base, reader.names_score, _NAMING))
    score, group, order = roles["score"], roles["group"], roles["order"]
    roles = {role: column for role, column in roles.items() if column is not None}
    policy.check_columns(frame, roles)
    minimize, direction, notes = policy.direction(base, score, minimize,
                                                  reader.knows, options)
    frame, repeated = policy.repeated_trials(frame, base, roles)
    labels = policy.file_rows(base, frame, reader.knows)
    policy.beyond_range(frame, roles, labels)
    frame, more = policy.formats(frame.reset_index(drop=True), roles, labels)
    frame, kept_failed, dropped, most = policy.failed_rounds(
        frame, roles, failed, minimize, labels,
        policy.trial_names(base, frame, reader.knows), bounds=bounds)
    frame, named = policy.normal_names(frame, roles)
    most += named
    frame = policy.as_read(frame, roles, kept_failed, minimize)
    bounds = policy.check_bounds(frame, score, bounds)
    ordered = base is not None and base.ordered
    if order is None and not ordered and (base is None or base.tuner is None):
        # A tool's record says its order, or that it has none (a grid, a table
        # without times): a column such as W&B's _step is not a trial number.
        order = policy.order_column(frame, exclude=set(roles.values()))
    if runs is not None:
        most.append(policy.runs_note(frame, runs, group, order, ordered))
    results = Results(
        frame, score=score, group=group, cost=cost, order=order, ordered=ordered,
        runs=runs, task=roles.get("task"), minimize=minimize, direction=direction,
        notes=(base.notes if base is not None else ()) + (*notes, *more, *most),
        warnings=(base.warnings if base is not None else ()) + repeated,
        strategy=base.strategy if base is not None else None,
        failed=tuple(int(i) + 1 for i in kept_failed), failures=failed,
        dropped=tuple(dropped), source=origin,
        tuner=base.tuner if base is not None else None, name=name,
        **({"limits": bounds} if bounds is not None else {}))
    return policy.exchangeability(policy.disjoint_tasks(
        policy.pooled_models(policy.pooled_tasks(results))))


read_results.__doc__ = read_results.__doc__.replace(
    "{options}\n", document(option_flags(), indent=4) + "\n")


def _is_several(source) -> bool:
    """{name: source} with one search per name (not a cv_results_ dict)."""
    return (isinstance(source, dict) and bool(source)
            and not sklearn.is_cv_results(source)
            and all(isinstance(k, str) for k in source)
            and not any(isinstance(v, list | tuple | np.ndarray) for v in
                        source.values()))


def _read_several(sources: dict, *, group, **options) -> Results:
    """Several searches, one model each, as one Results: each read as
    read_results reads it, named by its key (column ``model``)."""
    if group is not None:
        raise ValueError("group: several searches are one model each, named by "
                         "their keys; leave group out")
    parts = {}
    for name, source in sources.items():
        try:
            part = read_results(source, **options)
        except (ValueError, TypeError, FileNotFoundError) as error:
            raise type(error)(f"path_or_frame[{name!r}]: {error}") from None
        if len(part.models) != 1:
            raise ValueError(
                f"path_or_frame[{name!r}] holds {len(part.models)} models "
                f"({', '.join(part.models[:4])}): give one search per name")
        parts[name] = part
    first = next(iter(parts.values()))
    for label, values in (("score", {p.score for p in parts.values()}),
                          ("minimize", {p.minimize for p in parts.values()})):
        if len(values) > 1:
            shown = ", ".join(f"{n}: {getattr(p, label)!r}" for n, p in parts.items())
            raise ValueError(f"{label}: the searches differ ({shown}); name one "
                             f"{'score' if label == 'score' else 'direction'} that "
                             "holds for all of them")
    column = "model"
    while any(column in p.frame for p in parts.values()):
        column = f"_{column}"
    frames, failed, offset = [], [], 0
    for name, part in parts.items():
        frames.append(part.frame.assign(**{column: name}))
        failed += [offset + row for row in part.failed]
        offset += len(part.frame)
    frame = pd.concat(frames, ignore_index=True)

    def same(role):
        values = {getattr(p, role) for p in parts.values()}
        return values.pop() if len(values) == 1 else None

    notes = tuple(f"{name}: {note}" for name, p in parts.items() for note in p.notes)
    warned = tuple(f"{name}: {w}" for name, p in parts.items() for w in p.warnings)
    return Results(
        frame, score=first.score, group=column, cost=same("cost"),
        order=same("order"), ordered=all(p.ordered for p in parts.values()),
        minimize=first.minimize, direction=first.direction, notes=notes,
        warnings=warned, strategy=same("strategy"), failed=tuple(failed),
        failures=first.failures, tuner=same("tuner"),
        exchangeability={name: p.exchangeability[p.models[0]]
                         for name, p in parts.items()
                         if p.models[0] in p.exchangeability},
        source=", ".join(f"{name}: {p.source}" for name, p in parts.items()),
        model_order=tuple(parts), limits=same("limits") or first.limits)
