"""Nothing of the user's is deleted or replaced: evp removes or replaces a file
only where its own record says evp wrote it, as it is now.

Each test is a way a user lost a file before: a run's ``<out>-failed/`` folder
that held the input, two runs into folders of similar names, files added to a
run's folder after the run, a ``main.tex`` of the user's at ``--out``, a
report's figures written into the folder it read, a full disk, and a shared
lock folder that other users could not use.
"""

import contextlib
import errno
import json
import os
import stat
import subprocess
import sys
import tempfile
import time
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

@pytest.mark.needs("matplotlib")
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
    real = output._write

    def fills_up(path, content, before_rename=None):
        if Path(path).name == "second.png":
            raise OSError(errno.ENOSPC, f"could not write {path}: No space left")
        return real(path, content, before_rename)

    monkeypatch.setattr(output, "_write", fills_up)
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


# --------------------------------- 20. locks private to the user, bounded

def test_locks_live_in_a_folder_private_to_the_user(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    monkeypatch.setattr(output, "_LOCK_FOLDER", None)
    old = os.umask(0)  # the most open umask: the folder is private anyway
    try:
        with output.exclusive(tmp_path / "out"):
            pass
        write_output(tmp_path / "a.csv", "1")
    finally:
        os.umask(old)
    # Not the shared, predictable folder of every user's locks.
    assert not (tmp_path / "evp-locks").exists()
    locks = tmp_path / f"evp-locks-{os.getuid()}"
    info = locks.lstat()
    assert stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid()
    assert stat.S_IMODE(info.st_mode) == 0o700
    assert all(stat.S_IMODE(f.stat().st_mode) == 0o600 for f in locks.iterdir())


@pytest.mark.skipif(not hasattr(os, "getuid") or os.getuid() != 0,
                    reason="making a folder of another user's needs root")
def test_a_lock_folder_another_user_made_is_not_used(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    monkeypatch.setattr(output, "_LOCK_FOLDER", None)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    squatted = tmp_path / f"evp-locks-{os.getuid()}"
    squatted.mkdir(mode=0o777)
    os.chown(squatted, 12345, 12345)  # made there first by someone else
    with output.exclusive(tmp_path / "out"):
        pass
    assert list(squatted.iterdir()) == []
    assert any((tmp_path / "home" / ".cache" / "evp" / "locks").iterdir())


HOLD = ("import sys; from evp._output import atomic_folder\n"
        "with atomic_folder(sys.argv[1]) as partial:\n"
        "    (partial / 'a.txt').write_text('theirs')\n"
        "    print('held', flush=True); sys.stdin.readline()\n")


@contextlib.contextmanager
def another_run(folder: Path):
    """A run into `folder` by another process, under way while the block runs."""
    child = subprocess.Popen([sys.executable, "-c", HOLD, str(folder)],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "held", child.stderr.read()
        yield child
    finally:
        child.communicate("done\n", timeout=60)


def test_a_write_into_a_folder_a_run_replaces_waits_saying_so_then_gives_up(
        tmp_path, monkeypatch, capsys):
    results = results_file(tmp_path / "runs.csv")
    out = tmp_path / "out"
    evps_run(out, {"a.txt": "evp's"})
    monkeypatch.setattr(output, "LOCK_WAIT", 1.5)
    with another_run(out) as run:
        capsys.readouterr()
        start = time.monotonic()
        status, _, err = run_cli("curve", results, "--score", "acc", "--group",
                                 "model", "--out", out / "t.csv")
        took = time.monotonic() - start
        waiting = capsys.readouterr().err
    assert took < 10
    assert f"evp: waiting for {out}: {out} is in use by a run (pid {run.pid})" \
        in waiting + err
    line = one_line_error(status, "", err, "curve")
    assert "gave up after" in line and str(out) in line
    assert (out / "a.txt").read_text() == "theirs"  # the run finished undisturbed
    assert not (out / "t.csv").exists()


# ------------------- 21. nested runs exclude each other, whichever is first

@pytest.mark.parametrize("first, second", [("out", "out/inner"),
                                           ("out/inner", "out")])
def test_runs_into_folders_one_inside_the_other_exclude_each_other(
        tmp_path, first, second):
    with another_run(tmp_path / first), \
            pytest.raises(output.FolderBusy) as refused, \
            atomic_folder(tmp_path / second) as partial:
        (partial / "b.txt").write_text("mine")
    message = str(refused.value)
    assert str(tmp_path / second) in message
    assert ("lies inside" in message and "pid" in message if first == "out"
            else "a run or a write into a folder inside it" in message)
    # The first run's output is whole; the second wrote nothing.
    assert (tmp_path / "out" / ("a.txt" if first == "out" else "inner/a.txt")
            ).read_text() == "theirs"
    assert not list(tmp_path.rglob("b.txt"))


# ---------------------- 22. what appears in a folder while a run runs is kept

def snapshot(folder: Path) -> dict:
    """Everything under `folder`, links as links (never followed), files by
    their checksum."""
    found = {}
    for root, folders, files in os.walk(folder):
        for name in folders + files:
            path = Path(root) / name
            key = str(path.relative_to(folder))
            if path.is_symlink():
                found[key] = "link to " + os.readlink(path)
            elif path.is_dir():
                found[key] = "folder"
            elif path.is_file():
                found[key] = hashlib_sha256(path.read_bytes())
            else:
                found[key] = "special"
    return found


def hashlib_sha256(data: bytes) -> str:
    import hashlib

    return hashlib.sha256(data).hexdigest()


def evps_run(out: Path, files: dict) -> None:
    with atomic_folder(out) as partial:
        for name, text in files.items():
            (partial / name).parent.mkdir(parents=True, exist_ok=True)
            (partial / name).write_text(text)


def failed_copies(out: Path) -> list[Path]:
    return sorted(out.parent.glob(f"{out.name}-failed-*"))


def test_a_file_saved_in_the_folder_during_the_run_is_kept(tmp_path):
    out = tmp_path / "res"
    evps_run(out, {"table.csv": "old"})
    with pytest.raises(ValueError) as refused, atomic_folder(out) as partial:
        (partial / "table.csv").write_text("new")
        (out / "notes.txt").write_text("the user's notes")  # saved meanwhile
    line = str(refused.value)
    assert "notes.txt" in line and "appeared or changed while the run ran" in line
    (failed,) = failed_copies(out)
    assert str(failed) in line and "\n" not in line
    assert (out / "notes.txt").read_text() == "the user's notes"
    assert (out / "table.csv").read_text() == "old"
    assert (failed / "table.csv").read_text() == "new"
    assert json.loads((failed / MANIFEST).read_text())["table.csv"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["res", failed.name]


def test_a_nested_runs_output_finished_during_a_long_run_is_kept(tmp_path):
    # The inner run (another user's, whose locks are their own) finishes
    # while the long run into the folder around it is still under way.
    out = tmp_path / "out"
    with pytest.raises(ValueError, match="inner"), \
            atomic_folder(out) as partial:
        (partial / "long.csv").write_text("long")
        evps_run(out / "inner", {"short.csv": "short"})
    assert (out / "inner" / "short.csv").read_text() == "short"
    assert (failed_copies(out)[0] / "long.csv").read_text() == "long"


@pytest.mark.needs("papermill")
def test_evp_run_keeps_a_file_saved_while_the_notebook_runs(tmp_path):
    results = results_file(tmp_path / "runs.csv")
    out = tmp_path / "res"
    notebook = run_notebook(tmp_path / "mine.ipynb",
                            "Path(figures_dir, 'table.csv').write_text('old')")
    args = ["run", notebook, results, "--score", "acc", "--group", "model",
            "--out", out]
    status, printed, err = run_cli(*args)
    assert status == 0, err
    assert f"running {notebook}" in printed  # which file ran, said first
    run_notebook(notebook, "Path(figures_dir, 'table.csv').write_text('new')\n"
                           f"Path({str(out)!r}, 'notes.txt').write_text('mine')")
    line = one_line_error(*run_cli(*args), "run")
    assert "notes.txt" in line and "-failed-" in line
    assert (out / "notes.txt").read_text() == "mine"
    assert (out / "table.csv").read_text() == "old"
    assert (failed_copies(out)[0] / "table.csv").read_text() == "new"


def test_a_file_added_after_the_folder_was_moved_aside_goes_back(tmp_path,
                                                                  monkeypatch):
    out = tmp_path / "out"
    evps_run(out, {"a.txt": "old"})
    real = output._rename_new

    def racing(source, target):
        real(source, target)
        if target.name.endswith("-old"):  # the user's save lands just after
            (target / "late.txt").write_text("late")

    monkeypatch.setattr(output, "_rename_new", racing)
    with pytest.raises(ValueError, match=r"late\.txt"), atomic_folder(out) as partial:
        (partial / "a.txt").write_text("new")
    assert (out / "late.txt").read_text() == "late"
    assert (out / "a.txt").read_text() == "old"
    assert (failed_copies(out)[0] / "a.txt").read_text() == "new"


def test_a_file_added_as_the_new_folder_took_its_place_is_kept(tmp_path,
                                                                monkeypatch):
    out = tmp_path / "out"
    evps_run(out, {"a.txt": "old"})
    real = output._rename_new
    old = []

    def racing(source, target):
        real(source, target)
        if target.name.endswith("-old"):
            old.append(target)
        elif target == out and old:  # the last moment: the new folder is in
            (old[0] / "late.txt").write_text("late")

    monkeypatch.setattr(output, "_rename_new", racing)
    with pytest.warns(UserWarning, match=r"late\.txt"), atomic_folder(out) as partial:
        (partial / "a.txt").write_text("new")
    assert (out / "a.txt").read_text() == "new"
    (kept,) = tmp_path.glob("out-kept-*")
    assert sorted(p.name for p in kept.iterdir()) == ["late.txt"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", kept.name]


# ------------- 23. what the check did not see: links, folders, record names

@pytest.mark.parametrize("plant", [
    "link to a folder", "link to a file", "empty folder", "folder in evp's",
    "record in a subfolder", "stamp in a subfolder", "stamp on top", "pipe"])
def test_a_rerun_refuses_what_evp_did_not_make(tmp_path, plant):
    out = tmp_path / "out"
    evps_run(out, {"a.txt": "evp's", "sub/b.txt": "evp's"})
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    (theirs / "thesis.tex").write_text("years of work")
    if plant == "link to a folder":
        (out / "data").symlink_to(theirs)
    elif plant == "link to a file":
        (out / "thesis.tex").symlink_to(theirs / "thesis.tex")
    elif plant == "empty folder":
        (out / "drafts").mkdir()
    elif plant == "folder in evp's":
        (out / "sub" / "drafts").mkdir()
    elif plant == "record in a subfolder":
        (out / "sub" / MANIFEST).write_text("my own notes")
    elif plant == "stamp in a subfolder":
        (out / "sub" / ".evp-partial.json").write_text("my own notes")
    elif plant == "stamp on top":
        (out / ".evp-partial.json").write_text("my own notes")
    else:
        os.mkfifo(out / "pipe")
    before, kept = snapshot(out), snapshot(theirs)
    with pytest.raises(ValueError, match=r"not written by evp|evp did not make|"
                                         r"a link"), atomic_folder(out):
        pass
    assert snapshot(out) == before and snapshot(theirs) == kept


def test_folders_a_run_made_are_its_own_and_replaced(tmp_path):
    out = tmp_path / "out"
    with atomic_folder(out) as partial:
        (partial / "empty").mkdir()
        (partial / "deep" / "er").mkdir(parents=True)
        (partial / "deep" / "er" / "c.txt").write_text("1")
    record = json.loads((out / MANIFEST).read_text())
    assert record["empty"] == record["deep/er"] == "folder"
    evps_run(out, {"d.txt": "2"})
    assert sorted(p.name for p in out.iterdir()) == [MANIFEST, "d.txt"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


# ---------------------------- 24. a record is untrusted data: its schema

@pytest.mark.parametrize("record", [
    '{"t.csv": 5}', '{"t.csv": null}', '["t.csv"]', '{"t.csv": ["x"]}',
    '{"t.csv": "%s", "x": 5}', '{"t.csv": "%s"}\n{', '{"./t.csv": "%s"}',
    '[' * 100_000 + ']' * 100_000, '{"t.csv": {"t.csv": ' * 5000 + '0' +
    '}' * 10_000])
def test_a_record_that_does_not_validate_is_not_evps(tmp_path, record):
    results = results_file(tmp_path / "runs.csv")
    target = tmp_path / "t.csv"
    target.write_text("the user's table")
    digest = hashlib_sha256(target.read_bytes())
    (tmp_path / MANIFEST).write_text(record.replace("%s", digest))
    before = tree(tmp_path)
    for force in ([], ["--force"]):
        line = one_line_error(*run_cli("curve", results, "--score", "acc",
                                       "--group", "model", "--out", target,
                                       *force), "curve")
        assert MANIFEST in line or "not written by evp" in line
        assert "bug" not in line
        assert tree(tmp_path) == before


def test_a_valid_record_of_the_users_file_is_honoured(tmp_path):
    # The schema, not the name, makes a record: a well-formed one still works.
    results = results_file(tmp_path / "runs.csv")
    target = tmp_path / "t.csv"
    target.write_text("evp's table")
    (tmp_path / MANIFEST).write_text(json.dumps(
        {"t.csv": hashlib_sha256(target.read_bytes())}))
    assert run_cli("curve", results, "--score", "acc", "--group", "model",
                   "--out", target)[0] == 0
    assert target.read_text() != "evp's table"


@pytest.mark.parametrize("kind", ["folder", "link"])
def test_a_record_that_is_a_folder_or_a_link_is_said_as_such(tmp_path, kind):
    results = results_file(tmp_path / "runs.csv")
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_text("{}")
    if kind == "folder":
        (tmp_path / MANIFEST).mkdir()
    else:
        (tmp_path / MANIFEST).symlink_to(elsewhere)
    line = one_line_error(*run_cli("curve", results, "--score", "acc", "--group",
                                   "model", "--out", tmp_path / "t.csv"), "curve")
    assert f"{tmp_path / MANIFEST} is a {kind}" in line
    assert not (tmp_path / "t.csv").exists()
    assert elsewhere.read_text() == "{}"


# ------------------------------------ 25. the run's surfaces: --out, NAME

@pytest.mark.needs("papermill")
def test_run_refuses_an_out_inside_the_folder_it_reads(tmp_path):
    folder = tmp_path / "search"
    folder.mkdir()
    for model in ("a", "b"):
        with open(folder / f"{model}.jsonl", "w") as stream:
            for trial in range(6):
                stream.write(json.dumps({"model": model, "trial": trial,
                                         "accuracy": 0.5 + trial / 100}) + "\n")
    notebook = run_notebook(tmp_path / "mine.ipynb", "x = 1")
    before = tree(folder)
    line = one_line_error(*run_cli("run", notebook, folder, "--score", "accuracy",
                                   "--out", folder / "out"), "run")
    assert "inside the input folder" in line
    assert tree(folder) == before


@pytest.mark.needs("papermill")
def test_run_refuses_the_current_folder_as_out(tmp_path, monkeypatch):
    (tmp_path / "data").mkdir()
    results = results_file(tmp_path / "data" / "runs.csv")
    notebook = run_notebook(tmp_path / "data" / "mine.ipynb", "x = 1")
    work = tmp_path / "home" / "work"
    work.mkdir(parents=True)
    monkeypatch.chdir(work)
    before = snapshot(tmp_path)
    for out in (".", str(tmp_path / "home")):
        line = one_line_error(*run_cli("run", notebook, results, "--score", "acc",
                                       "--group", "model", "--out", out), "run")
        assert "current folder" in line
    assert snapshot(tmp_path) == before


@pytest.mark.needs("papermill")
def test_a_name_never_runs_a_notebook_planted_in_the_current_folder(
        tmp_path, monkeypatch):
    from evp.runner import find_notebook, own_notebooks

    (tmp_path / "figures").mkdir()
    (tmp_path / "notebooks").mkdir()
    planted = run_notebook(tmp_path / "notebooks" / "deberta_tutorial.ipynb",
                           "open('PWNED', 'w').write('x')")
    monkeypatch.chdir(tmp_path)
    found = find_notebook("deberta_tutorial")
    assert found == (own_notebooks() / "deberta_tutorial.ipynb").resolve()
    assert find_notebook("notebooks/deberta_tutorial.ipynb") == planted.resolve()
    with pytest.raises(ValueError, match="evp has no analysis notebook 'mine'"):
        run_notebook(tmp_path / "notebooks" / "mine.ipynb", "x = 1")
        find_notebook("mine")


def run_notebook(path: Path, body: str) -> Path:
    """A notebook `evp run` can run on results_file's results: the parameters
    it sets, then `body`."""
    cells = [
        {"cell_type": "code", "id": "parameters", "metadata": {"tags": ["parameters"]},
         "execution_count": None, "outputs": [],
         "source": "results_path = ''\nscore_column = 'acc'\ngroup_column = None\n"
                   "check_claims = True\nfigures_dir = '.'\n"},
        {"cell_type": "code", "id": "body", "metadata": {}, "execution_count": None,
         "outputs": [], "source": "from pathlib import Path\n" + body},
    ]
    path.write_text(json.dumps({
        "cells": cells, "nbformat": 4, "nbformat_minor": 5,
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                    "language": "python"}}}))
    return path


# --------------------------------------------- 26. messages that mislead

def test_a_pipe_as_results_is_said_to_be_no_file(tmp_path):
    os.mkfifo(tmp_path / "runs.csv")
    line = one_line_error(*run_cli("curve", tmp_path / "runs.csv", "--score",
                                   "acc"), "curve")
    assert "is not a file" in line and "no such file" not in line


def test_a_decimal_mark_that_is_neither_point_nor_comma_is_refused(tmp_path):
    results = results_file(tmp_path / "runs.csv")
    line = one_line_error(*run_cli("curve", results, "--score", "acc", "--group",
                                   "model", "--decimal", "x"), "curve")
    assert "--decimal" in line and "'x'" in line


def test_the_systems_errors_are_said_in_words(tmp_path, monkeypatch):
    results = results_file(tmp_path / "runs.csv")

    def denied(*args, **kwargs):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES),
                              str(tmp_path / "t.csv"))

    monkeypatch.setattr(output, "check_output", denied)
    monkeypatch.setattr("evp._output.check_output", denied)
    line = one_line_error(*run_cli("curve", results, "--score", "acc", "--group",
                                   "model", "--out", tmp_path / "t.csv"), "curve")
    assert "[Errno" not in line and "'" not in line
    assert line.endswith(f"{tmp_path / 't.csv'}: Permission denied")


# ------------------------------------- 27. huge and hostile folder shapes

def test_a_tree_deeper_than_a_path_can_name_is_refused_in_one_short_line(
        tmp_path):
    out = tmp_path / "out"
    evps_run(out, {"a.txt": "evp's"})
    name = "x" * 6
    handle = os.open(out, os.O_RDONLY)
    try:
        for _ in range(800):  # 5,600 characters: past PATH_MAX
            os.mkdir(name, dir_fd=handle)
            deeper = os.open(name, os.O_RDONLY, dir_fd=handle)
            os.close(handle)
            handle = deeper
    finally:
        os.close(handle)
    try:
        with pytest.raises(ValueError) as refused, atomic_folder(out):
            pass
        line = str(refused.value)
        assert f"{out / name} is a folder evp did not make" in line
        assert len(line) < 500 and "\n" not in line
        assert (out / "a.txt").read_text() == "evp's"
    finally:  # taken down a level at a time: no long path reaches it
        while (out / name / name).exists():
            os.rename(out / name / name, tmp_path / "next")
            os.rmdir(out / name)
            os.rename(tmp_path / "next", out / name)
        (out / name).rmdir()


def test_a_run_into_a_link_is_refused_and_its_target_left_alone(tmp_path):
    theirs = tmp_path / "theirs"
    evps_run(theirs, {"a.txt": "evp's"})  # even a folder of evp's own
    before = snapshot(theirs)
    (tmp_path / "out").symlink_to(theirs)
    with pytest.raises(ValueError, match="is a file or a link"), \
            atomic_folder(tmp_path / "out"):
        pass
    assert snapshot(theirs) == before and (tmp_path / "out").is_symlink()


def test_an_error_of_the_file_system_at_the_swap_keeps_both_outputs(
        tmp_path, monkeypatch):
    out = tmp_path / "out"
    evps_run(out, {"a.txt": "old"})
    real, calls = output._first_foreign, []

    def unreadable(folder):
        calls.append(folder)
        if len(calls) > 1:  # the check at the swap
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES),
                                  str(folder))
        return real(folder)

    monkeypatch.setattr(output, "_first_foreign", unreadable)
    with pytest.raises(OSError) as refused, atomic_folder(out) as partial:
        (partial / "a.txt").write_text("new")
    (failed,) = failed_copies(out)
    assert str(refused.value) == (f"could not replace {out}: Permission denied; "
                                  f"the run's output is in {failed}")
    assert (out / "a.txt").read_text() == "old"
    assert (failed / "a.txt").read_text() == "new"


@pytest.mark.parametrize("asked, bound", [("2.5", 2.5), (None, 30.0),
                                          ("nan", 30.0), ("inf", 30.0),
                                          ("-1", 30.0), ("soon", 30.0),
                                          ("1e9", 30.0)])
def test_the_wait_for_a_lock_is_always_bounded(asked, bound):
    assert output._lock_wait(asked) == bound


def test_names_at_the_file_systems_limit_are_written_and_kept(tmp_path):
    # 250 bytes: a valid name, too long for a name with evp's prefixes added.
    name = "r" * 250
    out = tmp_path / name
    evps_run(out, {"a.txt": "old"})
    assert write_output(out / ("t" * 246 + ".csv"), "1") is False
    with pytest.raises(ValueError, match="appeared or changed"), \
            atomic_folder(out) as partial:
        (partial / "a.txt").write_text("new")
        (out / "mine.txt").write_text("mine")
    (failed,) = tmp_path.glob("*-failed-*")  # named by the name's start
    assert failed.name.startswith("r" * 40 + "-failed-")
    assert (failed / "a.txt").read_text() == "new"
    assert (out / "mine.txt").read_text() == "mine"


def test_a_folder_planted_where_a_killed_run_keeps_the_old_one_is_checked(
        tmp_path):
    out = tmp_path / "out"
    planted = tmp_path / f".evp-partial-{output._token(out)}-old"
    planted.mkdir()
    (planted / "theirs.txt").write_text("not evp's")
    with pytest.raises(ValueError, match=r"theirs\.txt was not written by evp"), \
            atomic_folder(out) as partial:
        (partial / "a.txt").write_text("new")
    # Put back where a killed run would have left it, and refused there.
    assert (out / "theirs.txt").read_text() == "not evp's"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]
