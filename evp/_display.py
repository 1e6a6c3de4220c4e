"""Rich displays in JupyterLab: what ``_repr_html_`` of evp's results shows.

A compact table (at most ``max_rows`` rows: budgets spread over the range), the
verdicts coloured by strength in the Okabe–Ito palette, and for bands and
comparisons a small inline figure. The figure is SVG written here, not drawn by
matplotlib, so that showing a result costs well under a millisecond per point
and works on a core-only install. :func:`set_display` turns the figures off.

Plain ``repr`` is untouched: this module only adds HTML beside it.
"""

from __future__ import annotations

import html
import math

import numpy as np

__all__ = ["METHOD_NAMES", "set_display"]

_OPTIONS = {"figures": True, "max_rows": 12}

# Okabe and Ito's palette: the models' colours, and the verdicts' (strong evidence
# bluish green, fair sky blue, weak orange, none grey).
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00",
           "#000000")
STRENGTH_COLORS = {"strong": "#009E73", "fair": "#56B4E9", "weak": "#E69F00",
                   "none": "#999999"}
#: Display names of the CDF-band methods, as the figures, tables and notebooks
#: spell them.
METHOD_NAMES = {"ld_highest_density": "LD highest-density",
                "ld_equal_tailed": "LD equal-tailed", "ks": "KS", "dkw": "DKW"}


def set_display(*, figures: bool | None = None, max_rows: int | None = None) -> dict:
    """Set how evp's results show in a notebook; return the options now in force.

    Parameters
    ----------
    figures : bool, optional
        Draw a small inline figure beside bands and comparisons (default True).
    max_rows : int, optional
        The most rows a result's table shows (default 12); longer ones show rows
        spread over the range, the first and last included.

    >>> set_display(figures=False)["figures"]
    False
    >>> set_display(figures=True, max_rows=12)
    {'figures': True, 'max_rows': 12}
    """
    if figures is not None:
        if not isinstance(figures, bool):
            raise ValueError(f"figures must be True or False, got {figures!r}")
        _OPTIONS["figures"] = figures
    if max_rows is not None:
        if isinstance(max_rows, bool) or not isinstance(max_rows, int) or max_rows < 2:
            raise ValueError(f"max_rows must be a whole number ≥ 2, got {max_rows!r}")
        _OPTIONS["max_rows"] = max_rows
    return dict(_OPTIONS)


def method_name(method: str) -> str:
    """A band method's display name (``"ks"`` → ``"KS"``); unknown ones as given."""
    return METHOD_NAMES.get(method, method)


def figures_on() -> bool:
    return _OPTIONS["figures"]


def spread_rows(count: int) -> np.ndarray:
    """Indices of at most ``max_rows`` of `count` rows, spread evenly in log scale
    (budgets grow geometrically), the first and last always among them."""
    limit = _OPTIONS["max_rows"]
    if count <= limit:
        return np.arange(count)
    picks = np.unique(np.round(np.geomspace(1, count, limit)).astype(int) - 1)
    return picks


#: The classes by which a notebook's MathJax leaves an output's text alone (its
#: default ignoreHtmlClass, versions 2 and 3): a model named "$10 a$" is no math.
MATH_IGNORED = "tex2jax_ignore mathjax_ignore"


def number(value) -> str:
    """A number as the tables print it: 4 significant digits, ±∞ for open edges."""
    if isinstance(value, str):
        return value
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    value = float(value)
    if math.isinf(value):
        return "∞" if value > 0 else "−∞"
    if value == round(value) and abs(value) < 1e9:
        return f"{value:.0f}"
    return f"{value:.4g}"


def strength_cell(label: str) -> str:
    color = STRENGTH_COLORS.get(str(label))
    if color is None:
        return html.escape(str(label))
    weight = "bold" if label == "strong" else "normal"
    return (f"<span style='color:{color};font-weight:{weight}'>"
            f"{html.escape(str(label))}</span>")


def table(columns: dict, *, raw: tuple = ()) -> str:
    """An HTML table of `columns` ({header: values}); the columns named in `raw`
    hold HTML already (coloured verdicts), the others are escaped."""
    headers = list(columns)
    rows = zip(*columns.values(), strict=True)
    head = "".join(f"<th>{html.escape(str(h))}</th>" for h in headers)
    body = "".join(
        "<tr>" + "".join(f"<td>{v if h in raw else html.escape(number(v))}</td>"
                         for h, v in zip(headers, row, strict=True)) + "</tr>"
        for row in rows)
    return (f"<table class='evp'><thead><tr>{head}</tr></thead>"
            f"<tbody>{body}</tbody></table>")


def page(title: str, lines=(), parts=(), warnings=()) -> str:
    """One result: a bold title, its sentences, warnings in orange-red, then its
    table and figure side by side."""
    said = "".join(f"<div>{html.escape(s)}</div>" for s in lines)
    warned = "".join(f"<div style='color:#D55E00'>⚠ {html.escape(w)}</div>"
                     for w in warnings)
    shown = "".join(f"<div style='display:inline-block;vertical-align:top;"
                    f"margin-right:1em'>{p}</div>" for p in parts if p)
    return (f"<div class='evp-result {MATH_IGNORED}'><div><b>"
            f"{html.escape(title)}</b></div>"
            f"{said}{warned}<div>{shown}</div></div>")


def band_figure(x, series, *, log_x: bool = True, width: int = 300,
                height: int = 170, x_label: str = "n", y_label: str = "",
                steps: bool = False) -> str:
    """A small SVG: for each series (label, lower, estimate, upper), its band as a
    filled polygon and its estimate as a line, in the palette's order. Infinite
    edges are drawn to the frame's edge, dashed (open), as the figures draw them.
    `steps` draws step functions (a CDF band)."""
    if not figures_on():
        return ""
    x = np.asarray(x, dtype=float)
    left, right, top, bottom = 44, 8, 8, 26
    finite = np.concatenate([np.asarray(a, dtype=float).ravel()
                             for _, *arrays in series for a in arrays])
    finite = finite[np.isfinite(finite)]
    if finite.size == 0 or x.size == 0:
        return ""
    low, high = float(finite.min()), float(finite.max())
    if high == low:
        low, high = low - 0.5, high + 0.5
    pad = 0.05 * (high - low)
    low, high = low - pad, high + pad
    use_log = log_x and x.min() > 0 and x.max() / x.min() > 10
    xs = np.log(x) if use_log else x
    span = (xs.max() - xs.min()) or 1.0

    def px(values):
        return left + (np.asarray(values, float) - xs.min()) / span * (
            width - left - right)

    def py(values):
        values = np.clip(np.asarray(values, float), low, high)  # ±inf to the frame
        return top + (high - values) / (high - low) * (height - top - bottom)

    def path(xv, yv):
        if steps:  # hold each value until the next x
            xv, yv = np.repeat(xv, 2)[1:], np.repeat(yv, 2)[:-1]
        return " ".join(f"{a:.1f},{b:.1f}" for a, b in zip(xv, yv, strict=True))

    shapes = []
    for i, (label, lower, estimate, upper) in enumerate(series):
        color = PALETTE[i % len(PALETTE)]
        lower, upper = np.asarray(lower, float), np.asarray(upper, float)
        xp = px(xs)
        band = path(xp, py(upper)) + " " + " ".join(
            reversed(path(xp, py(lower)).split()))
        shapes.append(f"<polygon points='{band}' fill='{color}' "
                      f"fill-opacity='0.18' stroke='none'/>")
        for edge in (lower, upper):
            dashed = " stroke-dasharray='3,2'" if np.isinf(edge).any() else ""
            shapes.append(f"<polyline points='{path(xp, py(edge))}' fill='none' "
                          f"stroke='{color}' stroke-width='0.8'{dashed}/>")
        if estimate is not None:
            shapes.append(f"<polyline points='{path(xp, py(estimate))}' "
                          f"fill='none' stroke='{color}' stroke-width='1.6'>"
                          f"<title>{html.escape(str(label))}</title></polyline>")
    text = "font-size='10' font-family='sans-serif' fill='#333'"
    axis_x = (f"<text x='{left}' y='{height - 8}' {text}>{number(x.min())}</text>"
              f"<text x='{width - right}' y='{height - 8}' text-anchor='end' "
              f"{text}>{number(x.max())}</text>"
              f"<text x='{(left + width - right) / 2:.0f}' y='{height - 8}' "
              f"text-anchor='middle' {text}>{html.escape(x_label)}"
              f"{' (log)' if use_log else ''}</text>")
    axis_y = (f"<text x='{left - 4}' y='{top + 8}' text-anchor='end' {text}>"
              f"{number(high - pad)}</text>"
              f"<text x='{left - 4}' y='{height - bottom}' text-anchor='end' "
              f"{text}>{number(low + pad)}</text>")
    legend = "".join(
        f"<text x='{left + 6}' y='{top + 12 + 12 * i}' {text} "
        f"fill-opacity='1' style='fill:{PALETTE[i % len(PALETTE)]}'>"
        f"{html.escape(str(label))}</text>"
        for i, (label, *_) in enumerate(series) if len(series) > 1)
    frame = (f"<rect x='{left}' y='{top}' width='{width - left - right}' "
             f"height='{height - top - bottom}' fill='none' stroke='#bbb'/>")
    title = f"<title>{html.escape(y_label)}</title>" if y_label else ""
    return (f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' "
            f"height='{height}' viewBox='0 0 {width} {height}' role='img'>"
            f"{title}{frame}{''.join(shapes)}{axis_x}{axis_y}{legend}</svg>")
