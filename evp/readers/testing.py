r"""The contract every reader keeps, as named checks, one per rule.

:func:`reader_checks` yields one :class:`Check` per rule of what
:func:`evp.read_results` and everything after it rely on; calling a check
raises :class:`ReaderContractError`, naming the reader and the rule, when the
reader breaks it. A plug-in's tests run each as a test of its own, as
scikit-learn's ``parametrize_with_checks`` runs an estimator's::

    import pytest
    from evp.readers.testing import reader_checks
    from evp_toy_reader import READER

    @pytest.mark.parametrize("check", reader_checks(READER, "tests/runs.toy",
                                                    failed=1), ids=str)
    def test_the_toy_reader_keeps_evps_contract(check):
        check()

A rule the reader is known to break is named in `expected_failures` (``{rule:
why}``): its check then passes while the rule is broken, and fails once the
reader keeps it (so that the mapping is kept true). :func:`check_reader` runs
them all and raises at the first broken rule.

The rules (:data:`RULES`):

* ``sniff_never_raises`` — whatever it is given (a number, None, bytes, a
  missing path, an empty folder, a DataFrame, a CSV file), sniff says True or
  False;
* ``sniff_claims_no_stranger`` — it claims no number, None, bytes or list,
  no plain CSV file of one's own (which evp's file reader reads), and, with a
  claim above any folder's (a marker's: a plug-in's unless it declares
  another), no empty folder;
* ``sniff_changes_nothing`` — sniff changes nothing it is given;
* ``claims_its_own_source`` — it claims the source it reads;
* ``declares_its_options`` — its options are a dict of names to defaults,
  none of them a name evp keeps (:data:`evp.readers.registry.RESERVED`), and
  its claim and knowledge, where declared, are :class:`~evp.readers.registry.
  Claim` and :class:`~evp.readers.registry.Knows`;
* ``read_changes_nothing`` — read changes no byte of the file or folder, and
  nothing of the DataFrame, it reads;
* ``returns_results`` — read returns :class:`evp.Results` (a plain table
  only for evp's readers of users' own tables);
* ``says_its_source`` — the Results say where they came from;
* ``says_its_direction`` — the Results say which way is better and who said
  so, unless the reader declares that its tool records no direction;
* ``says_its_order`` — the Results say their trials are in order (or name
  the order column), where the reader declares that its tool records the
  order or declares nothing;
* ``rows_in_trial_order`` — with the order known, each model's rows are in
  trial order;
* ``marks_failed_rounds`` — failed rounds are marked (a missing score, or a
  failed state) so that the ``failed`` policy sees each: ``failed="worst"``
  keeps them all, ``failed="error"`` refuses them, and given ``failed=k`` (the
  source's known number of failed rounds), exactly ``k``;
* ``marks_its_failed_states`` — a row in a state the reader declares failed
  (:attr:`~evp.readers.registry.Knows.failed`) is a failed round the policy
  sees.
"""

from __future__ import annotations

import functools
import os
import tempfile
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from evp._columns import STATE_COLUMNS
from evp.readers import FAILED_STATES, read_results
from evp.readers._knows import FOLDER, UNSAID, Claim, Direction, Knows
from evp.readers.registry import (
    RESERVED,
    PluginError,
    Reader,
    _fingerprint,
    _plugin,
    _plugin_options,
    readers,
)
from evp.results import ASSUMED_DIRECTION, Results

__all__ = ["RULES", "Check", "ReaderContractError", "check_reader", "reader_checks"]

# evp's readers of users' own tables: their read may return the table itself.
_TABLE_READERS = ("table", "file")


class ReaderContractError(AssertionError):
    """A reader broke one of the rules :func:`reader_checks` checks; the message
    names the reader and the rule."""


@dataclass(frozen=True)
class Check:
    """One rule of the contract, checked on one reader and source.

    Calling it raises :class:`ReaderContractError` when the reader breaks the
    rule; where the rule is an expected failure (`expected`, why), it raises
    when the reader keeps the rule instead. ``str(check)`` is its name, for
    test ids.
    """

    name: str
    rule: str
    run: Callable
    expected: str | None = None

    def __call__(self) -> None:
        if self.expected is None:
            self.run()
            return
        try:
            self.run()
        except ReaderContractError:
            return  # broken, as expected
        raise ReaderContractError(f"{self.name}: expected to fail ({self.expected}), "
                                  "and the reader keeps the rule: take it out of "
                                  "expected_failures")

    def __str__(self) -> str:
        return self.name


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
    try:
        options = _plugin_options(reader)
    except ValueError:
        options = {}  # said by declares_its_options
    return _plugin(getattr(reader, "name", None) or type(reader).__name__, reader,
                   options=options)


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


def _states(frame: pd.DataFrame) -> list:
    return [c for c in frame.columns if str(c).strip().lower() in STATE_COLUMNS]


def _failed_in(frame: pd.DataFrame, score) -> np.ndarray:
    """Rows of a reader's frame that are failed rounds: a score missing or not
    finite, or a state or status column marking the round failed."""
    values = pd.to_numeric(frame[score], errors="coerce").to_numpy(dtype=float)
    failed = ~np.isfinite(values)
    for column in _states(frame):
        failed |= frame[column].map(
            lambda v: isinstance(v, str) and v.strip().lower()
            in FAILED_STATES).to_numpy(dtype=bool)
    return failed


class _Run:
    """One reader's read of one source, done once, for every check."""

    def __init__(self, reader: Reader, source, score, group, minimize, failed,
                 options: dict):
        self.reader, self.source, self.failed = reader, source, failed
        self.options = options
        self.roles = {k: v for k, v in {"score": score, "group": group,
                                        "minimize": minimize}.items()
                      if v is not None}
        self.score = score

    @functools.cached_property
    def read(self) -> tuple:
        """(what read returned, the source's fingerprint before, after)."""
        before = _fingerprint(self.source)
        given = {**self.reader.options,
                 **{k: v for k, v in self.options.items() if v is not None}}
        try:
            made = self.reader.read(self.source, score=self.score, **given)
        except PluginError as error:  # a plug-in held to evp's promises
            if _fingerprint(self.source) != before:
                raise _fail(self.reader, "read changed what it read") from None
            raise _fail(self.reader, str(error)) from None
        return made, before, _fingerprint(self.source)

    @property
    def made(self):
        return self.read[0]

    def base(self) -> tuple:
        """(the reader's frame, its score column), checked to be Results (or a
        table from evp's readers of tables)."""
        made = self.made
        if isinstance(made, pd.DataFrame) and self.reader.name in _TABLE_READERS:
            return made, self.score
        if isinstance(made, Results):
            return made.frame, made.score
        raise _fail(self.reader, f"read returned {type(made).__name__}, not "
                                 "evp.Results")

    @functools.cached_property
    def results(self) -> Results:
        """What read_results reads with this reader, failed rounds kept."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return read_results(self.source, reader=self.reader, failed="worst",
                                **self.roles, **self.options)


def _fail(reader: Reader, rule: str) -> ReaderContractError:
    return ReaderContractError(f"the reader {reader.name!r} ({reader.reads}) "
                               f"breaks the contract: {rule}")


# ------------------------------------------------------------------ the rules

def _sniff_never_raises(run: _Run) -> None:
    with tempfile.TemporaryDirectory() as folder:
        for what, other in _odd_sources(Path(folder)).items():
            try:
                claimed = run.reader.sniff(other)
            except Exception as error:
                raise _fail(run.reader, f"sniff raised {type(error).__name__} for "
                                        f"{what}; a sniff says False") from error
            if not isinstance(claimed, bool | np.bool_):
                raise _fail(run.reader, f"sniff returned {type(claimed).__name__} "
                                        f"for {what}, not True or False")


def _sniff_claims_no_stranger(run: _Run) -> None:
    with tempfile.TemporaryDirectory() as folder:
        for what, other in _odd_sources(Path(folder)).items():
            try:
                claimed = run.reader.sniff(other)
            except Exception:
                continue  # sniff_never_raises says it
            if claimed and what.startswith("a CSV") and run.reader.name != "file":
                raise _fail(run.reader, "it claims a plain CSV file of one's own, "
                                        "which evp's file reader reads")
            # Paths and tables may be a catch-all reader's (evp's files);
            # nothing claims a number, None, bytes or a list.
            if claimed and what in ("a number", "None", "bytes", "a list"):
                raise _fail(run.reader, f"it claims {what}")
            # A claim above any folder's (a tool's marker, say) is asked before
            # evp's readers of folders: claiming an empty one, it would take
            # every folder from them (an evp search's, say).
            if (claimed and what == "an empty folder"
                    and run.reader.claim.specificity > FOLDER):
                raise _fail(run.reader, "it claims an empty folder, and its claim "
                                        "(a marker's, unless it declares another) "
                                        "is asked before evp's readers of folders: "
                                        "claim a folder by what it holds")


def _sniff_changes_nothing(run: _Run) -> None:
    with tempfile.TemporaryDirectory() as folder:
        odd = _odd_sources(Path(folder))
        before = _fingerprint(folder)
        frame = odd["a DataFrame"].copy(deep=True)
        for other in odd.values():
            try:
                run.reader.sniff(other)
            except Exception:
                continue  # sniff_never_raises says it
        if _fingerprint(folder) != before or not odd["a DataFrame"].equals(frame):
            raise _fail(run.reader, "sniff changed what it was given")
    before = _fingerprint(run.source)
    try:
        run.reader.sniff(run.source)
    except Exception:
        return  # said by claims_its_own_source
    if _fingerprint(run.source) != before:
        raise _fail(run.reader, "sniff changed the source it was given")


def _claims_its_own_source(run: _Run) -> None:
    try:
        mine = run.reader.sniff(run.source)
    except Exception as error:
        raise _fail(run.reader, f"sniff raised {type(error).__name__} for its own "
                                "source") from error
    if not mine:
        raise _fail(run.reader, "it does not claim its own source")


def _declares_its_options(run: _Run) -> None:
    reader = run.reader
    names = list(reader.declared)
    bad = [n for n in names if not (isinstance(n, str) and n.isidentifier())]
    if bad:
        raise _fail(reader, f"its options {bad!r} are not option names")
    reserved = sorted(n for n in names if n in RESERVED)
    if reserved:
        raise _fail(reader, f"it declares the option(s) {', '.join(reserved)}, "
                            "names evp keeps for itself")
    if not isinstance(reader.claim, Claim) or not isinstance(reader.knows, Knows):
        raise _fail(reader, "its claim and knowledge are not a Claim and a Knows")
    way = reader.knows.direction
    if not (way is None or way == UNSAID or isinstance(way, Direction)):
        raise _fail(reader, "its tool's direction is declared as "
                            f"{type(way).__name__}, not a Direction, None or UNSAID")


def _read_changes_nothing(run: _Run) -> None:
    _, before, after = run.read
    if before is not None and after != before:
        raise _fail(run.reader, "read changed what it read")


def _returns_results(run: _Run) -> None:
    run.base()


def _says_its_source(run: _Run) -> None:
    made = run.made
    if isinstance(made, Results) and not made.source:
        raise _fail(run.reader, "its Results do not say their source")
    run.base()
    if not run.results.source:
        raise _fail(run.reader, "read_results' Results do not say their source")


def _says_its_direction(run: _Run) -> None:
    made = run.made
    way = run.reader.knows.direction
    if isinstance(made, Results) and way is not None and (
            not isinstance(made.direction, str) or not made.direction.strip()
            or (made.direction == ASSUMED_DIRECTION and "minimize" not in run.roles
                and way == UNSAID)):
        raise _fail(run.reader, "its Results do not say which way is better and "
                                "who said so (give Results a minimize and a "
                                "direction, or declare knows=Knows(direction=None) "
                                "if the tool records none)")
    run.base()
    direction = run.results.direction
    if not (isinstance(direction, str) and direction.strip()):
        raise _fail(run.reader, "read_results' Results do not say who set the "
                                "direction")


def _says_its_order(run: _Run) -> None:
    made = run.made
    if not isinstance(made, Results):
        run.base()
        return
    said = run.reader.knows.order
    if said is not None and not (made.ordered or made.order is not None):
        words = ("the reader declares its tool records the order "
                 f"({said})" if said != UNSAID else "the reader declares nothing")
        raise _fail(run.reader, f"its Results do not say the trials' order, and "
                                f"{words}: give Results ordered=True (rows in trial "
                                "order) or order=COLUMN, or declare "
                                "knows=Knows(order=None) if the tool records none")


def _rows_in_trial_order(run: _Run) -> None:
    run.base()
    results = run.results
    if not _in_trial_order(results):
        raise _fail(run.reader, f"its rows are not in trial order (column "
                                f"{results.order!r}) model by model")


def _marks_failed_rounds(run: _Run) -> None:
    frame, score = run.base()
    results = run.results
    marked = int(_failed_in(frame, score or results.score).sum())
    if run.failed is not None and marked != run.failed:
        raise _fail(run.reader, f"it marks {marked} failed round(s), and the source "
                                f"holds {run.failed}")
    if len(results.failed) != marked:
        raise _fail(run.reader, f"it marks {marked} failed round(s), and the "
                                f"failed-rounds policy sees {len(results.failed)}")
    if marked:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                read_results(run.source, reader=run.reader, failed="error",
                             **run.roles, **run.options)
        except ValueError:
            pass
        else:
            raise _fail(run.reader, "failed='error' read its failed rounds without "
                                    "refusing them")


def _marks_its_failed_states(run: _Run) -> None:
    frame, score = run.base()
    words = {str(w).strip().lower() for w in run.reader.knows.failed}
    if not words:
        return
    seen = _failed_in(frame, score or run.results.score)
    for column in _states(frame):
        declared = frame[column].map(lambda v: isinstance(v, str)
                                     and v.strip().lower() in words).to_numpy(bool)
        unseen = declared & ~seen
        if unseen.any():
            value = frame[column][unseen].iloc[0]
            raise _fail(run.reader, f"rows in the state {value!r}, which it "
                                    "declares failed, keep their scores and a "
                                    "state evp does not read as failed: write "
                                    "their scores as missing")


#: Each rule: (name, what it says, its check).
RULES = (
    ("sniff_never_raises", "sniff says True or False, whatever it is given",
     _sniff_never_raises),
    ("sniff_claims_no_stranger", "sniff claims no number, None, bytes, list, "
     "plain CSV file or (above a folder's claim) empty folder",
     _sniff_claims_no_stranger),
    ("sniff_changes_nothing", "sniff changes nothing it is given",
     _sniff_changes_nothing),
    ("claims_its_own_source", "sniff claims the source the reader reads",
     _claims_its_own_source),
    ("declares_its_options", "its options are names to defaults, none of them "
     "evp's own", _declares_its_options),
    ("read_changes_nothing", "read changes nothing of what it reads",
     _read_changes_nothing),
    ("returns_results", "read returns evp.Results", _returns_results),
    ("says_its_source", "the Results say where they came from", _says_its_source),
    ("says_its_direction", "the Results say which way is better and who said so",
     _says_its_direction),
    ("says_its_order", "the Results say the trials' order, where the tool "
     "records one", _says_its_order),
    ("rows_in_trial_order", "each model's rows are in trial order",
     _rows_in_trial_order),
    ("marks_failed_rounds", "failed rounds are marked, as the failed policy sees "
     "them", _marks_failed_rounds),
    ("marks_its_failed_states", "rows in a state it declares failed are failed "
     "rounds", _marks_its_failed_states),
)


def reader_checks(reader, source, *, score=None, group=None, failed=None,
                  minimize=None, expected_failures=None,
                  **options) -> Iterator[Check]:
    """One :class:`Check` per rule of evp's contract (:data:`RULES`), for
    `reader` on `source`, in the rules' order.

    Parameters
    ----------
    reader : Reader, str or object
        One of :data:`evp.readers.registry.READERS`, its name, or a plug-in's
        object (``sniff`` and ``read``).
    source : object
        A source of the reader's kind, which it reads (read once, when the
        first check that needs it runs).
    score, group, minimize : optional
        What :func:`evp.read_results` needs to be told of this source (a plain
        table's score column, a loss's direction); default: nothing.
    failed : int, optional
        The number of failed rounds `source` is known to hold: the reader must
        mark exactly these.
    expected_failures : mapping of str to str, optional
        The rules the reader is known to break, each with why; their checks
        pass while the rule is broken (and fail once it is kept). A name that
        is no rule is an error.
    **options
        The reader's own options (:attr:`~evp.readers.registry.Reader.options`).

    Yields
    ------
    Check
        Call it; ``str(check)`` is the rule's name.
    """
    expected = dict(expected_failures or {})
    unknown = sorted(set(expected) - {name for name, _, _ in RULES})
    if unknown:
        raise ValueError(f"expected_failures: no rule {', '.join(map(repr, unknown))}"
                         f"; the rules: {', '.join(n for n, _, _ in RULES)}")
    checked = _as_reader(reader)
    if not isinstance(reader, Reader | str):
        raw = reader

        def declared_options(run, check=_declares_its_options) -> None:
            try:
                _plugin_options(raw)
            except ValueError as error:
                raise _fail(run.reader, f"it has {error}") from None
            check(run)
    run = _Run(checked, source, score, group, minimize, failed, options)
    for name, rule, check in RULES:
        if name == "declares_its_options" and not isinstance(reader, Reader | str):
            check = declared_options
        yield Check(name, rule, functools.partial(check, run), expected.get(name))


def check_reader(reader, source, *, score=None, group=None, failed=None,
                 minimize=None, **options) -> Results:
    """Run every check of :func:`reader_checks` and raise the first
    :class:`ReaderContractError`; return what :func:`evp.read_results` read
    with this reader, failed rounds kept as the worst (``failed="worst"``),
    for further checks."""
    checks = list(reader_checks(reader, source, score=score, group=group,
                                failed=failed, minimize=minimize, **options))
    for check in checks:
        check()
    return checks[0].run.args[0].results
