"""Writing what evp makes without harming what was there: the one place every
command's output goes through.

* :func:`check_output` — an output path is refused when it is one of the inputs
  (or lies inside an input folder), when its folder does not exist, or when it
  is a folder.
* :func:`write_file` — one file written atomically: to a temporary file beside
  it, then renamed over it, so that a reader (or a crash) sees the old file or
  the new one, never half of one. Whether a file was replaced is returned, for
  the caller to say.
* :func:`write_folder_files` — files in a folder of evp's own (a report's
  ``<name>-figures/``): a record in the folder (:data:`MANIFEST`) lists what
  evp wrote there, and a file evp did not write is never overwritten.
* :func:`exclusive` — a lock on an output folder, so that two runs into one
  folder cannot both succeed; :func:`atomic_folder` — a folder filled in a
  temporary folder beside it and moved into place only when complete.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path

__all__ = ["MANIFEST", "FolderBusy", "atomic_folder", "check_output", "exclusive",
           "input_paths", "write_file", "write_folder_files"]

#: The record, in a folder evp writes files into, of the files it wrote there.
MANIFEST = ".evp-written.json"
# Prefixes of what is written beside an output while it is made.
_PARTIAL = ".evp-partial-"
_LOCK = ".evp-lock-"


class FolderBusy(RuntimeError):
    """Another evp process holds the output folder's lock."""


def input_paths(source) -> list[Path]:
    """The local files or folders `source` reads (a path, ``sqlite:///PATH``,
    ``file:PATH``); none for a server's URL or an object."""
    if not isinstance(source, str | os.PathLike):
        return []
    text = os.fspath(source)
    lowered = text.lower()
    if lowered.startswith("sqlite:///"):
        text = text[len("sqlite:///"):].split("?")[0]
    elif lowered.startswith("file://"):
        text = text[len("file://"):]
    elif lowered.startswith("file:"):
        text = text[len("file:"):]
    elif "://" in text:
        return []
    return [Path(text).expanduser()] if text else []


def _same(a: Path, b: Path) -> bool:
    with contextlib.suppress(OSError):
        if a.exists() and b.exists():
            return os.path.samefile(a, b)
    return a.resolve() == b.resolve()


def check_output(path, *, inputs: Iterable = (), name: str = "out",
                 suffixes: Iterable[str] | None = None) -> Path:
    """`path` as a Path, if evp may write it: not one of `inputs` (paths or
    sources as :func:`input_paths` reads them), nor inside an input folder; its
    folder exists; it is not a folder. Else a one-line ValueError naming
    `name`."""
    path = Path(path).expanduser()
    if suffixes is not None:
        suffixes = tuple(suffixes)
        if path.suffix.lower() not in suffixes:
            raise ValueError(f"{name} must end in {', '.join(suffixes)}, got "
                             f"{path.name!r}")
    for source in inputs:
        for read in input_paths(source):
            if _same(path, read):
                raise ValueError(f"{name}: {path} is the input {read}: writing it "
                                 "would destroy the results; choose another file")
            if read.is_dir() and read.resolve() in path.resolve().parents:
                raise ValueError(f"{name}: {path} lies inside the input folder "
                                 f"{read}; write it elsewhere")
    if path.is_dir():
        raise ValueError(f"{name}: {path} is a folder; name a file in it")
    if not path.parent.is_dir():
        raise ValueError(f"{name}: no folder {str(path.parent)!r}; create it first")
    return path


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _new_file_mode() -> int:
    """The permissions an ordinary new file gets here (0o666 less the umask)."""
    return 0o666 & ~_umask()


def write_file(path, content: str | bytes | Callable[[Path], object]) -> bool:
    """Write `path` atomically; return whether it replaced a file.

    `content` is the text (UTF-8), the bytes, or a function that writes a file
    at the path it is given (a temporary file with `path`'s suffix, in `path`'s
    folder). The temporary file is renamed over `path` only once complete, and
    removed if writing fails; a file it replaces keeps its permissions.
    """
    path = Path(path)
    replaced = path.exists()
    handle, temporary = tempfile.mkstemp(prefix=f"{_PARTIAL}{path.stem}-",
                                         suffix=path.suffix, dir=path.parent)
    temporary = Path(temporary)
    try:
        with os.fdopen(handle, "wb") as stream:
            if isinstance(content, str):
                stream.write(content.encode("utf-8"))
            elif isinstance(content, bytes | bytearray):
                stream.write(content)
        if callable(content):
            content(temporary)
        mode = (path.stat().st_mode & 0o7777 if replaced else _new_file_mode())
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise
    return replaced


def _manifest(folder: Path) -> set[str]:
    record = folder / MANIFEST
    if not record.is_file():
        return set()
    try:
        names = json.loads(record.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return set()
    return {str(n) for n in names} if isinstance(names, list) else set()


def write_folder_files(folder, files: dict, *, name: str = "out") -> list[Path]:
    """Write `files` (file name → text or bytes) into `folder`, a folder of evp's
    own, each atomically; return the files replaced.

    A file of that name that evp did not write there (not in the folder's
    :data:`MANIFEST`) is never overwritten: the whole write is refused, before
    anything is written, with a ValueError naming it.
    """
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"{name}: {folder} is a file, where evp keeps the "
                         "figures; move it away")
    ours = _manifest(folder) if folder.is_dir() else set()
    foreign = [n for n in files if (folder / n).exists() and n not in ours]
    if foreign:
        raise ValueError(f"{name}: {folder / foreign[0]} was not written by evp, and "
                         "evp never overwrites it: move it away or choose another "
                         "output name")
    folder.mkdir(exist_ok=True)
    replaced = [folder / n for n in files if (folder / n).exists()]
    # The record first, so that a file written is always one evp may replace.
    write_file(folder / MANIFEST, json.dumps(sorted(ours | set(files)), indent=1))
    for file, content in files.items():
        write_file(folder / file, content)
    return replaced


def _lock_file(folder: Path) -> Path:
    """The lock file of `folder`: in the temporary folder, named after the
    folder's full path, so that nothing is added beside the user's files; beside
    the folder where the temporary folder cannot be written."""
    import hashlib

    key = hashlib.sha256(str(folder.resolve()).encode()).hexdigest()[:32]
    locks = Path(tempfile.gettempdir()) / "evp-locks"
    try:
        locks.mkdir(mode=0o1777, exist_ok=True)
        lock = locks / key
        lock.touch()
        return lock
    except OSError:
        folder.parent.mkdir(parents=True, exist_ok=True)
        return folder.parent / f"{_LOCK}{folder.name}"


@contextlib.contextmanager
def exclusive(folder, *, what: str = "a run"):
    """Hold the lock of output folder `folder` while the block runs; raise
    :class:`FolderBusy` at once if another process holds it. The lock is the
    operating system's: it dies with its process, even a killed one."""
    folder = Path(folder)
    stream = open(_lock_file(folder), "a+b")  # noqa: SIM115 - held for the block
    try:
        try:
            import fcntl

            fcntl.flock(stream.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except ImportError:  # pragma: no cover - Windows
            import msvcrt

            try:
                msvcrt.locking(stream.fileno(), msvcrt.LK_NBLCK, 1)
            except OSError:
                raise FolderBusy(f"{folder} is in use by {what} of another evp "
                                 "process: wait for it to finish") from None
        except OSError:
            raise FolderBusy(f"{folder} is in use by {what} of another evp "
                             "process: wait for it to finish") from None
        yield folder
    finally:
        stream.close()


@contextlib.contextmanager
def atomic_folder(folder):
    """A temporary folder beside `folder` to fill; when the block ends without
    an error it replaces `folder` (the old one removed only after the new one
    is complete), else it is removed. Hold :func:`exclusive` around it.

    Only a folder that evp filled (its :data:`MANIFEST` lists the files), or an
    empty one, is replaced: any other is refused (ValueError) before anything
    runs.

    Leftovers of a run that was killed (partial folders beside `folder`) are
    removed first.
    """
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"out: {folder} is a file; name a folder")
    if folder.is_dir() and any(folder.iterdir()) and not (folder / MANIFEST).is_file():
        raise ValueError(f"out: {folder} holds files that evp did not write, and a "
                         "run replaces the whole folder: choose a new or empty "
                         "folder")
    folder.parent.mkdir(parents=True, exist_ok=True)
    old = folder.parent / f"{_PARTIAL}{folder.name}-old"
    if old.is_dir() and not folder.exists():
        os.replace(old, folder)  # killed between the two renames below
    for stale in folder.parent.glob(f"{_PARTIAL}{folder.name}-*"):
        shutil.rmtree(stale, ignore_errors=True)
    partial = Path(tempfile.mkdtemp(prefix=f"{_PARTIAL}{folder.name}-",
                                    dir=folder.parent))
    os.chmod(partial, 0o777 & ~_umask())
    try:
        yield partial
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise
    names = sorted(p.name for p in partial.iterdir() if p.name != MANIFEST)
    write_file(partial / MANIFEST, json.dumps(names, indent=1))
    replaced = folder.exists()
    if replaced:
        os.replace(folder, old)
    os.replace(partial, folder)
    if replaced:
        shutil.rmtree(old, ignore_errors=True)
