"""Shared by the test modules: how a test says it needs an optional dependency.

Mark the test (or the whole module, with ``pytestmark``) ``needs``:
``@pytest.mark.needs("torch")``. Where the package is missing the test is skipped,
and the message names the extra that installs it. Optional packages are imported
inside the tests, never at a module's top, so that collection never fails.
"""

import importlib.util

import pytest

# Which extra of pyproject.toml installs each optional package.
EXTRAS = {
    "matplotlib": "notebooks",
    "seaborn": "notebooks",
    "papermill": "notebooks",
    "nbformat": "notebooks",
    "jupyterlab": "notebooks",
    "tornado": "notebooks",  # comes with jupyterlab
    "sklearn": "search",
    "torch": "search",
    "nbgrader": "classroom",
    "pyarrow": "parquet",
    "opda": "dev",
    "yaml": "dev",
    "optuna": "tuners",
    "ray": "ray",
    "mlflow": "mlflow",
    "sphinx": "site",
    "myst_nb": "site",
    "sphinx_book_theme": "site",
    "jupyter_server_mathjax": "site",
}


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "needs(*packages): skip unless these optional packages import")


def pytest_runtest_setup(item):
    for marker in item.iter_markers("needs"):
        for package in marker.args:
            if package not in EXTRAS:
                raise ValueError(f"needs({package!r}): not an optional package of "
                                 f"evp; known: {', '.join(EXTRAS)}")
            if importlib.util.find_spec(package) is None:
                pytest.skip(f"needs {package}: pip install -e '.[{EXTRAS[package]}]'")
