"""Writing what evp makes without harming what was there: the one place every
command's output goes through.

The rule: nothing is deleted or replaced unless evp's own record says evp wrote
it, as it is now, checked at the moment it would be moved or removed. The
record is a file in the folder, :data:`MANIFEST`, that maps each file evp wrote
there to the SHA-256 of what it wrote (and each folder a run made to
``"folder"``); a file, folder or link that is not on it, or a file that was
changed since, belongs to the user. The record is read as data from an
untrusted file: one that does not validate (not a JSON object of relative
names and digests, a folder, a link, too big, too deep) is not evp's, and
neither is anything it names.

* :func:`check_output` — an output path is refused when it is one of the inputs
  (or lies inside an input folder), when its folder does not exist, or when it
  is a folder.
* :func:`write_file` — one file written atomically: to a temporary file beside
  it, then renamed over it, so that a reader (or a crash) sees the old file or
  the new one, never half of one. Whether a file was replaced is returned, for
  the caller to say.
* :func:`write_output` — a file a user named (``--out``): written atomically
  and put on its folder's record; an existing file that evp did not write (or
  that was changed since) is replaced only with ``force=True``, checked again
  just before the new file takes its place.
* :func:`write_folder_files` — files in a folder of evp's own (a report's
  ``<name>-figures/``), under the same record and the same rule.
* :func:`exclusive` — a lock on an output folder and, shared, on the folders
  above it, so that two runs into one folder, or into folders one inside the
  other, cannot both go on; :func:`atomic_folder` — a folder filled in a
  temporary folder beside it and moved into place only when complete, and only
  if everything in the folder it replaces is still evp's at that moment;
  :func:`keep_failed` — where a failed run's partial output is kept: a new
  folder, never one that exists.

The locks are the operating system's (they die with their process, even a
killed one), kept in a folder private to the user, so that no other user can
hold one. A write that finds its folder locked says what it waits for within a
second, and gives up in one line after :data:`LOCK_WAIT` seconds.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import re
import shutil
import stat
import sys
import tempfile
import threading
import time
import warnings
from collections.abc import Callable, Iterable
from pathlib import Path

__all__ = ["LOCK_WAIT", "MANIFEST", "FolderBusy", "atomic_folder",
           "check_not_input", "check_output", "check_replaceable", "exclusive",
           "file_sha256", "input_paths", "keep_failed", "write_file",
           "write_folder_files", "write_output"]

#: The record, in a folder evp writes files into, of the files it wrote there
#: (file name, or path relative to the folder → SHA-256 of what evp wrote; a
#: folder a run made → ``"folder"``).
MANIFEST = ".evp-written.json"
# Prefix of what is written beside an output while it is made.
_PARTIAL = ".evp-partial-"
# Inside a run's temporary folder: the folder it is for and the process making
# it, so that only the leftovers of killed runs into that very folder are ever
# removed.
_PARTIAL_RECORD = ".evp-partial.json"
# A record's value for a folder a run made.
_FOLDER = "folder"
_DIGEST = re.compile(r"[0-9a-f]{64}")
# No record evp writes comes near this; a bigger file is not evp's.
_RECORD_LIMIT = 16 << 20
def _lock_wait(asked: str | None, default: float = 30.0) -> float:
    """The bound on a wait for a lock, from ``EVP_LOCK_WAIT``: seconds;
    anything else (not a number, nan, inf, negative, a day or more) keeps the
    default, so that a wait is always bounded."""
    try:
        seconds = float(asked) if asked is not None else default
    except ValueError:
        return default
    return seconds if 0 <= seconds < 86_400 else default


#: How long (seconds) a write waits for its folder's lock before it gives up:
#: the environment's ``EVP_LOCK_WAIT``, else 30.
LOCK_WAIT = _lock_wait(os.environ.get("EVP_LOCK_WAIT"))
# After this long (seconds) a waiting write says what it waits for.
_SAY_AFTER = 0.5


class FolderBusy(OSError):
    """Another evp process holds the output folder's lock (an error of the
    file system's kind: the command line says it in one line)."""


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


def _brief(name: str) -> str:
    """`name` as part of a name evp makes beside it: cut where a longer one
    would pass the file system's limit on a name (255 bytes)."""
    return name if len(os.fsencode(name)) <= 160 else name[:40]


def _reason(error: OSError) -> str:
    """An OSError's reason in words, without its errno number or repr'd
    path."""
    return error.strerror or str(error)


def _cannot_write(path: Path, error: OSError) -> OSError:
    """`error` as one line that names the file evp was writing (not the
    temporary file beside it)."""
    return OSError(f"could not write {path}: {_reason(error)}")


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
    just before it takes `path`'s place (it may refuse, by raising); (whether it
    replaced a file, the digest)."""
    try:
        handle, temporary = tempfile.mkstemp(
            prefix=f"{_PARTIAL}{_brief(path.stem)}-", suffix=_brief(path.suffix),
            dir=path.parent)
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
        digest = file_sha256(temporary)
        if before_rename is not None:
            before_rename(digest)
        replaced = os.path.lexists(path)
        mode = (path.stat().st_mode & 0o7777 if replaced and path.is_file()
                else _new_file_mode())
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException as error:
        with contextlib.suppress(OSError):
            temporary.unlink()
        if isinstance(error, OSError) and not str(error).startswith(
                "could not write"):
            raise _cannot_write(path, error) from None
        raise
    return replaced, digest


# ------------------------------------------------------------- the record

class _Foreign(ValueError):
    """What is at a folder's :data:`MANIFEST` is not a record evp wrote."""


def _safe_name(name: str) -> bool:
    """Whether `name` is a path evp could have written inside a folder:
    relative, forward slashes, no empty, ``.`` or ``..`` part."""
    if not name or name.startswith("/") or "\\" in name or "\0" in name:
        return False
    return all(part not in ("", ".", "..") for part in name.split("/"))


def _record(folder: Path) -> dict[str, str]:
    """The record of `folder`: each name evp wrote there → the SHA-256 of what
    it wrote, or ``"folder"``; empty where there is none. :class:`_Foreign`
    (naming the file) where something is at :data:`MANIFEST` that is not a
    record evp wrote: a folder, a link, not a JSON object of names and
    digests, too big or too deep to be one."""
    path = folder / MANIFEST
    try:
        info = path.lstat()
    except FileNotFoundError:
        return {}
    except OSError as error:
        raise _Foreign(f"{path} cannot be read ({_reason(error)})") from None
    if stat.S_ISDIR(info.st_mode):
        raise _Foreign(f"{path} is a folder, where evp keeps its record of the "
                       "files it wrote")
    if stat.S_ISLNK(info.st_mode):
        raise _Foreign(f"{path} is a link, where evp keeps its record of the "
                       "files it wrote")
    if not stat.S_ISREG(info.st_mode):
        raise _Foreign(f"{path} is not a file, where evp keeps its record of the "
                       "files it wrote")
    if info.st_size > _RECORD_LIMIT:
        raise _Foreign(f"{path} is not evp's record of the files it wrote (it is "
                       f"{info.st_size} bytes)")
    try:
        with open(path, "rb") as stream:
            written = json.loads(stream.read(_RECORD_LIMIT + 1).decode("utf-8"))
    except OSError as error:
        raise _Foreign(f"{path} cannot be read ({_reason(error)})") from None
    except (ValueError, RecursionError):  # not UTF-8 JSON, or nested too deep
        written = None
    if not (isinstance(written, dict) and all(
            isinstance(k, str) and _safe_name(k) and isinstance(v, str)
            and (v == _FOLDER or _DIGEST.fullmatch(v)) for k, v in written.items())):
        raise _Foreign(f"{path} is not evp's record of the files it wrote (not "
                       "a list of names and SHA-256 digests)")
    return written


def _foreign_record(path: Path, error: _Foreign) -> ValueError:
    return ValueError(f"{error}: evp changes nothing it has no record of "
                      f"writing; move {path.name} away, or choose another folder")


def _save_record(folder: Path, written: dict) -> None:
    """Write `folder`'s record, only over a record of evp's (checked again
    just before the new one takes its place)."""
    text = json.dumps(dict(sorted(written.items())), indent=1)

    def still_ours(digest: str) -> None:
        _record(folder)  # raises _Foreign if the user put something there

    try:
        _write(folder / MANIFEST, text, still_ours)
    except _Foreign as error:
        raise _foreign_record(folder / MANIFEST, error) from None


def _ours(folder: Path, name: str, record: dict) -> bool:
    """Whether `name` under `folder` is as evp wrote it: a file (not a link) on
    the record with the digest of what it holds now, or a folder the record
    lists as one."""
    expected = record.get(name)
    if expected is None:
        return False
    path = folder / name
    try:
        mode = path.lstat().st_mode
    except OSError:
        return False
    if expected == _FOLDER:
        return stat.S_ISDIR(mode)
    if not stat.S_ISREG(mode):
        return False
    try:
        return file_sha256(path) == expected
    except OSError:
        return False


def _short(path: Path) -> str:
    """`path` for a message: its middle left out when it is very long."""
    text = str(path)
    return text if len(text) <= 300 else f"{text[:120]}…{text[-120:]}"


def _not_ours(path: Path) -> str:
    return (f"{_short(path)} was not written by evp (or was changed since evp "
            "wrote it)")


def _exists(path: Path) -> bool:
    """Whether anything is at `path`: a file, a folder, a link (even broken)."""
    return os.path.lexists(path)


def check_replaceable(path, *, force: bool = False, name: str = "--out") -> Path:
    """`path` as a Path, if evp may write it: it does not exist, or evp's record
    says evp wrote it as it is now, or `force`; else a one-line ValueError
    naming `name` and ``--force``. A folder's record that is not evp's is
    refused whatever `force` says (evp would have to replace it)."""
    path = Path(path)
    try:
        record = _record(path.parent)
    except _Foreign as error:
        raise _foreign_record(path.parent / MANIFEST, error) from None
    if path.is_dir() and not path.is_symlink():
        raise ValueError(f"{name}: {path} is a folder; name a file in it")
    if _exists(path) and not force and not _ours(path.parent, path.name, record):
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
    The check is made again under the folder's lock just before the new file
    takes `path`'s place, so that a file the user saved there meanwhile is
    kept.
    """
    path = Path(path)
    with _locked(path.parent, record=True, what="a write"):
        check_replaceable(path, force=force, name=name)
        there = _exists(path)

        def recorded(digest: str) -> None:
            # Checked again: making the content (a figure) took time. With
            # --force, only what was there when it was said is given up.
            check_replaceable(path, force=force and there, name=name)
            # The record first, so that a file written is always one evp may
            # replace; were the rename to fail, the old file is refused next
            # time, which is the safe side.
            _save_record(path.parent, {**_record(path.parent), path.name: digest})

        return _write(path, content, recorded)[0]


def write_folder_files(folder, files: dict, *, name: str = "out",
                       force: bool = False) -> list[Path]:
    """Write `files` (file name → text or bytes) into `folder`, a folder of evp's
    own, each atomically; return the files replaced.

    A file of that name that evp did not write there (not on the folder's
    :data:`MANIFEST`, or changed since) is never overwritten unless `force`:
    the whole write is refused, before anything is written, with a ValueError
    naming it; and each file is checked again just before it is replaced. The
    record lists only files that exist, even when a write fails half-way (a
    full disk).
    """
    folder = Path(folder)
    if _exists(folder) and (folder.is_symlink() or not folder.is_dir()):
        raise ValueError(f"{name}: {folder} is a file or a link, where evp keeps "
                         "the figures; move it away")
    for file in files:
        if not _safe_name(file) or "/" in file:
            raise ValueError(f"{name}: {file!r} is not a file name")
    try:
        folder.mkdir(exist_ok=True)
    except OSError as error:
        raise _cannot_write(folder, error) from None
    with _locked(folder, record=True, what="a write"):
        try:
            ours = _record(folder)
        except _Foreign as error:
            raise _foreign_record(folder / MANIFEST, error) from None
        foreign = [n for n in files if _exists(folder / n)
                   and not _ours(folder, n, ours)]
        if foreign and not force:
            raise ValueError(f"{name}: {_not_ours(folder / foreign[0])}, and evp "
                             "replaces only its own files: move it away, pass "
                             "--force, or choose another output name")
        replaced = [folder / n for n in files if _exists(folder / n)]
        given_up = set(foreign) if force else set()
        digests = {n: hashlib.sha256(c.encode("utf-8") if isinstance(c, str) else c
                                     ).hexdigest() for n, c in files.items()}
        # The record first, so that a file written is always one evp may replace.
        _save_record(folder, {**ours, **digests})
        try:
            for file, content in files.items():
                def still_ours(digest, file=file):
                    path = folder / file
                    if (_exists(path) and file not in given_up
                            and not _ours(folder, file, ours)):
                        raise ValueError(f"{name}: {_not_ours(path)}: it appeared "
                                         "while evp wrote the others, and is kept")
                _write(folder / file, content, still_ours)
        except BaseException:
            # What the record names must exist: the files not written come off.
            with contextlib.suppress(OSError, ValueError):
                _save_record(folder, {n: d for n, d in {**ours, **digests}.items()
                                      if _ours(folder, n, {n: d})})
            raise
    return replaced


# ------------------------------------------------------------- the locks

def _uid() -> int | None:
    return os.getuid() if hasattr(os, "getuid") else None


def _private(folder: Path) -> bool:
    """Make `folder` (if need be) and say whether it is the user's alone: a
    real folder, not a link, owned by this user, that no one else may use."""
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = folder.lstat()
        if not stat.S_ISDIR(info.st_mode):
            return False
        uid = _uid()
        if uid is None:
            return True
        if info.st_uid != uid:
            return False
        if info.st_mode & 0o077:
            os.chmod(folder, 0o700)
        return True
    except OSError:
        return False


_LOCK_FOLDER: Path | None = None


def _lock_folder() -> Path:
    """The folder of this user's locks, private to the user (no other user can
    hold, stall or predict one): in the user's runtime folder, else in the
    temporary folder under a name of the user's own, else in the user's
    cache."""
    global _LOCK_FOLDER
    if _LOCK_FOLDER is not None and _LOCK_FOLDER.is_dir():
        return _LOCK_FOLDER
    uid = _uid()
    user = str(uid) if uid is not None else (os.environ.get("USERNAME") or "user")
    candidates = []
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and Path(runtime).is_dir():
        candidates.append(Path(runtime) / "evp-locks")
    candidates.append(Path(tempfile.gettempdir()) / f"evp-locks-{user}")
    with contextlib.suppress(RuntimeError):  # no home folder
        candidates.append(Path.home() / ".cache" / "evp" / "locks")
    for folder in candidates:
        if _private(folder):
            _LOCK_FOLDER = folder
            return folder
    raise OSError(f"could not make a private folder for evp's locks (tried "
                  f"{', '.join(map(str, candidates))}); set TMPDIR to a folder of "
                  "your own")


# The locks this process holds: (thread, lock file) → [mode, count, fd].
_HELD: dict[tuple[int, str], list] = {}
_HELD_GUARD = threading.Lock()
_SHARED, _EXCLUSIVE = "shared", "exclusive"


def _key(kind: str, folder: Path) -> str:
    return hashlib.sha256(f"{kind}\0{folder}".encode()).hexdigest()[:40]


def _try_lock(fd: int, mode: str) -> bool:
    """Take the operating system's lock on `fd` without waiting; whether it
    was free."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows: exclusive locks only
        import msvcrt

        if mode == _SHARED:
            return True
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
            return True
        except OSError:
            return False
    flag = fcntl.LOCK_EX if mode == _EXCLUSIVE else fcntl.LOCK_SH
    try:
        fcntl.flock(fd, flag | fcntl.LOCK_NB)
        return True
    except OSError as error:
        if error.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            return False
        raise


def _holder(path: Path) -> str:
    """Who holds the lock at `path`, as its holder wrote it (a run writes
    ``evp run (pid N)``), if that process still lives."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace").strip()[:200]
    except OSError:
        return ""
    found = re.search(r"pid (\d+)", text)
    if found and not _alive(int(found.group(1))):
        return ""  # killed: the lock died with it
    return text


class _Lock:
    """One lock, shared or exclusive, held by this thread (again and again: a
    lock it holds already is counted, not taken twice)."""

    def __init__(self, kind: str, folder: Path, mode: str):
        self.folder, self.mode = folder, mode
        self.path = _lock_folder() / _key(kind, folder)
        self.slot = (threading.get_ident(), str(self.path))

    def acquire(self, what: str) -> bool:
        with _HELD_GUARD:
            held = _HELD.get(self.slot)
            if held is not None:
                if held[0] == _EXCLUSIVE or self.mode == _SHARED:
                    held[1] += 1
                    return True
                if not _try_lock(held[2], _EXCLUSIVE):  # a shared one, made more
                    return False
                held[0] = _EXCLUSIVE
                held[1] += 1
                return True
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT
                         | getattr(os, "O_NOFOLLOW", 0), 0o600)
            if not _try_lock(fd, self.mode):
                os.close(fd)
                return False
            if self.mode == _EXCLUSIVE:
                with contextlib.suppress(OSError):
                    os.ftruncate(fd, 0)
                    os.pwrite(fd, f"{what} (pid {os.getpid()})".encode(), 0)
            _HELD[self.slot] = [self.mode, 1, fd]
            return True

    def release(self) -> None:
        with _HELD_GUARD:
            held = _HELD.get(self.slot)
            if held is None:
                return
            held[1] -= 1
            if held[1] == 0:
                del _HELD[self.slot]
                if held[0] == _EXCLUSIVE:
                    with contextlib.suppress(OSError):
                        os.ftruncate(held[2], 0)
                os.close(held[2])


def _blocked(lock: _Lock, target: Path) -> str:
    """What holds `lock`, in words, for `target`. Only a process holding a lock
    exclusively writes its name in it (and clears it when done)."""
    holder = _holder(lock.path)
    if lock.folder != target:
        return (f"{target} lies inside {lock.folder}, which "
                f"{holder or 'another evp process'} is replacing")
    if holder:
        return f"{target} is in use by {holder}"
    return (f"{target} is in use by another evp process (a run or a write into a "
            "folder inside it)")


@contextlib.contextmanager
def _locked(folder: Path, *, record: bool = False, wait: bool = True,
            what: str = "a run"):
    """Hold the locks of `folder`: shared on every folder above it; with
    `record`, shared on `folder` too and exclusive on its record (a write of
    files into it); else exclusive on `folder` (a run that replaces it). Taken
    from the top down, so that two processes never wait on each other.

    Without `wait`, :class:`FolderBusy` at once when another process holds one;
    with it, a line on stderr after half a second saying what it waits for,
    and :class:`FolderBusy` after :data:`LOCK_WAIT` seconds.
    """
    folder = Path(os.path.abspath(Path(folder).expanduser()))
    with contextlib.suppress(OSError, RuntimeError):
        folder = folder.resolve()
    above = list(reversed(folder.parents))
    locks = [_Lock("folder", a, _SHARED) for a in above]
    if record:
        locks += [_Lock("folder", folder, _SHARED),
                  _Lock("record", folder, _EXCLUSIVE)]
    else:
        locks.append(_Lock("folder", folder, _EXCLUSIVE))
    held: list[_Lock] = []
    start, said = time.monotonic(), False
    try:
        for lock in locks:
            while not lock.acquire(what):
                waited = time.monotonic() - start
                if not wait:
                    raise FolderBusy(f"{_blocked(lock, folder)}: wait for it to "
                                     "finish")
                if waited >= LOCK_WAIT:
                    raise FolderBusy(f"gave up after {waited:.0f} s waiting for "
                                     f"{folder}: {_blocked(lock, folder)}; try "
                                     "again when it has finished")
                if not said and waited >= _SAY_AFTER:
                    print(f"evp: waiting for {folder}: {_blocked(lock, folder)} "
                          f"(giving up after {LOCK_WAIT:.0f} s)", file=sys.stderr,
                          flush=True)
                    said = True
                time.sleep(0.05)
            held.append(lock)
        yield folder
    finally:
        for lock in reversed(held):
            lock.release()


@contextlib.contextmanager
def exclusive(folder, *, what: str = "a run"):
    """Hold the lock of output folder `folder` while the block runs, and the
    folders' above it, shared: another run into it, into a folder inside it
    or into one that holds it, or a write into any of these, is refused while
    it is held. Raise :class:`FolderBusy` at once if another process holds one.
    The locks are the operating system's: they die with their process, even a
    killed one."""
    with _locked(Path(folder), wait=False, what=what):
        yield Path(folder)


# ------------------------------------------------------ a run's folder

def _entries(folder: Path) -> list[tuple[str, int]]:
    """Everything under `folder` (files, folders, links, anything), as paths
    relative to it with their mode, found without following a link, each
    folder after what it holds (however deep: no recursion); but `folder`'s
    own record."""
    found: list[tuple[str, int]] = []
    # (path, name, mode): a folder is listed once its contents are.
    stack: list[tuple[Path, str, int | None]] = [(folder, "", None)]
    while stack:
        where, name, mode = stack.pop()
        if mode is not None:
            found.append((name, mode))
            continue
        try:
            with os.scandir(where) as listing:
                items = sorted(listing, key=lambda e: e.name, reverse=True)
        except OSError:  # unreadable, or deeper than a path can name: not evp's
            found.append((name or ".", 0))
            continue
        for item in items:
            child = f"{name}/{item.name}" if name else item.name
            if child == MANIFEST:
                continue
            try:
                child_mode = item.stat(follow_symlinks=False).st_mode
            except OSError:
                found.append((child, 0))
                continue
            if stat.S_ISDIR(child_mode):
                stack.append((Path(item.path), child, child_mode))
                stack.append((Path(item.path), child, None))
            else:
                found.append((child, child_mode))
    return found


def _first_foreign(folder: Path) -> str | None:
    """The first thing under `folder` that is not evp's as it is now (see
    :func:`_ours`; its record, when it is not one of evp's), or None."""
    try:
        record = _record(folder)
    except _Foreign:
        return MANIFEST
    # The shallowest first: the message names what the user made, not the
    # deepest thing inside it.
    for name, _ in sorted(_entries(folder), key=lambda entry: entry[0].count("/")):
        if not _ours(folder, name, record):
            return name
    return None


def _token(folder: Path) -> str:
    """What names the temporary folders of runs into `folder`, and of no other
    folder: a digest of its full path."""
    return hashlib.sha256(str(folder.resolve()).encode()).hexdigest()[:16]


def _rename_new(source: Path, target: Path) -> None:
    """Rename `source` to `target`, which must not exist (FileExistsError if
    it does: never over a folder someone made meanwhile, even an empty one)."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        rename = libc.renameat2
    except (ImportError, OSError, AttributeError, TypeError):
        rename = None
    if rename is not None:
        at_cwd, no_replace = -100, 1
        if rename(at_cwd, os.fsencode(source), at_cwd, os.fsencode(target),
                  no_replace) == 0:
            return
        code = ctypes.get_errno()
        if code == errno.EEXIST:
            raise FileExistsError(code, os.strerror(code), str(target))
        if code not in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP):
            raise OSError(code, os.strerror(code), str(source))
    if _exists(target):  # no atomic way here: the check, then the rename
        raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), str(target))
    os.rename(source, target)


def _beside(folder: Path, label: str, source: Path) -> Path:
    """Move `source` to a new folder beside `folder`, ``<name>-<label>-<token>``
    (one that did not exist); return it."""
    for _ in range(100):
        token = hashlib.sha256(os.urandom(8)).hexdigest()[:8]
        target = folder.parent / f"{_brief(folder.name)}-{label}-{token}"
        try:
            _rename_new(source, target)
            return target
        except FileExistsError:
            continue
    raise OSError(f"could not find a new name beside {folder}")


def _remove_ours(folder: Path) -> list[str]:
    """Remove from `folder` what its record says evp wrote, each file checked
    just before it goes; the folder too when that leaves it empty. What is
    left (the user's) is returned, by name."""
    left = []
    try:
        record = _record(folder)
    except _Foreign:
        record = {}
        left.append(MANIFEST)
    for name, mode in _entries(folder):
        path = folder / name
        if stat.S_ISDIR(mode):
            if record.get(name) == _FOLDER:
                try:
                    path.rmdir()
                    continue
                except OSError:
                    pass
            left.append(name)
        elif _ours(folder, name, record):
            try:
                path.unlink()
            except OSError:
                left.append(name)
        else:
            left.append(name)
    with contextlib.suppress(OSError):
        if MANIFEST not in left:  # evp's: it names nothing that is left
            (folder / MANIFEST).unlink(missing_ok=True)
        if not left:
            folder.rmdir()
    return left


def _alive(pid) -> bool:
    """Whether process `pid` lives (on Windows, where signal 0 would end it,
    assumed so)."""
    if not isinstance(pid, int) or isinstance(pid, bool) or pid <= 0:
        return False
    if os.name == "nt":
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (OSError, OverflowError):
        return True
    return True


def _remove_if_stale(stale: Path, folder: Path) -> None:
    """Remove `stale`, the temporary folder of a run into `folder`, only where
    its stamp says it is one and that its process is gone, or where it is
    empty."""
    try:
        stamp = json.loads((stale / _PARTIAL_RECORD).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        with contextlib.suppress(OSError):
            stale.rmdir()  # only when empty: killed before it held anything
        return
    if (isinstance(stamp, dict) and stamp.get("folder") == str(folder.resolve())
            and stamp.get("host") in (None, _host())
            and not _alive(stamp.get("pid"))):
        shutil.rmtree(stale, ignore_errors=True)


def _host() -> str:
    import socket

    return socket.gethostname()


def _recover(folder: Path, token: str) -> None:
    """What a run into `folder` that was killed left: the old folder put back
    if the new one never took its place, or removed (what is evp's of it) if
    it did; its temporary folders removed."""
    old = folder.parent / f"{token}old"
    if old.is_dir() and not old.is_symlink():
        if not _exists(folder):
            with contextlib.suppress(OSError):
                _rename_new(old, folder)  # killed between the two renames
        else:
            left = _remove_ours(old)
            if left and _exists(old):
                kept = _beside(folder, "kept", old)
                warnings.warn(f"{folder}: what a killed run had moved aside was "
                              f"not all evp's ({left[0]}); it is kept in {kept}",
                              UserWarning, stacklevel=4)
    for stale in folder.parent.glob(f"{token}*"):
        if stale.name != old.name and stale.is_dir() and not stale.is_symlink():
            _remove_if_stale(stale, folder)


def _refuse_foreign(folder: Path) -> None:
    """A ValueError naming the first thing in `folder` that is not evp's."""
    if not _exists(folder):
        return
    if folder.is_symlink() or not folder.is_dir():
        raise ValueError(f"out: {folder} is a file or a link; name a folder")
    foreign = _first_foreign(folder)
    if foreign is not None:
        raise ValueError(f"out: {_described(folder, foreign)}, and a run "
                         "replaces the whole folder: move it away, or choose a new "
                         "or empty folder")


def _described(folder: Path, name: str) -> str:
    """Why `name` in `folder` is not evp's, in words."""
    path = folder / name
    if name == MANIFEST:
        try:
            _record(folder)
        except _Foreign as error:
            return str(error)
    try:
        mode = path.lstat().st_mode
        if stat.S_ISDIR(mode):
            os.listdir(path)
    except OSError as error:
        return f"{_short(path)} cannot be checked ({_reason(error)})"
    if stat.S_ISLNK(mode):
        return f"{_short(path)} is a link, which evp does not make"
    if stat.S_ISDIR(mode):
        return f"{_short(path)} is a folder evp did not make"
    return _not_ours(path)


def _check_folder(folder: Path) -> Path:
    folder = Path(os.path.abspath(Path(folder).expanduser()))
    if folder.parent == folder:
        raise ValueError(f"out: {folder} is the top of the file system; name a "
                         "folder inside it")
    above = next((a for a in folder.parents if _exists(a)), None)
    if above is not None and not above.is_dir():
        raise ValueError(f"out: {above} is a file, not a folder; name a folder "
                         "elsewhere")
    try:
        here = Path.cwd().resolve()
    except OSError:  # the current folder was removed
        here = None
    resolved = folder.resolve()
    if here is not None and (resolved == here or resolved in here.parents):
        raise ValueError(f"out: {folder} is the current folder or holds it, and a "
                         "run replaces its whole folder: name a new folder, e.g. "
                         "evp-runs/NAME")
    return folder


@contextlib.contextmanager
def atomic_folder(folder):
    """A temporary folder beside `folder` to fill; when the block ends without
    an error it replaces `folder` (the old one removed only after the new one
    is complete), else it is removed. It holds :func:`exclusive` on `folder`.

    Only a folder everything in which evp wrote as it is now (its
    :data:`MANIFEST` lists each file with its digest and each folder), or an
    empty one, is replaced: something the user added or changed (a file, a
    folder, a link) is refused (ValueError naming it) before the block runs;
    and again at the moment of the swap, under the lock, in which case the
    folder is left as it is and the new output is kept in a new folder beside
    it, ``<name>-failed-<token>``, which the error names. Of the old folder,
    only what is evp's is removed; anything else is kept.

    Leftovers of a run into `folder` that was killed are dealt with first:
    only those, known by a token of `folder`'s full path in their name and a
    stamp inside that names `folder`, never another folder's.
    """
    folder = _check_folder(folder)
    with exclusive(folder):
        if _exists(folder) and (folder.is_symlink() or not folder.is_dir()):
            raise ValueError(f"out: {folder} is a file or a link; name a folder")
        try:
            folder.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise _cannot_write(folder, error) from None
        token = f"{_PARTIAL}{_token(folder)}-"
        _recover(folder, token)  # first: what it puts back is checked too
        _refuse_foreign(folder)
        partial = Path(tempfile.mkdtemp(prefix=token, dir=folder.parent))
        os.chmod(partial, 0o777 & ~_umask())
        stamp = json.dumps({"folder": str(folder.resolve()), "pid": os.getpid(),
                            "host": _host()})
        (partial / _PARTIAL_RECORD).write_text(stamp, encoding="utf-8")
        try:
            yield partial
            (partial / _PARTIAL_RECORD).unlink()
            record = {}
            for name, mode in _entries(partial):
                if stat.S_ISDIR(mode):
                    record[name] = _FOLDER
                elif stat.S_ISREG(mode):
                    record[name] = file_sha256(partial / name)
            _save_record(partial, record)
        except BaseException:
            shutil.rmtree(partial, ignore_errors=True)
            raise
        try:
            _swap(folder, partial, token)
        except OSError as error:  # the file system's: the new output is kept
            if not partial.is_dir():
                raise
            failed = _beside(folder, "failed", partial)
            raise OSError(f"could not replace {folder}: {_reason(error)}; the "
                          f"run's output is in {failed}") from None


def _swap(folder: Path, partial: Path, token: str) -> None:
    """Put the complete `partial` in `folder`'s place, checking, just before
    anything moves, that everything in `folder` is still evp's."""
    def refuse(name: str, where: Path) -> None:
        why = _described(where, name).replace(str(where), str(folder), 1)
        failed = _beside(folder, "failed", partial)
        raise ValueError(f"out: {why}: it appeared or changed while the run ran, "
                         f"so evp left {folder} as it is; the run's output is "
                         f"in {failed}")

    old = folder.parent / f"{token}old"
    moved = False
    if _exists(folder):
        if folder.is_symlink() or not folder.is_dir():
            refuse("", folder)
        foreign = _first_foreign(folder)
        if foreign is not None:
            refuse(foreign, folder)
        try:
            _rename_new(folder, old)  # no old: _recover removed it, under the lock
        except OSError:
            failed = _beside(folder, "failed", partial)
            raise ValueError(f"out: could not move {folder} aside to replace it; "
                             f"the run's output is in {failed}") from None
        moved = True
        # Out of the user's way now: what is in it can no longer change by
        # name. Checked once more; anything new, and it goes back.
        foreign = _first_foreign(old)
        if foreign is not None:
            try:
                _rename_new(old, folder)
            except OSError:
                kept = _beside(folder, "kept", old)
                failed = _beside(folder, "failed", partial)
                raise ValueError(f"out: {folder} changed while the run ran; its "
                                 f"old contents are in {kept}, the run's output "
                                 f"in {failed}") from None
            refuse(foreign, folder)
    try:
        _rename_new(partial, folder)
    except OSError:
        failed = _beside(folder, "failed", partial)
        where = ""
        if moved:
            kept = _beside(folder, "kept", old)
            where = f"; its old contents are in {kept}"
        raise ValueError(f"out: {folder} was made again while the run ran{where}; "
                         f"the run's output is in {failed}") from None
    if moved:
        left = _remove_ours(old)
        if left and _exists(old):
            kept = _beside(folder, "kept", old)
            warnings.warn(f"{folder}: {left[0]} appeared in it as the run "
                          f"finished; it is kept in {kept}", UserWarning,
                          stacklevel=4)


def keep_failed(folder, files: dict) -> Path:
    """Keep a failed run's partial output (file name → text) in a new folder
    beside `folder`, ``<name>-failed-<token>``, one that did not exist before;
    return it. Nothing that exists is touched."""
    folder = Path(folder)
    kept = Path(tempfile.mkdtemp(prefix=f"{_brief(folder.name)}-failed-",
                                 dir=folder.parent))
    os.chmod(kept, 0o777 & ~_umask())
    for name, content in files.items():
        write_file(kept / name, content)
    _save_record(kept, {name: file_sha256(kept / name) for name in files})
    return kept
