r"""Readers: where search results live, read into one :class:`evp.Results`.

* :func:`read_results` — the one entry point: users' files
  (:mod:`evp.readers.files`: delimited text, JSON Lines, Parquet, folders of
  ``evp search`` trials), DataFrames, and the records of the tuners that ran the
  search (:mod:`evp.readers.tuners`: Optuna studies, Ray Tune experiments). It
  checks the roles' columns once, here, and says what it left out.
* :func:`load_search` — what ``evp search`` writes.

The paper's own data (sources, checksums, the mirror) are the registry of
:mod:`evp.datasets`.
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from evp._validation import _describe
from evp.readers import tuners
from evp.readers.files import load_search, read_table, separator_hint
from evp.results import Results

__all__ = ["load_search", "read_results"]

_ROW_NOTE = "(row 1 is the first data row)"
_DROP_HINT = "; pass drop_bad_rows=True to drop such rows"


def read_results(path_or_frame, *, score=None, group=None, cost=None, sep=None,
                 decimal=None, drop_bad_rows: bool = False, study=None,
                 metric=None, mode=None, per_trial="best",
                 minimize: bool | None = None) -> Results:
    """Read search results into validated :class:`evp.Results`.

    Parameters
    ----------
    path_or_frame : str, os.PathLike, pandas.DataFrame or evp.Results
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
        ``.sqlite3``), one row per completed trial; or a Ray Tune experiment
        folder, one report per trial.
    score : str
        Column holding each round's validation score. Optional for a tuner's
        results: an Optuna study's one objective (``value``), or a Ray Tune
        experiment's `metric`.
    group : str, optional
        Column naming the model, configuration or condition a round belongs to.
    cost : str, optional
        Column holding each round's cost (e.g. training seconds); non-negative.
    sep : str, optional
        The delimiter of a text file. Default: the one of ``,``, ``;``, tab and
        ``|`` that splits every line of the file's start into the same number of
        fields (the most fields winning), else the extension's (tab for ``.tsv``
        and ``.tab``, comma otherwise).
    decimal : str, optional
        The decimal mark of a text file. Default: ``,`` when the numbers of a file
        not separated by commas are written with decimal commas (``0,85``), else
        ``.``.
    drop_bad_rows : bool, default False
        Drop the rows whose score or cost is missing, non-numeric or infinite, whose
        cost is negative or whose group is missing, with a warning that lists them
        (also in ``.dropped``, counting the first data row as 1). Default: such
        rows are an error.
    study : str, optional
        The Optuna study to read, when the storage holds more than one.
    metric : str, optional
        The metric a Ray Tune experiment reported; it picks each trial's best
        report and is the default `score`. Default: `score`.
    mode : {"max", "min"}, optional
        Whether a higher or lower Ray Tune `metric` is better; needed for Ray Tune.
    per_trial : {"best", "last"}, default "best"
        Each Ray Tune trial's best report of `metric`, or its last one.
    minimize : bool, optional
        The score is a loss (lower is better). Default: what the tuner says of
        its objective, else higher is better (``.direction`` says which). A value
        that contradicts the tuner is an error.

    Returns
    -------
    evp.Results
        A fresh frame (new index, bad rows dropped if asked) under the user's own
        column names: the score (float), the group (str) and the cost (float)
        columns converted, every other column as read. ``.score``, ``.group`` and
        ``.cost`` name the columns; from a tuner, ``.tuner``, ``.name`` (the
        study or experiment), ``.minimize`` and ``.notes`` (what was read: how
        many trials, which report per trial) say what it recorded.

    Raises
    ------
    ValueError
        A named column is missing (the message lists the available columns); a
        score or cost is missing, non-numeric or infinite, a cost is negative, or
        a group is missing (the message names the column and lists the offending
        rows, counting the first data row, after the header, as row 1, unless
        `drop_bad_rows`); every row is bad; or the file extension is not one of
        the above.
    ImportError
        A Parquet file without pyarrow installed, or an Optuna study without
        optuna (the ``tuners`` extra).
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
    source = tuners.is_tuner_source(path_or_frame)
    base = path_or_frame if isinstance(path_or_frame, Results) else None
    if source is None:
        for name, value in (("study", study), ("metric", metric), ("mode", mode)):
            if value is not None:
                raise ValueError(f"{name}={value!r} is for results read straight "
                                 "from Optuna or Ray Tune; path_or_frame is neither: "
                                 f"leave {name} out")
    elif source == "optuna":
        if metric is not None or mode is not None:
            raise ValueError("metric and mode are for Ray Tune experiments; an Optuna "
                             "study names its objective with score and its "
                             "direction itself: leave them out")
        base = tuners.read_optuna(path_or_frame, study=study, objective=score)
    else:
        if study is not None:
            raise ValueError("study is for Optuna storages; a Ray Tune experiment "
                             "names its metric: leave study out, pass metric")
        if metric is None and score is None:
            raise ValueError("metric: name the metric the Ray Tune trials reported, "
                             "e.g. metric='accuracy'")
        base = tuners.read_ray_tune(path_or_frame, metric=metric or score,
                                    mode=mode, per_trial=per_trial)
    if base is not None and base.tuner is not None:
        score = score or base.score
    elif score is None:
        raise ValueError("score: name the column of validation scores, e.g. "
                         "score='accuracy'")
    if base is not None:
        frame, origin = base.frame, base.source
    elif isinstance(path_or_frame, pd.DataFrame):
        frame, origin = path_or_frame, "a DataFrame"
    elif isinstance(path_or_frame, str | os.PathLike):
        path = Path(path_or_frame).expanduser()
        if path.is_dir():
            base = load_search(path)
            frame = base.frame
        else:
            frame = read_table(path, sep=sep, decimal=decimal)
        origin = str(path_or_frame)
    else:
        raise TypeError(f"path_or_frame must be a file path or a pandas DataFrame, "
                        f"got {_describe(path_or_frame)}")
    minimize, direction = _direction(base, minimize, mode)

    roles = {"score": score, "group": group, "cost": cost}
    roles = {role: column for role, column in roles.items() if column is not None}
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
        raise ValueError(f"score, group and cost must name different columns, got "
                         f"{roles}")
    if len(frame) == 0:
        raise ValueError("path_or_frame has no rows: there are no results to read")

    frame = frame.reset_index(drop=True)
    problems = _bad_rows(frame, roles)
    dropped: list[int] = []
    if problems and not drop_bad_rows:
        bad, what = problems[0]
        raise ValueError(f"{what} in rows {_rows(bad)} {_ROW_NOTE}{_DROP_HINT}")
    if problems:
        bad = np.logical_or.reduce([rows for rows, _ in problems])
        if bad.all():
            raise ValueError(f"every row is bad: {problems[0][1]} in rows "
                             f"{_rows(problems[0][0])} {_ROW_NOTE}")
        dropped = (np.flatnonzero(bad) + 1).tolist()
        reasons = "; ".join(f"{what} in rows {_rows(rows)}"
                            for rows, what in problems)
        warnings.warn(f"dropped {len(dropped)} bad row(s) of {len(frame)} "
                      f"{_ROW_NOTE}: {reasons}", UserWarning, stacklevel=2)
        frame = frame[~bad].reset_index(drop=True)
    frame = frame.copy()
    frame[score] = _numbers(frame, score)
    if group is not None:
        frame[group] = frame[group].astype(str)
    if cost is not None:
        frame[cost] = _numbers(frame, cost)
    return Results(
        frame, score=score, group=group, cost=cost, minimize=minimize,
        direction=direction, notes=base.notes if base is not None else (),
        strategy=base.strategy if base is not None else None,
        dropped=tuple(dropped), source=origin,
        tuner=base.tuner if base is not None else None,
        name=base.name if base is not None else None)


def _direction(base: Results | None, minimize: bool | None,
               mode: str | None) -> tuple[bool, str | None]:
    """Whether lower is better, and who said so: the user, else the reader."""
    said = base.minimize if base is not None and base.tuner is not None else None
    if minimize is None:
        if said is not None or base is not None:
            return base.minimize, base.direction
        return False, None
    minimize = bool(minimize)
    if said is not None and said != minimize:
        if mode is not None:
            raise ValueError(f"minimize={minimize} contradicts mode='{mode}': give "
                             f"mode='{'min' if minimize else 'max'}'")
        study = "Optuna study" if base.tuner == "optuna" else base.source
        raise ValueError(f"minimize: the {study} {'minimizes' if said else 'maximizes'}"
                         f" its objective; leave minimize={minimize} out")
    return minimize, (base.direction if said is not None
                      else f"given: minimize={minimize}")


def _numbers(frame: pd.DataFrame, column) -> np.ndarray:
    values = pd.to_numeric(frame[column], errors="coerce")
    return np.asarray(values.to_numpy(dtype=float, na_value=np.nan))


def _rows(mask: np.ndarray, limit: int = 20) -> str:
    numbers = np.flatnonzero(mask) + 1
    shown = ", ".join(str(n) for n in numbers[:limit])
    more = len(numbers) - limit
    return shown + (f" and {more} more" if more > 0 else "")


def _bad_rows(frame: pd.DataFrame, roles: dict) -> list[tuple[np.ndarray, str]]:
    """(rows, what is wrong with them) per problem, in the order they are reported."""
    problems = []
    score = roles["score"]
    bad = ~np.isfinite(_numbers(frame, score))
    if bad.any():
        problems.append((bad, f"score column {score!r} has missing, non-numeric or "
                              "infinite values"))
    group = roles.get("group")
    if group is not None:
        bad = frame[group].isna().to_numpy()
        if bad.any():
            problems.append((bad, f"group column {group!r} has missing values"))
    cost = roles.get("cost")
    if cost is not None:
        costs = _numbers(frame, cost)
        bad = ~np.isfinite(costs)
        if bad.any():
            problems.append((bad, f"cost column {cost!r} has missing, non-numeric "
                                  "or infinite values"))
        negative = np.isfinite(costs) & (costs < 0)
        if negative.any():
            problems.append((negative, f"cost column {cost!r} has negative values"))
    return problems
