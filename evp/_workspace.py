"""Where evp runs: the checkout around it, its output folders, progress bars.

Shared by the notebooks' helpers (:mod:`evp.notebook`) and the runner that
executes them (:mod:`evp.runner`), neither of which imports the other.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterable
from pathlib import Path

from evp._optional import import_optional_dependency

# Set to 0 by `evp run` and `evp reproduce`: executed notebooks keep no progress bars.
PROGRESS_VARIABLE = "EVP_PROGRESS"
# Where `evp run` and notebooks on a user's data write by default.
RUNS_FOLDER = "evp-runs"


def project_root(start=None, *, installed: bool = True) -> Path | None:
    """The evp checkout around `start` (default: the current folder), found as the
    first folder, going up, with both ``notebooks/`` and ``figures/``; else, if
    `installed`, the checkout this package was installed from; else None."""
    start = Path.cwd() if start is None else Path(start).resolve()
    for folder in (start, *start.parents):
        if (folder / "notebooks").is_dir() and (folder / "figures").is_dir():
            return folder
    checkout = Path(__file__).resolve().parents[1]
    return checkout if installed and (checkout / "notebooks").is_dir() else None


def progress(iterable: Iterable | None = None, **options):
    """A tqdm progress bar, left out of executed notebooks (``EVP_PROGRESS=0``);
    without tqdm (a core install), none: the same calls, drawing nothing."""
    if os.environ.get(PROGRESS_VARIABLE, "1") == "0":
        options["disable"] = True
    with warnings.catch_warnings():  # tqdm.auto warns when ipywidgets is missing
        warnings.simplefilter("ignore")
        auto = import_optional_dependency("tqdm.auto", errors="ignore")
    if auto is None:
        return _NoBar(iterable)
    return auto.tqdm(iterable, **options)


class _NoBar:
    """What :func:`progress` gives without tqdm: iterates, and draws nothing."""

    def __init__(self, iterable: Iterable | None = None):
        self._iterable = () if iterable is None else iterable

    def __iter__(self):
        return iter(self._iterable)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def update(self, n=1):
        pass

    def set_description(self, *args, **kwargs):
        pass

    def set_postfix(self, *args, **kwargs):
        pass

    def close(self):
        pass
