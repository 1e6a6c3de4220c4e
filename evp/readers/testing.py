r"""The contract every reader keeps, as one check a reader's tests call.

:func:`check_reader` runs a reader on a source of its kind and raises
:class:`ReaderContractError`, naming the rule, when the reader breaks one of
what :func:`evp.read_results` and everything after it rely on:

1. ``sniff`` never raises, whatever it is given (a number, None, bytes, a
   missing path, an empty folder, a DataFrame, a CSV file), and changes
   nothing it is given;
2. the reader claims its own source, and not a plain CSV file of one's own (a
   tool's reader that claimed one would read a user's table as the tool's);
3. ``read`` changes no byte of what it reads, and returns :class:`evp.Results`
   (a plain table only for evp's readers of users' own tables, whose roles the
   user names), and read through :func:`evp.read_results` the Results say
   which way is better and who said so (``direction``) and where they came
   from (``source``);
4. with the trial order known, the rows are in trial order, model by model;
5. failed rounds are marked (a missing score, or a failed state), so that the
   ``failed`` policy sees each: ``failed="error"`` refuses them, and
   ``failed="worst"`` keeps every one of them in ``.failed``; given
   ``failed=k``, the source's known number of failed rounds, exactly ``k``.

A plug-in's tests call it on their own sample files, as scikit-learn's
estimator checks are called::

    from evp.readers.testing import check_reader
    from evp_toy_reader import READER

    def test_the_toy_reader_keeps_evps_contract(tmp_path):
        (tmp_path / "runs.toy").write_text("a 0.3\nb 0.2\n")
        check_reader(READER, tmp_path / "runs.toy")
"""

from __future__ import annotations

import os
import tempfile
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from evp.readers import FAILED_STATES, read_results
from evp.readers.registry import Reader, _fingerprint, _plugin, readers
from evp.results import Results

__all__ = ["ReaderContractError", "check_reader"]

# evp's readers of users' own tables: their read may return the table itself.
_TABLE_READERS = ("table", "file")


class ReaderContractError(AssertionError):
    """A reader broke one of the rules :func:`check_reader` checks; the message
    names the reader and the rule."""


def _as_reader(reader) -> Reader:
    """A Reader: evp's by its name, or a plug-in's object held to evp's
    promises as read_results holds it."""
    if isinstance(reader, Reader):
        return reader
    if isinstance(reader, str):
        found = next((r for r in readers() if r.name == reader), None)
        if found is None:
            raise ValueError(f"reader: no reader is named {reader!r}")
        return found
    if not (callable(getattr(reader, "sniff", None))
            and callable(getattr(reader, "read", None))):
        raise TypeError("reader: needs sniff(source) and read(source, **options)")
    return _plugin(getattr(reader, "name", None) or type(reader).__name__, reader)


def _odd_sources(folder: Path) -> dict:
    """What a sniff may be given that is no reader's source."""
    empty = folder / "empty"
    empty.mkdir()
    table = pd.DataFrame({"model": ["a", "a", "b"], "acc": [0.5, 0.6, 0.7]})
    csv = folder / "runs.csv"
    table.to_csv(csv, index=False)
    return {"a number": 3, "None": None, "bytes": b"bytes", "a list": ["list"],
            "a missing path": folder / "missing" / "x.csv",
            "a missing .db file": folder / "missing.db", "an empty folder": empty,
            "a DataFrame": table, "a CSV file": csv, "a CSV file's path as text":
            os.fspath(csv)}


def _fail(reader: Reader, rule: str) -> ReaderContractError:
    return ReaderContractError(f"the reader {reader.name!r} ({reader.reads}) "
                               f"breaks the contract: {rule}")


def _check_sniff(reader: Reader, source) -> None:
    with tempfile.TemporaryDirectory() as folder:
        odd = _odd_sources(Path(folder))
        before = _fingerprint(folder)
        for what, other in odd.items():
            try:
                claimed = reader.sniff(other)
            except Exception as error:
                raise _fail(reader, f"sniff raised {type(error).__name__} for "
                                    f"{what}; a sniff says False") from error
            if not isinstance(claimed, bool | np.bool_):
                raise _fail(reader, f"sniff returned {type(claimed).__name__} "
                                    f"for {what}, not True or False")
            if claimed and what.startswith("a CSV") and reader.name != "file":
                raise _fail(reader, "it claims a plain CSV file of one's own, "
                                    "which evp's file reader reads")
            # Paths and tables may be a catch-all reader's (evp's files);
            # nothing claims a number, None, bytes or a list.
            if claimed and what in ("a number", "None", "bytes", "a list"):
                raise _fail(reader, f"it claims {what}")
        if _fingerprint(folder) != before:
            raise _fail(reader, "sniff changed what it was given")
    if not reader.sniff(source):
        raise _fail(reader, "it does not claim its own source")


def _in_trial_order(results: Results) -> bool:
    """Whether each model's (task's, run's) rows are in `order`'s order."""
    order = results.order
    if order is None or not results.ordered:
        return True
    keys = [k for k in (results.task, results.group, results.runs) if k is not None]
    frame = results.frame
    parts = frame.groupby(keys, sort=False) if keys else [(None, frame)]
    for _, part in parts:
        values = part[order]
        numbers = pd.to_numeric(values, errors="coerce")
        if numbers.notna().all():
            values = numbers
        if not values.is_monotonic_increasing:
            return False
    return True


def _failed_in(frame: pd.DataFrame, score) -> int:
    """Rows of a reader's frame that are failed rounds: a score missing or not
    finite, or a state or status column marking the round failed."""
    values = pd.to_numeric(frame[score], errors="coerce").to_numpy(dtype=float)
    failed = ~np.isfinite(values)
    for column in frame.columns:
        if str(column).strip().lower() in ("state", "status", "run_state",
                                           "run_status"):
            failed |= frame[column].map(
                lambda v: isinstance(v, str) and v.strip().lower()
                in FAILED_STATES).to_numpy(dtype=bool)
    return int(failed.sum())


def check_reader(reader, source, *, score=None, group=None, failed=None,
                 minimize=None, **options) -> Results:
    """Check that `reader` keeps evp's contract on `source`; raise
    :class:`ReaderContractError` naming the rule it breaks (see the module).

    Parameters
    ----------
    reader : Reader, str or object
        One of :data:`evp.readers.registry.READERS`, its name, or a plug-in's
        object (``sniff`` and ``read``).
    source : object
        A source of the reader's kind, which it reads.
    score, group, minimize : optional
        What :func:`evp.read_results` needs to be told of this source (a plain
        table's score column, a loss's direction); default: nothing.
    failed : int, optional
        The number of failed rounds `source` is known to hold: the reader must
        mark exactly these. Default: whatever it marks is checked for being
        seen by the failed-rounds policy.
    **options
        The reader's own options (:attr:`Reader.options`).

    Returns
    -------
    evp.Results
        What :func:`evp.read_results` read with this reader, failed rounds
        kept as the worst (``failed="worst"``), for further checks.
    """
    checked = _as_reader(reader)
    _check_sniff(checked, source)
    before = _fingerprint(source)
    table = source.copy(deep=True) if isinstance(source, pd.DataFrame) else None
    given = {**checked.options, **{k: v for k, v in options.items()
                                   if v is not None}}
    made = checked.read(source, score=score, **given)
    if before is not None and _fingerprint(source) != before:
        raise _fail(checked, "read changed a byte of what it read")
    if table is not None and not (source.equals(table)
                                  and source.columns.equals(table.columns)):
        raise _fail(checked, "read changed the DataFrame it read")
    if isinstance(made, pd.DataFrame) and checked.name in _TABLE_READERS:
        base_frame, base_score = made, score
    elif isinstance(made, Results):
        if not made.source:
            raise _fail(checked, "its Results do not say their source")
        base_frame, base_score = made.frame, made.score
    else:
        raise _fail(checked, f"read returned {type(made).__name__}, not "
                             "evp.Results")
    roles = {"score": score, "group": group, "minimize": minimize}
    roles = {k: v for k, v in roles.items() if v is not None}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = read_results(source, reader=checked, failed="worst",
                               **roles, **options)
    if not (isinstance(results.direction, str) and results.direction.strip()):
        raise _fail(checked, "read_results' Results do not say who set the "
                             "direction")
    if not results.source:
        raise _fail(checked, "read_results' Results do not say their source")
    if not _in_trial_order(results):
        raise _fail(checked, f"its rows are not in trial order (column "
                             f"{results.order!r}) model by model")
    marked = _failed_in(base_frame, base_score or results.score)
    if failed is not None and marked != failed:
        raise _fail(checked, f"it marks {marked} failed round(s), and the source "
                             f"holds {failed}")
    if len(results.failed) != marked:
        raise _fail(checked, f"it marks {marked} failed round(s), and the "
                             f"failed-rounds policy sees {len(results.failed)}")
    if marked:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                read_results(source, reader=checked, failed="error", **roles,
                             **options)
        except ValueError:
            pass
        else:
            raise _fail(checked, "failed='error' read its failed rounds without "
                                 "refusing them")
    return results
