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


#: The oldest version of an optional package evp works with (by its import
#: name), as pyproject.toml's extras pin them; an older one installed is
#: refused in one line naming the version needed (as pandas' ``VERSIONS``).
MINIMUM_VERSIONS = {
    "optuna": "4.0",
    "mlflow": "3.0",
    "pyarrow": "15.0",
}
#: The distribution that installs an import name, where the two differ.
DISTRIBUTIONS = {"mlflow": "mlflow-skinny", "sklearn": "scikit-learn",
                 "yaml": "pyyaml"}


def _release(version: str) -> tuple:
    """The leading release numbers of a version string: "4.0.1rc1" → (4, 0, 1)."""
    numbers = []
    for part in str(version).split("."):
        digits = ""
        for char in part:
            if not char.isdigit():
                break
            digits += char
        if not digits:
            break
        numbers.append(int(digits))
        if digits != part:
            break
    return tuple(numbers)


def too_old(name: str, module: types.ModuleType) -> str | None:
    """The one-line message for module `name` older than
    :data:`MINIMUM_VERSIONS` asks (None if it is recent enough, or its version
    is unknown)::

        >>> import types
        >>> old = types.SimpleNamespace(__version__="3.6.1")
        >>> too_old("optuna", old).split(":")[0]
        'optuna 3.6.1 is installed, and evp needs optuna>=4.0'
    """
    top = name.split(".")[0]
    minimum = MINIMUM_VERSIONS.get(top)
    version = getattr(module, "__version__", None)
    if minimum is None or not isinstance(version, str) or not _release(version):
        return None
    if _release(version) >= _release(minimum):
        return None
    extra = EXTRAS.get(top)
    fix = (install_command(extra) if extra else
           f"pip install '{DISTRIBUTIONS.get(top, top)}>={minimum}'")
    return (f"{top} {version} is installed, and evp needs "
            f"{DISTRIBUTIONS.get(top, top)}>={minimum}: {fix}")


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

    Missing, or older than :data:`MINIMUM_VERSIONS` asks, it raises an
    ImportError whose message names the version needed and the extra of evp that
    installs it (`extra`, default: :data:`EXTRAS`' entry), and what needs it
    (`purpose`, e.g. ``"reading MLflow runs"``); with ``errors="ignore"`` it
    returns None instead. A package that is installed but fails inside its own
    import (a dependency of its own missing) raises that error as it is.
    """
    if errors not in ("raise", "ignore"):
        raise ValueError(f"errors: 'raise' or 'ignore', got {errors!r}")
    top = name.split(".")[0]
    try:
        module = importlib.import_module(name)
    except ImportError as error:
        missing = (error.name or "").split(".")[0]
        if missing != top:  # installed, but broken inside: say what broke
            raise
        if errors == "ignore":
            return None
        message = missing_message(name, purpose, extra) or f"{top} is not installed"
        raise ImportError(message, name=top) from None
    old = too_old(name, importlib.import_module(top))
    if old is not None:
        if errors == "ignore":
            return None
        raise ImportError(f"{purpose}: {old}" if purpose else old, name=top)
    return module
