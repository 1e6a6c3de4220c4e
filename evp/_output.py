"""Writing what evp makes without harming what was there: the one place every
command's output goes through.

The rule: nothing is deleted or replaced unless evp's own record says evp wrote
it, as it is now. The record is a file in the folder, :data:`MANIFEST`, that
maps each file evp wrote there to the SHA-256 of what it wrote; a file that is
not on it, or that was changed since, belongs to the user.

* :func:`check_output` — an output path is refused when it is one of the inputs
  (or lies inside an input folder), when its folder does not exist, or when it
  is a folder.
* :func:`write_file` — one file written atomically: to a temporary file beside
  it, then renamed over it, so that a reader (or a crash) sees the old file or
  the new one, never half of one. Whether a file was replaced is returned, for
  the caller to say.
* :func:`write_output` — a file a user named (``--out``): written atomically
  and put on its folder's record; an existing file that evp did not write (or
  that was changed since) is replaced only with ``force=True``.
* :func:`write_folder_files` — files in a folder of evp's own (a report's
  ``<name>-figures/``), under the same record and the same rule.
* :func:`exclusive` — a lock on an output folder, so that two runs into one
  folder cannot both succeed; :func:`atomic_folder` — a folder filled in a
  temporary folder beside it and moved into place only when complete;
  :func:`keep_failed` — where a failed run's partial output is kept: a new
  folder, never one that exists.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path

__all__ = ["MANIFEST", "FolderBusy", "atomic_folder", "check_not_input",
           "check_output", "check_replaceable", "exclusive", "file_sha256",
           "input_paths", "keep_failed", "write_file", "write_folder_files",
           "write_output"]

#: The record, in a folder evp writes files into, of the files it wrote there
#: (file name, or path relative to the folder → SHA-256 of what evp wrote).
MANIFEST = ".evp-written.json"
# Prefix of what is written beside an output while it is made.
_PARTIAL = ".evp-partial-"
_LOCK = ".evp-lock-"
# Inside a run's temporary folder: the folder it is for, so that only the
# leftovers of runs into that very folder are ever removed.
_PARTIAL_RECORD = ".evp-partial.json"


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


def check_not_input(path, *, inputs: Iterable = (), name: str = "out") -> Path:
    """`path` (a file or a folder evp would write) as a Path, if it is none of
    `inputs`, lies inside none of them, and holds none of them; else a
    one-line ValueError naming `name`."""
    path = Path(path).expanduser()
    for source in inputs:
        for read in input_paths(source):
            if _same(path, read):
                raise ValueError(f"{name}: {path} is the input {read}: writing it "
                                 "would destroy the results; choose another name")
            if read.is_dir() and read.resolve() in path.resolve().parents:
                raise ValueError(f"{name}: {path} lies inside the input folder "
                                 f"{read}; write it elsewhere")
            if path.resolve() in read.resolve().parents:
                raise ValueError(f"{name}: {path} holds the input {read}, and evp "
                                 "never writes into a folder it reads; choose "
                                 "another name")
    return path


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
    check_not_input(path, inputs=inputs, name=name)
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


def file_sha256(path) -> str:
    """The SHA-256 of the file at `path`, read in blocks (the records' digests,
    and the downloads' checksums)."""
    sha = hashlib.sha256()
    with open(path, "rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            sha.update(block)
    return sha.hexdigest()


def _cannot_write(path: Path, error: OSError) -> OSError:
    """`error` as one line that names the file evp was writing (not the
    temporary file beside it)."""
    reason = error.strerror or str(error)
    return OSError(f"could not write {path}: {reason}")


def write_file(path, content: str | bytes | Callable[[Path], object]) -> bool:
    """Write `path` atomically; return whether it replaced a file.

    `content` is the text (UTF-8), the bytes, or a function that writes a file
    at the path it is given (a temporary file with `path`'s suffix, in `path`'s
    folder). The temporary file is renamed over `path` only once complete, and
    removed if writing fails; a file it replaces keeps its permissions. An
    error of the file system (a full disk, no permission) is an OSError whose
    message names `path`.
    """
    return _write(Path(path), content)[0]


def _write(path: Path, content, before_rename: Callable[[str], object] | None = None
           ) -> tuple[bool, str]:
    """:func:`write_file`, calling `before_rename` with the new file's SHA-256
    before it takes `path`'s place; (whether it replaced a file, the digest)."""
    replaced = path.exists()
    try:
        handle, temporary = tempfile.mkstemp(prefix=f"{_PARTIAL}{path.stem}-",
                                             suffix=path.suffix, dir=path.parent)
    except OSError as error:
        raise _cannot_write(path, error) from None
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
        digest = file_sha256(temporary)
        if before_rename is not None:
            before_rename(digest)
        os.replace(temporary, path)
    except BaseException as error:
        with contextlib.suppress(OSError):
            temporary.unlink()
        if isinstance(error, OSError) and str(path) not in str(error):
            raise _cannot_write(path, error) from None
        raise
    return replaced, digest


def _manifest(folder: Path) -> dict[str, str | None]:
    """The record of `folder`: file → SHA-256 of what evp wrote (None where an
    older record kept only the name)."""
    record = folder / MANIFEST
    if not record.is_file():
        return {}
    try:
        written = json.loads(record.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if isinstance(written, list):  # the names alone, as evp wrote them before
        return {str(n): None for n in written}
    if isinstance(written, dict):
        return {str(k): (v if isinstance(v, str) else None)
                for k, v in written.items()}
    return {}


def _save_manifest(folder: Path, written: dict) -> None:
    write_file(folder / MANIFEST, json.dumps(dict(sorted(written.items())),
                                             indent=1))


def _ours(folder: Path, name: str, record: dict) -> bool:
    """Whether file `name` of `folder` is as evp wrote it (on the record, and
    unchanged where the record has its digest)."""
    if name not in record:
        return False
    digest = record[name]
    path = folder / name
    return digest is None or (path.is_file() and file_sha256(path) == digest)


def _not_ours(path: Path) -> str:
    return f"{path} was not written by evp (or was changed since evp wrote it)"


def check_replaceable(path, *, force: bool = False, name: str = "--out") -> Path:
    """`path` as a Path, if evp may write it: it does not exist, or evp's record
    says evp wrote it as it is now, or `force`; else a one-line ValueError
    naming `name` and ``--force``."""
    path = Path(path)
    if path.exists() and not force and not _ours(path.parent, path.name,
                                                 _manifest(path.parent)):
        raise ValueError(f"{name}: {_not_ours(path)}, and evp replaces only its "
                         "own files: pass --force to replace it, or choose another "
                         "name")
    return path


def write_output(path, content, *, force: bool = False, name: str = "--out"
                 ) -> bool:
    """Write the file a user named, `path`, atomically (see :func:`write_file`),
    and put it on its folder's record (:data:`MANIFEST`); return whether it
    replaced a file.

    An existing `path` is replaced only when the record says evp wrote it as it
    is now; a file of the user's (or one edited since evp wrote it) is refused
    in one line (ValueError naming `name` and ``--force``), unless `force`.
    """
    path = Path(path)
    with _folder_lock(path.parent):
        check_replaceable(path, force=force, name=name)

        def recorded(digest: str) -> None:
            # The record first, so that a file written is always one evp may
            # replace; were the rename to fail, the old file is refused next
            # time, which is the safe side.
            _save_manifest(path.parent, {**_manifest(path.parent),
                                         path.name: digest})

        return _write(path, content, recorded)[0]


def write_folder_files(folder, files: dict, *, name: str = "out",
                       force: bool = False) -> list[Path]:
    """Write `files` (file name → text or bytes) into `folder`, a folder of evp's
    own, each atomically; return the files replaced.

    A file of that name that evp did not write there (not on the folder's
    :data:`MANIFEST`, or changed since) is never overwritten unless `force`:
    the whole write is refused, before anything is written, with a ValueError
    naming it. The record lists only files that exist, even when a write fails
    half-way (a full disk).
    """
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"{name}: {folder} is a file, where evp keeps the "
                         "figures; move it away")
    ours = _manifest(folder) if folder.is_dir() else {}
    foreign = [n for n in files if (folder / n).exists()
               and not _ours(folder, n, ours)]
    if foreign and not force:
        raise ValueError(f"{name}: {_not_ours(folder / foreign[0])}, and evp "
                         "replaces only its own files: move it away, pass --force, "
                         "or choose another output name")
    try:
        folder.mkdir(exist_ok=True)
    except OSError as error:
        raise _cannot_write(folder, error) from None
    replaced = [folder / n for n in files if (folder / n).exists()]
    digests = {n: hashlib.sha256(c.encode("utf-8") if isinstance(c, str) else c
                                 ).hexdigest() for n, c in files.items()}
    # The record first, so that a file written is always one evp may replace.
    _save_manifest(folder, {**ours, **digests})
    try:
        for file, content in files.items():
            write_file(folder / file, content)
    except BaseException:
        # What the record names must exist: the files not written come off it.
        with contextlib.suppress(OSError):
            _save_manifest(folder, {n: d for n, d in {**ours, **digests}.items()
                                    if (folder / n).is_file()})
        raise
    return replaced


def _lock_file(folder: Path) -> Path:
    """The lock file of `folder`: in the temporary folder, named after the
    folder's full path, so that nothing is added beside the user's files; beside
    the folder where the temporary folder cannot be written. The shared folder
    of locks, and each lock, may be used by every user of the machine (two
    users writing into one shared folder must block each other)."""
    key = hashlib.sha256(str(folder.resolve()).encode()).hexdigest()[:32]
    locks = Path(tempfile.gettempdir()) / "evp-locks"
    try:
        try:
            locks.mkdir()
            os.chmod(locks, 0o1777)  # mkdir's mode is cut by the umask
        except FileExistsError:
            pass
        lock = locks / key
        if not lock.exists():
            with contextlib.suppress(FileExistsError):
                os.close(os.open(lock, os.O_CREAT | os.O_EXCL | os.O_RDONLY, 0o666))
                os.chmod(lock, 0o666)
        if not os.access(lock, os.R_OK):
            raise PermissionError(lock)
        return lock
    except OSError:
        folder.parent.mkdir(parents=True, exist_ok=True)
        return folder.parent / f"{_LOCK}{folder.name}"


def _lock(folder: Path, *, wait: bool, what: str):
    """The open lock of `folder`, held (the operating system's lock: it dies with
    its process, even a killed one)."""
    lock = _lock_file(folder)
    # Read-only is enough to lock, and is all another user's lock file allows.
    stream = open(lock, "rb") if lock.exists() else open(lock, "a+b")  # noqa: SIM115
    try:
        import fcntl

        flags = fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB)
        fcntl.flock(stream.fileno(), flags)
    except ImportError:  # pragma: no cover - Windows
        import msvcrt

        try:
            msvcrt.locking(stream.fileno(),
                           msvcrt.LK_LOCK if wait else msvcrt.LK_NBLCK, 1)
        except OSError:
            stream.close()
            raise FolderBusy(f"{folder} is in use by {what} of another evp "
                             "process: wait for it to finish") from None
    except OSError:
        stream.close()
        raise FolderBusy(f"{folder} is in use by {what} of another evp "
                         "process: wait for it to finish") from None
    return stream


@contextlib.contextmanager
def _folder_lock(folder: Path):
    """Hold `folder`'s record lock, waiting for it (writes of a few files into
    one folder take their turns, so that neither loses the other's record)."""
    stream = _lock(folder / MANIFEST, wait=True, what="a write")
    try:
        yield
    finally:
        stream.close()


@contextlib.contextmanager
def exclusive(folder, *, what: str = "a run"):
    """Hold the lock of output folder `folder` while the block runs; raise
    :class:`FolderBusy` at once if another process holds it. The lock is the
    operating system's: it dies with its process, even a killed one."""
    folder = Path(folder)
    stream = _lock(folder, wait=False, what=what)
    try:
        yield folder
    finally:
        stream.close()


def _files(folder: Path) -> list[str]:
    """Every file under `folder`, as paths relative to it, but evp's records."""
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*")
                  if not p.is_dir() and p.name not in (MANIFEST, _PARTIAL_RECORD))


def _all_ours(folder: Path) -> str | None:
    """The first file under `folder` that evp's record does not list as it is
    now (None when every one is evp's)."""
    record = _manifest(folder)
    for name in _files(folder):
        if not _ours(folder, name, record):
            return name
    return None


def _token(folder: Path) -> str:
    """What names the temporary folders of runs into `folder`, and of no other
    folder: a digest of its full path."""
    return hashlib.sha256(str(folder.resolve()).encode()).hexdigest()[:16]


def _remove_if_ours(stale: Path, folder: Path) -> None:
    """Remove `stale`, a leftover of a run into `folder`, only where its record
    says it is one, or where it is empty."""
    try:
        record = json.loads((stale / _PARTIAL_RECORD).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        with contextlib.suppress(OSError):
            stale.rmdir()  # only when empty: killed before it held anything
        return
    if isinstance(record, dict) and record.get("folder") == str(folder.resolve()):
        shutil.rmtree(stale, ignore_errors=True)


@contextlib.contextmanager
def atomic_folder(folder):
    """A temporary folder beside `folder` to fill; when the block ends without
    an error it replaces `folder` (the old one removed only after the new one
    is complete), else it is removed. Hold :func:`exclusive` around it.

    Only a folder every file of which evp wrote as it is now (its
    :data:`MANIFEST` lists them), or an empty one, is replaced: a file the user
    added or changed is refused (ValueError naming it) before anything runs.

    Leftovers of a run into `folder` that was killed are removed first: only
    those, known by a token of `folder`'s full path in their name and a record
    inside that names `folder`, never another folder's.
    """
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"out: {folder} is a file; name a folder")
    if folder.is_dir():
        foreign = _all_ours(folder)
        if foreign is not None:
            raise ValueError(f"out: {_not_ours(folder / foreign)}, and a run "
                             "replaces the whole folder: move it away, or choose a "
                             "new or empty folder")
    folder.parent.mkdir(parents=True, exist_ok=True)
    token = f"{_PARTIAL}{_token(folder)}-"
    old = folder.parent / f"{token}old"
    if old.is_dir() and not folder.exists():
        os.replace(old, folder)  # killed between the two renames below
        with contextlib.suppress(OSError):
            (folder / _PARTIAL_RECORD).unlink()
    for stale in folder.parent.glob(f"{token}*"):
        if stale.is_dir():
            _remove_if_ours(stale, folder)
    partial = Path(tempfile.mkdtemp(prefix=token, dir=folder.parent))
    os.chmod(partial, 0o777 & ~_umask())
    stamp = json.dumps({"folder": str(folder.resolve())})
    (partial / _PARTIAL_RECORD).write_text(stamp, encoding="utf-8")
    try:
        yield partial
        record = {name: file_sha256(partial / name) for name in _files(partial)}
        _save_manifest(partial, record)
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise
    replaced = folder.exists()
    if replaced:
        (folder / _PARTIAL_RECORD).write_text(stamp, encoding="utf-8")
        os.replace(folder, old)
    os.replace(partial, folder)
    with contextlib.suppress(OSError):
        (folder / _PARTIAL_RECORD).unlink()
    if replaced:
        shutil.rmtree(old, ignore_errors=True)


def keep_failed(folder, files: dict) -> Path:
    """Keep a failed run's partial output (file name → text) in a new folder
    beside `folder`, ``<name>-failed-<token>``, one that did not exist before;
    return it. Nothing that exists is touched."""
    folder = Path(folder)
    kept = Path(tempfile.mkdtemp(prefix=f"{folder.name}-failed-", dir=folder.parent))
    os.chmod(kept, 0o777 & ~_umask())
    for name, content in files.items():
        write_file(kept / name, content)
    _save_manifest(kept, {name: file_sha256(kept / name) for name in files})
    return kept
