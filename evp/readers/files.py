"""Users' results files: their formats, and what ``evp search`` writes.

Delimited text (the delimiter and a decimal comma sniffed), JSON Lines (nested
objects flattened to ``outer.inner`` columns), Parquet, each optionally compressed;
:func:`load_search` reads the trials of ``evp search``. :func:`evp.read_results`
reads all of them through :func:`read_table`.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from evp._columns import KEPT_NAMES
from evp._numbers import beyond_float
from evp._optional import import_optional_dependency
from evp._validation import reason as _reason
from evp._validation import stack_level
from evp.readers._knows import (
    ANY,
    EXTENSION,
    FOLDER,
    OBJECT,
    Claim,
    Direction,
    Knows,
    Reader,
)
from evp.readers._options import Option
from evp.results import Results

__all__ = ["COMPRESSIONS", "FORMATS", "SQLITE_HEADER", "load_search", "read_table",
           "separator_hint", "sqlite_columns", "sqlite_snapshot", "sqlite_tables"]

FORMATS = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".tab": "tsv",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".parquet": "parquet",
    ".pq": "parquet",
    ".txt": "csv",
}
COMPRESSIONS = (".gz", ".bz2", ".xz", ".zst", ".zip")
# Delimiters a delimited text file is sniffed for, the extension's own first.
_DELIMITERS = (",", ";", "\t", "|")
#: The options of :func:`read_table` that :func:`evp.read_results` passes on.
OPTIONS = {
    "sep": Option(None, "delimiter of a text file (default: sniffed among , ; "
                        "tab and |)", metavar="CHAR",
                  doc="The delimiter of a text file. Default: the one of ``,``, "
                      "``;``, tab and ``|`` that splits every line of the file's "
                      "start into the same number of fields (the most fields "
                      "winning), else the extension's (tab for ``.tsv`` and "
                      "``.tab``, comma otherwise)."),
    "decimal": Option(None, "decimal mark of a text file (default: sniffed, . or "
                            ",)", metavar="CHAR",
                      doc="The decimal mark of a text file. Default: ``,`` when "
                          "the numbers of a file not separated by commas are "
                          "written with decimal commas (``0,85``), else ``.``."),
    "encoding": Option(None, "text encoding of a text file, e.g. latin-1 or cp1252 "
                             "(default: UTF-8, or UTF-16 by its byte-order mark)",
                       metavar="NAME",
                       doc="The text encoding of a delimited text file, as Python "
                           "names it (``\"latin-1\"``, ``\"cp1252\"``). Default: "
                           "UTF-8, or UTF-16 by its byte-order mark; a file in "
                           "another encoding is refused, naming the byte."),
}
_DECIMAL_COMMA = re.compile(r"^[+-]?\d+,\d+(?:[eE][+-]?\d+)?$")
_DECIMAL_POINT = re.compile(r"^[+-]?\d*\.\d+(?:[eE][+-]?\d+)?$")


def json_record(path: Path, shown: str, what: str, remedy: str) -> dict:
    """The JSON object a tool wrote at `path` (a trial's or a run's record);
    a file that is not one is refused in one line naming it (`shown`), what it
    should have been (`what`) and what to do (`remedy`)."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"path_or_frame: {shown} is not text (damaged?): restore "
                         f"it, or {remedy}") from None
    except OSError as error:
        raise ValueError(f"path_or_frame: {shown} cannot be read "
                         f"({error.strerror or type(error).__name__})") from None
    try:
        record = json_loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"path_or_frame: {shown} is not valid JSON (line "
                         f"{error.lineno}, column {error.colno}: {error.msg}; cut "
                         f"short or damaged): restore it, or {remedy}") from None
    except RecursionError:
        raise ValueError(f"path_or_frame: {shown} is nested too deeply to be "
                         f"{what}") from None
    if not isinstance(record, dict):
        raise ValueError(f"path_or_frame: {shown} holds {type(record).__name__}, "
                         f"not {what}")
    return record


def record_folder(source, record: str) -> Path | None:
    """The folder a path names, given as the folder or as its `record` file (a
    tool's ``oracle.json``, ``runhistory.json``); None for anything not a path."""
    if not isinstance(source, str | os.PathLike):
        return None
    path = Path(source).expanduser()
    return path.parent if path.name == record else path


def number(value) -> float:
    """A recorded value as a float: NaN for anything that is not a number (a
    string, None, a boolean). A number that no float holds (an integer of 400
    digits, which JSON allows, or 1e400, kept as its text by
    :func:`json_loads`) is refused (ValueError): read as infinite, it would
    count as a failed round."""
    if isinstance(value, bool):
        return math.nan
    if beyond_float(value):
        raise ValueError(f"a recorded value, {_shown_number(value)}, is beyond the "
                         "range of a float (±1.8e308): rescale it where it is "
                         "logged (its logarithm, say), or log inf for a failed "
                         "round")
    try:
        return float(value)
    except (TypeError, ValueError, OverflowError):
        return math.nan


def _shown_number(value) -> str:
    """A number for a message: a long one cut, with its count of digits."""
    text = str(value).strip()
    return text if len(text) <= 24 else f"{text[:12]}… ({len(text)} characters)"


def _finite_or_text(text: str):
    """JSON's number `text` as a float, or as the text itself where no float
    holds it (1e400): read as infinite, it would pass for a failed round."""
    value = float(text)
    return text if math.isinf(value) else value


def json_loads(text: str, **options):
    """:func:`json.loads`, keeping a number beyond the range of a float as its
    text (1e400; an integer of 400 digits stays an int) for the reader to
    refuse, naming its row, rather than as infinite. JSON's own Infinity is
    infinite, as written."""
    return json.loads(text, parse_float=_finite_or_text, **options)


def keep_beyond_float(frame: pd.DataFrame, path: Path, options: dict) -> pd.DataFrame:
    """`frame` read from the delimited file `path` by pandas, which reads a
    number beyond the range of a float ("1e400", 400 digits) as infinite:
    where a column of numbers holds infinite values, that column is read again
    as text, and each value written as such a number is put back as its text,
    for :func:`evp.read_results` to refuse, naming its row ("inf" itself stays
    infinite: a failed round)."""
    infinite = [c for c in frame.columns if pd.api.types.is_float_dtype(frame[c])
                and np.isinf(frame[c].to_numpy()).any()]
    if not infinite:
        return frame
    options = {k: v for k, v in options.items() if k not in (
        "dtype", "usecols", "na_values", "keep_default_na")}
    text = pd.read_csv(path, **options, usecols=infinite,
                       dtype=dict.fromkeys(infinite, str), keep_default_na=False)
    if len(text) != len(frame):  # pragma: no cover - read alike, row for row
        return frame
    for column in infinite:
        written = text[column].to_numpy(dtype=object)
        beyond = np.isinf(frame[column].to_numpy()) & np.array(
            [beyond_float(v) for v in written], dtype=bool)
        if beyond.any():
            frame = frame.copy()
            values = frame[column].astype(object)
            values[beyond] = written[beyond]
            frame[column] = values
    return frame


def natural(name: str) -> list:
    """Sort key of names with numbers: tpe-2 before tpe-10, seed 2 before 10."""
    return [int(part) if part.isdigit() else part
            for part in re.split(r"(\d+)", name)]


#: The first bytes of every SQLite database file.
SQLITE_HEADER = b"SQLite format 3\x00"


def not_sqlite(path, tool: str) -> ValueError:
    """The one-line refusal of a file that is empty or no SQLite database, where
    `tool`'s store (an Optuna storage, an MLflow store) was expected."""
    what = "is empty" if Path(path).stat().st_size == 0 else "is not a SQLite database"
    return ValueError(f"path_or_frame: {Path(path).name} {what}: not {tool} "
                      "(nothing was written to it)")


def sqlite_tables(path: Path) -> set[str] | None:
    """The tables of SQLite database `path`, read without writing anything (no
    journal, no lock file: ``immutable=1``, or ``mode=ro`` when a write-ahead
    log beside it holds recent changes); None when `path` is not a SQLite
    database (an empty file, another format)."""
    import sqlite3

    path = Path(path)
    try:
        with open(path, "rb") as handle:
            if handle.read(len(SQLITE_HEADER)) != SQLITE_HEADER:
                return None
    except OSError:
        return None
    try:
        with contextlib.closing(sqlite3.connect(_read_only_uri(path), uri=True)) as db:
            return {row[0] for row in db.execute(
                "SELECT name FROM sqlite_master WHERE type='table'")}
    except sqlite3.Error:
        return None


def sqlite_columns(path: Path, table: str) -> set[str]:
    """The columns of `table` in SQLite database `path`, read as
    :func:`sqlite_tables` reads."""
    import sqlite3

    try:
        with contextlib.closing(sqlite3.connect(_read_only_uri(path), uri=True)) as db:
            return {row[1] for row in db.execute(
                "SELECT * FROM pragma_table_info(?)", (table,))}
    except sqlite3.Error:
        return set()


def _read_only_uri(path: Path) -> str:
    path = Path(path).resolve()
    wal = path.with_name(path.name + "-wal")
    flag = "mode=ro" if wal.is_file() and wal.stat().st_size else "immutable=1"
    return f"{path.as_uri()}?{flag}"


@contextlib.contextmanager
def sqlite_snapshot(path: Path):
    """A private copy of SQLite database `path`, made through SQLite's backup
    (a consistent read, the write-ahead log included), for a tool's client to
    open: whatever the client writes (its tables, a migration, a default
    experiment) lands in the copy, which is removed afterwards. The original's
    bytes never change."""
    import sqlite3
    import tempfile

    with tempfile.TemporaryDirectory(prefix="evp-read-",
                                     ignore_cleanup_errors=True) as folder:
        copy = Path(folder) / Path(path).name
        try:
            with contextlib.closing(sqlite3.connect(_read_only_uri(path),
                                                    uri=True)) as source, \
                    contextlib.closing(sqlite3.connect(copy)) as target:
                source.backup(target)
        except sqlite3.Error as exc:
            raise ValueError(f"path_or_frame: {Path(path).name} is not a readable "
                             f"SQLite database: {_reason(exc)}") from None
        yield copy


class Columns(tuple):
    """The columns a caller needs, by role: ``columns.names`` are those that
    name things (the models, the tasks, the runs), read as written."""

    def __new__(cls, *columns, names=()):
        made = super().__new__(cls, columns)
        made.names = tuple(c for c in names if c is not None)
        return made


# pandas' strings for a missing value (read_csv's na_values default): read so in
# every column but those naming things, where "None", "NA" or "nan" is a name.
_MISSING = ("", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan",
            "1.#IND", "1.#QNAN", "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a",
            "nan", "null")

# Bigger files than this are read column by column: only the columns the
# reader needs, with a progress bar.
BIG_FILE = 64 * 2**20
# How much of a file's start is read to sniff its delimiter and decimal mark.
_SAMPLE_CHARACTERS = 1 << 20
# What a damaged compressed file raises while it is read.
_DAMAGED = (EOFError, OSError)


def _opener(path: Path):
    """The function that opens `path`, decompressing it; None for .zip and .zst
    (read by pandas alone)."""
    import bz2
    import gzip
    import lzma

    suffix = path.suffix.lower()
    if suffix in COMPRESSIONS:
        return {".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}.get(suffix)
    return open


def _damaged(path: Path, exc: BaseException) -> ValueError:
    """The one-line error for a file that could not be decompressed."""
    suffix = path.suffix.lower()
    what = (f"a damaged or truncated {suffix} file" if suffix in COMPRESSIONS
            else "an unreadable file")
    return ValueError(f"path_or_frame: {path.name} is {what} ({_reason(exc)}): "
                      "compress it again, or read the uncompressed file")


def _decompression_errors() -> tuple:
    import lzma
    import zlib

    return (*_DAMAGED, lzma.LZMAError, zlib.error)


def _head(path: Path, size: int = 65536) -> bytes:
    """The first `size` bytes of `path`, decompressed (b"" for .zip, .zst)."""
    opener = _opener(path)
    if opener is None:
        return b""
    try:
        with opener(path, "rb") as handle:
            return handle.read(size)
    except _decompression_errors() as exc:
        raise _damaged(path, exc) from None


def _encoding(path: Path, head: bytes) -> str:
    """The text encoding of a file starting with `head`: UTF-16 or UTF-8 by its
    byte-order mark, else UTF-8; a file with NUL bytes and no mark is refused
    (binary, or UTF-16 without a mark)."""
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "utf-16"
    if head.startswith(b"\xef\xbb\xbf"):
        return "utf-8-sig"
    if b"\x00" in head:
        raise ValueError(f"path_or_frame: {path.name} is not a text file (it holds "
                         "NUL bytes: binary data, or UTF-16 without a byte-order "
                         "mark): save it as UTF-8 text")
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < len(head) - 4:  # not merely a character cut at the end
            raise ValueError(f"path_or_frame: {path.name} is not UTF-8 text (byte "
                             f"{exc.start + 1} is {head[exc.start:exc.start + 1]!r})"
                             ": save it as UTF-8, or name its encoding with "
                             "encoding= (e.g. 'latin-1', 'cp1252')") from None
    return "utf-8"


def _sample_lines(path: Path, limit: int = 200, encoding: str = "utf-8") -> list[str]:
    """The first lines of a delimited text file (decompressed), for sniffing."""
    opener = _opener(path)
    if opener is None:
        return []  # .zip, .zst: read with the extension's delimiter
    try:
        with opener(path, "rt", encoding=encoding, errors="replace",
                    newline="") as handle:
            text = handle.read(_SAMPLE_CHARACTERS)  # bounded: a line may be huge
    except _decompression_errors() as exc:
        raise _damaged(path, exc) from None
    lines = [line for line in re.split(r"\r\n|\r|\n", text) if line.strip()]
    if len(text) == _SAMPLE_CHARACTERS and len(lines) > 1:
        lines = lines[:-1]  # the last line may be cut short
    return lines[:limit]


def _split(lines: list[str], sep: str) -> list[list[str]]:
    """The fields of each line: csv's reading for one character, a plain split
    for a longer separator."""
    import csv

    if len(sep) == 1:
        try:
            return list(csv.reader(lines, delimiter=sep))
        except csv.Error:
            return [line.split(sep) for line in lines]
    return [line.split(sep) for line in lines]


def _sniff(lines: list[str], default: str) -> str:
    """The delimiter that splits every sampled line into the same number (> 1) of
    fields, the most fields winning; `default` where none does."""
    best, widest = default, 1
    for delimiter in dict.fromkeys((default, *_DELIMITERS)):
        widths = [len(row) for row in _split(lines, delimiter)]
        if not widths or widths[0] < 2:
            continue
        agree = sum(w == widths[0] for w in widths) / len(widths)
        if agree >= 0.9 and widths[0] > widest:
            best, widest = delimiter, widths[0]
    return best


def _sniff_decimal(lines: list[str], sep: str) -> str:
    """"," where the numbers are written with decimal commas (1,5 or 0,25), else "."."""
    if sep == ",":
        return "."
    commas = points = 0
    for row in _split(lines[1:], sep):
        for field in row:
            field = field.strip()
            commas += bool(_DECIMAL_COMMA.match(field))
            points += bool(_DECIMAL_POINT.match(field))
    return "," if commas > points else "."


def _character(value, name: str) -> str:
    """A --sep or --decimal as given: one character (``\\t`` for a tab), or, for
    the separator, a longer string read literally."""
    if not isinstance(value, str) or value == "":
        raise ValueError(f"{name} must be a character such as ';', got "
                         f"{value!r}")
    value = {"\\t": "\t", "tab": "\t", "\\s": " ", "space": " "}.get(value, value)
    if name == "decimal" and value not in (".", ","):
        # Numbers are written with a point or a comma; any other mark would
        # be accepted and change nothing.
        raise ValueError(f"decimal: must be '.' or ',', got {value!r}")
    if "\n" in value or "\r" in value or '"' in value:
        raise ValueError(f"{name} cannot hold a newline or a quote, got {value!r}")
    return value


def _header(lines: list[str], sep: str) -> list[str]:
    rows = _split(lines[:1], sep)
    return [field.strip() for field in rows[0]] if rows else []


def read_table(path: Path, columns=None, **given) -> pd.DataFrame:
    """The raw table of a results file, its format told by its extension, read
    with the options the user gave (`given`, those of :data:`OPTIONS`; each
    read here by its name, so that a new option is its declaration there and
    its use here).

    `columns`, the columns the caller needs, are all that is read of a delimited
    file bigger than :data:`BIG_FILE` (with the state, order and model columns
    found by their usual names, and everything of a tool's export), with a
    progress bar; a smaller file is read whole.
    """
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] in COMPRESSIONS:
        suffixes = suffixes[:-1]
    kind = FORMATS.get(suffixes[-1] if suffixes else "")
    if kind is None:
        raise ValueError(
            f"path_or_frame: cannot tell the format of {path.name}; use one of the "
            f"extensions {', '.join(FORMATS)} (optionally compressed: "
            f"{', '.join(COMPRESSIONS)}), or read it yourself and pass a DataFrame"
        )
    if not path.is_file():
        if path.exists():  # a named pipe, a device, a socket: no file to read
            raise ValueError(f"path_or_frame: {path} is not a file (a pipe or a "
                             "device); save the results in a file and read that")
        raise FileNotFoundError(f"path_or_frame: no such file {path}")
    if path.stat().st_size == 0:
        raise ValueError(f"path_or_frame: {path.name} is empty: no header and no "
                         "rows")
    if kind == "parquet":
        return _read_parquet(path)
    if kind == "jsonl":
        return _read_json_lines(path)
    sep, decimal = given.get("sep"), given.get("decimal")
    if sep is not None:
        sep = _character(sep, "sep")
    if decimal is not None:
        decimal = _character(decimal, "decimal")
    encoding = given.get("encoding") or _encoding(path, _head(path))
    try:  # the user's encoding, checked by its name; else the file's own
        "".encode(encoding)
    except (LookupError, TypeError):
        raise ValueError(f"encoding: no text encoding is named "
                         f"{given['encoding']!r}; e.g. 'utf-8', 'latin-1', "
                         "'cp1252'") from None
    lines = _sample_lines(path, encoding=encoding)
    if sep is None:
        sep = _sniff(lines, "\t" if kind == "tsv" else ",")
    if decimal is None:
        decimal = _sniff_decimal(lines, sep)
    if sep == decimal:
        raise ValueError(f"sep and decimal are both {sep!r}: a number could not be "
                         "told from the next field; pass another sep")
    header = _header(lines, sep)
    repeated = sorted({c for c in header if header.count(c) > 1})
    if repeated:
        raise ValueError(f"path_or_frame has duplicate column names {repeated}; "
                         "rename them first")
    options = dict(sep=sep if len(sep) == 1 else re.escape(sep), decimal=decimal,
                   encoding=encoding, engine="c" if len(sep) == 1 else "python")
    names = [c for c in getattr(columns, "names", ()) if c in header]
    if names:
        # A model called None, NA or 01 is that name, not a missing value or
        # the number 1; an empty cell stays empty text, refused as a name.
        options.update(dtype=dict.fromkeys(names, str), keep_default_na=False,
                       na_values={c: list(_MISSING) for c in header
                                  if c not in names})
    big = path.stat().st_size > BIG_FILE and columns is not None and header
    if big and not _is_tool_export(header):
        wanted = {str(c) for c in columns if c is not None}
        options["usecols"] = lambda c: (c in wanted
                                        or str(c).strip().lower() in KEPT_NAMES)
    try:
        frame = (_read_big(path, options) if big
                 else pd.read_csv(path, **options))
        frame = keep_beyond_float(frame, path, options)
    except pd.errors.EmptyDataError:
        raise ValueError(f"path_or_frame: {path.name} holds no header and no rows"
                         ) from None
    except (pd.errors.ParserError, UnicodeDecodeError, csv_error()) as exc:
        raise ValueError(f"path_or_frame: {path.name} could not be read as text "
                         f"separated by {sep!r}: {_reason(exc)}; pass sep=") from None
    except _decompression_errors() as exc:
        raise _damaged(path, exc) from None
    if big and "usecols" in options and len(frame.columns) < len(header):
        warnings.warn(f"{path.name} is {path.stat().st_size / 2**20:,.0f} MB: read "
                      f"{len(frame.columns)} of its {len(header)} columns, those "
                      "the analysis needs", UserWarning, stacklevel=stack_level())
    _refuse_repeated_header(frame, path)
    return frame


def csv_error():
    import csv

    return csv.Error


def _is_tool_export(header: list[str]) -> bool:
    """A scikit-learn cv_results_ or W&B export, read whole whatever its size."""
    names = set(header)
    return (any(n.startswith("mean_test_") for n in names)
            or {"Name", "State"} <= names
            or any(n.startswith("summary") for n in names))


def _read_big(path: Path, options: dict) -> pd.DataFrame:
    """A big delimited file in pieces, with a progress bar over its bytes."""
    from evp._workspace import progress

    opener = _opener(path)
    size = path.stat().st_size
    with open(path, "rb") as raw, progress(total=size, unit="B", unit_scale=True,
                                           desc=f"reading {path.name}",
                                           disable=None) as bar:
        counted = _Counted(raw, bar)
        handle = counted if opener is open or opener is None else opener(counted)
        with contextlib.ExitStack() as stack:
            if handle is not counted:
                stack.enter_context(handle)
            if opener is None:  # .zip, .zst: pandas decompresses
                options = dict(options, compression=path.suffix.lower()[1:].replace(
                    "zst", "zstd"))
            pieces = pd.read_csv(handle, chunksize=200_000, **options)
            return pd.concat(list(pieces), ignore_index=True)


class _Counted:
    """A binary file whose reads move a progress bar."""

    def __init__(self, handle, bar):
        self._handle, self._bar = handle, bar

    def read(self, size=-1):
        data = self._handle.read(size)
        self._bar.update(len(data))
        return data

    def readinto(self, buffer):
        count = self._handle.readinto(buffer)
        self._bar.update(count or 0)
        return count

    def __iter__(self):
        return iter(self.readline, b"")

    def __getattr__(self, name):
        return getattr(self._handle, name)


def _refuse_repeated_header(frame: pd.DataFrame, path: Path) -> None:
    """A header line repeated inside the file (files joined together) would be
    read as a round: refused, naming its rows."""
    if frame.empty or not all(frame[c].dtype == object
                              or pd.api.types.is_string_dtype(frame[c])
                              for c in frame.columns):
        return
    names = [str(c) for c in frame.columns]
    repeats = (frame.astype(str).apply(lambda col: col.str.strip())
               == names).all(axis=1).to_numpy()
    if repeats.any():
        rows = ", ".join(str(n) for n in (repeats.nonzero()[0] + 1)[:10])
        raise ValueError(f"path_or_frame: {path.name} repeats its header line in "
                         f"rows {rows} (row 1 is the first data row): files joined "
                         "together? remove those lines")


def _read_parquet(path: Path) -> pd.DataFrame:
    """A Parquet file through pandas; needs pyarrow (the ``parquet`` extra)."""
    import_optional_dependency(
        "pyarrow", purpose=f"path_or_frame: reading {path.name} (Parquet)")
    try:
        return pd.read_parquet(path, engine="pyarrow")
    except (OSError, ValueError, TypeError, KeyError, IndexError,
            NotImplementedError, EOFError) as exc:  # pyarrow's errors
        raise ValueError(f"path_or_frame: {path.name} is not a readable Parquet "
                         f"file: {_reason(exc)}") from None


class _DuplicateKey(ValueError):
    pass


def _no_duplicates(pairs):
    keys = [k for k, _ in pairs]
    if len(set(keys)) != len(keys):
        raise _DuplicateKey(next(k for k in keys if keys.count(k) > 1))
    return dict(pairs)


def _read_json_lines(path: Path) -> pd.DataFrame:
    """One row per JSON object; nested objects become ``outer.inner`` columns. A
    line that is not a JSON object, or an object with a key twice, is
    refused, naming the line."""

    opener = _opener(path)
    if opener is None:  # .zip, .zst: pandas decompresses
        try:
            frame = pd.read_json(path, lines=True, dtype=False, precise_float=True,
                                 convert_dates=False)
        except (ValueError, *_decompression_errors()) as exc:
            raise ValueError(f"path_or_frame: {path.name} is not valid JSON Lines "
                             f"(one JSON object per line): {_reason(exc)}") from None
        records = None
    else:
        encoding = _encoding(path, _head(path))
        records = []
        try:
            with opener(path, "rt", encoding=encoding) as handle:
                for number, line in enumerate(handle, 1):
                    if not line.strip():
                        continue
                    try:
                        record = json_loads(line, object_pairs_hook=_no_duplicates)
                    except _DuplicateKey as exc:
                        raise ValueError(f"path_or_frame: {path.name} line {number} "
                                         f"has the key {exc.args[0]!r} twice; keep "
                                         "one") from None
                    except (ValueError, RecursionError) as exc:
                        raise ValueError(f"path_or_frame: {path.name} is not valid "
                                         "JSON Lines (one JSON object per line): line "
                                         f"{number}: {_reason(exc)}") from None
                    if not isinstance(record, dict):
                        raise ValueError(f"path_or_frame: {path.name} line {number} "
                                         f"is not a JSON object but "
                                         f"{type(record).__name__} (one object per "
                                         "line, with a key per column)")
                    records.append(record)
        except UnicodeDecodeError as exc:
            raise ValueError(f"path_or_frame: {path.name} is not UTF-8 text: "
                             f"{_reason(exc)}") from None
        except _decompression_errors() as exc:
            raise _damaged(path, exc) from None
        if not records:
            raise ValueError(f"path_or_frame: {path.name} holds no JSON objects")
        frame = pd.DataFrame.from_records(records)
    nested = [c for c in frame.columns
              if frame[c].map(lambda v: isinstance(v, dict)).any()]
    if not nested:
        return frame
    flat = [pd.json_normalize(frame[c].map(lambda v: v if isinstance(v, dict) else {})
                              .tolist()).add_prefix(f"{c}.") for c in nested]
    out = pd.concat([frame.drop(columns=nested), *flat], axis=1)
    repeated = sorted({str(c) for c in out.columns[out.columns.duplicated()]})
    if repeated:
        raise ValueError(f"path_or_frame: {path.name} names columns {repeated} "
                         "twice (a key with a dot, and a nested object); rename "
                         "them first")
    return out


def separator_hint(columns: list) -> str:
    """A hint when one column's name holds the other names: a wrong delimiter."""
    if len(columns) != 1:
        return ""
    for delimiter in _DELIMITERS:
        if delimiter in str(columns[0]):
            shown = "\\t" if delimiter == "\t" else delimiter
            return (f"; the header looks separated by {shown!r}: pass "
                    f"sep={shown!r}")
    return ""


_SEARCH_FIELDS = ("model", "trial", "accuracy")


def _unique_trials(trials: pd.DataFrame, keys: list[str], name: str = "path",
                   refuse: bool = True):
    """Each trial once: a trial written twice the same way (a file copied, a
    resumed search) is kept once, with a warning; two different records of one
    trial are refused, naming it, unless `refuse` is False (the keys may not
    tell the models apart: they are then kept, for the model checks to judge).
    (trials, warnings)."""
    # The key columns as text, so that a nested value cannot stop the check.
    key = trials[keys].astype(str)
    again = key.duplicated(keep=False).to_numpy()
    if not again.any():
        return trials, ()
    text = trials.astype(str)
    same = text.duplicated(keep="first").to_numpy()
    conflicting = again & ~text.duplicated(keep=False).to_numpy()
    if conflicting.any() and refuse:
        first = key[conflicting].iloc[0]
        shown = ", ".join(f"{k} {first[k]}" for k in keys)
        raise ValueError(f"{name}: the trial of {shown} is recorded more than once, "
                         "with different results: keep the record you trust")
    kept = trials[~same]
    counts = key[same].value_counts(sort=False)
    shown = "; ".join(", ".join(f"{k} {v}" for k, v in zip(keys, index, strict=True))
                      for index in list(counts.index)[:5])
    return kept, (f"{int(same.sum())} trial record(s) repeated word for word "
                  f"({shown}{'; …' if len(counts) > 5 else ''}) read once: the same "
                  "trial written twice, as when a search is resumed or a file "
                  "copied",)


def load_search(path) -> Results:
    """Read what ``evp search`` writes: one JSON Lines file, or a folder of them.

    Parameters
    ----------
    path : str or os.PathLike
        A ``.jsonl`` file of trials (one JSON object per finished trial, as
        :func:`evp.search.runner.run_search` appends them), or a folder whose
        ``*.jsonl`` files are read in name order (one file per model), or a
        folder of such folders, one per task (named after it: the ``task``
        column and role).

    Returns
    -------
    evp.Results
        Score ``accuracy``, group ``model``, cost ``seconds`` (when recorded) and
        the strategy (random search). Its frame has one row per trial, sorted by
        model (in file order) and trial: the trial's fields (``model``,
        ``trial``, ``accuracy``, ``seconds``, …) and its hyperparameters as
        ``config.<name>`` columns (recorded library versions as
        ``versions.<name>``).

    Raises
    ------
    FileNotFoundError
        No such file or folder, or a folder without ``.jsonl`` files.
    ValueError
        A file is not JSON Lines, or a trial lacks ``model``, ``trial`` or
        ``accuracy``.
    """
    path = Path(path).expanduser()
    task = None
    if path.is_dir():
        files = sorted(path.glob("*.jsonl"))
        if not files:  # one subfolder per task, one file per model in each
            files = sorted(path.glob("*/*.jsonl"))
            task = "task"
        if not files:
            raise FileNotFoundError(f"path: no .jsonl files of trials in {path}")
    elif path.is_file():
        files = [path]
    else:
        raise FileNotFoundError(f"path: no such file or folder {path}")
    frames = []
    for file in files:
        frame = _read_json_lines(file)
        lacking = [f for f in _SEARCH_FIELDS if f not in frame.columns]
        if lacking or frame.empty:
            raise ValueError(f"path: {file.name} is not a file of `evp search` trials "
                             f"(it lacks {', '.join(lacking) or 'trials'})")
        if task is not None:  # the subfolder names the task
            frame["task"] = file.parent.name
        frames.append(frame.sort_values("trial", kind="stable"))
    trials = pd.concat(frames, ignore_index=True)
    order = ["model", "trial", "accuracy"] + (["task"] if task else [])
    trials = trials[order + [c for c in trials.columns if c not in order]]
    trials, warned = _unique_trials(trials, ["task", "model", "trial"] if task
                                    else ["model", "trial"])
    trials = trials.reset_index(drop=True)
    return Results(
        trials, score="accuracy", group="model", task=task, warnings=warned,
        cost="seconds" if "seconds" in trials else None, source=str(path),
        order="trial", ordered=True,
        strategy=("random search (evp search: independent draws from each model's "
                  "search space)"))


# ------------------------------------------------------------------ readers

def _is_path(source) -> bool:
    return isinstance(source, str | os.PathLike)


def _read_file(source, *, score=None, columns=None, **options):
    path = Path(source).expanduser()
    if not path.exists():
        raise FileNotFoundError(f"path_or_frame: no such file or folder {path}")
    # A file a tool wrote (scikit-learn's cv_results_ as CSV, a W&B export) is
    # then offered to the readers of tables' shapes (the registry).
    return read_table(path, columns=columns, **options)


def _refuse_pickle(source, *, score=None):
    raise ValueError(f"path_or_frame: {Path(source).name} is a pickle, and evp "
                     "never unpickles a file (loading one runs the code in it): "
                     "load it yourself if you trust it and pass the object, or save "
                     "pd.DataFrame(search.cv_results_) as a CSV file and read that")


#: File endings of pickles, which evp never loads (loading one runs its code).
PICKLE_SUFFIXES = (".pkl", ".pickle", ".joblib", ".pck", ".pcl", ".dill")
# A user's own table: no tool recorded its direction or order (the user's
# roles and column names say them).
_OWN = Knows(direction=None, order=None)

#: The readers of users' own results, as the registry lists them: a results
#: file (any path no other reader claims), a folder of evp search trials,
#: a DataFrame, Results read before, and pickles (refused, never loaded).
READER = Reader("file", "a results file", _is_path, _read_file, OPTIONS,
                Claim(ANY, ("file", "folder", "url"), cost=0), _OWN,
                hints=("columns",))
SEARCH_READER = Reader(
    "evp search", "a folder of evp search trials",
    lambda s: _is_path(s) and Path(s).expanduser().is_dir(),
    lambda s, score=None: load_search(s).replace(source=str(s)),
    claim=Claim(FOLDER, ("folder",), cost=0),
    knows=Knows(direction=Direction(other="assume"),
                order="the trial numbers evp search wrote"))
TABLE_READER = Reader("table", "a DataFrame", lambda s: isinstance(s, pd.DataFrame),
                      lambda s, score=None: s, claim=Claim(ANY, ("table",), cost=0),
                      knows=_OWN)
RESULTS_READER = Reader("results", "evp.Results", lambda s: isinstance(s, Results),
                        lambda s, score=None: s,
                        claim=Claim(OBJECT, ("object",), cost=0),
                        knows=Knows(direction=Direction(other="assume"), order=None))
PICKLE_READER = Reader("pickle", "a pickle file",
                       lambda s: _is_path(s) and Path(s).suffix.lower()
                       in PICKLE_SUFFIXES, _refuse_pickle,
                       claim=Claim(EXTENSION, ("file",), PICKLE_SUFFIXES, cost=0),
                       knows=_OWN)
