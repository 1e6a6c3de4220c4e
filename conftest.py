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


def pytest_collection_modifyitems(items):
    # nbval waits 5 s for a cell's outputs once the cell has run; on a loaded
    # machine a large figure can take longer to arrive, which is no failure of
    # the notebook.
    for item in items:
        if hasattr(item, "output_timeout"):
            item.output_timeout = 60


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
