"""Slides from the lecture notebooks, built without a network.

``python notebooks/classroom/slides.py OUTDIR`` (GUIDE.md, *Slides*) runs in a
network namespace of its own where the machine allows one (``unshare --net``):
the build reaches nothing outside. Each lecture gives one HTML file with a slide
per heading, no code, no teacher-only cell and its own offline viewer.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.needs("nbformat")

ROOT = Path(__file__).resolve().parents[1]
CLASSROOM = ROOT / "notebooks" / "classroom"
LECTURES = ("significance_tests", "tuning_and_cross_validation")


def _offline() -> list[str]:
    """A command prefix that cuts the network, where this machine allows it."""
    for prefix in (["unshare", "--net"], ["unshare", "--user", "--map-root-user",
                                          "--net"]):
        if shutil.which("unshare") and subprocess.run(
                [*prefix, "true"], capture_output=True).returncode == 0:
            return prefix
    return []


def test_slides_build_offline(tmp_path):
    pytest.importorskip("nbconvert")
    prefix = _offline()
    done = subprocess.run([*prefix, sys.executable, str(CLASSROOM / "slides.py"),
                           str(tmp_path)], capture_output=True, text=True,
                          timeout=300, env=dict(os.environ, PYTHONWARNINGS="ignore"))
    assert done.returncode == 0, done.stderr
    for name in LECTURES:
        html = (tmp_path / f"{name}.slides.html").read_text()
        notebook = json.loads((CLASSROOM / f"{name}.ipynb").read_text())
        headings = sum(1 for c in notebook["cells"] if c["cell_type"] == "markdown"
                       and "".join(c["source"]).lstrip().startswith("#")
                       and "teacher-only" not in c["metadata"].get("tags", []))
        assert html.count("<section") >= headings > 3
        assert "evp-offline" in html  # the viewer that needs no network
        assert "BEGIN SOLUTION" not in html and "import numpy as np" not in html
        assert "reveal" in html
