"""Fuzzing the outputs: random sequences of a user's own edits and evp's writes
into one folder, under names that collide (a table, a LaTeX file, a report, its
figures folder, evp's own record), with and without ``--force``.

What must hold after every step: a file the user wrote is as the user wrote it,
unless evp was told ``--force`` for that very file (or its report's figures);
evp's record names only files that exist; the input is untouched; every
command exits 0, or 2 in one line, never with a traceback.

And, in process, runs (:func:`evp._output.atomic_folder`, what ``evp run``
goes through) whose output folder changes while they run: files, folders,
links and record-named files the user adds, nested runs finished meanwhile,
and ``--out`` writes into those folders (see the second test).

Default: a few tens of examples chosen the same way every run; a long, random
run: ``EVP_FUZZ_EXAMPLES=2000 EVP_FUZZ_RANDOM=1 pytest tests/test_fuzz_outputs.py``
(or ``python benchmarks/fuzz_long.py``).
"""

import contextlib
import hashlib
import json
import os
import tempfile
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from test_fuzz import run_evp, tree

from evp._output import MANIFEST, atomic_folder

EXAMPLES = int(os.environ.get("EVP_FUZZ_EXAMPLES", "15"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, database=None,
                derandomize=not os.environ.get("EVP_FUZZ_RANDOM"),
                suppress_health_check=[HealthCheck.too_slow])

# Names that collide: what evp writes, and what a user keeps beside it.
OUTPUTS = {"curve": ["a.csv", "a.tex", "a.png", "a b.csv", "ä.tex"],
           "report": ["a.md", "a.tex", "a.html", "ä.tex"]}
USER_FILES = ["a.csv", "a.tex", "a.png", "a.md", "a.html", "a b.csv", "ä.tex",
              "a-figures/curves.png", "a-figures/bands.pdf", "a-figures/notes.txt",
              "ä-figures/curves.pdf", MANIFEST, "a-figures/" + MANIFEST]
CONTENT = st.one_of(st.sampled_from(["the user's own", "", "{}", "[]",
                                     '{"a.csv": null}', '["a.tex"]',
                                     '{"a.tex": "0"}']),
                    st.text(max_size=12))
STEPS = st.lists(st.one_of(
    st.tuples(st.just("user"), st.sampled_from(USER_FILES), CONTENT),
    st.tuples(st.just("evp"), st.sampled_from(["curve", "report"]),
              st.integers(0, 4), st.booleans())), min_size=1, max_size=5)


def records_are_true(folder: Path) -> None:
    """Every record evp keeps names files that exist (a record the user
    replaced with garbage is theirs, and is not read as evp's)."""
    for record in folder.rglob(MANIFEST):
        if record.is_symlink() or not record.is_file():
            continue  # the user's, under that name
        try:
            written = json.loads(record.read_text())
        except (ValueError, RecursionError):
            continue
        if isinstance(written, dict) and all(isinstance(v, str) or v is None
                                             for v in written.values()):
            for name, digest in written.items():
                if digest is not None and len(digest) == 64:
                    assert (record.parent / name).is_file(), (record, name)


@FUZZ
@given(steps=STEPS)
def test_random_edits_and_writes_never_lose_a_users_file(steps):
    with tempfile.TemporaryDirectory() as scratch:
        scratch = Path(scratch)
        inputs, out = scratch / "in", scratch / "out"
        inputs.mkdir()
        out.mkdir()
        rng = np.random.default_rng(0)
        pd.DataFrame({"model": ["a", "b"] * 6,
                      "acc": rng.uniform(0.6, 0.9, 12).round(4)}).to_csv(
            inputs / "runs.csv", index=False)
        before = tree(inputs)
        users = {}  # the user's files: name → content, as the user left them
        for step in steps:
            if step[0] == "user":
                _, name, content = step
                path = out / name
                if path.is_dir():
                    continue
                path.parent.mkdir(exist_ok=True)
                path.write_text(content, encoding="utf-8")
                users[name] = content
                if path.name == MANIFEST:
                    # A record the user forged says evp wrote what it names:
                    # those files are given up to evp.
                    users = {n: c for n, c in users.items()
                             if Path(n).parent != Path(name).parent
                             or f'"{Path(n).name}"' not in content}
                continue
            _, command, which, force = step
            name = OUTPUTS[command][which % len(OUTPUTS[command])]
            target = out / name
            args = [command, inputs / "runs.csv", "--score", "acc", "--group",
                    "model", "--out", target, *(["--force"] if force else [])]
            if command == "curve":
                args += ["--ns", "1,2"]
            status = run_evp(*args)
            if status == 0:
                # What evp wrote is no longer the user's: the file itself, and
                # with --force the report's figures it replaced.
                figures = target.stem + "-figures/"
                users = {n: c for n, c in users.items() if n != name and not (
                    force and command == "report" and n.startswith(figures))}
            for other, content in users.items():
                if Path(other).name == MANIFEST:
                    continue  # evp's own record: the user's garbage is ignored
                path = out / other
                assert path.is_file(), f"{other} was deleted ({step})"
                assert path.read_text(encoding="utf-8") == content, (
                    f"{other} was changed ({step})")
            records_are_true(out)
        assert tree(inputs) == before


# ------------------------------------------------- runs and their folders
#
# Random sequences of a user's edits (files, folders, links, files named like
# evp's records, records of the user's own making), evp's runs into `out`,
# `out/inner` and `out/sub` (their new output with files, subfolders and empty
# folders), edits made, and nested runs finished, while a run runs, and
# --out writes into those folders. In process: quick enough for thousands.
#
# What must hold after every step: everything of the user's is as the user
# left it, at its place (unless the user's own valid record gave it to evp, or
# --force named it); a run that succeeds leaves exactly its new output; one
# that is refused leaves its folder as it was, and its new output whole in one
# new -failed- folder when the refusal came at the swap; no temporary folder
# is left behind; every error is a ValueError or FolderBusy in one line.

import evp._output as output  # noqa: E402

RUN_TARGETS = ["out", "out/inner", "out/sub"]
PLACES = ["a.txt", "sub/a.txt", "inner/a.txt", "inner/deep/b.txt", "sub",
          "inner", "drafts", MANIFEST, "sub/" + MANIFEST, "inner/" + MANIFEST,
          ".evp-partial.json", "sub/.evp-partial.json"]
EDIT = st.tuples(st.sampled_from(["file", "folder", "link to folder",
                                  "link to file", "forged record"]),
                 st.sampled_from(PLACES), st.sampled_from(["x", "", "{}", "[]"]))
NEW_OUTPUT = st.lists(st.tuples(st.sampled_from(
    ["fig.png", "table.csv", "sub/t.csv", "deep/er/c.txt", "empty/", "a.txt"]),
    st.sampled_from(["1", "2", ""])), max_size=4)
RUN_STEPS = st.lists(st.one_of(
    st.tuples(st.just("user"), EDIT),
    st.tuples(st.just("run"), st.sampled_from(RUN_TARGETS), NEW_OUTPUT,
              st.lists(EDIT, max_size=2),
              st.one_of(st.none(), st.tuples(st.sampled_from(RUN_TARGETS),
                                             NEW_OUTPUT))),
    st.tuples(st.just("write"), st.sampled_from(["t.csv", "sub/t.csv",
                                                 "inner/t.csv", "a.txt"]),
              st.sampled_from(["1", "2"]), st.booleans()),
    # A save that lands in the last moments: after the old folder was moved
    # aside, or after the new one took its place.
    st.tuples(st.just("late"), st.sampled_from(RUN_TARGETS), NEW_OUTPUT,
              st.sampled_from(["aside", "swapped"]))),
    min_size=1, max_size=6)


def _state(path: Path):
    """What is at `path`, links as links, files by their content."""
    if path.is_symlink():
        return ("link", os.readlink(path))
    if path.is_dir():
        return ("folder",)
    if path.is_file():
        return ("file", path.read_bytes())
    return None


def _snapshot(folder: Path) -> dict:
    found = {}
    if not folder.is_dir() or folder.is_symlink():
        return found
    for root, folders, files in os.walk(folder):
        for name in folders + files:
            path = Path(root) / name
            found[str(path.relative_to(folder))] = _state(path)
    return found


def _edit(root: Path, edit, users: dict) -> None:
    """A user's edit at `root`/`place` (skipped where the place cannot take
    it); what the user made is put in `users`."""
    kind, place, content = edit
    path = root / "out" / place
    if os.path.lexists(path) or not path.parent.is_dir() or \
            path.parent.is_symlink():
        return
    theirs = root / "theirs"
    if kind == "file":
        path.write_text(content)
    elif kind == "folder":
        path.mkdir()
    elif kind == "link to folder":
        path.symlink_to(theirs)
    elif kind == "link to file":
        path.symlink_to(theirs / "thesis.tex")
    else:  # a valid record of the user's own: it gives the folder's files to evp
        path = path.parent / MANIFEST
        if os.path.lexists(path):
            return
        named = {p.name: hashlib.sha256(p.read_bytes()).hexdigest()
                 for p in path.parent.iterdir()
                 if p.is_file() and not p.is_symlink()}
        path.write_text(json.dumps(named))
        for name in named:
            users.pop(str((path.parent / name).relative_to(root)), None)
        return  # a valid record: it, too, is evp's now
    if path.name == MANIFEST and kind == "file":
        with contextlib.suppress(ValueError):
            if isinstance(json.loads(content), dict) and not json.loads(content):
                return  # an empty record, valid: evp's, naming nothing
    users[str(path.relative_to(root))] = _state(path)


def _check_users(root: Path, users: dict, step) -> None:
    for place, state in users.items():
        assert _state(root / place) == state, f"{place} lost or changed ({step})"


def _run(root: Path, target: str, files, during, nested, users: dict, step,
         late: bool = False):
    """One run into `target`, with `during` (edits) and `nested` (a run into
    another folder) happening while it runs; its invariants checked (but for
    a ``late.txt`` saved at the swap, with `late`)."""
    folder = root / target

    def failed_copies():
        return set(folder.parent.glob(f"{folder.name}-failed-*"))

    before, failed_before = _snapshot(folder), failed_copies()
    new, at_swap = None, None
    try:
        with atomic_folder(folder) as partial:
            for name, content in files:
                if name.endswith("/"):
                    (partial / name).mkdir(parents=True, exist_ok=True)
                else:
                    (partial / name).parent.mkdir(parents=True, exist_ok=True)
                    (partial / name).write_text(content)
            new = {k: v for k, v in _snapshot(partial).items()
                   if k != ".evp-partial.json"}
            for edit in during:
                _edit(root, edit, users)
            if nested is not None:
                _run(root, nested[0], nested[1], [], None, users, step)
            at_swap = _snapshot(folder)
    except (ValueError, output.FolderBusy) as error:
        text = str(error)
        assert "\n" not in text, text
        failed = failed_copies() - failed_before
        if at_swap is None:  # refused before it ran: nothing written
            assert _snapshot(folder) == before, (step, text)
            assert not failed, text
        else:  # refused at the swap: the folder as it was, the output kept
            now = _snapshot(folder)
            if late:
                now.pop("late.txt", None)
            assert now == at_swap, (step, text)
            (kept,) = failed
            assert str(kept) in text
            got = _snapshot(kept)
            assert got.pop(MANIFEST, None) is not None
            assert got == new, step
        return
    got = _snapshot(folder)
    assert got.pop(MANIFEST, None) is not None, step
    assert got == new, step
    assert failed_copies() == failed_before


def _write(root: Path, name: str, content: str, force: bool, users: dict,
           step) -> None:
    path = root / "out" / name
    if not path.parent.is_dir() or path.parent.is_symlink():
        return
    try:
        output.write_output(path, content, force=force)
    except (ValueError, output.FolderBusy) as error:
        assert "\n" not in str(error)
        return
    if force:
        users.pop(str(path.relative_to(root)), None)
    assert path.read_text() == content


def _late(root: Path, target: str, files, window: str, users: dict, step):
    """A run into `target` during whose swap the user saves ``late.txt``
    into the folder being replaced, in `window`: it is kept, either put back
    with the folder (the run refused, its output in a -failed- folder) or in
    a -kept- folder beside it (the run done, with a warning)."""
    folder = root / target
    real, moved = output._rename_new, []
    late = f"late {step} {os.urandom(4).hex()}".encode()  # this save's alone

    def racing(source, destination):
        real(source, destination)
        if destination.name.endswith("-old") and source == folder:
            moved.append(destination)
            if window == "aside":
                (destination / "late.txt").write_bytes(late)
        elif destination == folder and moved and window == "swapped":
            (moved[0] / "late.txt").write_bytes(late)

    output._rename_new = racing
    try:
        with warnings.catch_warnings(record=True) as said:
            warnings.simplefilter("always")
            _run(root, target, files, [], None, users, step, late=True)
    finally:
        output._rename_new = real
    if not moved:
        return  # refused before, or nothing to replace: no race
    event(f"a save landed in the swap's last moments ({window})")
    if window == "aside":
        assert (folder / "late.txt").read_bytes() == late, step
        users[str((folder / "late.txt").relative_to(root))] = ("file", late)
    else:
        kept = [k for k in folder.parent.glob(f"{folder.name}-kept-*")
                if (k / "late.txt").is_file()
                and (k / "late.txt").read_bytes() == late]
        assert len(kept) == 1 and [p.name for p in kept[0].iterdir()] == [
            "late.txt"], step
        assert any("late.txt" in str(w.message) for w in said), step
        users[str((kept[0] / "late.txt").relative_to(root))] = ("file", late)


@FUZZ
@given(steps=RUN_STEPS)
def test_runs_whose_folders_change_while_they_run_never_lose_a_users_file(steps):
    with tempfile.TemporaryDirectory() as scratch, warnings.catch_warnings():
        warnings.simplefilter("error")  # a run that had to keep something says so
        root = Path(scratch).resolve()
        (root / "theirs").mkdir()
        (root / "theirs" / "thesis.tex").write_text("years of work")
        kept = _snapshot(root / "theirs")
        users: dict = {}
        for step in steps:
            if step[0] == "user":
                _edit(root, step[1], users)
            elif step[0] == "run":
                _run(root, *step[1:], users, step)
            elif step[0] == "late":
                _late(root, *step[1:], users, step)
            else:
                _write(root, *step[1:], users, step)
            _check_users(root, users, step)
            assert _snapshot(root / "theirs") == kept
            assert not list(root.rglob(".evp-partial-*")), step
