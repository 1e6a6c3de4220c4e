"""Checks at the public boundary (bad input fails loudly, naming the argument), and
the one rule for working through large arrays in pieces."""

from __future__ import annotations

import numbers

import numpy as np


def _describe(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def as_scores(scores, name: str = "scores", *, ndim: tuple[int, ...] = (1, 2),
              sort: bool = False):
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
                raise ValueError(
                    f"{name} must be one column of scores, got a DataFrame with "
                    f"{scores.shape[1]} columns ({shown}); pass data[column] instead."
                )
            scores = scores.iloc[:, 0]
        scores = scores.to_numpy()
    try:
        array = np.asarray(scores, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(
            f"{name} must be numeric, got {_describe(scores)}"
        ) from None
    if array.ndim not in ndim:
        wanted = " or ".join(f"{d}-D" for d in ndim)
        raise ValueError(f"{name} must be {wanted}, got a {array.ndim}-D array of "
                         f"shape {array.shape}")
    if array.size == 0 or array.shape[-1] == 0:
        raise ValueError(f"{name} must not be empty, got shape {array.shape}")
    finite = np.isfinite(array)
    if not finite.all():
        where = tuple(int(i) for i in np.argwhere(~finite)[0])
        position = where[0] if len(where) == 1 else where
        raise ValueError(
            f"{name} must be finite, got {array[where]} at index {position}"
        )
    return np.sort(array, axis=-1) if sort else array


def as_ns(ns, name: str = "ns", *, integer: bool = True):
    """Return budgets `ns` as a 1-D float array, each at least 1 (and whole if
    `integer`). Floats, so that budgets beyond 2**63 (up to 1e300) stay exact."""
    try:
        array = np.asarray(ns, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be numeric, got {_describe(ns)}") from None
    scalar = array.ndim == 0
    array = np.atleast_1d(array)
    if array.ndim != 1:
        raise ValueError(f"{name} must be a number or a 1-D sequence, got shape "
                         f"{array.shape}")
    if array.size == 0:
        raise ValueError(f"{name} must not be empty")
    bad = ~np.isfinite(array) | (array < 1)
    if bad.any():
        raise ValueError(f"{name} must be at least 1 and finite, got "
                         f"{array[bad][0]:g}")
    if integer:
        fractional = array != np.round(array)
        if fractional.any():
            raise ValueError(f"{name} must be whole numbers, got "
                             f"{array[fractional][0]:g}")
    return array, scalar


def as_probability(value, name: str, *, closed: bool = False) -> float:
    """Return `value` as a float in (0, 1), or [0, 1] when `closed`."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a number, got {_describe(value)}")
    value = float(value)
    inside = 0.0 <= value <= 1.0 if closed else 0.0 < value < 1.0
    if not inside:
        interval = "[0, 1]" if closed else "(0, 1)"
        raise ValueError(f"{name} must lie in {interval}, got {value!r}")
    return value


def as_bounds(bounds, low: float, high: float) -> tuple[float, float]:
    """Known bounds (a, b) on scores ranging from `low` to `high`, as floats with
    -inf/+inf for None; they must contain the scores."""
    try:
        a, b = bounds
    except (TypeError, ValueError):
        raise ValueError(
            f"bounds must be a pair (a, b) of numbers or None, got {bounds!r}"
        ) from None
    out = []
    for value, default in ((a, -np.inf), (b, np.inf)):
        if value is None:
            out.append(default)
            continue
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise ValueError(f"bounds must hold numbers or None, got {value!r}")
        if np.isnan(value):
            raise ValueError(f"bounds must not be NaN, got {bounds!r}")
        out.append(float(value))
    a, b = out
    if a > low or b < high:
        raise ValueError(
            f"bounds must contain the scores: got bounds=({a}, {b}) but the scores "
            f"range from {low} to {high}"
        )
    return a, b


def as_choice(value, name: str, choices) -> str:
    if value not in choices:
        raise ValueError(f"{name} must be one of {sorted(choices)}, got "
                         f"{_describe(value)}")
    return value


def as_bool(value, name: str) -> bool:
    if not isinstance(value, bool | np.bool_):
        raise ValueError(f"{name} must be True or False, got {_describe(value)}")
    return bool(value)


# Work on at most this many float64 cells at once: about 32 MB.
MAX_CELLS = 4_000_000


def chunks(rows: int, width: int):
    """Slices of consecutive rows, each covering at most MAX_CELLS cells of a
    (rows, width) array (at least one row)."""
    step = max(1, MAX_CELLS // max(width, 1))
    for start in range(0, rows, step):
        yield slice(start, min(start + step, rows))
