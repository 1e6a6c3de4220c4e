"""Nothing of the user's is deleted or replaced: evp removes or replaces a file
only where its own record says evp wrote it, as it is now.

Each test is a way a user lost a file before: a run's ``<out>-failed/`` folder
that held the input, two runs into folders of similar names, files added to a
run's folder after the run, a ``main.tex`` of the user's at ``--out``, a
report's figures written into the folder it read, a full disk, and a shared
lock folder that other users could not use.
"""

import errno
import json
import os
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from test_safety import one_line_error, run_cli, tree

import evp._output as output
from evp._output import (
    MANIFEST,
    atomic_folder,
    write_folder_files,
    write_output,
)
from evp.runner import NotebookFailed, run_atomically


def results_file(path: Path, seed: int = 0) -> Path:
    rng = np.random.default_rng(seed)
    pd.DataFrame({"model": ["a", "b"] * 10,
                  "acc": rng.uniform(0.6, 0.9, 20).round(4)}).to_csv(path, index=False)
    return path


def tiny_notebook(path: Path, body: str) -> Path:
    """A notebook with a tagged parameters cell, then `body`."""
    cells = [
        {"cell_type": "code", "id": "parameters", "metadata": {"tags": ["parameters"]},
         "execution_count": None, "outputs": [],
         "source": "results_path = ''\nfigures_dir = '.'\n"},
        {"cell_type": "code", "id": "body", "metadata": {}, "execution_count": None,
         "outputs": [], "source": body},
    ]
    path.write_text(json.dumps({
        "cells": cells, "nbformat": 4, "nbformat_minor": 5,
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                    "language": "python"}}}))
    return path


# ------------------------------------------- 1. a run's failed folder

@pytest.mark.needs("papermill")
@pytest.mark.parametrize("fails", [False, True])
def test_a_run_never_removes_a_folder_named_like_its_failed_copy(tmp_path, fails):
    # The user's results live in res-failed/, which evp once cleared.
    data = tmp_path / "res-failed"
    data.mkdir()
    results_file(data / "data.csv")
    before = tree(data)
    body = ("raise ValueError('the analysis failed')" if fails else
            "from pathlib import Path\n"
            "Path(figures_dir, 'table.csv').write_text('x')\n")
    notebook = tiny_notebook(tmp_path / "analysis.ipynb", body)
    out = tmp_path / "res"
    if fails:
        with pytest.raises(NotebookFailed) as raised:
            run_atomically(notebook, out, {"results_path": str(data / "data.csv")})
        kept = [p for p in tmp_path.iterdir() if p.name.startswith("res-failed-")]
        assert len(kept) == 1 and str(kept[0]) in str(raised.value)
        assert (kept[0] / "analysis.ipynb").is_file()
        assert not out.exists()
    else:
        run_atomically(notebook, out, {"results_path": str(data / "data.csv")})
        assert (out / "table.csv").read_text() == "x"
    assert tree(data) == before


# ----------------------------- 2. runs into folders of similar names

def test_a_run_leaves_the_half_written_folder_of_another_runs_similar_name(
        tmp_path):
    # res-b's run is under way (its temporary folder half full) while res's
    # run starts, cleans up its own leftovers and finishes.
    script = ("import sys; from pathlib import Path\n"
              "from evp._output import atomic_folder\n"
              "with atomic_folder(sys.argv[1]) as partial:\n"
              "    for i in range(7):\n"
              "        (partial / f'{i}.txt').write_text(str(i))\n"
              "        if i == 4:\n"
              "            print('half', flush=True); sys.stdin.readline()\n")
    other = tmp_path / "res-b"
    child = subprocess.Popen([sys.executable, "-c", script, str(other)],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "half"
        for name in ("res", "res-", "re"):
            with atomic_folder(tmp_path / name) as partial:
                (partial / "mine.txt").write_text(name)
        child.stdin.write("go on\n")
        child.stdin.flush()
        assert child.wait(timeout=60) == 0
    finally:
        child.kill()
    assert sorted(p.name for p in other.iterdir()) == [
        MANIFEST, *(f"{i}.txt" for i in range(7))]
    assert sorted(json.loads((other / MANIFEST).read_text())) == [
        f"{i}.txt" for i in range(7)]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["re", "res", "res-",
                                                          "res-b"]


def test_a_killed_runs_leftovers_are_removed_only_for_its_own_folder(tmp_path):
    others = tmp_path / "res-old"
    script = ("import sys, time; from evp._output import atomic_folder\n"
              "with atomic_folder(sys.argv[1]) as partial:\n"
              "    (partial / 'a.txt').write_text('half')\n"
              "    print('started', flush=True); time.sleep(60)\n")
    for folder in (others, tmp_path / "res"):
        child = subprocess.Popen([sys.executable, "-c", script, str(folder)],
                                 stdout=subprocess.PIPE, text=True)
        assert child.stdout.readline().strip() == "started"
        child.kill()
        child.wait()
    assert len(list(tmp_path.iterdir())) == 2  # two leftovers, hidden
    with atomic_folder(tmp_path / "res") as partial:
        (partial / "a.txt").write_text("done")
    # res's leftover is gone, res-old's is still there for its own next run.
    assert len([p for p in tmp_path.iterdir() if p.name.startswith(".")]) == 1
    with atomic_folder(others) as partial:
        (partial / "a.txt").write_text("done")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["res", "res-old"]


# ------------------------------------- 3. files added to a run's folder

def test_a_rerun_refuses_files_the_user_added_or_changed(tmp_path):
    out = tmp_path / "out"
    with atomic_folder(out) as partial:
        (partial / "figure.png").write_bytes(b"evp's")
        (partial / "sub").mkdir()
        (partial / "sub" / "table.csv").write_text("evp's")
    (out / "notes.txt").write_text("the user's notes")
    before = tree(out)
    with pytest.raises(ValueError, match=r"notes\.txt was not written by evp"), \
            atomic_folder(out):
        pass
    assert tree(out) == before
    (out / "notes.txt").unlink()
    (out / "sub" / "table.csv").write_text("edited by hand")
    before = tree(out)
    with pytest.raises(ValueError, match="table.csv was not written by evp "
                                         r"\(or was changed since"), atomic_folder(out):
        pass
    assert tree(out) == before
    (out / "sub" / "table.csv").write_text("evp's")  # as evp wrote it: its own
    with atomic_folder(out) as partial:
        (partial / "figure.png").write_bytes(b"again")
    assert (out / "figure.png").read_bytes() == b"again"


# -------------------------------- 4. an existing file at --out

@pytest.mark.parametrize("command, name", [
    (["curve", "--group", "model"], "main.tex"),
    (["curve", "--group", "model"], "table.csv"),
    (["compare", "--group", "model", "a", "b"], "main.tex"),
    (["plan", "--group", "model", "a", "b", "--budget", "2", "--more", "5",
      "--replications", "20"], "plan.csv"),
    (["report", "--group", "model"], "main.tex"),
    (["report", "--group", "model"], "report.html"),
])
def test_an_existing_file_evp_did_not_write_is_replaced_only_with_force(
        tmp_path, command, name):
    results = results_file(tmp_path / "runs.csv")
    target = tmp_path / name
    target.write_text("\\documentclass{article} % the user's own paper")
    before = tree(tmp_path)
    args = [command[0], results, "--score", "acc", *command[1:], "--out", target]
    line = one_line_error(*run_cli(*args), command[0])
    assert "was not written by evp" in line and "--force" in line
    assert tree(tmp_path) == before  # nothing written, not even a figure
    status, _, err = run_cli(*args, "--force")
    assert status == 0, err
    assert "the user's own paper" not in target.read_text()
    # Now evp's own, it is replaced without --force; edited by hand, it is not.
    assert run_cli(*args)[0] == 0
    target.write_text(target.read_text() + "% a hand edit")
    assert "changed since" in one_line_error(*run_cli(*args), command[0])
    assert target.read_text().endswith("% a hand edit")


# ------------------------- 5. a report's figures folder that is an input

@pytest.mark.parametrize("suffix", [".md", ".tex"])
def test_a_report_never_writes_figures_into_the_folder_it_reads(tmp_path, suffix):
    inputs = tmp_path / "X-figures"
    inputs.mkdir()
    results = results_file(inputs / "runs.csv")
    before = tree(tmp_path)
    line = one_line_error(*run_cli("report", results, "--score", "acc", "--group",
                                   "model", "--out", tmp_path / f"X{suffix}"),
                          "report")
    assert "X-figures" in line and "input" in line
    assert tree(tmp_path) == before
    # The results as the folder itself: refused the same way.
    line = one_line_error(*run_cli("report", inputs, "--score", "acc", "--group",
                                   "model", "--out", tmp_path / f"X{suffix}"),
                          "report")
    assert "X-figures" in line
    assert tree(tmp_path) == before


# -------------------------------------------------- 14. a full disk

def test_a_full_disk_names_the_file_and_leaves_a_true_record(tmp_path, monkeypatch):
    def full(path):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    with pytest.raises(OSError, match=f"could not write {tmp_path / 'table.csv'}: "
                                      "No space left on device"):
        write_output(tmp_path / "table.csv", full)
    assert not (tmp_path / "table.csv").exists()
    assert [p.name for p in tmp_path.iterdir() if p.name != MANIFEST] == []

    folder = tmp_path / "report-figures"
    real = output.write_file

    def fills_up(path, content):
        if Path(path).name == "second.png":
            raise OSError(errno.ENOSPC, f"could not write {path}: No space left")
        return real(path, content)

    monkeypatch.setattr(output, "write_file", fills_up)
    with pytest.raises(OSError, match=r"second\.png"):
        write_folder_files(folder, {"first.png": b"1", "second.png": b"2"})
    record = json.loads((folder / MANIFEST).read_text())
    assert sorted(record) == ["first.png"]  # only what exists
    assert all((folder / name).is_file() for name in record)


def test_a_full_disk_through_the_command_line_is_one_line_naming_the_file(
        tmp_path, monkeypatch):
    results = results_file(tmp_path / "runs.csv")
    real = output.file_sha256

    def full(path):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(output, "file_sha256", full)
    line = one_line_error(*run_cli("curve", results, "--score", "acc", "--group",
                                   "model", "--out", tmp_path / "t.csv"),
                          "curve")
    monkeypatch.setattr(output, "file_sha256", real)
    assert f"could not write {tmp_path / 't.csv'}" in line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["runs.csv"]


# ----------------------------------- 20. a lock folder every user can use

def test_the_shared_lock_folder_and_locks_are_open_to_every_user(
        tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    old = os.umask(0o022)
    try:
        with output.exclusive(tmp_path / "out"):
            pass
        write_output(tmp_path / "a.csv", "1")
    finally:
        os.umask(old)
    locks = tmp_path / "evp-locks"
    assert stat.S_IMODE(locks.stat().st_mode) == 0o1777
    files = list(locks.iterdir())
    assert files and all(stat.S_IMODE(f.stat().st_mode) == 0o666 for f in files)


def test_a_lock_file_another_user_made_read_only_still_locks(tmp_path,
                                                             monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    out = tmp_path / "out"
    with output.exclusive(out):
        pass
    (lock,) = (tmp_path / "evp-locks").iterdir()
    os.chmod(lock, 0o444)  # as an older evp of another user left it
    with output.exclusive(out), pytest.raises(output.FolderBusy):
        # A second holder, as another process would be, is refused.
        script = ("import sys, tempfile; tempfile.tempdir = sys.argv[2]\n"
                  "from evp._output import exclusive\n"
                  "with exclusive(sys.argv[1]): pass\n")
        done = subprocess.run([sys.executable, "-c", script, str(out),
                               str(tmp_path)], capture_output=True, text=True,
                              timeout=60)
        if "FolderBusy" in done.stderr:
            raise output.FolderBusy(done.stderr)
