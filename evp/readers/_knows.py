"""What a reader declares of its tool, for the generic code to read: how the
tool records which way is better (:class:`Direction`), the trial order, failed
trials and each trial's name (:class:`Knows`), and how specific the reader's
claim on a source is (:class:`Claim`).

The generic code (:func:`evp.read_results`, :mod:`evp.readers._policy`, the
registry's choice of a reader) reads these declarations and names no tool: a
tool's habits live in its reader, beside its ``read``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

import pandas as pd

__all__ = ["ANY", "EXTENSION", "FOLDER", "MARKER", "OBJECT", "SHAPE", "UNSAID",
           "Claim", "Direction", "Knows", "Reader", "kind_of"]

#: How specific a claim is, most specific first: a Python object by its type
#: (an Optuna Study, a fitted search, Results); a marker inside a source (a
#: tool's own file in a folder, a tool's tables in a SQLite file); a table's
#: shape (a tool's columns); a file's extension alone; any folder; anything
#: of its kind (evp's readers of users' own files and tables).
OBJECT, MARKER, SHAPE, EXTENSION, FOLDER, ANY = 50, 40, 30, 20, 10, 0
#: A declaration a reader has not made (a plug-in that says nothing).
UNSAID = "unsaid"

_URL = re.compile(r"^[a-z][a-z0-9+.\-]*://", re.IGNORECASE)
#: The kinds of source a reader may claim.
KINDS = ("object", "table", "url", "folder", "file")


def kind_of(source) -> str:
    """What `source` is, as cheaply as that is known (one stat for a path):
    ``table`` (a DataFrame), ``url`` (``scheme://…``), ``folder``, ``file``
    (a path that is no folder, a missing one included) or ``object``."""
    if isinstance(source, pd.DataFrame):
        return "table"
    if isinstance(source, str) and _URL.match(source):
        return "url"
    if isinstance(source, str | os.PathLike):
        try:
            return "folder" if Path(source).expanduser().is_dir() else "file"
        except (OSError, ValueError):
            return "file"
    return "object"


@dataclass(frozen=True)
class Claim:
    """How specific a reader's claim on a source is, and what it can claim
    without a look inside (so that a CSV file is asked of no tuner's sniff).

    Attributes
    ----------
    specificity : int
        :data:`OBJECT`, :data:`MARKER`, :data:`SHAPE`, :data:`EXTENSION`,
        :data:`FOLDER` or :data:`ANY`: the more specific claims are asked
        first.
    kinds : tuple of str
        The kinds of source (:func:`kind_of`) the reader reads.
    suffixes : tuple of str
        A file's endings (lower case) the reader reads, where it reads files
        by their names; empty: any name.
    cost : int, default 0
        How much its sniff looks at, among claims equally specific: 0 the
        source's type or name, 1 a few files, 2 a folder's listing.
    """

    specificity: int = MARKER
    kinds: tuple = KINDS
    suffixes: tuple = ()
    cost: int = 1

    def may_claim(self, kind: str, source) -> bool:
        """Whether the reader could claim `source` of `kind`, judged by its
        kind and name only (no file opened)."""
        if kind not in self.kinds:
            return False
        if kind != "file" or not self.suffixes:
            return True
        name = Path(os.fspath(source)).name.lower()
        return name.endswith(self.suffixes)


@dataclass(frozen=True)
class Direction:
    """How a tool records which way is better, and what that says of a score
    other than the one it records it for.

    The recorded direction (the Results' ``minimize`` and ``direction``)
    holds for the reader's own score (its objective, its metric) only.

    Attributes
    ----------
    recorded : str
        How a contradiction names the tool's word, ``{verb}`` standing for
        ``minimizes`` or ``maximizes`` (default: the Results' ``direction``).
    other : {"assume", "refuse"}
        A score other than the reader's: higher is better, assumed and said
        (``assume``), or the user's to say (``refuse``).
    why_not : str
        Why the tool's direction says nothing of another score, with
        ``{score}``, ``{objective}``, ``{option}`` and ``{value}``.
    option : str, optional
        The reader's option that says the direction (``mode``), and
    values : tuple of (value, bool) pairs
        its values and whether each means lower is better.
    """

    recorded: str | None = None
    other: str = "assume"
    why_not: str = "the recorded direction is {objective!r}'s"
    option: str | None = None
    values: tuple = ()


@dataclass(frozen=True)
class Knows:
    """What a reader declares its tool records.

    Attributes
    ----------
    direction : Direction, None or UNSAID
        How the tool records which way is better; None where it records
        none (a user's own table: the user says).
    order : str, None or UNSAID
        How the tool records the order its trials ran in, in words (``"Ray
        Tune's trial counter"``); None where it records none (a grid, a
        table of one's own).
    failed : tuple of str
        The tool's words for failed trials (``ERROR``, ``FAIL``).
    identity : str, optional
        The column that names each trial (Optuna's ``number``, Ray's
        ``trial_id``): failed rounds are named so in messages, with the
        reader's own group (study, experiment) where there are several, and
    identity_words : str
        what such a message says they are (``"Optuna's trial numbers"``).
    rows : bool, default False
        The table's index is each row's place in the file read, where the
        reader left rows out or reordered them (a W&B export): messages name
        rows by it.
    """

    direction: object = UNSAID
    order: object = UNSAID
    failed: tuple = field(default=())
    identity: str | None = None
    identity_words: str = ""
    rows: bool = False


@dataclass(frozen=True)
class Reader:
    """One kind of source, how to read it, and what its tool records.

    A reader's module defines one (``READER = Reader(...)``) beside its
    ``read``; the registry lists it in one line.

    Attributes
    ----------
    name : str
        The reader's name, as :attr:`evp.Results.tuner` names what it read.
    reads : str
        What it reads, in words, for messages ("an Optuna study").
    sniff : callable
        ``sniff(source) -> bool``: whether `source` is this reader's kind.
    read : callable
        ``read(source, **options)``: :class:`evp.Results`, or a plain table
        (DataFrame) whose roles the user names.
    declared : mapping of str to Option
        The options `read` takes besides `score`, each with its default and the
        command line's words (``{"study": Option(None, "Optuna: …")}``); an
        option of another reader is refused when this one reads.
    claim : Claim
        How specific its claim on a source is, and the kinds of source it
        reads (the registry asks the most specific first, cheap sniffs first).
    knows : Knows
        What its tool records: direction, order, failed trials, trial names.
    names_score : bool
        Whether the reader resolves the score's name itself (``"accuracy"`` is
        scikit-learn's ``mean_test_accuracy``), so that a `score` it does not
        know by that name is its own.
    hints : tuple of str
        What read_results tells the reader besides the user's options:
        ``columns``, the columns the roles name (a big file reads no more).
    """

    name: str
    reads: str
    sniff: Callable
    read: Callable
    declared: MappingProxyType = field(default_factory=dict)
    claim: Claim = field(default_factory=Claim)
    knows: Knows = field(default_factory=Knows)
    names_score: bool = False
    hints: tuple = ()

    def __post_init__(self):
        # Read-only, so that no caller changes a reader's defaults for the next.
        object.__setattr__(self, "declared", MappingProxyType(dict(self.declared)))

    @property
    def options(self) -> dict:
        """{option: its default}: what `read` takes besides `score`."""
        return {name: option.default for name, option in self.declared.items()}

    @property
    def takes(self) -> tuple:
        """The options' names (:attr:`options`)."""
        return tuple(self.declared)
