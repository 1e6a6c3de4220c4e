"""Settings for nbval over the executed notebooks (``make test``), which run in one
session with the tests: here, at the top, so that no second conftest module sits
beside tests/conftest.py among the files the docstrings' examples are collected
from. Every hook below touches the notebooks' cells only."""

import os
import shutil
import tempfile

import pytest

#: Where the notebooks checked by nbval write their figures: a temporary folder,
#: so that checking them leaves the checkout as it is (the tests beside them in
#: the same session read the checkout's figures/).
_FIGURES: list[str] = []


#: The files that take longest, longest first (seconds of one core, measured in
#: CI). ``make test`` hands whole files to its two workers in the order collected
#: (``--no-loadscope-reorder``); these go first, then the other notebooks, then
#: the other tests, then the docstrings' examples, so that the run does not end
#: with one long file on one core while the other waits.
LONGEST_FIRST = (
    "tests/test_run.py",                                        # ~250 s
    "tests/test_assignments.py",                                # ~230 s
    "notebooks/reuters_point_estimates_and_bootstrap.ipynb",    # ~150 s
    "notebooks/adaptive_search.ipynb",                          # ~120 s
    "tests/test_site.py",                                       # ~120 s
    "notebooks/classroom/tuning_and_cross_validation.ipynb",    # ~110 s
    "notebooks/parametric_tuning_curves.ipynb",                 # ~100 s
    "tests/test_monitoring.py",                                 # ~100 s
    "tests/test_reproduce.py",                                  # ~90 s
    "tests/test_parametric.py",
    "notebooks/deberta_coverage.ipynb",
    "tests/test_sign.py",
    "tests/test_report.py",
    "tests/test_search_ray.py",
    "tests/test_search.py",
    "tests/test_wording.py",
    "tests/test_newcomer.py",
    "tests/test_latex.py",
    "tests/test_packaging.py",
)


def _place(item) -> tuple[int, int]:
    path = item.nodeid.split("::", 1)[0]
    if path in LONGEST_FIRST:
        return (0, LONGEST_FIRST.index(path))
    return (1 if path.endswith(".ipynb") else 2 if path.startswith("tests/") else 3,
            0)


def pytest_collection_modifyitems(items):
    # nbval waits 5 s for a cell's outputs once the cell has run; on a loaded
    # machine a large figure can take longer to arrive, which is no failure of
    # the notebook.
    for item in items:
        if hasattr(item, "output_timeout"):
            item.output_timeout = 60
    items.sort(key=_place)  # stable: each file's own order is kept


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    # Before nbval starts a notebook's kernel (at its first cell), which keeps the
    # environment it started with; the tests in this process after it see none.
    if item.path.suffix != ".ipynb" or "EVP_FIGURES_DIR" in os.environ:
        return
    if not _FIGURES:
        _FIGURES.append(tempfile.mkdtemp(prefix="evp-nbval-figures-"))
    os.environ["EVP_FIGURES_DIR"] = _FIGURES[0]
    item.evp_figures_set = True


def pytest_runtest_teardown(item):
    if getattr(item, "evp_figures_set", False):
        os.environ.pop("EVP_FIGURES_DIR", None)


def pytest_sessionfinish(session):
    for folder in _FIGURES:
        shutil.rmtree(folder, ignore_errors=True)
