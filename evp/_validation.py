"""Checks at the public boundary (bad input fails loudly, naming the argument), and
the one rule for working through large arrays in pieces."""

from __future__ import annotations

import json
import numbers
from collections.abc import Callable

import numpy as np

from evp._numbers import beyond_float


class ParameterError(ValueError):
    """A bad argument, refused at the public boundary: `param` is the
    argument's name (``"confidence"``, ``"scores_a"``), for a program to read
    (the command line turns it into its flag) rather than parse the message.

    Raised as ``ParameterError(param, message)``; ``str(error)`` is the message.
    """

    def __init__(self, param: str, message: str):
        super().__init__(message)
        self.param = param


class EvpWarning(RuntimeWarning):
    """An assumption that fails or cannot be known, said by evp; a subclass per
    kind, so that a kind can be filtered by class
    (``warnings.simplefilter("ignore", evp.TiesWarning)``)."""


class TiesWarning(EvpWarning):
    """Scores tie: a band's coverage is exact only for continuous scores; with
    ties it holds with at least the stated confidence, as a step envelope."""


class EmptyConfidenceSetWarning(EvpWarning):
    """A parametric tail's confidence set is empty: the model is rejected beyond
    the threshold."""


class DroppedRowsWarning(EvpWarning, UserWarning):
    """Rows were left out of what was read (failed rounds under
    ``failed="drop"``, rows a file reader could not use): the curves describe
    the rest."""


def stack_level() -> int:
    """The ``stacklevel`` of :func:`warnings.warn` that points at the first
    frame outside evp: the user's own call, however deep in evp the warning
    is raised (as pandas' ``find_stack_level``)."""
    import inspect
    import os

    package = os.path.dirname(os.path.abspath(__file__)) + os.sep
    frame = inspect.currentframe()
    level = 0
    try:
        while frame is not None and frame.f_code.co_filename.startswith(package):
            frame = frame.f_back
            level += 1
    finally:
        del frame
    return max(level, 1)


def _describe(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def as_scores(
    scores, name: str = "scores", *, ndim: tuple[int, ...] = (1, 2), sort: bool = False
):
    """Return `scores` as a float array with a dimension in `ndim` (sorted along
    its last axis if `sort`), or raise ValueError.

    Accepts lists, numpy arrays and pandas Series (or a one-column DataFrame).
    Rejects empty input, non-numeric values, NaN and infinities, naming the first
    offending position.
    """
    if hasattr(scores, "to_numpy"):  # pandas Series or DataFrame
        if getattr(scores, "ndim", 1) == 2:
            if scores.shape[1] != 1:
                shown = ", ".join(map(repr, list(scores.columns)[:4]))
                if scores.shape[1] > 4:
                    shown += f", … {scores.shape[1] - 4} more"
                raise ParameterError(
                    name,
                    f"{name} must be one column of scores, got a DataFrame with "
                    f"{scores.shape[1]} columns ({shown}); pass data[column] instead.",
                )
            scores = scores.iloc[:, 0]
        scores = scores.to_numpy()
    try:
        array = np.asarray(scores, dtype=float)
    except (TypeError, ValueError):
        raise ParameterError(
            name, f"{name} must be numeric, got {_describe(scores)}"
        ) from None
    if array.ndim not in ndim:
        wanted = " or ".join(f"{d}-D" for d in ndim)
        raise ParameterError(
            name,
            f"{name} must be {wanted}, got a {array.ndim}-D array of "
            f"shape {array.shape}",
        )
    if array.size == 0 or array.shape[-1] == 0:
        raise ParameterError(name, f"{name} must not be empty, got shape {array.shape}")
    finite = np.isfinite(array)
    if not finite.all():
        where = tuple(int(i) for i in np.argwhere(~finite)[0])
        position = where[0] if len(where) == 1 else where
        raise ParameterError(
            name, f"{name} must be finite, got {array[where]} at index {position}"
        )
    return np.sort(array, axis=-1) if sort else array


def as_ns(ns, name: str = "ns", *, integer: bool = True):
    """Return budgets `ns` as a 1-D float array, each at least 1 (and whole if
    `integer`). Floats, so that budgets beyond 2**63 (up to 1e300) stay exact."""
    try:
        array = np.asarray(ns, dtype=float)
    except (TypeError, ValueError):
        raise ParameterError(
            name, f"{name} must be numeric, got {_describe(ns)}"
        ) from None
    scalar = array.ndim == 0
    array = np.atleast_1d(array)
    if array.ndim != 1:
        raise ParameterError(
            name, f"{name} must be a number or a 1-D sequence, got shape {array.shape}"
        )
    if array.size == 0:
        raise ParameterError(name, f"{name} must not be empty")
    bad = ~np.isfinite(array) | (array < 1)
    if bad.any():
        raise ParameterError(
            name, f"{name} must be at least 1 and finite, got {array[bad][0]:g}"
        )
    if integer:
        fractional = array != np.round(array)
        if fractional.any():
            raise ParameterError(
                name, f"{name} must be whole numbers, got {array[fractional][0]:g}"
            )
    return array, scalar


def as_probability(value, name: str, *, closed: bool = False) -> float:
    """Return `value` as a float in (0, 1), or [0, 1] when `closed`."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ParameterError(name, f"{name} must be a number, got {_describe(value)}")
    value = float(value)
    inside = 0.0 <= value <= 1.0 if closed else 0.0 < value < 1.0
    if not inside:
        interval = "[0, 1]" if closed else "(0, 1)"
        raise ParameterError(name, f"{name} must lie in {interval}, got {value!r}")
    return value


def as_bounds(bounds, low: float, high: float) -> tuple[float, float]:
    """Known bounds (a, b) on scores ranging from `low` to `high`, as floats with
    -inf/+inf for None; they must contain the scores."""
    try:
        a, b = bounds
    except (TypeError, ValueError):
        raise ParameterError(
            "bounds", f"bounds must be a pair (a, b) of numbers or None, got {bounds!r}"
        ) from None
    out = []
    for value, default in ((a, -np.inf), (b, np.inf)):
        if value is None:
            out.append(default)
            continue
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise ParameterError(
                "bounds", f"bounds must hold numbers or None, got {value!r}"
            )
        if beyond_float(value):
            raise ParameterError(
                "bounds", f"bounds must be floats; {_describe(value)} is beyond the "
                "range of a float (±1.8e308)"
            )
        if np.isnan(value):
            raise ParameterError("bounds", f"bounds must not be NaN, got {bounds!r}")
        out.append(float(value))
    a, b = out
    if a > low or b < high:
        raise ParameterError(
            "bounds",
            f"bounds must contain the scores: got bounds=({a}, {b}) but the scores "
            f"range from {low} to {high}",
        )
    return a, b


def as_choice(value, name: str, choices) -> str:
    if value not in choices:
        raise ParameterError(
            name, f"{name} must be one of {sorted(choices)}, got {_describe(value)}"
        )
    return value


def as_bool(value, name: str) -> bool:
    if not isinstance(value, bool | np.bool_):
        raise ParameterError(
            name, f"{name} must be True or False, got {_describe(value)}"
        )
    return bool(value)


# Work on at most this many float64 cells at once: about 32 MB.
MAX_CELLS = 4_000_000


def chunks(rows: int, width: int):
    """Slices of consecutive rows, each covering at most MAX_CELLS cells of a
    (rows, width) array (at least one row)."""
    step = max(1, MAX_CELLS // max(width, 1))
    for start in range(0, rows, step):
        yield slice(start, min(start + step, rows))


# ------------------------------------------------ parameters passed as text


def as_list(value, name: str, *, kind: Callable = str) -> list | None:
    """A list-valued notebook parameter, however it was passed.

    papermill's ``-p NAME VALUE`` passes strings, so besides a list (or one value)
    this accepts JSON (``'["a", "b"]'``, ``'[6, 48]'``) and comma-separated text
    (``a,b``, ``6,48``). Each item is converted with `kind`. None stays None.

    >>> as_list("6, 48", "sample_sizes", kind=int)
    [6, 48]
    >>> as_list('["lr", "cnn"]', "models")
    ['lr', 'cnn']
    """
    if value is None:
        return None
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            try:
                value = json.loads(text)
            except json.JSONDecodeError:
                raise ParameterError(
                    name,
                    f"{name}: {value!r} is not a JSON list; write it as "
                    f'\'["a", "b"]\' or a,b',
                ) from None
        else:
            value = [part.strip() for part in text.split(",") if part.strip()]
    elif not (
        isinstance(value, list | tuple | np.ndarray) or hasattr(value, "to_numpy")
    ):  # a pandas Index or Series
        value = [value]
    try:
        items = [_convert(item, kind) for item in value]
    except (TypeError, ValueError):
        raise ParameterError(
            name, f"{name}: expected a list of {kind.__name__} values, got {value!r}"
        ) from None
    if not items:
        raise ParameterError(
            name, f"{name}: the list is empty; give at least one value"
        )
    return items


def as_count(value, name: str, *, at_least: int = 1) -> int:
    """A whole-number parameter (a number of draws, rounds, …), however passed.

    >>> as_count("500", "n_draws")
    500
    """
    try:
        (count,) = as_list(value, name, kind=int)
    except ValueError:
        count = None
    if count is None:
        raise ParameterError(name, f"{name}: expected a whole number, got {value!r}")
    if count < at_least:
        raise ParameterError(name, f"{name}: must be at least {at_least}, got {count}")
    return count


def _convert(item, kind):
    if kind is int:
        number = float(item)
        if not number.is_integer():
            raise ValueError(item)
        return int(number)
    return kind(item)


def reason(exc: BaseException) -> str:
    """The first line of an exception's message, at most 300 characters."""
    lines = str(exc).strip().splitlines()
    text = lines[0] if lines else type(exc).__name__
    return text if len(text) <= 300 else text[:297] + "..."


def renamed(new, old, new_name: str, old_name: str, *, stacklevel: int = 3):
    """The value of an argument whose old name `old_name` still works: `old` with
    a DeprecationWarning when given, else `new`; both given and different is an
    error."""
    if old is None:
        return new
    import warnings

    warnings.warn(
        f"{old_name}= is renamed {new_name}=; {old_name}= will be removed",
        DeprecationWarning,
        stacklevel=stacklevel,
    )
    if new is not None and new != old:
        raise ParameterError(
            new_name,
            f"{new_name}={new!r} and {old_name}={old!r} disagree: pass {new_name} only",
        )
    return old
