"""Fuzzing the outputs: random sequences of a user's own edits and evp's writes
into one folder, under names that collide (a table, a LaTeX file, a report, its
figures folder, evp's own record), with and without ``--force``.

What must hold after every step: a file the user wrote is as the user wrote it,
unless evp was told ``--force`` for that very file (or its report's figures);
evp's record names only files that exist; the input is untouched; every
command exits 0, or 2 in one line, never with a traceback.

Default: a few tens of examples chosen the same way every run; a long, random
run: ``EVP_FUZZ_EXAMPLES=2000 EVP_FUZZ_RANDOM=1 pytest tests/test_fuzz_outputs.py``.
"""

import json
import os
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_fuzz import run_evp, tree

from evp._output import MANIFEST

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
        try:
            written = json.loads(record.read_text())
        except ValueError:
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
