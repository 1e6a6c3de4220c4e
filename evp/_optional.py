"""Optional packages: which extra of evp installs each, and how to import one.

evp's core install needs only numpy, scipy, pandas and pooch. Everything else
(figures, notebooks, progress bars, Parquet, tuners' records, searches) comes
with an extra, and every message about a missing package names it, in one line:
``pip install 'evp-tuning-curves[notebooks]'``.
"""

from __future__ import annotations

import importlib
import types

#: The distribution's name on the package index (the import name is ``evp``).
DISTRIBUTION = "evp-tuning-curves"

#: Each optional package (by its import name) and the extra of evp that installs it.
EXTRAS = {
    "matplotlib": "notebooks",
    "seaborn": "notebooks",
    "papermill": "notebooks",
    "nbformat": "notebooks",
    "jupyter_client": "notebooks",
    "jupyterlab": "notebooks",
    "tornado": "notebooks",  # comes with jupyterlab
    "tqdm": "notebooks",
    "ipywidgets": "notebooks",
    "sklearn": "search",
    "torch": "search",
    "nbgrader": "classroom",
    "autorank": "peers",
    "rliable": "peers",
    "pyarrow": "parquet",
    "optuna": "tuners",
    "ray": "ray",
    "mlflow": "mlflow",
    "sphinx": "site",
    "myst_nb": "site",
    "sphinx_book_theme": "site",
    "jupyter_server_mathjax": "site",
    "opda": "dev",
    "yaml": "dev",
}


def install_command(extra: str) -> str:
    """The one command that installs `extra`: ``pip install 'evp-tuning-curves[x]'``."""
    return f"pip install '{DISTRIBUTION}[{extra}]'"


def missing_message(name: str, purpose: str | None = None,
                    extra: str | None = None) -> str | None:
    """One line saying that package `name` is missing and which extra installs it
    (None for a package no extra of evp installs)::

        >>> missing_message("tqdm")
        "tqdm is not installed: pip install 'evp-tuning-curves[notebooks]'"
        >>> missing_message("pyarrow", "reading Parquet")
        "reading Parquet needs pyarrow: pip install 'evp-tuning-curves[parquet]'"
    """
    top = name.split(".")[0]
    extra = extra or EXTRAS.get(top)
    if extra is None:
        return None
    said = f"{purpose} needs {top}" if purpose else f"{top} is not installed"
    return f"{said}: {install_command(extra)}"


def import_optional_dependency(name: str, *, extra: str | None = None,
                               purpose: str | None = None,
                               errors: str = "raise") -> types.ModuleType | None:
    """Import module `name` (``"tqdm.auto"``) of an optional package.

    Missing, it raises an ImportError whose message names the extra of evp that
    installs it (`extra`, default: :data:`EXTRAS`' entry), and what needs it
    (`purpose`, e.g. ``"reading MLflow runs"``); with ``errors="ignore"`` it
    returns None instead. A package that is installed but fails inside its own
    import (a dependency of its own missing) raises that error as it is.
    """
    if errors not in ("raise", "ignore"):
        raise ValueError(f"errors: 'raise' or 'ignore', got {errors!r}")
    top = name.split(".")[0]
    try:
        return importlib.import_module(name)
    except ImportError as error:
        missing = (error.name or "").split(".")[0]
        if missing != top:  # installed, but broken inside: say what broke
            raise
        if errors == "ignore":
            return None
        message = missing_message(name, purpose, extra) or f"{top} is not installed"
        raise ImportError(message, name=top) from None
