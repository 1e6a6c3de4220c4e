"""Numbers as a paper prints them, and what a column's name says of its unit:
one rule for the tables, the checklist and the figures.

* :func:`decimals` — the decimals that show a column's numbers alike;
* :func:`number` — one number in them, or in 4 significant digits;
* :func:`fixed` — a number as a terminal's table prints it;
* :func:`beyond_float` — a number no float holds (1e400), for the readers to
  refuse rather than read as infinite;
* :func:`shown_text` — any value of a table as text (an open band's edge,
  infinite, as "open");
* :func:`cost_unit` — the unit a cost column's name gives away.
"""

from __future__ import annotations

import math
import re

import numpy as np

__all__ = ["EXPONENT_ABOVE", "beyond_float", "cost_unit", "decimals", "fixed",
           "number", "shown_text"]


def decimals(values) -> int | None:
    """The decimals that show a column's numbers alike: 4 significant digits of
    the largest magnitude, the same for every number (0.8564 and 0.8830, not
    0.8564 and 0.883), or fewer where every number has fewer (1.6 and 2.4, not
    1.600 and 2.400); None where fixed decimals would hide the small ones
    (magnitudes below 0.001 or spanning more than 10^4: each then in 4
    significant digits)."""
    finite = np.abs(np.asarray([v for v in values if isinstance(
        v, int | float | np.integer | np.floating) and not isinstance(
        v, bool | np.bool_) and np.isfinite(v)], dtype=float))
    nonzero = finite[finite > 0]
    if nonzero.size == 0 or (finite == np.round(finite)).all():
        return 0  # whole numbers (counts) as they are
    if nonzero.min() < 1e-3 or nonzero.max() / nonzero.min() > 1e4:
        return None
    places = int(np.clip(3 - np.floor(np.log10(nonzero.max())), 0, 6))
    # No more decimals than the numbers have: mean ranks of five tasks are
    # 1.6, not 1.600; losses recorded to three decimals are 0.069, not 0.0690.
    for fewer in range(places):
        if np.allclose(np.round(finite, fewer), finite, rtol=0, atol=1e-9):
            return fewer
    return places


#: Above this magnitude a number is written with an exponent: its digits
#: beyond a float's 16 would be noise (1e308 is "1e+308", never 309 digits).
EXPONENT_ABOVE = 1e16


def number(value, places: int | None = None) -> str:
    """`value` with `places` decimals, or in 4 significant digits (never in
    exponent notation above 1, 10210, not 1.021e+04, until the digits would
    run past a float's 16: 1e+20, not 100000000000000000000)."""
    if abs(value) >= EXPONENT_ABOVE and math.isfinite(value):
        return f"{value:.4g}"
    if places is not None:
        return f"{value:.{places}f}"
    text = f"{value:.4g}"
    if "e+" in text:
        text = f"{value:.0f}"
    return text


def fixed(value, places: int = 4) -> str:
    """`value` with `places` decimals, as a terminal's table prints it; in 4
    significant digits beyond :data:`EXPONENT_ABOVE` (1e+308, not 309 digits)."""
    if abs(value) >= EXPONENT_ABOVE and math.isfinite(value):
        return f"{value:.4g}"
    return f"{value:.{places}f}"


# A number as text: what float() reads as a finite number unless it runs past
# the range of a float (1e400, or 400 digits), which it reads as infinite.
_LITERAL = re.compile(r"^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$")


def beyond_float(value) -> bool:
    """Whether `value` is a number that no float holds: an integer past
    ±1.8e308 (JSON and Python allow any), or a number written as text that
    reads as infinite ("1e400"; "inf" itself is no such number)."""
    if isinstance(value, bool | np.bool_):
        return False
    if isinstance(value, int | np.integer):
        try:
            float(value)
        except OverflowError:
            return True
        return False
    if isinstance(value, str) and _LITERAL.match(value):
        try:
            return math.isinf(float(value))
        except ValueError:  # pragma: no cover - the pattern is float's own
            return False
    if type(value).__name__ in ("Decimal", "Fraction"):
        try:
            return math.isinf(float(value))
        except OverflowError:
            return True
    return False



_UNITS = {
    "seconds": "s", "second": "s", "secs": "s", "sec": "s", "s": "s",
    "milliseconds": "ms", "ms": "ms",
    "minutes": "min", "mins": "min", "min": "min",
    "hours": "h", "hrs": "h", "hr": "h", "h": "h",
    "days": "days",
    "gpu_hours": "GPU hours", "gpuh": "GPU hours", "gpu_h": "GPU hours",
    "usd": "USD", "dollars": "USD", "eur": "EUR", "flops": "FLOPs",
    "steps": "steps", "epochs": "epochs",
}


def cost_unit(column: str | None) -> str | None:
    """The unit a cost column's name gives away ("seconds" → "s", "gpu_hours" →
    "GPU hours"), or None."""
    if not column:
        return None
    name = column.strip().lower()
    if name in _UNITS:
        return _UNITS[name]
    words = [w for w in re.split(r"[\s_\-.()\[\]/]+", name) if w]
    return _UNITS.get(words[-1]) if words else None


def shown_text(value) -> str:
    """A table's value as text: numbers in 4 significant digits, an infinite
    one (a band's edge that the rounds cannot bound) as "open"."""
    if isinstance(value, float | np.floating):
        if np.isinf(value):
            return "open"
        return f"{value:.4g}"
    return str(value)
