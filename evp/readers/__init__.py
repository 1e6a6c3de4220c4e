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

import itertools
import re
import warnings

import numpy as np
import pandas as pd

from evp._validation import as_choice
from evp.multiple import holm
from evp.readers import sklearn
from evp.readers.files import Columns, _unique_trials, load_search, separator_hint
from evp.readers.registry import READERS, READERS_GROUP, plugin_readers, read_source
from evp.results import ASSUMED_DIRECTION, FAILURES, Results
from evp.significance import exchangeability_test

__all__ = ["FAILED_STATES", "LOSS_WORDS", "READERS_GROUP", "load_search",
           "looks_like_loss", "plugin_readers", "read_results"]

_ROW_NOTE = "(row 1 is the first data row)"
_DROP_HINT = "; pass failed='drop' to drop such rows"
_FAILED_HINT = ("; pass failed='drop' to leave them out, or failed='worst' to count "
                "them as rounds worse than every score")

#: Words that make a score column's name say "lower is better": the losses and
#: errors of scikit-learn (``log_loss``, ``brier_score_loss``, ``max_error``),
#: Keras (``categorical_crossentropy``, ``kld``, ``logcosh``, ``msle``),
#: LightGBM (``binary_logloss``, ``l2``, ``huber``, ``tweedie``) and XGBoost
#: (``mlogloss``, ``merror``, ``poisson-nloglik``, ``gamma-deviance``), and
#: others (perplexity, word error rate, regret, latency, FID).
LOSS_WORDS = ("loss", "losses", "error", "errors", "err", "perplexity", "ppl", "mse",
              "rmse", "mae", "wer", "cer", "regret", "latency", "nll", "logloss",
              "mlogloss", "merror", "crossentropy", "xent", "hinge", "deviance",
              "nloglik", "kld", "kl", "kullback", "divergence", "huber", "logcosh",
              "msle", "rmsle", "mape", "smape", "mphe", "medae", "mdae", "brier",
              "l1", "l2", "tweedie", "poisson", "fid", "eer", "bpc", "bpd", "mase",
              "ece")
# Word pairs that say it too (cross entropy, log cosh, negative log likelihood).
_LOSS_PAIRS = (("cross", "entropy"), ("log", "cosh"), ("neg", "log"),
               ("negative", "log"), ("bits", "per"))
# A name that starts with one of these is a negated loss, higher is better:
# scikit-learn's scorers (neg_log_loss, neg_mean_squared_error).
_NEGATED = ("neg", "negative", "negated", "minus")
# Names of likelihoods and skill scores, higher is better whatever else they say
# (scikit-learn's d2_log_loss_score; the log likelihood; the ELBO).
_HIGHER = ("d2", "loglik", "likelihood", "elbo")
_SKLEARN_NEGATED = ("higher is better: a negated loss (scikit-learn's neg_* "
                    "scorers)")


def _words(name) -> list[str]:
    text = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", str(name)).lower()
    return [w for w in re.split(r"[^a-z0-9]+", text) if w]


def _named_direction(name) -> tuple[bool | None, str]:
    """What a score column's name says of its direction: (True, why) for a
    loss, (False, why) for a negated loss or a likelihood, (None, "") when it
    says nothing."""
    words = _words(name)
    bare = [w.rstrip("0123456789") or w for w in words]

    def loss(tokens, bare) -> bool:
        pairs = set(itertools.pairwise(tokens))
        return (any(w in LOSS_WORDS or b in LOSS_WORDS for w, b in
                    zip(tokens, bare, strict=True))
                or any(p in pairs for p in _LOSS_PAIRS))

    if words and words[0] in _NEGATED and len(words) > 1:
        rest, rest_bare = words[1:], bare[1:]
        if any(w in ("loglik", "likelihood", "elbo") for w in rest):
            return True, "a negated likelihood"
        if loss(rest, rest_bare):
            return False, _SKLEARN_NEGATED
        return None, ""
    if any(w in _HIGHER for w in words) and not any(
            w in ("nloglik", "nll") for w in words):
        return False, "higher is better: a likelihood or skill score by its name"
    if loss(words, bare):
        return True, "a loss by its name"
    return None, ""


#: Values of a ``state`` or ``status`` column that mark a failed round.
FAILED_STATES = ("crashed", "failed", "fail", "killed", "error", "errored")
_STATE_COLUMNS = ("state", "status", "run_state", "run_status")
# Columns that give each round's place in the search, in the usual spellings.
_ORDER_COLUMNS = ("trial", "trial_number", "trial_index", "number", "iteration",
                  "step", "_step", "round")
# Random orders of the exchangeability test that every reader runs; seeded, so
# that the same results say the same p-value.
_PERMUTATIONS = 9_999
# At most this many scores permuted in all per test (trials x random orders):
# a search of a million trials is tested with fewer random orders (at least
# _FEWEST), said in the note.
_PERMUTED = 20_000_000
_FEWEST = 199


def _resamples(trials: int) -> int:
    """The random orders of the exchangeability test for `trials` trials."""
    return int(min(_PERMUTATIONS, max(_FEWEST, _PERMUTED // max(trials, 1))))
# What readers that resolve the score's name themselves (a scorer's, a
# metric's) call themselves: Results they made, read again, keep that score.
_NAMING = {r.name for r in READERS if r.names_score}
_ALPHA = 0.05


def looks_like_loss(name) -> bool:
    """Whether a column's name says lower is better: a word of :data:`LOSS_WORDS`
    in it (``val_loss``, ``error_rate``, ``top1_err``, ``ValLoss``, ``ppl``,
    ``binary_logloss``, ``categorical_crossentropy``, ``cross-entropy``), unless
    it is negated as scikit-learn's scorers are (``neg_log_loss`` is higher is
    better) or names a likelihood or a D² score (``log_likelihood``,
    ``d2_log_loss_score``).

    >>> looks_like_loss("val_loss"), looks_like_loss("accuracy")
    (True, False)
    >>> looks_like_loss("neg_log_loss"), looks_like_loss("mlogloss")
    (False, True)
    """
    return _named_direction(name)[0] is True


def read_results(path_or_frame, *, score=None, group=None, cost=None, order=None,
                 runs=None, task=None, failed: str = "error",
                 drop_bad_rows: bool = False, minimize: bool | None = None,
                 reader: str | None = None, **options) -> Results:
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
    reader : str or Reader, optional
        The reader to read `path_or_frame` with, by its name (``"optuna"``,
        ``"ray tune"``, ``"mlflow"``, ``"wandb"``, ``"file"``, a plug-in's
        name; :data:`evp.readers.registry.READERS`) or itself, as pandas'
        ``engine=``: no other reader is asked. Default: the first reader that claims it.
    **options
        The readers' own options (each reader's :attr:`~evp.readers.registry.
        Reader.options`, a plug-in's included): the one that reads is given
        its own, and an option of another kind of source is refused. evp's:
    sep : str, optional
        The delimiter of a text file. Default: the one of ``,``, ``;``, tab and
        ``|`` that splits every line of the file's start into the same number of
        fields (the most fields winning), else the extension's (tab for ``.tsv``
        and ``.tab``, comma otherwise).
    decimal : str, optional
        The decimal mark of a text file. Default: ``,`` when the numbers of a file
        not separated by commas are written with decimal commas (``0,85``), else
        ``.``.
    study : str or list of str, optional
        The Optuna study to read, when the storage holds more than one; several
        (``"tpe,random"`` or a list) or ``"all"``, grouped by study.
    metric : str, optional
        The metric a Ray Tune experiment reported; it picks each trial's best
        report and is the default `score`. Default: `score`.
    mode : {"max", "min"}, optional
        Whether a higher or lower Ray Tune `metric` is better; needed for Ray Tune.
        It picks each trial's report; it is the direction of the score only when
        the score is the metric.
    per_trial : {"best", "last"}, default "best"
        Each Ray Tune trial's best report of `metric`, or its last one.
    experiment : str, optional
        The MLflow experiment to read, by name or id; given, `path_or_frame` is
        an MLflow store. Default for a store recognised as MLflow's (an
        ``mlruns`` folder, a SQLite file with MLflow's tables): its only
        experiment with runs.

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
        curves and bands assume independent draws (random search).

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
            minimize=minimize, group=group, reader=reader, **options)
    failed = as_choice(failed, "failed", FAILURES)
    if drop_bad_rows:
        if failed == "worst":
            raise ValueError("drop_bad_rows=True and failed='worst' contradict each "
                             "other: pass failed only")
        failed = "drop"
    reader, base, frame, origin = read_source(
        path_or_frame, score=score, reader=reader,
        columns=Columns(score, group, cost, order, runs, task,
                        names=(group, task, runs)), **options)
    name = base.name if base is not None else None
    if base is not None and (reader.names_score or base.tuner in _NAMING):
        # These readers resolved the score ("accuracy" → "mean_test_accuracy").
        score = base.score if score is None or score not in frame else score
        if base.group is not None and group is None and task != base.group:
            group = base.group  # several MLflow experiments, one model each
    elif base is not None and base.tuner is not None:
        score = score or base.score
        if base.group is not None and runs == base.group:
            # Several studies (experiments), one per seed: runs of a tuner each.
            if group is None and base.frame["tuner"].nunique() > 1:
                group = "tuner"
            elif group is None:
                name = str(base.frame["tuner"].iloc[0])
        elif base.group is not None and task == base.group:
            pass  # several studies, one task each: the models are in `group`
        elif base.group is not None and group is None:
            group = base.group  # several studies, one model each
        elif base.group is not None:
            raise ValueError(f"group: several studies are grouped by study "
                             f"already; leave group={group!r} out")
    elif base is not None:
        score = score or base.score  # evp search's trials, Results read before
    elif score is None:
        raise ValueError("score: name the column of validation scores, e.g. "
                         "score='accuracy'")
    if base is not None and base.tuner is None:
        # evp search's folders and Results say their model and task columns.
        group = base.group if group is None else group
        task = base.task if task is None else task
    if order is None and base is not None and base.order not in (None, score, group,
                                                                 cost):
        order = base.order  # the trial numbers a reader found
    roles = {"score": score, "group": group, "cost": cost, "order": order,
             "runs": runs, "task": task}
    roles = {role: column for role, column in roles.items() if column is not None}
    _check_columns(frame, roles)
    minimize, direction, notes = _direction(base, score, minimize,
                                            options.get("metric"),
                                            options.get("mode"))

    frame, repeated = _repeated_trials(frame, base, roles)
    labels = _file_rows(base, frame)
    frame = frame.reset_index(drop=True)
    frame, more = _formats(frame, roles, labels)
    notes += more
    frame, kept_failed, dropped, more = _failed_rounds(frame, roles, failed,
                                                       minimize, labels,
                                                       _trial_names(base, frame))
    notes += more
    frame[score] = np.where(frame.index.isin(kept_failed),
                            np.inf if minimize else -np.inf, _numbers(frame, score))
    _distinct_names(frame, roles)
    if group is not None:
        frame[group] = frame[group].astype(str)
    if task is not None:
        frame[task] = frame[task].astype(str)
    if cost is not None:
        frame[cost] = _numbers(frame, cost)
    ordered = base is not None and base.ordered
    if order is None and not ordered and (base is None or base.tuner is None):
        # A tool's record says its order, or that it has none (a grid, a table
        # without times): a column such as W&B's _step is not a trial number.
        order = _order_column(frame, exclude=set(roles.values()))
    if runs is not None:
        frame[runs] = frame[runs].astype(str)
        notes.append(_runs_note(frame, runs, group, order, ordered))
    results = Results(
        frame, score=score, group=group, cost=cost, order=order, ordered=ordered,
        runs=runs, task=task,
        minimize=minimize, direction=direction,
        notes=(base.notes if base is not None else ()) + tuple(notes),
        warnings=(base.warnings if base is not None else ()) + repeated,
        strategy=base.strategy if base is not None else None,
        failed=tuple(int(i) + 1 for i in kept_failed), failures=failed,
        dropped=tuple(dropped), source=origin,
        tuner=base.tuner if base is not None else None, name=name)
    return _checked_exchangeability(_pooled_tasks(results))


# Columns that usually say which task (data set) a round was run on.
_TASK_NAMES = ("task", "tasks", "dataset", "data_set", "datasets", "benchmark",
               "problem", "environment", "env")


def _pooled_tasks(results: Results) -> Results:
    """A column named like a task, with several values, and no task role: each
    model's rounds on every task are pooled into one search, which is not one
    distribution; said as a warning wherever the results are shown."""
    if results.task is not None:
        return results
    for column in results.frame.columns:
        if str(column).lower() not in _TASK_NAMES or column == results.group:
            continue
        values = results.frame[column].dropna().astype(str).unique()
        if len(values) > 1:
            shown = ", ".join(values[:4]) + (", …" if len(values) > 4 else "")
            return results.replace(warnings=(*results.warnings, (
                f"column {column!r} looks like it names tasks ({len(values)} "
                f"values: {shown}), and each model's rounds on all of them are "
                f"pooled as one search; pass task={column!r} (--task {column}) to "
                "judge each task and compare across them")))
    return results


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


def _check_columns(frame: pd.DataFrame, roles: dict) -> None:
    available = list(frame.columns)
    duplicated = sorted({str(c) for c in frame.columns[frame.columns.duplicated()]})
    if duplicated:
        raise ValueError(f"path_or_frame has duplicate column names {duplicated}; "
                         "rename them first")
    for role, column in roles.items():
        if column not in available:
            raise ValueError(f"{role} column {column!r} not found; available "
                             f"columns: {available}{separator_hint(available)}")
    used = list(roles.values())
    if len(set(used)) != len(used):
        raise ValueError(f"score, group, cost and order must name different columns, "
                         f"got {roles}")
    if len(frame) == 0:
        raise ValueError("path_or_frame has no rows: there are no results to read")


def _direction(base: Results | None, score, minimize: bool | None, metric,
               mode) -> tuple[bool, str, list[str]]:
    """Whether lower is better, who said so, and the note that says it.

    The user's word first; then the tuner's, for its own objective (an Optuna
    study's direction; Ray Tune's mode, when the score is the metric it picks
    reports by); then the name: a loss-like name is refused, anything else is
    taken as higher-is-better, with a note.
    """
    said = _recorded_direction(base, score, metric)
    if minimize is not None:
        minimize = bool(minimize)
        if said is not None and said != minimize and base.tuner is not None:
            if mode is not None:
                raise ValueError(f"minimize={minimize} contradicts mode='{mode}': "
                                 f"give mode='{'min' if minimize else 'max'}'")
            if base.tuner == "optuna":
                raise ValueError(f"minimize: the Optuna study "
                                 f"{'minimizes' if said else 'maximizes'} its "
                                 f"objective; leave minimize={minimize} out")
            raise ValueError(f"minimize: {base.direction}; leave "
                             f"minimize={minimize} out")
        if said is not None and said == minimize and base.tuner is not None:
            return minimize, base.direction, []
        return minimize, f"given: minimize={minimize}", []
    if said is not None:
        return said, base.direction, []
    if base is not None and base.tuner == "optuna":
        # A trial attribute as the score: the study's direction is its
        # objective's, and a guess from the name could turn the curves over.
        raise ValueError(f"minimize: {str(score)!r} is not the Optuna study's "
                         "objective, so the study's direction says nothing of "
                         "it: pass minimize=True if lower is better, "
                         "minimize=False if higher is better")
    named, why = _named_direction(score)
    if named:
        raise ValueError(f"score: {str(score)!r} looks like a loss (lower is "
                         "better): pass minimize=True, or minimize=False if higher "
                         "is better")
    if named is False:
        return False, f"the name {str(score)!r}: {why}", [
            f"higher {score} is better ({why}; pass minimize=True if lower is "
            "better)"]
    if base is not None and base.tuner == "ray tune":
        why = (f"mode='{mode}' picks each trial's report by {metric!r} and says "
               f"nothing of {str(score)!r}")
        return False, ASSUMED_DIRECTION, [
            f"higher {score} is better (assumed: {why}; pass minimize=True if "
            "lower is better)"]
    return False, ASSUMED_DIRECTION, [
        f"higher {score} is better (assumed; pass minimize=True if lower is "
        "better)"]


def _recorded_direction(base: Results | None, score, metric) -> bool | None:
    """The direction recorded for the score: an Optuna study's, Ray Tune's mode
    when the score is the metric it picks reports by, or that of Results built
    with a direction; else None."""
    if base is None:
        return None
    if base.tuner == "ray tune":
        return base.minimize if score == (metric or score) else None
    return base.minimize if base.direction != ASSUMED_DIRECTION else None


def _failed_rounds(frame: pd.DataFrame, roles: dict, policy: str, minimize: bool,
                   labels=None, named=None):
    """Apply the failed-rounds policy: (frame, index of failed rounds kept as the
    worst, rows dropped (1-based), notes). `labels`: each row's number in the
    file, where the reader reordered or left out rows. `named`: (each row's
    name, the noun, the note) where messages name rows as the tool numbered
    its trials (Optuna's trial numbers), not by their place."""
    shown, noun, note = named or (labels, "rows", _ROW_NOTE)

    def _rows(mask):
        return _row_numbers(mask, labels=shown)

    failures, problems = _bad_rows(frame, roles)
    failing = np.logical_or.reduce([rows for rows, _ in failures]) if failures \
        else np.zeros(len(frame), dtype=bool)
    if policy == "error" and failures:
        reasons = "; ".join(f"{what} in {noun} {_rows(rows)}"
                            for rows, what in failures)
        raise ValueError(f"{int(failing.sum())} failed round(s) {note}: "
                         f"{reasons}{_FAILED_HINT}")
    if policy == "error" and problems:
        bad, what = problems[0]
        raise ValueError(f"{what} in {noun} {_rows(bad)} {note}{_DROP_HINT}")
    if policy == "worst":
        # A failed round's cost may be unknown; any other bad row is an error.
        problems = [(rows & ~failing, what) for rows, what in problems
                    if (rows & ~failing).any()]
        if problems:
            bad, what = problems[0]
            raise ValueError(f"{what} in {noun} {_rows(bad)} {note}{_DROP_HINT}")
        kept = np.flatnonzero(failing)
        if kept.size == len(frame):
            raise ValueError(f"every round failed: {failures[0][1]} in {noun} "
                             f"{_rows(failures[0][0])} {note}")
        notes = []
        if kept.size:
            notes.append(
                f"{kept.size} failed round(s) of {len(frame)} ({noun} "
                f"{_rows(failing)}) count as worse than every score "
                f"({'+inf' if minimize else '-inf'}): medians, quantiles and their "
                "bands hold exactly; the expected best score needs a floor for "
                "them (bounds) and is undefined without one")
        return frame.copy(), kept, [], notes
    everything = failures + problems
    if not everything:
        return frame.copy(), np.array([], dtype=int), [], []
    bad = np.logical_or.reduce([rows for rows, _ in everything])
    if bad.all():
        raise ValueError(f"every row is bad: {everything[0][1]} in {noun} "
                         f"{_rows(everything[0][0])} {note}")
    dropped = (np.flatnonzero(bad) + 1 if labels is None
               else labels[bad]).tolist()
    reasons = "; ".join(f"{what} in {noun} {_rows(rows)}" for rows, what in everything)
    warnings.warn(f"dropped {len(dropped)} bad row(s) of {len(frame)} "
                  f"{note}: {reasons}", UserWarning, stacklevel=4)
    notes = []
    if failing.any():
        notes.append(
            f"{int(failing.sum())} failed round(s) of {len(frame)} dropped: the "
            "curves describe the rounds that finished, optimistic if failing is a "
            "real outcome of the search (pass failed='worst' to count them)")
    return frame[~bad].reset_index(drop=True), np.array([], dtype=int), dropped, notes


def _distinct_names(frame: pd.DataFrame, roles: dict) -> None:
    """Names that are two as written but one, or alike, once shown are refused,
    naming both: a number and the text of the same spelling (JSON's 1 and "1"),
    which read as text would pool two models into one; and names that differ
    only in their spaces ("a b", "a  b", "a b "), which print alike."""
    for role in ("group", "task", "runs"):
        column = roles.get(role)
        if column is None:
            continue
        seen: dict = {}
        spaced: dict = {}
        for value in pd.unique(frame[column]):
            text = str(value)
            if text in seen:
                first = seen[text]
                raise ValueError(
                    f"{role} column {column!r} holds {first!r} "
                    f"({type(first).__name__}) and {value!r} "
                    f"({type(value).__name__}), one name once read as text: write "
                    f"every name of the column as text, or rename one")
            seen[text] = value
            key = " ".join(text.split())
            if key in spaced:
                raise ValueError(
                    f"{role} column {column!r} holds {spaced[key]!r} and {text!r}, "
                    "names that differ only in their spaces and print alike: "
                    "write them alike, or rename one")
            spaced[key] = text


def _order_column(frame: pd.DataFrame, exclude: set) -> str | None:
    """A column that gives each round's place in the search, by its usual name
    and whole-number values."""
    for column in frame.columns:
        if column in exclude or str(column).strip().lower() not in _ORDER_COLUMNS:
            continue
        values = pd.to_numeric(frame[column], errors="coerce")
        if values.notna().all() and (values == values.round()).all():
            return column
    return None


def _runs_note(frame, runs, group, order, ordered) -> str:
    """What repeated runs mean, and where their trial order came from."""
    counts = (frame.groupby(group, sort=False)[runs].nunique() if group is not None
              else pd.Series({"": frame[runs].nunique()}))
    shown = ", ".join(f"{n} ({m})" if m else str(n) for m, n in counts.items())
    where = (f"column {order!r}" if order is not None
             else "the tuner's record" if ordered
             else "the file's order (no order column: pass order= if it is not)")
    return (f"repeated runs of a tuner (column {runs!r}): {shown} runs; the curves "
            "are the median best score after n trials across them, which assume "
            "nothing of the trials within a run; trials in order from "
            f"{where}")


def _repeated_trials(frame: pd.DataFrame, base: Results | None, roles: dict):
    """Each trial once, where the trial numbers are known (an order column):
    a trial recorded twice word for word is read once, with a warning; twice
    with different results, refused. (frame, warnings)."""
    order = roles.get("order")
    if order is None and (base is None or (base.tuner is None and not base.ordered)):
        order = _order_column(frame, exclude=set(roles.values()))
    if order is None:
        return frame, ()
    keys = [roles[r] for r in ("task", "group", "runs") if r in roles] + [order]
    # Without a model column, trial numbers repeat from model to model: two
    # different records of "trial 0" are then no conflict to refuse here (the
    # checks for rows of several models say what to do).
    return _unique_trials(frame, keys, name="path_or_frame",
                          refuse="group" in roles or base is not None)


def _file_rows(base: Results | None, frame: pd.DataFrame):
    """Each row's number in the file (1-based), where a reader of a file left
    rows out or reordered them (a W&B export: the runs still running, the
    order they were created); else None, the frame's own positions."""
    if base is None or base.tuner != "wandb":
        return None
    index = frame.index
    if not pd.api.types.is_integer_dtype(index) or not index.is_unique:
        return None
    return index.to_numpy() + 1


def _trial_names(base: Results | None, frame: pd.DataFrame):
    """(each row's trial number, "trials", the note) where the tool numbered
    its trials and messages should name them so (Optuna's ``number``, with the
    study where there are several); else None, rows by their place."""
    if base is None or base.tuner != "optuna" or "number" not in frame:
        return None
    numbers = frame["number"].astype(str).to_numpy()
    if base.group == "study" and "study" in frame:
        numbers = (frame["number"].astype(str) + " of "
                   + frame["study"].astype(str)).to_numpy()
    return numbers, "trials", "(Optuna's trial numbers)"


# Numbers written in ways pandas does not read: a percentage, a thousands
# separator (or a decimal comma in a file read with a decimal point), dates.
_PERCENT = re.compile(r"^\s*[+-]?(\d+(\.\d*)?|\.\d+)\s*%\s*$")
_GROUPED = re.compile(r"^\s*[+-]?\d{1,3}([,'\u00a0\u202f ]\d{3})+(\.\d+)?\s*$"
                      r"|^\s*[+-]?\d+,\d+\s*$")
_DATE = re.compile(r"^\s*\d{4}-\d{2}-\d{2}([ T]\d{2}:\d{2}.*)?$"
                   r"|^\s*\d{1,2}/\d{1,2}/\d{2,4}( \d{1,2}:\d{2}.*)?$")


def _formats(frame: pd.DataFrame, roles: dict, labels=None):
    """The score and cost columns as numbers a reader can trust: percentages
    ("85%") read as fractions (0.85), said in a note; dates and times, numbers
    with thousands separators or decimal commas, and a mix of percentages and
    plain numbers refused, naming the format and the rows. (frame, notes)."""
    notes = []
    for role in ("score", "cost"):
        column = roles.get(role)
        if column is None:
            continue
        values = frame[column]
        if (pd.api.types.is_datetime64_any_dtype(values)
                or pd.api.types.is_timedelta64_dtype(values)
                or isinstance(values.dtype, pd.PeriodDtype)
                or values.map(lambda v: isinstance(v, pd.Timestamp | pd.Timedelta
                                                   | np.datetime64)).any()):
            raise ValueError(f"{role} column {column!r} holds dates or times, not "
                             f"numbers: name the column of {_WHAT[role]}")
        if not (values.dtype == object or pd.api.types.is_string_dtype(values)):
            continue
        text = values[values.map(lambda v: isinstance(v, str))].astype(str).str.strip()
        odd = text[pd.to_numeric(text, errors="coerce").isna() & (text != "")]
        if odd.empty:
            continue

        size = len(frame)

        def where(mask, odd=odd, size=size) -> str:
            chosen = odd.index[mask.to_numpy()].to_numpy()
            shown = np.zeros(size, dtype=bool)
            shown[chosen] = True
            return (f"{odd[mask].iloc[0]!r} in rows "
                    f"{_row_numbers(shown, 5, labels)} {_ROW_NOTE}")

        dates = odd.str.match(_DATE)
        if dates.any():
            raise ValueError(f"{role} column {column!r} holds dates or times "
                             f"({where(dates)}), not numbers: name the column of "
                             f"{_WHAT[role]}")
        grouped = odd.str.match(_GROUPED)
        if grouped.any():
            raise ValueError(f"{role} column {column!r} holds numbers written with "
                             f"a thousands separator or a decimal comma "
                             f"({where(grouped)}): write them as plain numbers "
                             "(1234, 0.85), or pass decimal=',' for decimal commas")
        percent = odd.str.match(_PERCENT)
        if percent.any():
            plain = text.index.difference(odd.index)
            numbers = values.index.difference(text.index)[
                values.drop(text.index).notna().to_numpy()]
            if not percent.all() or len(plain) or len(numbers):
                raise ValueError(f"{role} column {column!r} mixes percentages "
                                 f"({where(percent)}) with other values: write "
                                 "every value one way")
            frame = frame.copy()
            frame[column] = values.map(
                lambda v: float(v.strip().rstrip("%")) / 100 if isinstance(v, str)
                and _PERCENT.match(v) else v).astype(float)
            notes.append(f"{role} column {column!r} written as percentages: read as "
                         f"fractions ({odd.iloc[0]!r} as "
                         f"{float(odd.iloc[0].rstrip('%')) / 100:g})")
    return frame, notes


_WHAT = {"score": "validation scores", "cost": "costs (seconds, say)"}


def _checked_exchangeability(results: Results) -> Results:
    """With the trial order known, test each model's trials for exchangeability
    (the random-search assumption) and say so in notes and warnings; repeated
    runs need no such assumption."""
    if not results.knows_order or results.runs is not None:
        return results
    pvalues, short, used, sizes, shown_as = {}, [], {}, {}, {}
    # Each task's rounds are a search of their own: tested task by task, keyed
    # (task, model), never a joined string: task "x" with model "y/z" and task
    # "x/y" with model "z" are two searches.
    studies = ({None: results} if results.task is None else results.by_task())
    for task, study in studies.items():
        for model, scores in study.in_trial_order().items():
            key = model if task is None else (task, model)
            shown_as[key] = model if task is None else f"{model} on task {task}"
            if scores.size < 3:
                short.append(shown_as[key])
                continue
            used[key] = _resamples(scores.size)
            sizes[key] = scores.size
            pvalues[key] = exchangeability_test(
                scores, n_resamples=used[key], rng=0).pvalue
    if not pvalues:
        return results
    where = (f"column {results.order!r}" if results.order is not None
             else f"{results.tuner}'s record" if results.tuner is not None
             else "the rows' order")
    shown = ", ".join(f"p = {p:.3g}" + (f" ({shown_as[m]})" if len(pvalues) > 1
                                        else "")
                      for m, p in pvalues.items())
    if len(pvalues) > 12:  # many models or tasks: the range, and the alarms below
        shown = (f"on {len(pvalues)} searches, p from {min(pvalues.values()):.3g} "
                 f"to {max(pvalues.values()):.3g}")
    orders = f"{_PERMUTATIONS:,} random orders"
    if min(used.values()) < _PERMUTATIONS:  # capped: say so
        biggest = min(used, key=used.get)
        orders += (f"; {used[biggest]:,} for the {sizes[biggest]:,} trials of the "
                   "largest search, so that the test takes seconds")
    note = (f"trials in order ({where}): exchangeability test {shown} "
            f"({orders}); every curve, band and verdict "
            "assumes the rounds are independent draws, as in random search")
    if short:
        note += f"; not tested with fewer than 3 trials: {', '.join(short)}"
    # Many searches tested at once: Holm over them, so that the one p below 0.05
    # expected by chance among twenty random searches raises no alarm.
    adjusted = dict(zip(pvalues, holm(list(pvalues.values())), strict=True))
    family = f", Holm-adjusted over {len(pvalues)} searches: {{:.3g}}"
    alarms = [
        f"the trials of {shown_as[m]} look adaptive, not like random search "
        f"(exchangeability test p = {p:.3g}"
        f"{family.format(adjusted[m]) if len(pvalues) > 1 else ''}): the curves, "
        "bands and verdicts treat "
        "them as independent draws, which they are not; pass runs=COL with "
        "repeated runs of the tuner (COL naming each run, its seed) for the "
        "tuner's own curve, or search with a random sampler (Optuna's "
        "RandomSampler, KerasTuner's RandomSearch, SMAC3's RandomFacade)"
        for m, p in pvalues.items() if adjusted[m] < _ALPHA]
    return results.replace(notes=(*results.notes, note),
                           warnings=tuple(dict.fromkeys((*results.warnings,
                                                         *alarms))),
                           exchangeability=pvalues)


def _numbers(frame: pd.DataFrame, column) -> np.ndarray:
    values = pd.to_numeric(frame[column], errors="coerce")
    return np.asarray(values.to_numpy(dtype=float, na_value=np.nan))


def _rows(mask: np.ndarray, limit: int = 20) -> str:
    return _row_numbers(mask, limit)


def _row_numbers(mask: np.ndarray, limit: int = 20, labels=None) -> str:
    """The rows `mask` marks, 1-based (or their numbers in `labels`)."""
    numbers = np.flatnonzero(mask) + 1 if labels is None else np.asarray(
        labels)[np.asarray(mask, dtype=bool)]
    shown = ", ".join(str(n) for n in numbers[:limit])
    more = len(numbers) - limit
    return shown + (f" and {more} more" if more > 0 else "")


def _bad_rows(frame: pd.DataFrame, roles: dict):
    """([(rows, why)] of failed rounds, [(rows, why)] of other bad rows), in the
    order they are reported."""
    failures, problems = [], []
    score = roles["score"]
    bad = ~np.isfinite(_numbers(frame, score))
    if bad.any():
        failures.append((bad, f"score column {score!r} has missing, non-numeric or "
                              "infinite values"))
    for column in frame.columns:
        if str(column).strip().lower() not in _STATE_COLUMNS:
            continue
        states = frame[column].map(
            lambda v: isinstance(v, str) and v.strip().lower() in FAILED_STATES)
        marked = states.to_numpy(dtype=bool) & ~bad
        if marked.any():
            failures.append((marked, f"column {column!r} marks crashed, failed or "
                                     "killed rounds (their logged scores are not "
                                     "final)"))
    for role, what in (("group", "model"), ("task", "task")):
        column = roles.get(role)
        if column is None:
            continue
        # An empty name (or blanks) names nothing: missing, as a None is.
        missing = (frame[column].isna() | frame[column].map(
            lambda v: isinstance(v, str) and not v.strip())).to_numpy(dtype=bool)
        if missing.any():
            problems.append((missing, f"{role} column {column!r} has missing or "
                                      f"empty {what} names"))
    cost = roles.get("cost")
    if cost is not None:
        costs = _numbers(frame, cost)
        unknown = ~np.isfinite(costs)
        if unknown.any():
            problems.append((unknown, f"cost column {cost!r} has missing, "
                                      "non-numeric or infinite values"))
        negative = np.isfinite(costs) & (costs < 0)
        if negative.any():
            problems.append((negative, f"cost column {cost!r} has negative values"))
    return failures, problems
