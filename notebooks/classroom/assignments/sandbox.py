"""The sandbox a student's notebook runs in while nbgrader grades it.

``nbgrader_config.py`` makes nbgrader's ``Execute`` start every kernel through
:class:`SandboxKernelManager`: the teacher still types ``nbgrader autograde``, and
each submission's IPython kernel runs

- in its own mount, PID, IPC, UTS and network namespaces (``unshare``): the
  filesystem it sees is built for it, read-only, from the system's folders and
  the Python *installation* only (``/usr``, ``/lib*``, ``/bin``, the interpreter
  and its standard library), so the course folder (``source/``, ``release/``,
  ``autograded/``, the gradebook, ``nbgrader_config.py``), the teacher's home and
  every other file are absent; its one writable folder is a scratch folder of
  its own (a ``tmpfs`` of limited size, gone with the kernel); it has no network
  (a loopback that is down); it sees no other process, and its shared memory and
  message queues end with it;
- from an interpreter whose import path holds only what the assignment allows
  (``python -I -S``: no ``site-packages`` of any environment; one folder,
  ``/evp-site``, with the packages the kernel itself needs, those the assignment
  allows, and their dependencies); every other ``site-packages`` or
  ``dist-packages`` folder under what it sees is masked by an empty one, so
  scipy installed in the base interpreter cannot load either; a package named
  in ``hidden`` imports as an ``ImportError`` that says why;
- as another user: a user ID of its own (no account) where the grader runs as
  root, else in a user namespace without capabilities, so it cannot remount
  what it sees;
- with limits: CPU time and address space per process, the memory of the whole
  process tree (watched by the namespace's first process, which stops every
  process of the notebook when they hold more together), processes, open files,
  the size of a file, the scratch folder's size, and the notebook's total time.

The kernel talks to nbgrader through Unix sockets (ZeroMQ's ``ipc`` transport)
in a folder bound into the sandbox. The grader reads a test's results from one
more file, ``/evp-probe/reply.json`` (``grading.py``'s probes): the only other
way out.

Where the namespaces cannot be set up (a container that forbids them, a machine
without ``unshare``), :func:`check` says so in one line and grading stops; the
teacher who accepts the risk grades without the sandbox with
``--SandboxKernelManager.unsafe_no_sandbox=True``.

This file is also the program that runs inside the namespaces
(``python sandbox.py SETTINGS.json``): it builds the filesystem, sets the limits,
drops privileges, starts the kernel and watches its processes.
"""

from __future__ import annotations

import atexit
import ctypes
import functools
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

UNSAFE_OPTION = "--SandboxKernelManager.unsafe_no_sandbox=True"
NOBODY = 65534
# Where the grader runs as root, each grading process's kernels run as a user ID
# of their own, without an account: Linux counts processes per user, so a fork
# bomb in one notebook cannot starve a notebook graded beside it (--jobs).
SANDBOX_UID_BASE = 1_900_000_000

# What a notebook may use (its kernel and everything the kernel starts).
LIMITS = {
    "cpu_seconds": 600,          # CPU time of each process
    "address_space_bytes": 4 << 30,  # virtual memory of each process
    "memory_bytes": 4 << 30,     # memory of all the notebook's processes together
    "file_bytes": 16 << 20,      # the largest file it may write
    "scratch_bytes": 256 << 20,  # its scratch folder, all files together
    "processes": 64,             # processes and threads beyond what it starts with
    "open_files": 256,
    "wall_seconds": 900,         # the sandbox ends after this, whatever happens
}

# Folders the sandbox shows (read-only) where they exist, besides the Python
# installation.
SYSTEM = ("/usr", "/lib", "/lib64", "/lib32", "/libx32", "/bin", "/sbin")
SYSTEM_FILES = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/localtime",
                "/etc/nsswitch.conf", "/etc/passwd", "/etc/group")
DEVICES = ("/dev/null", "/dev/zero", "/dev/random", "/dev/urandom")
# Inside the sandbox.
SITE = "/evp-site"
PROBE = "/evp-probe"
SCRATCH = "/scratch"
# The distributions the kernel itself needs (with their dependencies).
KERNEL = ("ipykernel",)
# Why a notebook's processes were stopped, written by the sandbox's first
# process into the sockets' folder for the grader to read.
STOPPED = "stopped"


# ------------------------------------------------------------------ outside


def _unshare_command(as_root: bool) -> list[str]:
    spaces = ["--mount", "--net", "--pid", "--ipc", "--uts", "--fork", "--kill-child"]
    if as_root:  # real root: mounts need no user namespace; the kernel runs unprivileged
        return ["unshare", *spaces]
    return ["unshare", "--user", "--map-root-user", *spaces]


def _as_root(user_namespace: bool = False) -> bool:
    """Whether the sandbox is set up by real root (the kernel then runs as a user
    ID of its own), rather than in a user namespace."""
    return os.geteuid() == 0 and not user_namespace


def sandbox_uid() -> int:
    """The user ID this grading process's kernels run as (when graded as root)."""
    return SANDBOX_UID_BASE + os.getpid()


def check(user_namespace: bool = False) -> str | None:
    """None if the sandbox can be set up here, else one line saying why not."""
    if sys.platform != "linux":
        return "the grading sandbox needs Linux namespaces"
    if shutil.which("unshare") is None:
        return "the grading sandbox needs the unshare command (util-linux)"
    as_root = _as_root(user_namespace)
    try:
        done = subprocess.run(
            [*_unshare_command(as_root), "sh", "-c",
             "mount -t tmpfs none /mnt 2>/dev/null || mount -t tmpfs none /tmp"],
            capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError) as error:
        return f"the grading sandbox cannot start: {error}"
    if done.returncode != 0:
        reason = (done.stderr.strip().splitlines() or ["unknown error"])[-1]
        return f"this machine does not allow the grading sandbox's namespaces ({reason})"
    return None


def refusal(reason: str) -> str:
    return (f"Refusing to grade: {reason}; student code would run with the "
            f"teacher's rights. To grade without the sandbox anyway, add {UNSAFE_OPTION}")


def _norm(name: str) -> str:
    return name.lower().replace("_", "-").replace(".", "-")


def _distributions(import_names: set[str]) -> list:
    """The installed distributions that provide `import_names` (top-level
    modules), the kernel's own, and everything they require (markers evaluated
    here; extras not followed)."""
    import importlib.metadata as metadata

    try:
        from packaging.requirements import Requirement
    except ImportError:  # packaging comes with ipykernel; without it, no markers
        Requirement = None
    provided = metadata.packages_distributions()
    todo = list(KERNEL)
    for name in sorted(import_names):
        todo += provided.get(name, [])
    found, seen = [], set()
    while todo:
        name = todo.pop()
        if _norm(name) in seen:
            continue
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue
        seen.add(_norm(name))
        found.append(dist)
        for line in dist.requires or []:
            if Requirement is None:
                if ";" not in line:
                    todo.append(line.split()[0].split("[")[0].split("=")[0]
                                .split("<")[0].split(">")[0].split("!")[0]
                                .split("~")[0])
                continue
            requirement = Requirement(line)
            if requirement.marker and not requirement.marker.evaluate({"extra": ""}):
                continue
            todo.append(requirement.name)
    return found


def site_entries(import_names: set[str]) -> dict[str, str]:
    """{name in /evp-site: the folder or file it shows} for the distributions
    `import_names` need (see :func:`_distributions`): each one's top-level
    packages, modules, shared libraries and metadata; an editable install's
    package where it lives. Computed once per grading process and set of names."""
    return dict(_site_entries(frozenset(import_names)))


@functools.lru_cache(maxsize=16)
def _site_entries(import_names: frozenset[str]) -> tuple[tuple[str, str], ...]:
    import importlib.util

    entries: dict[str, str] = {}
    for dist in _distributions(import_names):
        base = Path(dist.locate_file(""))
        tops = {Path(str(f)).parts[0] for f in (dist.files or [])
                if str(f) and not str(f).startswith("..")}
        for top in sorted(tops):
            if (top.endswith(".pth") or top.startswith("__editable__")
                    or top in ("__pycache__", "bin")):
                continue
            path = base / top
            if path.exists() and top not in entries:
                entries[top] = os.path.realpath(path)
        # An editable install (pip install -e .): its packages live elsewhere.
        names = (dist.read_text("top_level.txt") or "").split()
        for name in names:
            if name in entries or f"{name}.py" in entries:
                continue
            try:
                spec = importlib.util.find_spec(name)
            except (ImportError, ValueError):
                continue
            if spec is None:
                continue
            if spec.submodule_search_locations:
                entries[name] = os.path.realpath(list(spec.submodule_search_locations)[0])
            elif spec.origin and os.path.exists(spec.origin):
                entries[os.path.basename(spec.origin)] = os.path.realpath(spec.origin)
    return tuple(entries.items())


def _interpreter() -> str:
    """The Python installation's own interpreter (not an environment's link)."""
    base = getattr(sys, "_base_executable", None) or sys.executable
    return os.path.realpath(base)


def _installation() -> list[str]:
    """The folders of the Python installation (interpreter, standard library,
    shared library)."""
    folders = {os.path.realpath(p) for p in (sys.base_prefix, sys.base_exec_prefix)}
    folders.add(os.path.dirname(os.path.dirname(_interpreter())))
    return sorted(folders)


@functools.lru_cache(maxsize=4)
def _masked(shown: tuple[str, ...]) -> list[str]:
    """Every folder of installed packages (site-packages, dist-packages) inside
    the folders the sandbox shows: masked by an empty folder."""
    import glob

    found = set()
    for folder in shown:
        for pattern in ("lib/python3*/site-packages", "lib/python3*/dist-packages",
                        "lib/python3/dist-packages", "local/lib/python3*/site-packages",
                        "local/lib/python3*/dist-packages",
                        "lib64/python3*/site-packages"):
            found.update(os.path.realpath(p) for p in glob.glob(os.path.join(folder,
                                                                            pattern)))
    for path in sys.path:  # the grader's own environment, wherever it is
        real = os.path.realpath(path) if path else ""
        if (real.endswith(("site-packages", "dist-packages"))
                and any(real == f or real.startswith(f + os.sep) for f in shown)):
            found.add(real)
    return sorted(p for p in found if os.path.isdir(p))


def _matplotlib_cache() -> Path:
    if os.environ.get("MPLCONFIGDIR"):
        return Path(os.environ["MPLCONFIGDIR"])
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    return Path(cache) / "matplotlib"


RUNNER = Path(__file__).resolve().with_name("probe_runner.py")


def prepare(workdir: Path, allowed: set[str], hidden: set[str],
            limits: dict | None = None, user_namespace: bool = False) -> dict:
    """Write the sandbox's settings in `workdir` (made by the caller, outside the
    course): `allowed` names the top-level modules the kernel may import beside
    the standard library (with their dependencies), `hidden` those that import
    as an error that says why. The sockets' folder is `workdir`/ipc, the
    probe's files `workdir`/probe."""
    as_root = _as_root(user_namespace)
    uid = sandbox_uid() if as_root else os.getuid()
    ipc, probe, seed = workdir / "ipc", workdir / "probe", workdir / "seed"
    for folder in (ipc, probe, seed):
        folder.mkdir(exist_ok=True)
    for name in ("request.json", "reply.json"):
        (probe / name).write_text("")
    shutil.copy(RUNNER, probe / "runner.py")
    for font_list in _matplotlib_cache().glob("fontlist-v*.json"):  # saves ~1 s a kernel
        shutil.copy(font_list, seed)
    entries = site_entries(allowed - hidden)
    stubs = sorted(name for name in hidden if name not in entries)
    if as_root:
        for path in (workdir, ipc, probe / "reply.json"):
            os.chown(path, uid, uid)
    installation = _installation()
    shown = [p for p in (*SYSTEM, *installation) if os.path.lexists(p)]
    settings = {
        "as_root": as_root, "uid": uid, "ipc": str(ipc), "probe": str(probe),
        "seed": str(seed), "root": str(workdir / "root"), "python": _interpreter(),
        "readonly": shown, "masked": _masked(tuple(shown)),
        "files": [p for p in (*SYSTEM_FILES, *DEVICES) if os.path.exists(p)],
        "site": entries, "stubs": stubs,
        "limits": {**LIMITS, **{k: int(v) for k, v in (limits or {}).items()}},
        "baseline_tasks": _tasks_of(uid),
    }
    (workdir / "root").mkdir()
    (workdir / "settings.json").write_text(json.dumps(settings))
    return settings


def _tasks_of(uid: int) -> int:
    """How many processes and threads `uid` runs now (RLIMIT_NPROC counts them)."""
    count = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/status") as status:
                fields = dict(line.split(":", 1) for line in status if ":" in line)
            if int(fields["Uid"].split()[0]) == uid:
                count += int(fields.get("Threads", "1"))
        except (OSError, KeyError, ValueError):
            continue
    return count


# The kernel's first lines: the import path is the standard library and /evp-site.
BOOT = ("import sys; sys.path.insert(0, {site!r}); import runpy; "
        "runpy.run_module('ipykernel_launcher', run_name='__main__', alter_sys=True)")


def command(workdir: Path, kernel_args: list[str]) -> list[str]:
    """The command that starts the kernel `kernel_args` (ipykernel's arguments,
    after ``-m ipykernel_launcher``) inside the sandbox."""
    settings = json.loads((workdir / "settings.json").read_text())
    return [*_unshare_command(settings["as_root"]), _interpreter(), "-I", "-S",
            os.path.abspath(__file__), str(workdir / "settings.json"), *kernel_args]


def _kernel_arguments(kernel_cmd: list[str]) -> list[str]:
    """ipykernel's own arguments in a kernelspec's command."""
    if "ipykernel_launcher" in kernel_cmd:
        return kernel_cmd[kernel_cmd.index("ipykernel_launcher") + 1:]
    if "ipykernel" in kernel_cmd:
        return kernel_cmd[kernel_cmd.index("ipykernel") + 1:]
    raise RuntimeError(f"the grading sandbox runs IPython kernels only, not "
                       f"{' '.join(kernel_cmd)}")


try:
    from jupyter_client.manager import AsyncKernelManager
    from traitlets import Bool, Dict, Unicode
    from traitlets import Set as SetTrait
except ImportError:  # inside the sandbox, before the kernel starts: not needed
    AsyncKernelManager = object
else:
    class SandboxKernelManager(AsyncKernelManager):
        """A kernel manager that starts the kernel in the sandbox (this module's
        docstring), talking to it through Unix sockets."""

        unsafe_no_sandbox = Bool(False, help=(
            "Run student code without the sandbox, with the rights of whoever grades "
            "(only where namespaces are not allowed and the submissions are trusted)."
        )).tag(config=True)
        hidden = SetTrait(Unicode(), default_value={"evp", "scipy", "nbgrader"}, help=(
            "Packages the kernel cannot import (set per assignment by the grader)."
        )).tag(config=True)
        allowed = SetTrait(Unicode(), default_value={"numpy"}, help=(
            "Top-level modules the kernel may import beside the standard library, "
            "with their dependencies (set per assignment by the grader)."
        )).tag(config=True)
        limits = Dict(help="Overrides of sandbox.LIMITS").tag(config=True)
        user_namespace = Bool(False, help=(
            "Confine in a user namespace even where the grader runs as root (as "
            "it does for everyone else), instead of running the kernel as a user "
            "of its own. For tests: Linux exempts root from the process limit, so "
            "as root this leaves a fork bomb unchecked."
        )).tag(config=True)

        _checked: dict[bool, str] = {}  # noqa: RUF012 (shared on purpose)
        _workdir: Path | None = None

        @property
        def probe_folder(self) -> Path | None:
            """The folder of the probe's files, as the grader sees it."""
            return None if self._workdir is None else self._workdir / "probe"

        @property
        def probe_paths(self) -> dict[str, str]:
            """The probe's files as the kernel sees them."""
            if self.unsafe_no_sandbox:
                folder = str(self.probe_folder)
            else:
                folder = PROBE
            return {name: f"{folder}/{name}"
                    for name in ("runner.py", "request.json", "reply.json")}

        def stop_reason(self) -> str | None:
            """Why the sandbox stopped the notebook's processes, if it did."""
            if self._workdir is None:
                return None
            try:
                return (self._workdir / "ipc" / STOPPED).read_text()[:300] or None
            except OSError:
                return None

        async def _async_pre_start_kernel(self, **kw):
            self._workdir = Path(tempfile.mkdtemp(prefix="evp-sandbox-"))
            _WORKDIRS.add(self._workdir)
            if self.unsafe_no_sandbox:
                self.log.warning("Grading WITHOUT the sandbox (%s): student code runs "
                                 "with the teacher's rights", UNSAFE_OPTION)
                probe = self._workdir / "probe"
                probe.mkdir()
                for name in ("request.json", "reply.json"):
                    (probe / name).write_text("")
                shutil.copy(RUNNER, probe / "runner.py")
                (self._workdir / "scratch").mkdir()
                kw["cwd"] = str(self._workdir / "scratch")
                return await super()._async_pre_start_kernel(**kw)
            checked = SandboxKernelManager._checked
            if self.user_namespace not in checked:  # once per grading run
                checked[self.user_namespace] = check(self.user_namespace) or ""
            if checked[self.user_namespace]:
                raise SystemExit(refusal(checked[self.user_namespace]))
            prepare(self._workdir, set(self.allowed), set(self.hidden), self.limits,
                    self.user_namespace)
            self.transport = "ipc"
            self.ip = str(self._workdir / "ipc" / "kernel")
            self.connection_file = str(self._workdir / "ipc" / "connection.json")
            kernel_cmd, kw = await super()._async_pre_start_kernel(**kw)
            if _as_root(self.user_namespace):
                os.chown(self.connection_file, sandbox_uid(), sandbox_uid())
            # ipykernel's own arguments, and quiet: it prints its connection banner
            # where no parent watches.
            inner = [*_kernel_arguments(kernel_cmd), "--IPKernelApp.log_level=CRITICAL"]
            kw["cwd"] = str(self._workdir)
            kw["env"] = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"),
                         "LANG": "C.UTF-8"}
            return command(self._workdir, inner), kw

        async def _async_cleanup_resources(self, restart: bool = False) -> None:
            try:
                await super()._async_cleanup_resources(restart=restart)
            finally:
                if not restart:
                    self.remove_workdir()

        def remove_workdir(self) -> None:
            """Delete the sockets and the probe's files (also done at exit, for a
            kernel whose shutdown failed); the scratch folder goes with the
            sandbox's namespaces."""
            if self._workdir is not None:
                shutil.rmtree(self._workdir, ignore_errors=True)
                _WORKDIRS.discard(self._workdir)
                self._workdir = None


_WORKDIRS: set[Path] = set()


@atexit.register
def _remove_workdirs() -> None:
    for workdir in list(_WORKDIRS):
        shutil.rmtree(workdir, ignore_errors=True)


# ------------------------------------------------------------------ inside

MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT = 1, 2, 4, 8, 32
MS_NOATIME, MS_NODIRATIME, MS_RELATIME = 1024, 2048, 1 << 21
MS_BIND, MS_MOVE, MS_REC, MS_PRIVATE = 4096, 8192, 16384, 1 << 18
PR_SET_PDEATHSIG, PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS, PR_SET_SECUREBITS = 1, 24, 38, 28

_libc = None


def _call(name: str, *args) -> None:
    result = getattr(_libc, name)(*args)
    if result != 0:
        error = ctypes.get_errno()
        shown = [a.decode() if isinstance(a, bytes) else a for a in args]
        raise OSError(error, f"{name}{tuple(shown)}: {os.strerror(error)}")


def _mount(source, target, fstype, flags, data=None):
    _call("mount", source and source.encode(), target.encode(),
          fstype and fstype.encode(), ctypes.c_ulong(flags), data and data.encode())


def _bind(source: str, target: str, writable: bool = False) -> None:
    if os.path.islink(source):
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if not os.path.lexists(target):
            os.symlink(os.readlink(source), target)
        return
    if os.path.isdir(source):
        os.makedirs(target, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if not os.path.exists(target):
            open(target, "w").close()
    _mount(source, target, None, MS_BIND | MS_REC)
    if not writable:
        _readonly(target)


def _readonly(target: str) -> None:
    _mount(None, target, None,
           MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | _kept_flags(target))


def _kept_flags(path: str) -> int:
    """The flags of the mount at `path` that a remount must keep: in a user
    namespace the kernel refuses to drop nodev, noexec or the atime flags of a
    mount it copied from outside."""
    st = os.statvfs(path).f_flag
    flags = 0
    for st_flag, ms_flag in ((os.ST_NODEV, MS_NODEV), (os.ST_NOEXEC, MS_NOEXEC),
                             (os.ST_NOATIME, MS_NOATIME),
                             (os.ST_NODIRATIME, MS_NODIRATIME),
                             (os.ST_RELATIME, MS_RELATIME)):
        if st & st_flag:
            flags |= ms_flag
    return flags


def _tmpfs(target: str, size: str, mode: str = "0755", uid: int | None = None) -> None:
    os.makedirs(target, exist_ok=True)
    options = f"size={size},mode={mode},nr_inodes=65536"
    if uid is not None:
        options += f",uid={uid},gid={uid}"
    _mount("none", target, "tmpfs", MS_NOSUID | MS_NODEV, options)


def _stub(name: str) -> str:
    return (f"raise ImportError({name!r} + ' is not available while this assignment "
            f"is graded: write the code yourself with what the assignment allows', "
            f"name={name!r})\n")


def _drop_capabilities() -> None:
    """Empty the bounding set and every capability set, no new privileges."""
    _libc.prctl(PR_SET_SECUREBITS, 0x2F, 0, 0, 0)  # noroot, no fixup, locked (best effort)
    for cap in range(64):
        _libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)

    class Header(ctypes.Structure):
        _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

    class Data(ctypes.Structure):
        _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32),
                    ("inheritable", ctypes.c_uint32)]

    data = (Data * 2)()
    _call("capset", ctypes.byref(Header(0x20080522, 0)), data)
    _call("prctl", PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)


def _set_limits(settings: dict) -> None:
    import resource

    limits = settings["limits"]
    for which, value in ((resource.RLIMIT_CPU, limits["cpu_seconds"]),
                         (resource.RLIMIT_AS, limits["address_space_bytes"]),
                         (resource.RLIMIT_FSIZE, limits["file_bytes"]),
                         (resource.RLIMIT_NOFILE, limits["open_files"]),
                         (resource.RLIMIT_NPROC,
                          settings["baseline_tasks"] + limits["processes"] + 32),
                         (resource.RLIMIT_CORE, 0)):
        resource.setrlimit(which, (value, value))


def enter(settings: dict, kernel_args: list[str]) -> None:
    """Inside fresh namespaces: build the filesystem, confine, start the kernel,
    watch its processes."""
    global _libc
    _libc = ctypes.CDLL(None, use_errno=True)
    root, limits = settings["root"], settings["limits"]
    uid = settings["uid"] if settings["as_root"] else 0
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    _mount("none", root, "tmpfs", MS_NOSUID | MS_NODEV, "size=16m,mode=0755")
    for folder in settings["readonly"]:
        _bind(folder, root + folder)
    for folder in settings["masked"]:  # installed packages the assignment did not allow
        if os.path.isdir(root + folder):
            _tmpfs(root + folder, "4k")
            _readonly(root + folder)
    for file in settings["files"]:
        _bind(file, root + file)
    # The import path: what the assignment allows, and stubs that say what it does not.
    site = root + SITE
    _tmpfs(site, "1m")
    for name in settings["stubs"]:
        os.makedirs(f"{site}/{name}", exist_ok=True)
        with open(f"{site}/{name}/__init__.py", "w") as init:
            init.write(_stub(name))
    for name, source in settings["site"].items():
        _bind(source, f"{site}/{name}")
    _readonly(site)
    # The probe: its runner and request, read-only; its reply, the one writable file.
    probe = settings["probe"]
    for name in ("runner.py", "request.json", "reply.json"):
        _bind(f"{probe}/{name}", f"{root}{PROBE}/{name}", writable=name == "reply.json")
    _bind(settings["ipc"], root + settings["ipc"], writable=True)
    # The scratch folder: memory of limited size, gone with the namespaces.
    _tmpfs(root + SCRATCH, str(limits["scratch_bytes"]), "0700", uid)
    os.makedirs(f"{root}{SCRATCH}/.config/matplotlib", exist_ok=True)
    for entry in os.scandir(settings["seed"]):
        shutil.copy(entry.path, f"{root}{SCRATCH}/.config/matplotlib/{entry.name}")
    for dirpath, dirnames, filenames in os.walk(root + SCRATCH):
        for name in (dirpath, *(os.path.join(dirpath, n) for n in dirnames + filenames)):
            os.chown(name, uid, uid)
    os.makedirs(root + "/proc", exist_ok=True)
    try:  # a fresh /proc for the new PID namespace: it shows the sandbox's processes
        _mount("proc", root + "/proc", "proc", MS_NOSUID | MS_NODEV)
    except OSError:
        pass  # a container that masks /proc forbids it; Python runs without it
    os.chdir(root)
    _mount(root, "/", None, MS_MOVE)
    os.chroot(".")
    _mount(None, "/", None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)
    os.chdir(SCRATCH)
    _set_limits(settings)
    if settings["as_root"]:
        os.setgroups([])
        os.setgid(uid)
        os.setuid(uid)  # from root to a user of its own: every capability is gone
        _call("prctl", PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    else:
        _drop_capabilities()
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": SCRATCH, "TMPDIR": SCRATCH,
           "MPLCONFIGDIR": f"{SCRATCH}/.config/matplotlib", "MPLBACKEND": "agg",
           "IPYTHONDIR": f"{SCRATCH}/.ipython", "JUPYTER_RUNTIME_DIR": SCRATCH,
           "PYDEVD_DISABLE_FILE_VALIDATION": "1",
           "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
           "LANG": "C.UTF-8"}
    _call("prctl", PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)  # unshare gone: end
    kernel = os.fork()
    if kernel == 0:
        python = settings["python"]
        os.execve(python, [python, "-I", "-S", "-c", BOOT.format(site=SITE),
                           *kernel_args], env)
    # This process is the namespace's first: when it ends, so does every process
    # the student started. An interrupt reaches the kernel directly (its process
    # group).
    signal.signal(signal.SIGINT, lambda *_: None)
    signal.signal(signal.SIGTERM, lambda *_: os.kill(kernel, signal.SIGTERM))
    _watch(kernel, settings)


def _memory() -> int:
    """Bytes of memory the namespace's processes hold (proportional set size,
    so shared pages count once) and its System V shared memory."""
    total = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or entry == "1":
            continue
        try:
            with open(f"/proc/{entry}/smaps_rollup") as rollup:
                for line in rollup:
                    if line.startswith(("Pss:", "SwapPss:")):
                        total += int(line.split()[1]) * 1024
        except (OSError, ValueError):
            continue
    try:
        with open("/proc/sysvipc/shm") as segments:
            header = segments.readline().split()
            rss, swap = header.index("rss"), header.index("swap")
            for line in segments:
                fields = line.split()
                total += int(fields[rss]) + int(fields[swap])
    except (OSError, ValueError, IndexError):
        pass
    return total


def _processes() -> int:
    count = 0
    for entry in os.listdir("/proc"):
        if entry.isdigit() and entry != "1":
            try:
                with open(f"/proc/{entry}/status") as status:
                    for line in status:
                        if line.startswith("Threads:"):
                            count += int(line.split()[1])
                            break
            except (OSError, ValueError):
                continue
    return count


def _stop_all(reason: str, settings: dict) -> None:
    """Write why, stop every process of the namespace, end."""
    try:
        with open(f"{settings['ipc']}/{STOPPED}", "w") as file:
            file.write(reason)
    except OSError:
        pass
    try:
        os.kill(-1, signal.SIGKILL)  # every process of the namespace but this one
    except OSError:
        pass
    os._exit(137)


def _watch(kernel: int, settings: dict) -> None:
    """Reap the notebook's processes; stop them all when they hold more memory
    together than the limit, start more than the limit, or outlive the time."""
    limits = settings["limits"]
    started = time.monotonic()
    measured = os.path.isdir("/proc/self")
    while True:
        try:
            while True:
                pid, status = os.waitpid(-1, os.WNOHANG)
                if pid == 0:
                    break
                if pid == kernel:
                    os._exit(os.waitstatus_to_exitcode(status) & 0xFF)
        except ChildProcessError:
            os._exit(0)
        if measured:
            memory = _memory()
            if memory > limits["memory_bytes"]:
                _stop_all(f"the notebook's processes used {memory / 2**30:.1f} GiB "
                          f"of memory together, more than the limit of "
                          f"{limits['memory_bytes'] / 2**30:g} GiB", settings)
            if _processes() > limits["processes"] + 64:
                _stop_all(f"the notebook ran more than {limits['processes']} "
                          "processes and threads", settings)
        if time.monotonic() - started > limits["wall_seconds"]:
            _stop_all(f"the notebook ran longer than {limits['wall_seconds']} s in "
                      "all", settings)
        time.sleep(0.1)


if __name__ == "__main__":
    with open(sys.argv[1]) as file:
        enter(json.load(file), sys.argv[2:])
