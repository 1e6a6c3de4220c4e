"""One vocabulary of column names: what the columns of a search's record
usually are, by their names, for every layer that reads a frame by names.

The readers find failed rounds (:data:`STATE_COLUMNS`, :data:`FAILED_STATES`),
the trial order (:data:`ORDER_COLUMNS`) and a task column pooled by mistake
(:data:`TASK_NAMES`) here; a big file is read column by column keeping
:data:`KEPT_NAMES`; the reporting checklist tells hyperparameters
(:data:`HYPERPARAMETER_PREFIXES`, :func:`is_hyperparameter`) from bookkeeping
(:data:`BOOKKEEPING`) and finds a duration (:data:`DURATIONS`); and the guess of
a column that names models (:func:`model_columns`) is made here, once, for
:func:`evp.read_results`'s warning and ``evp curve``'s refusal alike.

Only names and plain checks on a frame: nothing of evp is imported, so that
every layer may read the same words.
"""

from __future__ import annotations

import re

import pandas as pd

__all__ = ["BOOKKEEPING", "BOOKKEEPING_PREFIXES", "DURATIONS", "FAILED_STATES",
           "HYPERPARAMETER_PREFIXES", "INFRASTRUCTURE", "KEPT_NAMES",
           "MEASURED", "MODEL_NAMES", "MODEL_PARAMETERS", "ORDER_COLUMNS",
           "STATE_COLUMNS", "TASK_NAMES", "bare_name", "is_hyperparameter",
           "is_measured", "model_columns"]

#: Where search tools keep hyperparameters: W&B and Ray Tune (``config.``,
#: ``config/``), Optuna (``params_``), MLflow (``params.``), scikit-learn's
#: ``cv_results_`` (``param_``), TensorBoard's HParams and others.
HYPERPARAMETER_PREFIXES = ("config.", "config/", "params_", "params.", "param_",
                           "hparams.", "hyperparameters.", "parameters.", "args.",
                           "hp_")
#: Names of columns that usually say which model a round belongs to.
MODEL_NAMES = ("model", "models", "model_name", "arm", "method", "system",
               "algorithm", "config", "configuration", "condition", "variant",
               "group", "name", "run_name", "architecture")
#: Hyperparameters (after their prefix) that name a model: a search over
#: several models, read as one.
MODEL_PARAMETERS = frozenset({"model", "model_name", "model_type", "arch",
                              "architecture", "algorithm", "estimator",
                              "classifier", "regressor", "learner"})
#: Columns of a run's state (W&B, MLflow, Ray Tune, Optuna, KerasTuner, SMAC3).
STATE_COLUMNS = ("state", "status", "run_state", "run_status")
#: Values of a state column that mark a failed round.
FAILED_STATES = ("crashed", "failed", "fail", "killed", "error", "errored")
#: Columns that give each round's place in the search, in the usual spellings.
ORDER_COLUMNS = ("trial", "trial_number", "trial_index", "number", "iteration",
                 "step", "_step", "round")
#: Columns that usually say which task (data set) a round was run on.
TASK_NAMES = ("task", "tasks", "dataset", "data_set", "datasets", "benchmark",
              "problem", "environment", "env")
#: Columns in which tuners record a trial's duration (Optuna, Ray Tune, evp
#: search, W&B, scikit-learn), in the order they are looked for.
DURATIONS = ("duration_seconds", "time_total_s", "seconds", "_runtime", "runtime",
             "duration", "mean_fit_time")
#: Columns that describe a round, not the model or its hyperparameters: the
#: bookkeeping of MLflow, W&B, Ray Tune and Optuna (ids, hosts, dates, states),
#: and a round's seed, epochs and timing.
BOOKKEEPING = frozenset({
    *STATE_COLUMNS, "tags", "notes", "user", "host", "hostname", "sweep",
    "created", "updated", "run_id", "experiment_id", "trial_id",
    "experiment_tag", "node_ip", "pid", "date", "logdir", "id", "job_type",
    "job type", "agent", "gpu type", "gpu_type", "gpu count", "commit", "github",
    "url", "path", "project", "entity", "seed", "epochs", "best_epoch",
    "timestamp", "datetime_start", "datetime_complete", "duration", "done"})
#: Prefixes of bookkeeping columns (MLflow's own tags, a package's versions).
BOOKKEEPING_PREFIXES = ("tags.mlflow.", "versions.")
#: Words of a column that a round measured rather than chose: its metrics
#: (another score), its time and its progress. In a plain file, where no
#: namespace says which columns are hyperparameters, these are not.
MEASURED = ("loss", "acc", "accuracy", "f1", "auc", "roc", "error", "err", "rmse",
            "mse", "mae", "precision", "recall", "perplexity", "ppl", "bleu",
            "rouge", "score", "likelihood", "metric", "reward", "return", "time",
            "seconds", "duration", "runtime", "iteration", "iterations",
            "timesteps", "episodes", "epoch", "epochs", "step", "steps")
#: Columns that say where a round ran, not what was searched.
INFRASTRUCTURE = ("device", "regime", "hardware", "gpu", "cpu", "hostname", "node_ip")
#: Columns a big file is read with besides the roles: what the readers and
#: the model-column guess look for by name.
KEPT_NAMES = tuple(dict.fromkeys((*STATE_COLUMNS, *ORDER_COLUMNS, *MODEL_NAMES,
                                  "task")))

_TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}([ T]\d{2}:\d{2}|$)")


def bare_name(column) -> str:
    """A column's name without its hyperparameter prefix (``params_lr`` →
    ``lr``)."""
    name = str(column)
    for prefix in HYPERPARAMETER_PREFIXES:
        name = name.removeprefix(prefix)
    return name


def is_measured(column) -> bool:
    """Whether a column's name says a round measured it (a metric, a time, its
    progress: :data:`MEASURED`), e.g. ``val_accuracy``, ``time_total_s``,
    ``training_iteration``."""
    words = re.split(r"[^a-z0-9]+", str(column).lower())
    return any(word in MEASURED for word in words)


def is_hyperparameter(column) -> bool:
    """Whether a column's name puts it in a tool's hyperparameter namespace."""
    return str(column).startswith(HYPERPARAMETER_PREFIXES)


def model_columns(frame: pd.DataFrame, skip, *, tool: bool = False) -> list[str]:
    """Columns that look as if they name models, usual names first: text with a
    few repeated values, or a usual name (:data:`MODEL_NAMES`,
    :data:`MODEL_PARAMETERS`) with a few values. Hyperparameters (by their
    namespace), bookkeeping, lists, dicts and timestamps are not model names.
    In a tool's record (`tool`), whose other columns are its bookkeeping and
    the hyperparameters (W&B's config columns have no namespace), only a
    column of a usual name counts, and only if its values repeat.

    >>> frame = pd.DataFrame({"model": ["a", "b", "a", "b"], "acc": [1, 2, 3, 4]})
    >>> model_columns(frame, {"acc"})
    ['model']
    """
    found = []
    rows = len(frame)
    for column in frame.columns:
        name = str(column)
        bare = bare_name(name)
        if (column in skip or name.startswith(BOOKKEEPING_PREFIXES)
                or (name != bare and bare.strip().lower() not in MODEL_PARAMETERS)
                or name.strip().lower() in BOOKKEEPING):
            continue
        values = frame[column].dropna()
        if values.map(lambda v: isinstance(v, list | dict | tuple | set)).any():
            continue
        if pd.api.types.is_datetime64_any_dtype(values) or values.map(
                lambda v: isinstance(v, str) and bool(_TIMESTAMP.match(v))).all():
            continue
        distinct = values.nunique()
        if distinct < 2 or distinct > max(2, rows // 2):
            continue
        text = values.map(lambda v: isinstance(v, str)).all()
        named = (name.strip().lower() in MODEL_NAMES
                 or bare.strip().lower() in MODEL_PARAMETERS)
        if tool and (not named or distinct == len(values)):
            continue
        if text or (named and distinct <= 20):
            found.append(str(column))
    return sorted(found, key=lambda c: c.lower() not in MODEL_NAMES)
