"""Users' results files: their formats, and what ``evp search`` writes.

Delimited text (the delimiter and a decimal comma sniffed), JSON Lines (nested
objects flattened to ``outer.inner`` columns), Parquet, each optionally compressed;
:func:`load_search` reads the trials of ``evp search``. :func:`evp.read_results`
reads all of them through :func:`read_table`.
"""

from __future__ import annotations

import contextlib
import re
from pathlib import Path

import pandas as pd

from evp._validation import reason as _reason
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
_DECIMAL_COMMA = re.compile(r"^[+-]?\d+,\d+(?:[eE][+-]?\d+)?$")
_DECIMAL_POINT = re.compile(r"^[+-]?\d*\.\d+(?:[eE][+-]?\d+)?$")


#: The first bytes of every SQLite database file.
SQLITE_HEADER = b"SQLite format 3\x00"


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


def _sample_lines(path: Path, limit: int = 200) -> list[str]:
    """The first lines of a delimited text file (decompressed), for sniffing."""
    import bz2
    import gzip
    import lzma

    openers = {".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}
    suffix = path.suffix.lower()
    if suffix in COMPRESSIONS and suffix not in openers:
        return []  # .zip, .zst: read with the extension's delimiter
    opener = openers.get(suffix, open)
    lines = []
    try:
        with opener(path, "rt", encoding="utf-8", errors="replace",
                    newline="") as handle:
            for line in handle:
                if line.strip():
                    lines.append(line.rstrip("\r\n"))
                if len(lines) >= limit:
                    break
    except (OSError, EOFError):
        return []
    return lines


def _sniff(lines: list[str], default: str) -> str:
    """The delimiter that splits every sampled line into the same number (> 1) of
    fields, the most fields winning; `default` where none does."""
    import csv

    best, widest = default, 1
    for delimiter in dict.fromkeys((default, *_DELIMITERS)):
        widths = [len(row) for row in csv.reader(lines, delimiter=delimiter)]
        if not widths or widths[0] < 2:
            continue
        agree = sum(w == widths[0] for w in widths) / len(widths)
        if agree >= 0.9 and widths[0] > widest:
            best, widest = delimiter, widths[0]
    return best


def _sniff_decimal(lines: list[str], sep: str) -> str:
    """"," where the numbers are written with decimal commas (1,5 or 0,25), else "."."""
    import csv

    if sep == ",":
        return "."
    commas = points = 0
    for row in csv.reader(lines[1:], delimiter=sep):
        for field in row:
            field = field.strip()
            commas += bool(_DECIMAL_COMMA.match(field))
            points += bool(_DECIMAL_POINT.match(field))
    return "," if commas > points else "."


def read_table(path: Path, sep: str | None = None,
               decimal: str | None = None) -> pd.DataFrame:
    """The raw table of a results file, its format told by its extension."""
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
        raise FileNotFoundError(f"path_or_frame: no such file {path}")
    if path.stat().st_size == 0:
        raise ValueError(f"path_or_frame: {path.name} is empty: no header and no "
                         "rows")
    if kind == "parquet":
        return _read_parquet(path)
    if kind == "jsonl":
        return _read_json_lines(path)
    if sep is None or decimal is None:
        lines = _sample_lines(path)
        if sep is None:
            sep = _sniff(lines, "\t" if kind == "tsv" else ",")
        if decimal is None:
            decimal = _sniff_decimal(lines, sep)
    if sep == decimal:
        raise ValueError(f"sep and decimal are both {sep!r}: a number could not be "
                         "told from the next field; pass another sep")
    try:
        return pd.read_csv(path, sep=sep, decimal=decimal)
    except pd.errors.EmptyDataError:
        raise ValueError(f"path_or_frame: {path.name} holds no header and no rows"
                         ) from None
    except (pd.errors.ParserError, UnicodeDecodeError) as exc:
        raise ValueError(f"path_or_frame: {path.name} could not be read as text "
                         f"separated by {sep!r}: {_reason(exc)}; pass sep") from None


def _read_parquet(path: Path) -> pd.DataFrame:
    """A Parquet file through pandas; needs pyarrow (the ``parquet`` extra)."""
    import importlib.util

    if importlib.util.find_spec("pyarrow") is None:
        raise ImportError(f"path_or_frame: reading {path.name} (Parquet) needs "
                          "pyarrow: pip install 'evp[parquet]'")
    try:
        return pd.read_parquet(path, engine="pyarrow")
    except (OSError, ValueError) as exc:  # pyarrow's errors derive from these
        raise ValueError(f"path_or_frame: {path.name} is not a readable Parquet "
                         f"file: {_reason(exc)}") from None


def _read_json_lines(path: Path) -> pd.DataFrame:
    """One row per JSON object; nested objects become ``outer.inner`` columns."""
    try:
        frame = pd.read_json(path, lines=True, dtype=False, precise_float=True)
    except ValueError as exc:
        raise ValueError(f"path_or_frame: {path.name} is not valid JSON Lines (one "
                         f"JSON object per line): {_reason(exc)}") from None
    nested = [c for c in frame.columns
              if frame[c].map(lambda v: isinstance(v, dict)).any()]
    if not nested:
        return frame
    flat = [pd.json_normalize(frame[c].map(lambda v: v if isinstance(v, dict) else {})
                              .tolist()).add_prefix(f"{c}.") for c in nested]
    return pd.concat([frame.drop(columns=nested), *flat], axis=1)


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
    return Results(
        trials, score="accuracy", group="model", task=task,
        cost="seconds" if "seconds" in trials else None, source=str(path),
        order="trial", ordered=True,
        strategy=("random search (evp search: independent draws from each model's "
                  "search space)"))
