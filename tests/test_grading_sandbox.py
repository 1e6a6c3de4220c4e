"""The grading sandbox, seen from inside: a kernel started by
``sandbox.SandboxKernelManager`` (as ``nbgrader autograde`` starts each student's)
runs code that tries to leave it.

It sees no course file and no home, writes only its scratch folder, has no
network, imports only from the standard library and the packages the assignment
allows (not evp, nor scipy from the base interpreter's own packages), cannot
remount what it sees, runs as another user or without capabilities, has System V
shared memory of its own, and its fork bomb stops at the process limit.
Where this machine cannot set the sandbox up the tests skip with
the reason, and ``nbgrader autograde`` refuses in one line that names the option to
grade without it.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.needs("nbgrader", "nbformat")

ROOT = Path(__file__).resolve().parents[1]
COURSE = ROOT / "notebooks" / "classroom" / "assignments"


def _sandbox():
    spec = importlib.util.spec_from_file_location("course_sandbox",
                                                  COURSE / "sandbox.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


TRIES = {
    "course": f"import os\nprint(os.path.exists({str(COURSE)!r}), "
              f"os.path.exists({str(ROOT / 'pyproject.toml')!r}))",
    "secret": "print(os.path.exists({secret!r}), os.path.exists({home!r}))",
    "write_system": "import numpy as np\n"
                    "np.arange(3).tofile('/usr/evp-sandbox-test')",
    "write_python": f"open({sys.base_prefix + '/evp-sandbox-test'!r}, 'w')",
    "write_scratch": "open('mine.txt', 'w').write('ok')\n"
                     "print(open('mine.txt').read())",
    "evp": "import evp",
    "scipy": "import scipy.stats",
    "import_path": "import sys\nprint(sys.path)",
    # scipy where the base interpreter keeps its packages: an empty folder here.
    "base_packages": "import os, sys\n"
                     "folder = f'{sys.base_prefix}/lib/python3.{sys.version_info[1]}"
                     "/site-packages'\n"
                     "sys.path.insert(0, folder)\n"
                     "print(os.path.isdir(folder), os.listdir(folder))\n"
                     "import scipy",
    "matplotlib": "import matplotlib",
    "shared_memory": "import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\n"
                     "print(libc.shmget(0x45565022, 4096, 0o1600) >= 0)",
    "network": "import socket\nsocket.create_connection(('127.0.0.1', 22), timeout=2)",
    "remount": "import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\n"
               "print(libc.mount(b'none', b'/usr', None, 32 | 4096, None), "
               "ctypes.get_errno())",
    "user": "print(os.getuid(), os.geteuid())",
    "capabilities": "print([line.split()[1] for line in open('/proc/self/status')\n"
                    "       if line.startswith('CapEff')][0])",
    # At most 100 children of 5 s each, so that where no limit holds (root in a
    # user namespace) the test stays harmless to the machine (and below the
    # sandbox's own count, which would stop the notebook).
    "fork_bomb": "import os\nchildren = 0\ntry:\n    for _ in range(100):\n"
                 "        if os.fork() == 0:\n            import time\n"
                 "            time.sleep(5)\n            os._exit(0)\n"
                 "        children += 1\nexcept OSError as error:\n"
                 "    print('stopped at', children, error.errno)",
}


@pytest.fixture(scope="module", params=[False, True],
                ids=["as-set-up-here", "in-a-user-namespace"])
def tried(request, tmp_path_factory):
    """{try: its outputs' text} from one sandboxed kernel; confined as this machine
    sets it up (as nobody where the tests run as root), then in a user namespace."""
    sandbox = _sandbox()
    user_namespace = request.param
    if user_namespace and os.geteuid() != 0:
        pytest.skip("not root: the first run was in a user namespace already")
    reason = sandbox.check(user_namespace)
    if reason:
        pytest.skip(f"the grading sandbox cannot be set up here: {reason}")
    import nbformat
    from nbclient import NotebookClient

    folder = tmp_path_factory.mktemp("student")
    secret = tmp_path_factory.mktemp("teacher") / "secret.txt"
    secret.write_text("the teacher's")
    home = os.path.expanduser("~/.bashrc")
    if not os.path.exists(home):  # a file of the teacher's home, made for the test
        home = str(secret)
    notebook = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell(code.replace("{secret!r}", repr(str(secret)))
                                  .replace("{home!r}", repr(home)))
        for code in TRIES.values()])
    from traitlets import Bool

    manager = type("Manager", (sandbox.SandboxKernelManager,),
                   {"user_namespace": Bool(user_namespace)})
    client = NotebookClient(notebook, timeout=60, allow_errors=True,
                            kernel_manager_class=manager,
                            resources={"metadata": {"path": str(folder)}})
    client.execute()
    found = {}
    for name, cell in zip(TRIES, notebook.cells, strict=True):
        found[name] = " ".join(
            o.get("text", "") or f"{o.get('ename')}: {o.get('evalue')}"
            for o in cell.outputs)
    found["left_in_student_folder"] = sorted(p.name for p in folder.iterdir())
    found["user_namespace"] = user_namespace
    return found


def test_the_course_and_the_home_are_absent(tried):
    assert tried["course"].split() == ["False", "False"]
    assert tried["secret"].split() == ["False", "False"]


def test_only_the_scratch_folder_is_writable(tried):
    assert "Read-only file system" in tried["write_system"]
    assert "Read-only file system" in tried["write_python"]
    assert not os.path.exists("/usr/evp-sandbox-test")
    assert not os.path.exists(sys.base_prefix + "/evp-sandbox-test")
    assert tried["write_scratch"].strip() == "ok"
    assert tried["left_in_student_folder"] == []  # the scratch folder is elsewhere


def test_the_answers_cannot_be_imported(tried):
    assert "evp is not available while this assignment is graded" in tried["evp"]
    assert "scipy is not available" in tried["scipy"]


def test_the_import_path_holds_only_what_the_assignment_allows(tried):
    """The kernel's interpreter starts without site-packages: its import path is
    the standard library and /evp-site (numpy, the kernel's own packages);
    the base interpreter's packages are an empty folder, so its scipy (where it
    has one) cannot load, and matplotlib, not allowed here, is absent."""
    path = tried["import_path"]
    assert "/evp-site" in path
    assert "site-packages" not in path and "dist-packages" not in path
    assert tried["base_packages"].startswith("True []"), tried["base_packages"]
    assert "scipy is not available" in tried["base_packages"]
    assert "ModuleNotFoundError" in tried["matplotlib"]


def test_shared_memory_is_the_notebooks_own(tried):
    """An IPC namespace of its own: a segment made here ends with the kernel
    (grading_run's neighbour checks that the next notebook does not see it)."""
    assert tried["shared_memory"].strip() == "True"
    lines = Path("/proc/sysvipc/shm").read_text().splitlines()[1:]
    assert not [line for line in lines if line.split()
                and int(line.split()[0]) == 0x45565022]


def test_no_network_no_remount_no_privileges(tried):
    assert "Error" in tried["network"]  # unreachable: its loopback is down
    result, errno = tried["remount"].split()
    assert result == "-1" and errno in {"1", "13"}  # EPERM or EACCES
    assert tried["capabilities"].strip() == "0000000000000000"
    if os.geteuid() == 0 and not tried["user_namespace"]:
        # a user of its own, without an account (sandbox.sandbox_uid)
        uid, euid = map(int, tried["user"].split())
        assert uid == euid >= _sandbox().SANDBOX_UID_BASE
    else:  # root of a user namespace of its own, without a capability
        assert tried["user"].split() == ["0", "0"]


def test_a_fork_bomb_stops_at_the_process_limit(tried):
    if os.geteuid() == 0 and tried["user_namespace"]:
        pytest.skip("Linux exempts real root from the process limit; as root the "
                    "sandbox runs the kernel as a user of its own instead")
    assert "stopped at" in tried["fork_bomb"]
    assert int(tried["fork_bomb"].split()[2]) < 100


def test_autograde_refuses_in_one_line_without_the_sandbox(tmp_path):
    """A machine without unshare: autograde stops before grading anything."""
    for name in ("nbgrader_config.py", "grading.py", "sandbox.py", "answer_key.py",
                 "probe_runner.py"):
        (tmp_path / name).write_text((COURSE / name).read_text())
    empty = tmp_path / "bin"
    empty.mkdir()
    done = subprocess.run([sys.executable, "-m", "nbgrader", "autograde", "x"],
                          cwd=tmp_path, env=dict(os.environ, PATH=str(empty)),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode != 0
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert lines[-1].startswith("Refusing to grade: "), done.stderr
    assert "--SandboxKernelManager.unsafe_no_sandbox=True" in lines[-1]
    assert not (tmp_path / "gradebook.db").exists()
