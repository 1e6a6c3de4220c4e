"""The policies :func:`evp.read_results` applies to what a reader read, each
once: the columns the roles name (:func:`check_columns`), which way is better
(:func:`direction`), numbers written as text (:func:`formats`), trials recorded
twice (:func:`repeated_trials`), failed rounds (:func:`failed_rounds`), names
that print alike (:func:`distinct_names`), the trial order
(:func:`order_column`), and the warnings and tests that look at the whole:
tasks or models pooled into one search (:func:`pooled_tasks`,
:func:`pooled_models`) and the exchangeability test (:func:`exchangeability`).
"""

from __future__ import annotations

import itertools
import re
import unicodedata
import warnings

import numpy as np
import pandas as pd

from evp._columns import (
    FAILED_STATES,
    ORDER_COLUMNS,
    STATE_COLUMNS,
    TASK_NAMES,
    model_columns,
)
from evp._escape import look_alike
from evp._numbers import beyond_float
from evp._validation import DroppedRowsWarning, stack_level
from evp.multiple import holm
from evp.readers._knows import Direction
from evp.readers.files import _unique_trials, separator_hint
from evp.results import ASSUMED_DIRECTION, Results
from evp.significance import exchangeability_test

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


def named_direction(name) -> tuple[bool | None, str]:
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
    return named_direction(name)[0] is True


def pooled_tasks(results: Results) -> Results:
    """A column named like a task, with several values, and no task role: each
    model's rounds on every task are pooled into one search, which is not one
    distribution; said as a warning wherever the results are shown."""
    if results.task is not None:
        return results
    for column in results.frame.columns:
        if str(column).lower() not in TASK_NAMES or column == results.group:
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


#: The start of :func:`pooled_models`' warning, by which ``evp curve`` knows it.
POOLED_MODELS = "looks like it names models"


def pooled_models(results: Results) -> Results:
    """A column that looks like it names models (:func:`evp._columns.
    model_columns`), and no model role: its models are pooled into one curve.
    Said as a warning (the first such column, the others named), which ``evp
    curve`` turns into its refusal (``--group COL`` or ``--pool``); a notebook
    is told the same."""
    if results.group is not None:
        return results
    frame = results.frame
    suspects = model_columns(frame, {results.score, results.cost, results.order,
                                     results.runs, results.task},
                             tool=results.tuner is not None)
    if not suspects:
        return results
    values = list(dict.fromkeys(frame[suspects[0]].dropna().astype(str)))
    shown = ", ".join(values[:5]) + (", …" if len(values) > 5 else "")
    others = (f" (also {', '.join(map(repr, suspects[1:]))})"
              if len(suspects) > 1 else "")
    return results.replace(warnings=(*results.warnings, (
        f"column {suspects[0]!r}{others} {POOLED_MODELS} ({len(values)} values: "
        f"{shown}): give group={suspects[0]!r} for one curve per model, or "
        f"--pool to treat all {len(frame)} rows as one model")))


def _floor_words(bounds, minimize: bool) -> str:
    """What the expected best score makes of failed rounds, given the score's
    bounds (or not)."""
    value = None if bounds is None else bounds[1] if minimize else bounds[0]
    if value is None or not np.isfinite(value):
        return ("the expected best score needs a floor for them (bounds) and is "
                "undefined without one")
    return (f"the expected best score counts them at the score's "
            f"{'upper' if minimize else 'lower'} bound, {value:g}")


def check_bounds(frame: pd.DataFrame, score, bounds):
    """The score's possible range (low, high), checked: numbers, low < high,
    and every finite score inside; None when not given."""
    if bounds is None:
        return None
    beyond = ([v for v in bounds if beyond_float(v)]
              if isinstance(bounds, list | tuple) else [])
    if beyond:  # read as infinite, 1e400 would be no bound at all
        raise ValueError(f"bounds: {str(beyond[0])[:24]} is beyond the range of a "
                         "float (±1.8e308); give the score's range")
    try:
        low, high = (float(v) for v in bounds)
    except (TypeError, ValueError):
        raise ValueError(f"bounds: the score's possible range as (low, high), e.g. "
                         f"(0, 1) for an accuracy; got {bounds!r}") from None
    if not low < high:
        raise ValueError(f"bounds: needs low < high, got ({low:g}, {high:g})")
    values = _numbers(frame, score)
    values = values[np.isfinite(values)]
    if values.size and (values.min() < low or values.max() > high):
        raise ValueError(f"bounds: ({low:g}, {high:g}) must hold every score, and "
                         f"the scores run from {values.min():g} to "
                         f"{values.max():g}")
    return low, high


def disjoint_tasks(results: Results) -> Results:
    """Several tasks, and no model on more than one of them: nothing to
    compare across tasks (a folder of experiments, one per task and model,
    read with each experiment a model). Said as a warning in one line, with
    the columns that would name models across the tasks."""
    task, group = results.task, results.group
    if task is None or group is None:
        return results
    frame = results.frame
    tasks_of = frame.groupby(group, sort=False)[task].nunique()
    if frame[task].nunique() < 2 or (tasks_of > 1).any():
        return results
    taken = {results.score, results.cost, results.order, results.runs, task, group}
    keys = [task, group]
    suggested = []
    for column in frame.columns:
        if column in taken:
            continue
        try:
            values = frame[column].astype(str)
            fixed = values.groupby([frame[k] for k in keys], sort=False).nunique()
        except (TypeError, ValueError):
            continue
        if values.nunique() < 2 or (fixed > 1).any():
            continue  # not one value per model and task: no model's name
        if (values.groupby(values, sort=False).size() > 1).any() and (
                frame.groupby(values, sort=False)[task].nunique() > 1).any():
            suggested.append(column)
    fix = (f"group by a column that names models on several tasks: "
           f"{' or '.join(f'group={c!r} (--group {c})' for c in suggested[:3])}"
           if suggested else "name the column of models with group= (--group)")
    return results.replace(warnings=(*results.warnings, (
        f"no model appears on more than one task ({len(tasks_of)} models of "
        f"column {group!r}, each on one of {frame[task].nunique()} tasks): "
        f"there is nothing to compare across tasks; {fix}")))


def check_columns(frame: pd.DataFrame, roles: dict) -> None:
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


def direction(base: Results | None, score, minimize: bool | None, knows=None,
              options=None) -> tuple[bool, str, list[str]]:
    """Whether lower is better, who said so, and the note that says it.

    The user's word first; then the tool's, for the score it records it for
    (the reader's own score: an Optuna study's objective, the Ray Tune metric
    that picks reports), as the reader declares (`knows`, a :class:`evp.
    readers._knows.Knows`; `options`, the options the user gave); then the
    name: a loss-like name is refused, anything else is taken as
    higher-is-better, with a note.
    """
    options = options or {}
    way = getattr(knows, "direction", None)
    way = way if isinstance(way, Direction) else Direction()
    said = recorded_direction(base, score)
    if minimize is not None:
        minimize = bool(minimize)
        if said is not None and said != minimize:
            given = options.get(way.option) if way.option else None
            if given is not None:
                opposite = next((v for v, low in way.values if low == minimize),
                                None)
                raise ValueError(f"minimize={minimize} contradicts "
                                 f"{way.option}='{given}': give "
                                 f"{way.option}='{opposite}'")
            recorded = (way.recorded.format(
                verb="minimizes" if said else "maximizes")
                if way.recorded else base.direction)
            raise ValueError(f"minimize: {recorded}; leave minimize={minimize} out")
        if said is not None:
            return minimize, base.direction, []
        return minimize, f"given: minimize={minimize}", []
    if said is not None:
        return said, base.direction, []
    why = _why_not(way, base, score, options)
    if why is not None and way.other == "refuse":
        # A column the tool records no direction for, where a guess from the
        # name could turn the curves over: the user's to say.
        raise ValueError(f"minimize: {why}: pass minimize=True if lower is better, "
                         "minimize=False if higher is better")
    named, because = named_direction(score)
    if named:
        raise ValueError(f"score: {str(score)!r} looks like a loss (lower is "
                         "better): pass minimize=True, or minimize=False if higher "
                         "is better")
    if named is False:
        return False, f"the name {str(score)!r}: {because}", [
            f"higher {score} is better ({because}; pass minimize=True if lower is "
            "better)"]
    if why is not None:
        return False, ASSUMED_DIRECTION, [
            f"higher {score} is better (assumed: {why}; pass minimize=True if "
            "lower is better)"]
    return False, ASSUMED_DIRECTION, [
        f"higher {score} is better (assumed; pass minimize=True if lower is "
        "better)"]


def _why_not(way, base: Results | None, score, options: dict) -> str | None:
    """Why the tool's recorded direction says nothing of `score` (another
    column than the reader's own), in the reader's words; None where the
    tool recorded none, or `score` is its own."""
    if base is None:
        return None
    recorded = base.direction != ASSUMED_DIRECTION
    if base.score == score and recorded:
        return None  # its own score, its own direction
    given = way.option is not None and options.get(way.option) is not None
    if way.other != "refuse" and not (base.score != score and (recorded or given)):
        return None  # the tool said nothing of any column: nothing to explain
    value = options.get(way.option) if way.option else None
    try:
        return way.why_not.format(score=score, objective=base.score,
                                  option=way.option, value=value)
    except (KeyError, IndexError, ValueError):  # a plug-in's own words
        return way.why_not


def recorded_direction(base: Results | None, score) -> bool | None:
    """The direction the tool recorded for the score: the reader's Results'
    own, where `score` is their score and they say who set it; else None."""
    if base is None or base.direction == ASSUMED_DIRECTION or base.score != score:
        return None
    return base.minimize


def failed_rounds(frame: pd.DataFrame, roles: dict, policy: str, minimize: bool,
                   labels=None, named=None, bounds=None):
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
            # Only these models' expected best scores lack a floor: name them.
            whose = ""
            if roles.get("group") is not None:
                names = list(dict.fromkeys(
                    frame[roles["group"]].astype(str).to_numpy()[failing]))
                whose = (f"; {'model' if len(names) == 1 else 'models'} "
                         f"{', '.join(names[:5])}{', …' if len(names) > 5 else ''}")
            notes.append(
                f"{kept.size} failed round(s) of {len(frame)} ({noun} "
                f"{_rows(failing)}{whose}) count as worse than every score "
                f"({'+inf' if minimize else '-inf'}): medians, quantiles and their "
                f"bands hold exactly; {_floor_words(bounds, minimize)}")
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
    # At the user's own call, however deep in evp (several searches, a
    # notebook's loader, the command line): there the user can act.
    warnings.warn(f"dropped {len(dropped)} bad row(s) of {len(frame)} "
                  f"{note}: {reasons}", DroppedRowsWarning, stacklevel=stack_level())
    notes = []
    if failing.any():
        # A model (on a task) none of whose rounds is left is gone from the
        # analysis: said by name, not only counted.
        gone = ""
        keys = [roles[k] for k in ("group", "task") if roles.get(k) is not None]
        if roles.get("group") is not None:
            left = frame.loc[~bad, keys].astype(str).drop_duplicates()
            every = frame[keys].astype(str).drop_duplicates()
            lost = every.merge(left, how="left", indicator=True)
            lost = lost[lost["_merge"] == "left_only"][keys]
            names = [" on ".join(row) for row in lost.itertuples(index=False)]
            if names:
                gone = (f"; {'model' if len(names) == 1 else 'models'} "
                        f"{', '.join(names[:5])}{', …' if len(names) > 5 else ''} "
                        "had no round left and "
                        f"{'is' if len(names) == 1 else 'are'} left out")
        notes.append(
            f"{int(failing.sum())} failed round(s) of {len(frame)} dropped: the "
            "curves describe the rounds that finished, optimistic if failing is a "
            f"real outcome of the search (pass failed='worst' to count them){gone}")
    return frame[~bad].reset_index(drop=True), np.array([], dtype=int), dropped, notes


def distinct_names(frame: pd.DataFrame, roles: dict) -> None:
    """Names that are two as written but one, or alike, once shown are refused,
    naming both: a number and the text of the same spelling (JSON's 1 and "1"),
    which read as text would pool two models into one; and names that print
    alike (:func:`evp._escape.look_alike`): they differ only in their spaces
    ("a b", "a  b", "a b "), in invisible characters (a zero-width space, a
    soft hyphen, a byte-order mark) or in their Unicode normalisation."""
    for role in ("group", "task", "runs"):
        column = roles.get(role)
        if column is None:
            continue
        seen: dict = {}
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
        alike = look_alike(seen)
        if alike is not None:
            first, second, why = alike
            raise ValueError(
                f"{role} column {column!r} holds {first!r} and {second!r}, names "
                f"that differ only in {why} and print alike: write them alike, "
                "or rename one")


def normal_names(frame: pd.DataFrame, roles: dict):
    """Model, task and run names in Unicode's composed form (NFC): "café" typed
    with a combining accent (NFD, as macOS file names are) and "café" typed
    with é are one name, as they print. (frame, notes): a note where two
    spellings became one."""
    notes = []
    for role in ("group", "task", "runs"):
        column = roles.get(role)
        if column is None:
            continue
        values = pd.unique(frame[column])
        changed = {v: unicodedata.normalize("NFC", v) for v in values
                   if isinstance(v, str) and unicodedata.normalize("NFC", v) != v}
        if not changed:
            continue
        frame = frame.copy()
        frame[column] = frame[column].map(
            lambda v, table=changed: table.get(v, v) if isinstance(v, str) else v)
        joined = [v for v in changed if changed[v] in set(values)]
        if joined:
            notes.append(
                f"{role} column {column!r}: {len(joined)} name(s) written with "
                f"decomposed accents (Unicode NFD, e.g. {joined[0]!a}) read as "
                "the same name composed (NFC), which prints alike: their rounds "
                "are one model's")
    return frame, notes


def order_column(frame: pd.DataFrame, exclude: set) -> str | None:
    """A column that gives each round's place in the search, by its usual name
    and whole-number values."""
    for column in frame.columns:
        if column in exclude or str(column).strip().lower() not in ORDER_COLUMNS:
            continue
        values = pd.to_numeric(frame[column], errors="coerce")
        if values.notna().all() and (values == values.round()).all():
            return column
    return None


def runs_note(frame, runs, group, order, ordered) -> str:
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


def repeated_trials(frame: pd.DataFrame, base: Results | None, roles: dict):
    """Each trial once, where the trial numbers are known (an order column):
    a trial recorded twice word for word is read once, with a warning; twice
    with different results, refused. (frame, warnings)."""
    order = roles.get("order")
    if order is None and (base is None or (base.tuner is None and not base.ordered)):
        order = order_column(frame, exclude=set(roles.values()))
    if order is None:
        return frame, ()
    keys = [roles[r] for r in ("task", "group", "runs") if r in roles]
    # A tool's trial numbers count within its study or experiment: where the
    # user's models span several, the study is part of a trial's name.
    if (base is not None and base.group is not None and base.group in frame
            and base.group not in keys):
        keys.append(base.group)
    keys.append(order)
    # Without a model column, trial numbers repeat from model to model: two
    # different records of "trial 0" are then no conflict to refuse here (the
    # checks for rows of several models say what to do).
    return _unique_trials(frame, keys, name="path_or_frame",
                          refuse="group" in roles or base is not None)


def file_rows(base: Results | None, frame: pd.DataFrame, knows=None):
    """Each row's number in the file (1-based), where a reader of a file left
    rows out or reordered them and says its index numbers them (a W&B
    export: the runs still running, the order they were created); else None,
    the frame's own positions."""
    if base is None or not getattr(knows, "rows", False):
        return None
    index = frame.index
    if not pd.api.types.is_integer_dtype(index) or not index.is_unique:
        return None
    return index.to_numpy() + 1


def trial_names(base: Results | None, frame: pd.DataFrame, knows=None):
    """(each row's trial name, "trials", the note) where the tool names its
    trials and messages should name them so (the reader's declared identity:
    Optuna's ``number``, Ray Tune's ``trial_id``), with the reader's own
    group (the study, the experiment) where it has several; else None, rows
    by their place."""
    column = getattr(knows, "identity", None)
    if base is None or column is None or column not in frame:
        return None
    if frame[column].isna().any():
        return None
    names = frame[column].astype(str)
    if base.group is not None and base.group in frame and base.group != column:
        names = names + " of " + frame[base.group].astype(str)
    return (names.to_numpy(), "trials",
            f"({knows.identity_words or f'column {column!r}'})")


# Numbers written in ways pandas does not read: a percentage, a thousands
# separator (or a decimal comma in a file read with a decimal point), dates.
_PERCENT = re.compile(r"^\s*[+-]?(\d+(\.\d*)?|\.\d+)\s*%\s*$")
_GROUPED = re.compile(r"^\s*[+-]?\d{1,3}([,'\u00a0\u202f ]\d{3})+(\.\d+)?\s*$"
                      r"|^\s*[+-]?\d+,\d+\s*$")
_DATE = re.compile(r"^\s*\d{4}-\d{2}-\d{2}([ T]\d{2}:\d{2}.*)?$"
                   r"|^\s*\d{1,2}/\d{1,2}/\d{2,4}( \d{1,2}:\d{2}.*)?$")


def beyond_range(frame: pd.DataFrame, roles: dict, labels=None) -> None:
    """A score or cost beyond the range of a float (1e400, an integer of 400
    digits: :func:`evp._numbers.beyond_float`) is refused, naming its rows:
    read as infinite, it would pass for a failed round (and count as the worst
    under failed='worst'); "inf" itself, or NaN, is a failed round as ever."""
    for role in ("score", "cost"):
        column = roles.get(role)
        if column is None or pd.api.types.is_numeric_dtype(frame[column]):
            continue
        beyond = frame[column].map(beyond_float).to_numpy(dtype=bool)
        if beyond.any():
            first = str(frame[column].to_numpy()[beyond][0]).strip()
            shown = (first if len(first) <= 24
                     else f"{first[:12]}… ({len(first)} characters)")
            raise ValueError(
                f"{role} column {column!r} holds {shown} in rows "
                f"{_row_numbers(beyond, 5, labels)} {_ROW_NOTE}, beyond the range "
                "of a float (±1.8e308): rescale the column (its logarithm, say), "
                "or write inf where a round failed")


def formats(frame: pd.DataFrame, roles: dict, labels=None):
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


def exchangeability(results: Results) -> Results:
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
        if str(column).strip().lower() not in STATE_COLUMNS:
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


def as_read(frame: pd.DataFrame, roles: dict, kept_failed, minimize: bool):
    """The roles' columns as the statistics read them: the score as floats,
    failed rounds kept as the worst (``-inf``, ``+inf`` for a loss); names that
    print alike refused (:func:`distinct_names`); model, task and run names as
    text; the cost as floats."""
    score = roles["score"]
    frame[score] = np.where(frame.index.isin(kept_failed),
                            np.inf if minimize else -np.inf, _numbers(frame, score))
    distinct_names(frame, roles)
    for role in ("group", "task", "runs"):
        if roles.get(role) is not None:
            frame[roles[role]] = frame[roles[role]].astype(str)
    if roles.get("cost") is not None:
        frame[roles["cost"]] = _numbers(frame, roles["cost"])
    return frame
