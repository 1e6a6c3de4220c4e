r"""The readers, in one list, and the rule that picks one.

A reader is a small object (:class:`Reader`): ``sniff(source) -> bool`` says
whether a source is its kind, ``read(source, **options)`` reads it, and its
declarations say the rest: its options (:class:`Option`), how specific its
claim on a source is (:class:`Claim`), and what its tool records (:class:`Knows`:
which way is better, the trial order, failed trials, each trial's name).
:func:`evp.read_results` asks the readers of :data:`READERS` and the plug-ins
other packages install (entry-point group :data:`READERS_GROUP`) by their
claims: the most specific first (an object's type, a tool's marker inside a
source, a table's shape, an extension, any folder, anything), the cheapest
sniffs first among equals; a reader whose kinds or extensions rule the source
out is never asked (a CSV file is sniffed by no tuner). The first to claim the
source reads it; an option that names its reader's source (MLflow's
`experiment`) picks that reader. Nothing else decides which reader reads what,
and nothing here or in read_results names a tool: what a tool does is in its
reader's declarations.

A new reader is three edits: its module (defining ``READER = Reader(...)``),
one line here (``_reader("module")``), and its test.

evp's readers return :class:`evp.Results` for read_results to validate, or, for
a table that no tool wrote (a DataFrame, a CSV file of one's own), the table
itself: its roles are the ones the user names. A file's table is then offered
to the readers of tables (scikit-learn's ``cv_results_``, a W&B runs table), so
that a CSV file a tool wrote is read as that tool's.

The options a reader takes are declared beside its ``read``, each with its
default (:attr:`Reader.options`; the command line makes a flag of each); a
reader's option given to another kind of source (``study=`` with a CSV file)
is refused in one line that names the readers it is for. ``reader="optuna"``
(a reader's :attr:`~Reader.name`) picks a reader without asking the others.

**Writing a reader.** A package of one's own teaches evp a format: an object
with ``sniff`` and ``read`` (returning :class:`evp.Results`; read_results then
applies the failed-rounds policy, the direction and the exchangeability test
to it, as to evp's own), named under the entry-point group. For a format of
lines "MODEL LOSS", one line per trial in the order they ran (``ordered=True``
says so; without it, the contract's ``says_its_order`` fails)::

    # evp_toy_reader.py
    import pandas as pd
    from evp import Results

    class ToyReader:
        def sniff(self, source):
            return str(source).endswith(".toy")

        def read(self, source, **options):
            with open(source) as lines:
                rows = [line.split() for line in lines if line.strip()]
            frame = pd.DataFrame({"model": [m for m, _ in rows],
                                  "loss": [float(x) for _, x in rows]})
            return Results(frame, score="loss", group="model", minimize=True,
                           direction="the toy format: lower is better",
                           ordered=True, source=str(source))

    READER = ToyReader()

and in that package's ``pyproject.toml``::

    [project.entry-points."evp.readers"]
    toy = "evp_toy_reader:READER"

A plug-in may declare its claim and what its tool knows as evp's readers do
(``claim = Claim(EXTENSION, ("file",), (".toy",))``, ``knows = Knows(...)``,
from this module); without them its claim counts as a marker's, and its
Results must say their direction and order themselves. A reader with options
lists them, ``options = {"sep": " "}`` (name → default; the names
:data:`RESERVED` are evp's own, and a plug-in declaring one is skipped with a
warning): read_results passes it each (``read_results("runs.toy", sep="\t")``),
its default where the user gave none, and each is a flag of every command that
reads results (``evp curve runs.toy --sep TAB``; :func:`plugin_option_flags`),
unless the command has a flag of that name already (then it is
read_results' keyword only). Its tests check it against evp's contract, one
test per rule (:func:`evp.readers.testing.reader_checks`: sniff never raises
and claims no stranger, read changes nothing, the Results say their source,
direction and order, rows in trial order, failed rounds marked), as every
built-in reader is checked::

    import pytest
    from evp.readers.testing import reader_checks

    @pytest.mark.parametrize("check", list(reader_checks(
        READER, "tests/runs.toy", failed=1)), ids=str)
    def test_the_toy_reader(check):
        check()

Once it is installed, ``evp.read_results("runs.toy")`` and ``evp curve
runs.toy`` read it (``tests/test_reader_plugins.py`` installs this very
package). A reader that cannot be loaded, or lacks ``sniff`` or ``read``, is
skipped with a warning naming it. A plug-in runs inside evp's read, so it is
held to evp's promises: whatever its ``sniff`` or ``read`` raises (an exit
too) becomes a :class:`PluginError` naming it and the package it came from; a
``read`` that returns something other than :class:`evp.Results` is refused; and
a file, every file of a folder, or a DataFrame given to its ``sniff`` or
``read`` is fingerprinted before and after, and results read by a plug-in that
changed its input are refused.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import importlib
import os
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from evp._validation import EvpWarning, _describe, stack_level
from evp.readers._knows import (
    ANY,
    EXTENSION,
    FOLDER,
    MARKER,
    OBJECT,
    SHAPE,
    Claim,
    Direction,
    Knows,
    Reader,
    kind_of,
)
from evp.readers._options import Option
from evp.results import Results

__all__ = ["ANY", "EXTENSION", "FOLDER", "MARKER", "OBJECT", "READERS",
           "READERS_GROUP", "RESERVED", "SHAPE", "Claim", "Direction", "Knows",
           "Option", "PluginError", "PluginWarning", "Reader", "option_flags",
           "plugin_readers", "read_source"]

#: The entry-point group through which other packages add readers: each entry
#: point names an object with ``sniff(source) -> bool`` and ``read(source,
#: **options) -> evp.Results``.
READERS_GROUP = "evp.readers"


def _is_path(source) -> bool:
    return isinstance(source, str | os.PathLike)


def _reader(module: str, name: str = "READER") -> Reader:
    """The reader a module of this package declares (``READER``, or `name`
    where it declares several): a new reader is its module, one such line in
    :data:`READERS`, and its test."""
    return getattr(importlib.import_module(f"evp.readers.{module}"), name)


#: evp's readers, each declared in its own module. Which one reads a source is
#: decided by their claims (:class:`Claim`): the most specific claim first (an
#: object's type, a tool's marker inside a source, a table's shape, an
#: extension, any folder, anything), the cheap sniffs first among equals; a
#: reader whose kinds and extensions rule a source out is not asked at all.
#: The list's order decides nothing.
READERS = (
    _reader("mlflow"),
    _reader("sklearn"),
    _reader("sklearn", "TABLE_READER"),
    _reader("tuners", "OPTUNA_READER"),
    _reader("tuners", "RAY_TUNE_READER"),
    _reader("kerastuner"),
    _reader("smac"),
    _reader("wandb"),
    _reader("syne_tune"),
    _reader("files"),
    _reader("files", "SEARCH_READER"),
    _reader("files", "TABLE_READER"),
    _reader("files", "RESULTS_READER"),
    _reader("files", "PICKLE_READER"),
)


def _asked(every: tuple, source) -> list:
    """The readers that may claim `source`, in the order they are asked: the
    most specific claim first, the cheapest sniff first among equals, then
    evp's before the plug-ins, then by name; those whose kinds or extensions rule
    `source` out are left out, their sniffs never run."""
    kind = kind_of(source)
    able = [r for r in every if r.claim.may_claim(kind, source)]
    own = {r.name for r in READERS}
    return sorted(able, key=lambda r: (-r.claim.specificity, r.claim.cost,
                                       r.name not in own, r.name))


def option_flags() -> dict:
    """{option: Option} of evp's readers, each once, in the order of
    :data:`READERS`: the command line's flags for reading (``--study``, …)."""
    found: dict = {}
    for reader in READERS:
        for name, option in reader.declared.items():
            first = found.setdefault(name, option)
            if first is not option and option.help not in first.help:
                # Declared by several readers (each trial's best or last
                # report: Ray Tune's and Syne Tune's): the help says each.
                found[name] = dataclasses.replace(
                    first, help=f"{first.help}; {option.help}",
                    doc=" ".join(d for d in (first.doc or first.help,
                                             option.doc or option.help) if d))
    return found


def plugin_option_flags() -> dict:
    """{option: Option} of the plug-ins installed now, each once, those that
    evp's readers do not declare (:func:`option_flags`): the command line's
    flags for the plug-ins' options (``--NAME VALUE``, given as text)."""
    evp_own = option_flags()
    found: dict = {}
    # Said when a read asks, not here: `evp --version` hears of no plug-in.
    for plugin in _plugins(tuple(sys.path), say=False):
        for option, default in plugin.options.items():
            if option not in evp_own:
                found.setdefault(option, Option(
                    default, f"the {plugin.name!r} reader (a plug-in): its option "
                             f"{option!r}", metavar="VALUE"))
    return found


class PluginWarning(EvpWarning):
    """A reader another package installed was skipped: it could not be
    loaded, or does not keep the shape of a reader."""


class PluginError(ValueError):
    """A reader another package installed failed, or broke evp's promises (it
    returned something other than Results, or changed its input). A ValueError,
    so that the command line says it in one line as it says a bad input."""


def plugin_readers() -> dict:
    """{name: reader} of the readers other packages install (entry-point group
    :data:`READERS_GROUP`), in name order. One that cannot be loaded, or has no
    ``sniff`` and ``read``, is skipped with a warning naming it."""
    return {p.name: p.reader for p in _plugins(tuple(sys.path))}


def _origin(point) -> str:
    """Where an entry point comes from, for messages: "toy = pkg:READER, from
    the package pkg 0.1"."""
    dist = getattr(point, "dist", None)
    package = (f", from the package {dist.name} {dist.version}"
               if dist is not None and getattr(dist, "name", None) else "")
    return f"{point.name} = {point.value}{package}"


#: Option names a plug-in may not declare: :func:`evp.read_results`' own
#: keywords (its roles and policies), and the names the command line keeps for
#: itself (the command, its handler, the names its messages use, the searches
#: given as NAME=PATH). A plug-in declaring one is skipped when it loads, with
#: one warning line, so that no command breaks on it.
RESERVED = frozenset({
    "path_or_frame", "score", "group", "cost", "order", "runs", "task", "failed",
    "drop_bad_rows", "minimize", "reader", "bounds", "columns",
    "command", "handler", "names", "sources", "plugin_options", "results"})


@dataclass(frozen=True)
class _Loaded:
    """A plug-in as loaded: its name, the object, where it came from, and its
    options ({name: default}) read once, so that nothing of the plug-in runs
    again until a read asks it."""

    name: str
    reader: object
    origin: str
    options: dict


def _plugin_options(reader) -> dict:
    """A plug-in's ``options`` ({name: default}), checked; ValueError saying
    what is wrong with them (an attribute that raises included)."""
    try:
        options = getattr(reader, "options", None) or {}
        if not isinstance(options, dict):
            raise ValueError("options that are not a dict of option names to their "
                             "defaults")
        options = dict(options)
    except KeyboardInterrupt:
        raise
    except ValueError:
        raise
    except BaseException as error:
        said = _safely(str, error).strip().splitlines()
        raise ValueError(f"an options attribute that fails ({type(error).__name__}"
                         f"{': ' + said[0] if said else ''})") from None
    bad = [k for k in options if not (isinstance(k, str) and k.isidentifier())]
    if bad:
        raise ValueError("options that are not a dict of option names to their "
                         "defaults")
    reserved = sorted(k for k in options if k in RESERVED)
    if reserved:
        raise ValueError(f"an option named {', '.join(map(repr, reserved))}, a "
                         "name evp keeps for itself; rename it")
    return options


@functools.lru_cache(maxsize=8)
def _loaded(path: tuple) -> tuple:
    """(the plug-ins installed where `path` (sys.path) looks, each a _Loaded,
    loaded once; the warnings of those skipped). Nothing is said here: a
    command that reads no results never hears of a plug-in (:func:`_plugins`
    says them when a read asks)."""
    from importlib.metadata import entry_points

    found, problems = {}, []
    try:
        points = sorted(entry_points(group=READERS_GROUP), key=lambda p: p.name)
    except Exception as error:  # a broken distribution's metadata
        return (), (f"the evp readers installed could not be listed "
                    f"({type(error).__name__}: {error}); none is used",)
    for point in points:
        try:
            reader = point.load()
        except KeyboardInterrupt:
            raise
        # Another package's bug, an exit at import included: said, not raised.
        except BaseException as error:
            said = _safely(str, error).strip().splitlines()
            problems.append(f"the evp reader {point.name!r} ({_origin(point)}) "
                            f"could not be loaded ({type(error).__name__}"
                            f"{': ' + said[0] if said else ''}); skipped")
            continue
        try:
            usable = (callable(getattr(reader, "sniff", None))
                      and callable(getattr(reader, "read", None)))
        except KeyboardInterrupt:
            raise
        except BaseException:
            usable = False
        if not usable:
            problems.append(f"the evp reader {point.name!r} ({_origin(point)}) has "
                            "no sniff(source) and read(source, **options); skipped")
            continue
        try:
            options = _plugin_options(reader)
        except ValueError as error:
            problems.append(f"the evp reader {point.name!r} ({_origin(point)}) has "
                            f"{error}; skipped")
            continue
        found[point.name] = _Loaded(point.name, reader, _origin(point), options)
    return tuple(found.values()), tuple(problems)


def _plugins(path: tuple, say: bool = True) -> tuple:
    """The plug-ins installed where `path` looks (:func:`_loaded`), each a
    _Loaded; those skipped said in one warning line each when `say`."""
    found, problems = _loaded(path)
    if say:
        for problem in problems:
            warnings.warn(problem, PluginWarning, stacklevel=stack_level())
    return found


def _fingerprint(source, contents: bool = True) -> dict | None:
    """{file: its size, modification time and (if `contents`) sha256} of a
    file, or of every file under a folder; of a DataFrame, the digest of its
    values, index, columns and types; None for any other source (a plug-in
    given an object). Without `contents` a path is only statted, for the
    sniffs every read asks (a tuner's folder may hold gigabytes of
    checkpoints)."""
    if isinstance(source, pd.DataFrame):
        return {"a DataFrame": _frame_digest(source)}
    if not _is_path(source):
        return None
    path = Path(source).expanduser()
    files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() \
        else [path] if path.is_file() else []
    out = {}
    for file in files:
        stat = file.stat()
        digest = hashlib.sha256()
        if contents:
            with open(file, "rb") as stream:
                for block in iter(lambda s=stream: s.read(1 << 20), b""):
                    digest.update(block)
        out[str(file)] = (stat.st_size, stat.st_mtime_ns, digest.hexdigest())
    return out


def _frame_digest(frame: pd.DataFrame) -> str:
    """A digest of everything a reader could change in place: the values (a
    list in a cell included), the index, the column names and their types."""
    digest = hashlib.sha256()
    digest.update(repr((list(map(repr, frame.columns)), list(map(str, frame.dtypes)),
                        frame.shape)).encode())
    try:
        digest.update(pd.util.hash_pandas_object(frame, index=True).to_numpy()
                      .tobytes())
    except TypeError:  # unhashable cells (lists, dicts): their pickled bytes
        import pickle

        try:
            digest.update(pickle.dumps(frame, protocol=5))
        except Exception:  # cells that cannot be pickled: their text
            digest.update(frame.to_string().encode())
    return digest.hexdigest()


def _safely(say, value) -> str:
    """`say(value)`, or "" when a plug-in's object cannot even be described."""
    try:
        return str(say(value))
    except Exception:
        return ""


def _plugin(name: str, reader, origin: str = "", options: dict | None = None
            ) -> Reader:
    """A plug-in as a Reader, held to evp's promises: anything its sniff or
    read raises (an exit included, an interrupt excepted) is a PluginError
    naming it; its result must be Results, and its input unchanged."""
    who = f"the evp reader {name!r}" + (f" ({origin})" if origin else "")
    fix = "fix it, or uninstall its package"

    def failed(step: str, error: BaseException) -> PluginError:
        said = _safely(str, error).strip().splitlines()
        return PluginError(f"path_or_frame: {who} failed in {step} "
                           f"({type(error).__name__}"
                           f"{': ' + said[0] if said else ''}): {fix}")

    def changed(source, step: str) -> PluginError:
        shown = ("the DataFrame it was given" if isinstance(source, pd.DataFrame)
                 else source)
        return PluginError(f"path_or_frame: {who} changed {shown} in {step}, so "
                           f"its results are not used: {fix}")

    def sniff(source) -> bool:
        # A sniff that fails is not taken for "not mine": the next reader could
        # then read the plug-in's format as something else.
        before = _fingerprint(source, contents=False)
        try:
            mine = bool(reader.sniff(source))
        except KeyboardInterrupt:
            raise
        except BaseException as error:
            raise failed("sniff", error) from None
        if before is not None and _fingerprint(source, contents=False) != before:
            raise changed(source, "sniff")
        return mine

    def read(source, *, score=None, **options):
        before = _fingerprint(source)
        try:
            base = reader.read(source, score=score, **options)
        except KeyboardInterrupt:
            raise
        except BaseException as error:
            raise failed("read", error) from None
        if before is not None and _fingerprint(source) != before:
            raise changed(source, "read")
        if not isinstance(base, Results):
            shown = _safely(_describe, base) or type(base).__name__
            raise PluginError(f"path_or_frame: {who} returned {shown}, not "
                              f"evp.Results: {fix}")
        return base.replace(tuner=base.tuner or name)

    if options is None:  # a reader not installed: a plug-in's own tests
        options = _plugin_options(reader)
    declared = {option: Option(default, f"the {name!r} reader's option")
                for option, default in options.items()}
    return Reader(name, f"the {name!r} reader's kind", sniff, read, declared,
                  claim=_declared(reader, "claim", Claim, Claim()),
                  knows=_declared(reader, "knows", Knows, Knows()),
                  names_score=True)


def _declared(reader, name: str, kind: type, default):
    """A plug-in's declaration `name` (its claim, what its tool knows) where it
    makes one of `kind`, else `default`."""
    try:
        value = getattr(reader, name, None)
    except Exception:
        return default
    return value if isinstance(value, kind) else default


def readers() -> tuple:
    """Every reader: evp's, then the plug-ins installed now (the order they
    are asked in is their claims', :func:`_asked`)."""
    plugged = tuple(_plugin(p.name, p.reader, p.origin, p.options)
                    for p in _plugins(tuple(sys.path)))
    return READERS + plugged


def read_source(source, *, score=None, reader=None, columns=None,
                **options) -> tuple[Reader, Results | None, pd.DataFrame, str]:
    """Pick the reader of `source` and read it: (the reader, the Results it
    made or None for a plain table, the frame, where it came from).

    `reader` names the reader (:attr:`Reader.name`), or is one, and skips the
    sniffing;
    else the first to claim `source` reads it, and an MLflow `experiment`
    names the source an MLflow store. `options` are the readers' options
    (:attr:`Reader.options`): the chosen reader is given each of its own, its
    default where the user gave none (or None), and an option of another
    reader is refused. `columns` (the columns the roles name) is for the
    readers that ask for it (:attr:`Reader.hints`).
    """
    every = readers()
    if isinstance(reader, Reader):
        chosen = reader  # a plug-in's tests check a reader not installed yet
    elif reader is not None:
        chosen = next((r for r in every if r.name == reader), None)
        if chosen is None:
            names = ", ".join(dict.fromkeys(repr(r.name) for r in every))
            raise ValueError(f"reader: no reader is named {reader!r}; the readers: "
                             f"{names}")
    elif claimed := [r for r in every if any(
            option.claims and options.get(name) is not None
            for name, option in r.declared.items())]:
        chosen = claimed[0]  # an option that says the source is its reader's
    else:
        chosen = next((r for r in _asked(every, source) if r.sniff(source)), None)
    if chosen is None:
        raise TypeError(f"path_or_frame must be a file path or a pandas DataFrame, "
                        f"got {_describe(source)}")
    _refuse_others(chosen, options, every)
    given = {name: (options[name] if options.get(name) is not None else default)
             for name, default in chosen.options.items()}
    if "columns" in chosen.hints:
        given["columns"] = columns
    made = chosen.read(source, score=score, **given)
    if isinstance(made, pd.DataFrame) and _is_path(source):
        # A table a tool wrote, saved as a file (scikit-learn's cv_results_,
        # a W&B export): the readers of tables' shapes read it as the tool's.
        shaped = next((r for r in _asked(every, made)
                       if r.claim.specificity > ANY and r.sniff(made)), None)
        if shaped is not None:
            chosen = shaped
            made = shaped.read(made, score=score).replace(source=str(source))
    if isinstance(made, Results):
        return chosen, made, made.frame, made.source
    origin = str(source) if _is_path(source) else chosen.reads
    return chosen, None, made, origin


def _refuse_others(chosen: Reader, options: dict, every: tuple) -> None:
    """An option of another reader given to `chosen` (``study=`` with a CSV
    file): one line naming the readers it is for. One that no reader takes is a
    TypeError, as for any unknown keyword."""
    for option, value in options.items():
        if value is None or option in chosen.declared:
            continue
        owners = [r for r in every if option in r.declared]
        if not owners:
            known = ", ".join(sorted({n for r in every for n in r.declared}))
            raise TypeError(f"{option}: no reader takes an option {option!r}; the "
                            f"readers' options: {known}")
        if all(value == r.declared[option].default for r in owners):
            continue  # the default, said or not, asks nothing of the reader
        shown = " or ".join(dict.fromkeys(r.reads for r in owners))
        raise ValueError(f"{option}={value!r} is for {shown}, and path_or_frame "
                         f"is {chosen.reads}: leave {option} out")
