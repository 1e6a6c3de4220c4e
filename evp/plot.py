"""Tuning-curve figures over tidy search results, drawn to be printed.

One row per search round: a score column, optionally a model column (``hue``) and a
cost column. :func:`plot_tuning_curves` draws, per model, the expected best score
after n rounds with its ±1 standard deviation (Dodge et al. 2019, §3.3), and
optionally confidence bands (Lourie, Cho and He 2024); :func:`plot_comparison`
draws two models' bands and the evidence that one beats the other.
:func:`set_theme` gives any other figure (the notebooks') the same look.

The design, in one place:

* a colour-blind-safe palette (Okabe and Ito 2008), one colour per model;
* bands as translucent fills with thin solid edges, never hatched;
* an edge a band cannot bound (an infinite tuning-curve bound: too few rounds for
  that budget at that confidence) is drawn open — the fill fades out towards the
  edge of the axes, an arrow points the way, and a label says "no upper bound: more
  rounds needed" (or "no lower bound" for losses);
* more than two models: one panel per model, on shared axes, with the other models
  in light grey behind;
* plain tick labels (1, 10, 100), axis labels that name the score, the direction
  (``best`` or ``lowest``), the cost column and its unit; the legend outside the
  data.
"""

from __future__ import annotations

import functools
import inspect
import math

import numpy as np

from evp import tables
from evp._display import METHOD_NAMES
from evp._escape import mathtext
from evp._numbers import cost_unit
from evp._optional import import_optional_dependency
from evp._validation import as_choice, renamed
from evp.results import as_results

__all__ = [
    "PALETTE",
    "FigureOverlapError",
    "as_written",
    "check_text_overlaps",
    "plot_comparison",
    "plot_extrapolation",
    "plot_sequential_bands",
    "plot_tail_fit",
    "plot_tuning_curves",
    "save_figure",
    "set_theme",
    "text_overlaps",
    "theme",
]


def __getattr__(name):
    """The table functions that lived here before :mod:`evp.tables` (deprecated)."""
    if name in ("tuning_curve_table", "readable_budgets"):
        import warnings

        warnings.warn(f"evp.plot.{name} moved to evp.tables.{name}; the old name "
                      "will be removed", DeprecationWarning, stacklevel=2)
        return getattr(tables, name)
    raise AttributeError(f"module 'evp.plot' has no attribute {name!r}")

#: Okabe and Ito's colour-blind-safe palette, yellow last (it is faint on white).
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00",
           "#000000", "#F0E442")


# Alphas of the fills, so that two overlapping bands stay readable.
BAND_ALPHA = 0.18
STD_ALPHA = 0.12
# The artists' ids: what the tests (and anyone restyling a figure) look for.
OPEN_EDGE = "evp-open-edge"
OPEN_EDGE_FADE = "evp-open-edge-fade"
OPEN_EDGE_LABEL = "evp-open-edge-label"
BAND_EDGE = "evp-band-edge"
CONTEXT = "evp-other-models"


def theme(context: str = "paper", font_scale: float = 1.2) -> dict:
    """The matplotlib settings of evp's figures, as a dict for ``rc_context``.

    Seaborn's ``whitegrid`` style at the given `context`, the Okabe–Ito palette,
    no top or right spines, a light grid, frameless legends, and 150 dpi files cut
    to their content.
    """
    sns = import_optional_dependency("seaborn")
    from cycler import cycler

    rc = {**sns.axes_style("whitegrid"),
          **sns.plotting_context(context, font_scale=font_scale)}
    rc.update({
        "axes.prop_cycle": cycler(color=PALETTE),
        "axes.spines.top": False,
        "axes.spines.right": False,
        "axes.edgecolor": "0.3",
        "axes.titleweight": "bold",
        "grid.color": "0.9",
        "grid.linewidth": 0.6,
        "legend.frameon": False,
        "xtick.bottom": True,
        "ytick.left": True,
        "savefig.dpi": 150,
        "savefig.bbox": "tight",
        "pdf.fonttype": 42,
        "svg.fonttype": "none",
    })
    return rc


def set_theme(context: str = "paper", font_scale: float = 1.2) -> None:
    """Make every later matplotlib figure look like evp's (see :func:`theme`)."""
    mpl = import_optional_dependency("matplotlib")
    sns = import_optional_dependency("seaborn")

    mpl.rcParams.update(theme(context, font_scale))
    sns.set_palette(list(PALETTE))


def save_figure(figure, stem, *, formats=("png", "pdf"), dpi: int = 150,
                strict: bool = True):
    """Write `figure` as ``<stem>.png`` and ``<stem>.pdf``, byte-for-byte reproducibly.

    The PDF's creation date is left out, so rerunning a notebook rewrites identical
    files and version control shows only real changes. Returns the paths written.

    A figure whose texts overlap (see :func:`text_overlaps`) is first tidied (a
    legend lying on the data moves beside its panel, :func:`tidy_figure`); if
    texts still overlap, it is refused before anything is written: a
    :class:`FigureOverlapError` (a ValueError) names the two and how to fix it.
    With ``strict=False`` (the notebooks on a user's results, whose shapes no
    one drew in advance) it is written anyway, with a warning that says so.
    """
    import warnings
    from pathlib import Path

    stem = Path(stem)
    left = tidy_figure(figure)
    if left:
        message = _overlap_message(left, stem.name)
        if strict:
            raise FigureOverlapError(message)
        warnings.warn(f"{message} (written as it is)", UserWarning, stacklevel=2)
    stem.parent.mkdir(parents=True, exist_ok=True)
    paths = []
    for suffix in formats:
        path = stem.with_name(f"{stem.name}.{suffix}")
        paths.append(_save(figure, path, dpi=dpi))
    return paths


def _save(figure, path, *, dpi: int = 150):
    """Write one file, without a date that would change on every run."""
    from pathlib import Path

    path = Path(path)
    suffix = path.suffix.lower()
    metadata = ({"CreationDate": None} if suffix == ".pdf"
                else {"Date": None} if suffix == ".svg" else None)
    figure.savefig(path, bbox_inches="tight", dpi=dpi, metadata=metadata)
    return path


# ------------------------------------------------------------ names as written

def _axes_axis(ax):
    """The x and y axes of `ax` (and z of a 3-D one)."""
    return [axis for axis in (ax.xaxis, ax.yaxis, getattr(ax, "zaxis", None))
            if axis is not None]


def _texts(figure) -> list:
    """Every text artist of `figure` but the ones its axes' formatters write
    (tick labels, offsets): walked without making ticks, as findobj would."""
    Text = import_optional_dependency("matplotlib.text").Text
    Axis = import_optional_dependency("matplotlib.axis").Axis

    found, stack, seen = [], [figure], set()
    while stack:
        artist = stack.pop()
        if id(artist) in seen:
            continue
        seen.add(id(artist))
        if isinstance(artist, Axis):
            found.append(artist.label)  # its ticks and offset: the formatter's
            continue
        if isinstance(artist, Text):
            found.append(artist)
        stack.extend(artist.get_children())
    return found


def _snapshot(figure) -> dict:
    """What `figure` shows before evp draws into it (a user's axes): each text
    and its string, each axis' formatters; :func:`as_written` leaves these be."""
    texts = {text: text.get_text() for text in _texts(figure)}
    formatters = {id(axis.get_major_formatter()) for ax in _all_axes(figure)
                  for axis in _axes_axis(ax)}
    formatters |= {id(axis.get_minor_formatter()) for ax in _all_axes(figure)
                   for axis in _axes_axis(ax)}
    return {"texts": texts, "formatters": formatters}


def as_written(figure, before: dict | None = None):
    r"""Every text of `figure` shown as written: a model's or a column's name
    that holds dollar signs (``$10 a$``, ``$\x$``) is never typeset as
    mathtext, nor handed to TeX. Titles, labels, legends, annotations and any
    other text are drawn plain (``parse_math`` and ``usetex`` off); tick labels,
    which matplotlib makes anew at each draw, have their dollar signs escaped
    in the formatter that writes them (:func:`evp._escape.mathtext`). Texts and
    formatters in `before` (:func:`_snapshot`, what a user's axes showed
    before evp drew into them) are left as they were. Returns `figure`.

    Every figure evp draws goes through it (each ``plot_*`` function, the
    report's and the notebooks' figures); evp's own texts use no mathtext.
    """
    ticker = import_optional_dependency("matplotlib.ticker")
    category = import_optional_dependency("matplotlib.category")

    before = before or {"texts": {}, "formatters": set()}
    for ax in _all_axes(figure):
        for axis in _axes_axis(ax):
            for which in (axis.major, axis.minor):
                formatter = which.formatter
                if (id(formatter) in before["formatters"]
                        or getattr(formatter, "_evp_as_written", False)):
                    continue
                if isinstance(formatter, ticker.FixedFormatter):
                    formatter.seq = [mathtext(label) for label in formatter.seq]
                    formatter._evp_as_written = True
                elif isinstance(formatter, ticker.FuncFormatter):
                    # set_ticks(ticks, labels) writes names through one.
                    formatter.func = _escaping(formatter.func)
                    formatter._evp_as_written = True
                elif type(formatter) is category.StrCategoryFormatter:
                    plain = _plain_categories()(formatter._units)
                    plain._evp_as_written = True
                    which.formatter = plain
                    plain.set_axis(axis)
    for text in _texts(figure):
        if text in before["texts"] and before["texts"][text] == text.get_text():
            continue  # the user's own text, untouched by evp
        text.set_parse_math(False)
        text.set_usetex(False)
    return figure


def _escaping(func):
    """A tick formatter's function whose labels are shown as written."""
    def label(x, pos=None):
        return mathtext(func(x, pos))

    return label


@functools.cache
def _plain_categories():
    """The class of categorical tick labels shown as written (made on first
    use: matplotlib is optional)."""
    category = import_optional_dependency("matplotlib.category")

    class PlainCategories(category.StrCategoryFormatter):
        """Categorical tick labels (names) with their dollar signs escaped."""

        def __call__(self, x, pos=None):
            return mathtext(super().__call__(x, pos))

        def format_ticks(self, values):
            return [mathtext(label) for label in super().format_ticks(values)]

    return PlainCategories


def _figures(drawn) -> list:
    """The figures of what a plot function returned: Axes, a Figure, or an
    array, list or tuple of them."""
    if drawn is None:
        return []
    if isinstance(drawn, np.ndarray | list | tuple):
        found = []
        for item in np.ravel(np.asarray(drawn, dtype=object)):
            found += [f for f in _figures(item) if f not in found]
        return found
    if hasattr(drawn, "findobj") and hasattr(drawn, "savefig"):
        return [drawn]
    figure = getattr(drawn, "figure", None)
    return [figure] if figure is not None and hasattr(figure, "findobj") else []


def _names_as_written(function):
    """Draw with `function`, then show every text it wrote as written
    (:func:`as_written`): the one rule for every plot function, so that no name
    reaches a figure as mathtext. Texts already on a user's axes (``ax=``) are
    left as they were."""
    signature = inspect.signature(function)

    @functools.wraps(function)
    def draw(*args, **kwargs):
        try:
            ax = signature.bind_partial(*args, **kwargs).arguments.get("ax")
        except TypeError:
            ax = None
        figure = getattr(ax, "figure", None)
        before = _snapshot(figure) if hasattr(figure, "findobj") else None
        drawn = function(*args, **kwargs)
        for figure in _figures(drawn):
            as_written(figure, before)
        return drawn

    draw._evp_as_written = True
    return draw


# ------------------------------------------------------------- overlapping text

#: How far (in points) two boxes must run into each other to count as overlapping:
#: boxes that merely touch do not.
OVERLAP_TOLERANCE = 1.0


class FigureOverlapError(ValueError):
    """A figure was refused because some of its text overlaps."""


def _quote(text: str, width: int = 40) -> str:
    """A text for a message: quoted, on one line, cut to `width` characters."""
    text = " ".join(str(text).split())
    return repr(text if len(text) <= width else text[:width - 1] + "…")


def _renderer(figure):
    """Lay the figure out and draw it once; return the renderer that measured it."""
    canvas = figure.canvas
    if not hasattr(canvas, "get_renderer"):
        FigureCanvasAgg = import_optional_dependency(
            "matplotlib.backends.backend_agg").FigureCanvasAgg

        canvas = FigureCanvasAgg(figure)
    canvas.draw()
    return canvas.get_renderer()


def _all_axes(figure):
    """Every Axes of the figure, secondary and inset axes included, once each."""
    seen, stack = [], list(figure.axes)
    while stack:
        ax = stack.pop(0)
        if ax in seen:
            continue
        seen.append(ax)
        stack.extend(getattr(ax, "child_axes", []))
    return seen


def _shown(text) -> bool:
    return bool(text.get_visible() and text.get_text().strip()
                and (text.get_alpha() is None or text.get_alpha() > 0))


def _tick_labels(axis):
    """The tick labels the last draw showed (within the view), major and minor."""
    try:
        ticks = axis._update_ticks()  # the ticks matplotlib draws
    except AttributeError:  # pragma: no cover - a matplotlib without it
        ticks = axis.get_major_ticks()
    labels = []
    for tick in ticks:
        for label in (tick.label1, tick.label2):
            if _shown(label):
                labels.append(label)
    return labels


def _panel_name(ax) -> str:
    title = next((t.get_text() for t in (ax.title, ax._left_title, ax._right_title)
                  if t.get_text().strip()), "")
    return f" of panel {_quote(title)}" if title else ""


def _figure_texts(figure):
    """(text, description, owner) for every text the figure shows; `owner` groups
    texts that are laid out together (a legend's)."""
    found = []
    for ax in _all_axes(figure):
        if not ax.get_visible():
            continue
        panel = _panel_name(ax)
        for title in (ax.title, ax._left_title, ax._right_title):
            found.append((title, f"title {_quote(title.get_text())}", None))
        for name, axis in (("x", ax.xaxis), ("y", ax.yaxis)):
            if not axis.get_visible():
                continue
            label = _quote(axis.label.get_text())
            found.append((axis.label, f"{name} label {label}{panel}", None))
            found.append((axis.offsetText, f"{name} offset text{panel}", None))
            for label in _tick_labels(axis):
                tick = _quote(label.get_text())
                found.append((label, f"{name} tick label {tick}{panel}", None))
        for text in ax.texts:
            found.append((text, f"text {_quote(text.get_text())}{panel}", None))
        legend = ax.get_legend()
        if legend is not None and legend.get_visible():
            for text in [*legend.get_texts(), legend.get_title()]:
                found.append((text, f"legend entry {_quote(text.get_text())}{panel}",
                              legend))
    for name in ("_suptitle", "_supxlabel", "_supylabel"):
        text = getattr(figure, name, None)
        if text is not None:
            found.append((text, f"figure {name[1:]} {_quote(text.get_text())}", None))
    for text in figure.texts:
        found.append((text, f"figure text {_quote(text.get_text())}", None))
    for legend in figure.legends:
        if legend.get_visible():
            for text in [*legend.get_texts(), legend.get_title()]:
                found.append((text, f"figure legend entry {_quote(text.get_text())}",
                              legend))
    unique, seen = [], set()
    for text, description, owner in found:
        if id(text) not in seen and _shown(text):
            seen.add(id(text))
            unique.append((text, description, owner))
    return unique


def _text_box(text, renderer):
    """The box of a text's glyphs (an annotation's without its arrow), or None."""
    _module = import_optional_dependency("matplotlib.text")
    Annotation, Text = _module.Annotation, _module.Text

    if isinstance(text, Annotation):
        if not text._check_xy(renderer):
            return None  # an annotation outside its axes is not drawn
        text.update_positions(renderer)
    box = Text.get_window_extent(text, renderer)
    if not (np.isfinite(box.extents).all() and box.width > 0 and box.height > 0):
        return None
    return box


def _overlap(one, two, tolerance: float) -> bool:
    """Whether two boxes run into each other by more than `tolerance` pixels."""
    width = min(one.x1, two.x1) - max(one.x0, two.x0)
    height = min(one.y1, two.y1) - max(one.y0, two.y0)
    return width > tolerance and height > tolerance


def _legend_box(legend, renderer):
    """The box of a legend's entries (its frame less the padding)."""
    box = legend.get_window_extent(renderer)
    inset = legend.borderpad * renderer.points_to_pixels(legend._fontsize)
    if box.width <= 2 * inset or box.height <= 2 * inset:
        return box
    Bbox = import_optional_dependency("matplotlib.transforms").Bbox

    return Bbox.from_extents(box.x0 + inset, box.y0 + inset, box.x1 - inset,
                             box.y1 - inset)


def _legends(figure):
    legends = [(legend, f"the legend{_panel_name(ax)}") for ax in _all_axes(figure)
               if (legend := ax.get_legend()) is not None]
    legends += [(legend, "the figure legend") for legend in figure.legends]
    return [(legend, name) for legend, name in legends if legend.get_visible()]


def _opaque(artist) -> bool:
    """A filled artist one cannot read text over (alpha at least one half)."""
    to_rgba_array = import_optional_dependency("matplotlib.colors").to_rgba_array

    alpha = artist.get_alpha()
    if alpha is not None and alpha < 0.5:
        return False
    try:
        faces = to_rgba_array(artist.get_facecolor())
    except (TypeError, ValueError):
        return False
    return bool(len(faces) and faces[:, 3].max() >= 0.5)


def _near(points, radius: float):
    """A test of whether markers of `radius` (pixels) at `points` reach a box."""
    def test(box) -> bool:
        x, y = points[:, 0], points[:, 1]
        return bool(((x > box.x0 - radius) & (x < box.x1 + radius)
                     & (y > box.y0 - radius) & (y < box.y1 + radius)).any())
    return test


def _data_marks(ax, renderer):
    """(kind, description, test) for the data an axes shows: lines, markers and
    opaque fills; each test takes a box (pixels) and says whether the mark runs
    into it. Guides spanning the axes (axhline, axvline) are not data."""
    _module = import_optional_dependency("matplotlib.collections")
    PathCollection, PolyCollection = _module.PathCollection, _module.PolyCollection
    Line2D = import_optional_dependency("matplotlib.lines").Line2D
    Patch = import_optional_dependency("matplotlib.patches").Patch

    marks = []
    for line in ax.get_lines():
        if not (isinstance(line, Line2D) and line.get_visible()
                and line.get_transform().contains_branch(ax.transData)):
            continue
        name = line.get_label()
        description = (f"the line {_quote(name)}" if name and not name.startswith("_")
                       else "a data line")
        xy = line.get_transform().transform(np.asarray(line.get_xydata(), float))
        xy = xy[np.isfinite(xy).all(axis=1)]
        if xy.size == 0:
            continue
        if line.get_linestyle() not in ("None", "none", "", " ") and len(xy) > 1:
            Path = import_optional_dependency("matplotlib.path").Path

            path = Path(xy)
            marks.append((description, lambda box, p=path: p.intersects_bbox(
                box, filled=False)))
        if line.get_marker() not in (None, "None", "none", "", " "):
            radius = renderer.points_to_pixels(line.get_markersize()) / 2
            marks.append((f"markers of {description}", _near(xy, radius)))
    for collection in ax.collections:
        if not collection.get_visible():
            continue
        if isinstance(collection, PathCollection) and len(collection.get_offsets()):
            offsets = collection.get_offset_transform().transform(
                np.asarray(collection.get_offsets(), float))
            sizes = collection.get_sizes()
            radius = renderer.points_to_pixels(
                float(np.sqrt(sizes.max())) if len(sizes) else 6.0) / 2
            name = collection.get_label()
            description = (f"the points {_quote(name)}"
                           if name and not name.startswith("_") else "data points")
            marks.append((description, _near(offsets, radius)))
        elif isinstance(collection, PolyCollection) and _opaque(collection):
            transform = collection.get_transform()
            paths = [transform.transform_path(p) for p in collection.get_paths()]
            marks.append(("an opaque fill", lambda box, ps=paths: any(
                p.intersects_bbox(box, filled=True) for p in ps)))
    for patch in ax.patches:
        if isinstance(patch, Patch) and patch.get_visible() and patch.get_fill() \
                and _opaque(patch):
            path = patch.get_transform().transform_path(patch.get_path())
            marks.append(("an opaque patch", lambda box, p=path: p.intersects_bbox(
                box, filled=True)))
    return marks


def _clipped(box, ax, renderer):
    """The part of `box` inside the axes' drawing area, or None."""
    Bbox = import_optional_dependency("matplotlib.transforms").Bbox

    area = ax.get_window_extent(renderer)
    inside = Bbox.intersection(box, area)
    if inside is None or inside.width <= 0 or inside.height <= 0:
        return None
    return inside


def text_overlaps(figure, *, data: bool = True) -> list[tuple[str, str]]:
    """The pairs of things in `figure` that run into each other, described.

    Draws the figure once, then compares the rendered boxes of every visible,
    non-empty text — titles, axis labels, tick labels, texts and annotations,
    legend entries, the suptitle and the figure's shared labels — with each
    other, with the legends' boxes, and with annotations' arrows. With `data`,
    also a legend lying on the data of an axes (a line, a marker or an opaque
    fill under its entries), and a text or annotation lying on markers of its
    own axes. Boxes that only touch (by less than :data:`OVERLAP_TOLERANCE`
    points) do not count.

    Returns
    -------
    list of (str, str)
        Descriptions of the two things of each overlap, e.g. ``("x tick label
        '50' of panel 'AlexNet'", "x tick label '100' of panel 'AlexNet'")``;
        empty when nothing overlaps.
    """
    renderer = _renderer(figure)
    tolerance = renderer.points_to_pixels(OVERLAP_TOLERANCE)
    texts = []
    for text, description, owner in _figure_texts(figure):
        box = _text_box(text, renderer)
        if box is not None:
            texts.append((text, description, owner, box))
    found = []
    for i, (_, first, owner, box) in enumerate(texts):
        for _, second, other, box_2 in texts[i + 1:]:
            if owner is not None and owner is other:
                continue  # a legend lays out its own entries
            if _overlap(box, box_2, tolerance):
                found.append((first, second))
    legends = [(legend, name, _legend_box(legend, renderer))
               for legend, name in _legends(figure)]
    for legend, name, box in legends:
        for _, description, owner, text_box in texts:
            if owner is not legend and _overlap(box, text_box, tolerance):
                found.append((description, name))
    for i, (_, name, box) in enumerate(legends):
        for _, other, box_2 in legends[i + 1:]:
            if _overlap(box, box_2, tolerance):
                found.append((name, other))
    # Arrows of annotations: another text on one is hard to read.
    Annotation = import_optional_dependency("matplotlib.text").Annotation

    for ax in _all_axes(figure):
        for arrow_owner in ax.texts:
            if not (isinstance(arrow_owner, Annotation) and arrow_owner.get_visible()
                    and arrow_owner.arrow_patch is not None
                    and arrow_owner._check_xy(renderer)):
                continue
            arrow_owner.update_positions(renderer)
            arrow = arrow_owner.arrow_patch.get_window_extent(renderer)
            label = arrow_owner.get_text().strip()
            name = (f"the arrow of {_quote(label)}" if label else "an arrow") \
                + _panel_name(ax)
            for text, description, _, box in texts:
                if text is not arrow_owner and _overlap(arrow, box, tolerance):
                    found.append((description, name))
    if data:
        for ax in _all_axes(figure):
            if not ax.get_visible():
                continue
            marks = None
            for _, name, box in legends:
                inside = _clipped(box, ax, renderer)
                if inside is None:
                    continue
                marks = marks if marks is not None else _data_marks(ax, renderer)
                hit = next((what for what, test in marks if test(inside)), None)
                if hit is not None:
                    found.append((name, f"{hit}{_panel_name(ax)}"))
            for text in ax.texts:
                entry = next((t for t in texts if t[0] is text), None)
                if entry is None:
                    continue
                inside = _clipped(entry[3], ax, renderer)
                if inside is None:
                    continue
                marks = marks if marks is not None else _data_marks(ax, renderer)
                hit = next((what for what, test in marks
                            if what.startswith(("markers", "data points", "the points"))
                            and test(inside)), None)
                if hit is not None:
                    found.append((entry[1], f"{hit}{_panel_name(ax)}"))
    return found


def _advice(first: str, second: str) -> str:
    """How to fix an overlap of these two, in a few words."""
    both = f"{first} {second}"
    if "legend" in both and ("line" in both or "marker" in both or "points" in both
                             or "fill" in both or "patch" in both):
        return ("move the legend off the data (e.g. loc='upper left', "
                "bbox_to_anchor=(1.02, 1), or figure.legend(loc='outside lower "
                "center'))")
    if "tick label" in both:
        return ("use fewer or shorter ticks (a sparser locator, rotated labels) or "
                "a wider figure")
    if "title" in both:
        return "shorten the titles or widen the figure"
    if "arrow" in both or "marker" in both or "points" in both:
        return "move the text off the marks (an offset, or another corner)"
    return "move one of them, shorten it, or give the figure more room"


def _overlap_message(found, name: str) -> str:
    first, second = found[0]
    more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
    return f"{name}: {first} overlaps {second}{more}; {_advice(first, second)}"


def check_text_overlaps(figure, name: str = "figure") -> None:
    """Raise :class:`FigureOverlapError` (a ValueError) naming the first overlap
    :func:`text_overlaps` finds in `figure`, and how to fix it."""
    found = text_overlaps(figure)
    if found:
        raise FigureOverlapError(_overlap_message(found, name))


def tidy_figure(figure) -> list[tuple[str, str]]:
    """Move each panel's legend that lies on the data (or on another text) to
    the right of its panel, outside it; return the overlaps that remain (see
    :func:`text_overlaps`), none when the figure is clean. A figure without
    overlaps is left exactly as it is."""
    found = text_overlaps(figure)
    if not found:
        return found
    moved = False
    for ax in _all_axes(figure):
        legend = ax.get_legend()
        name = f"the legend{_panel_name(ax)}"
        if legend is None or not any(name in pair for pair in found):
            continue
        legend.set_loc("upper left")
        legend.set_bbox_to_anchor((1.02, 1.0), transform=ax.transAxes)
        moved = True
    return text_overlaps(figure) if moved else found


# ----------------------------------------------------------------- labels and axes

# Units recognised from a cost column's name (its last word, or all of it).
def cost_label(column: str, unit: str | None = None) -> str:
    """The cost axis's label: the column, what the axis adds up, and the unit."""
    unit = unit or cost_unit(column)
    return (f"budget: n rounds × mean {column} per round"
            + (f" ({unit})" if unit else ""))


def score_label(y: str, minimize: bool = False) -> str:
    """The score axis's label: "expected best f1", "expected lowest val_loss"."""
    return f"expected {'lowest' if minimize else 'best'} {y}"


def _plain(value, _position=None) -> str:
    """A tick label without powers of ten: 1, 10, 100, 1,000, 0.5."""
    if value >= 1 and math.isclose(value, round(value)):
        return f"{round(value):,}"
    return f"{value:g}"


def plain_log_axis(axis, limits=None, *, most: int = 7) -> None:
    """Plain tick labels (1, 10, 100) on a log axis; 2 and 5 in between when it
    spans less than two decades, and every other (or third) decade when more than
    `most` decades would crowd it.

    `limits` is the axis's range where its view interval does not say it yet (a
    secondary axis takes its range from its parent only when drawn).
    """
    _module = import_optional_dependency("matplotlib.ticker")
    FuncFormatter, LogLocator, NullFormatter = (
        _module.FuncFormatter, _module.LogLocator, _module.NullFormatter)

    low, high = sorted(limits if limits is not None else axis.get_view_interval())
    low = max(low, 1e-300)
    high = max(high, low * 10)
    subs = (1.0, 2.0, 5.0) if high / low < 100 else (1.0,)
    axis.set_major_locator(LogLocator(base=10, subs=subs,
                                      numticks=most + 2 if len(subs) == 1 else None))
    axis.set_major_formatter(FuncFormatter(_plain))
    axis.set_minor_formatter(NullFormatter())


def _colors(palette, n: int) -> list:
    if palette is None:
        palette = list(PALETTE)
    sns = import_optional_dependency("seaborn")

    return list(sns.color_palette(palette, n_colors=n))


def _runs(mask: np.ndarray) -> list[tuple[int, int]]:
    """[start, stop) of each run of True in `mask`."""
    edges = np.flatnonzero(np.diff(np.concatenate([[0], mask.astype(int), [0]])))
    return list(zip(edges[::2], edges[1::2], strict=True))


def _finite_range(*arrays) -> tuple[float, float]:
    values = np.concatenate([np.asarray(a, dtype=float).ravel() for a in arrays])
    values = values[np.isfinite(values)]
    if values.size == 0:
        return 0.0, 1.0
    return float(values.min()), float(values.max())


def _band(ax, x, lower, estimate, upper, color, nudge: int = 0) -> list[str]:
    """A translucent band with solid edges; an infinite edge drawn open.

    Returns the sides left open ("upper", "lower"), for the label. The y-limits
    must be set before: the open edge fades out towards them. `nudge` moves the
    arrow right by that many arrow widths, so that two models' arrows at the same
    budget both show.
    """
    offset_copy = import_optional_dependency("matplotlib.transforms").offset_copy

    x = np.asarray(x, dtype=float)
    lower = np.asarray(lower, dtype=float)
    upper = np.asarray(upper, dtype=float)
    bottom, top = ax.get_ylim()
    opened = []
    solid_lower, solid_upper = lower.copy(), upper.copy()
    for side, values, limit in (("upper", upper, top), ("lower", lower, bottom)):
        infinite = ~np.isfinite(values)
        if not infinite.any():
            continue
        opened.append(side)
        other = lower if side == "upper" else upper
        finite = values[~infinite]
        inner = estimate[np.isfinite(estimate)]
        # The fade starts where the last finite edge was (or at the estimate).
        if side == "upper":
            start = float(finite.max()) if finite.size else float(inner.max())
            base = np.maximum(np.where(np.isfinite(other), other, start), start)
            solid_upper = np.where(infinite, base, upper)
        else:
            start = float(finite.min()) if finite.size else float(inner.min())
            base = np.minimum(np.where(np.isfinite(other), other, start), start)
            solid_lower = np.where(infinite, base, lower)
        levels = np.linspace(start, limit, 13)
        for first, stop in _runs(infinite):
            # From the last bounded budget on: the edge opens after it.
            piece = slice(max(first - 1, 0), stop)
            for i in range(len(levels) - 1):
                # Fading out quickly: two open bands over each other stay light.
                alpha = 0.8 * BAND_ALPHA * (1 - (i + 0.5) / (len(levels) - 1)) ** 2
                if side == "upper":
                    y1 = np.maximum(levels[i], base[piece])
                    y2 = np.maximum(levels[i + 1], base[piece])
                else:
                    y1 = np.minimum(levels[i], base[piece])
                    y2 = np.minimum(levels[i + 1], base[piece])
                fade = ax.fill_between(x[piece], y1, y2, color=color, alpha=alpha,
                                       linewidth=0)
                fade.set_gid(OPEN_EDGE_FADE)
            # An arrow at the first unbounded budget: the edge goes on.
            span = limit - start
            shifted = offset_copy(ax.transData, fig=ax.figure, x=5 * nudge,
                                  units="points")
            arrow = ax.annotate(
                "", xy=(x[first], start + 0.75 * span),
                xytext=(x[first], start + 0.15 * span), xycoords=shifted,
                textcoords=shifted,
                arrowprops={"arrowstyle": "-|>", "color": color, "linewidth": 1.2,
                            "mutation_scale": 10, "shrinkA": 0, "shrinkB": 0})
            arrow.set_gid(OPEN_EDGE)
    ax.fill_between(x, solid_lower, solid_upper, color=color, alpha=BAND_ALPHA,
                    linewidth=0)
    for values in (lower, upper):
        edge, = ax.plot(x, np.where(np.isfinite(values), values, np.nan),
                        color=color, linewidth=0.9, alpha=0.9, label="_nolegend_")
        edge.set_gid(BAND_EDGE)
    return opened


def _open_label(ax, sides: set) -> None:
    """Say once per panel what an open band edge means: in a corner on the side it
    opens to (right, else left), or where no arrow stands, else in the far corner.
    The places are tried against where the arrows are drawn, with a margin for the
    layout that comes after."""
    if not sides or any(t.get_gid() == OPEN_EDGE_LABEL for t in ax.texts):
        return
    side = "upper" if "upper" in sides else "lower"
    renderer = ax.figure.canvas.get_renderer()
    arrows = [t.get_window_extent(renderer) for t in ax.texts
              if t.get_gid() == OPEN_EDGE]
    near, far = (0.975, 0.025) if side == "upper" else (0.025, 0.975)
    places = [(x, y) for y in (near, far) for x in (0.985, 0.015, 0.5)]
    for x, y in places:
        label = ax.text(x, y, f"no {side} bound:\nmore rounds needed",
                        transform=ax.transAxes,
                        ha={0.985: "right", 0.015: "left", 0.5: "center"}[x],
                        va="top" if y > 0.5 else "bottom", fontsize="small",
                        color="0.2", linespacing=1.1, zorder=6)
        label.set_gid(OPEN_EDGE_LABEL)
        box = label.get_window_extent(renderer).expanded(1.25, 1.25)
        if not any(box.overlaps(arrow) for arrow in arrows):
            return
        label.remove()
    ax.add_artist(label)  # nowhere is free of arrows: the usual corner, said


def _layout(n_panels: int) -> tuple[int, int]:
    columns = min(3, n_panels) if n_panels != 4 else 2
    return math.ceil(n_panels / columns), columns


def _panels(count: int):
    """A figure of `count` panels on shared axes, in a near-square grid."""
    plt = import_optional_dependency("matplotlib.pyplot")

    rows, columns = _layout(count)
    figure, grid = plt.subplots(
        rows, columns, sharex=True, sharey=True, squeeze=False,
        figsize=(2.6 * columns + 1.4, 2.3 * rows + 0.9), layout="constrained")
    axes = list(grid.flat)
    for extra in axes[count:]:
        extra.remove()
    return figure, axes[:count]


@_names_as_written
def plot_tuning_curves(
    data=None,
    *,
    y: str | None = None,
    hue: str | None = None,
    cost: str | None = None,
    cost_unit: str | None = None,
    estimator: str = "v",
    ns=None,
    std: bool = True,
    method: str | None = None,
    confidence: float = 0.8,
    target: float | None = None,
    x: str = "trials",
    logx: bool = True,
    minimize: bool | None = None,
    palette=None,
    ax=None,
    panels: bool | None = None,
    band: str | None = None,
    table=None,
):
    """Plot expected-best-score curves per model; return the Axes.

    Parameters
    ----------
    data : evp.Results or pandas.DataFrame
        Search results, one row per round. Results name their own score, model
        and cost columns and direction; leave `y`, `hue`, `cost` and `minimize`
        out for them.
    y : str
        Column of scores of a frame (default ``"score"``).
    hue : str, optional
        Column naming the model of each round: one curve per model.
    cost : str, optional
        Column of the cost of each round (e.g. training seconds).
    cost_unit : str, optional
        The unit of `cost`, for the axis label; default: read off the column's name
        ("seconds", "train_hours", "gpu_hours"), or none.
    estimator : {"v", "u", "w"}
        Estimator of the expected maximum (see :func:`evp.expected_max`).
    ns : array_like, optional
        Budgets; default 1..B for each model.
    std : bool
        Shade ±1 standard deviation of the best of n, clipped to the observed score
        range (Dodge et al. 2019, §3.3): the best score can never leave it.
    method : str, optional
        A CDF-band method ("dkw", "ks", "ld_equal_tailed", "ld_highest_density"):
        also draw the median tuning curve (dashed) and its simultaneous confidence
        band (a translucent fill with solid edges) at `confidence` (Lourie, Cho and
        He 2024). Where the band has no upper bound (an infinite edge: too few
        rounds for that budget), the fill fades out, an arrow points up and a label
        says so. Default: no band.
    band : str, optional
        The old name of `method`; deprecated.
    target : float, optional
        Draw dotted guides at this score and at the budget each model needs to
        reach it in expectation (:func:`evp.budget_to_reach`).
    x : {"trials", "cost"}
        Horizontal axis: rounds of search, or expected cost (rounds × mean cost of
        a round of that model; needs `cost`), as in Dodge et al. (2019), Fig. 1.
    logx : bool
        Logarithmic horizontal axis, with plain tick labels (1, 10, 100).
    minimize : bool, default False
        Scores are losses (lower is better): labels say "lowest".
    palette : seaborn palette, optional
        Default: Okabe and Ito's colour-blind-safe palette (:data:`PALETTE`).
    ax : matplotlib.axes.Axes, optional
        Draw every model here. Default: a new figure.
    panels : bool, optional
        One panel per model on shared axes (each with the other models in light
        grey). Default: panels when there are more than two models and no `ax`.
    table : pandas.DataFrame, optional
        The table to draw, as :func:`evp.tuning_curve_table` (or, for repeated
        runs, :func:`evp.tables.anytime_table`) made it from `data` with these
        options: an analysis draws the table it holds rather than computing it
        again (:meth:`evp.analyses.Curves.plot`).

    Returns
    -------
    matplotlib.axes.Axes, or a numpy array of them (one per model) with panels
    """
    plt = import_optional_dependency("matplotlib.pyplot")

    method = renamed(method, band, "method", "band")
    x = as_choice(x, "x", ("trials", "cost"))
    results = as_results(data, score=y, group=hue, cost=cost, minimize=minimize)
    if x == "cost" and results.cost is None:
        raise ValueError("x='cost' needs the cost column: pass cost=")
    y, hue, cost, minimize = (results.score_name, results.group, results.cost,
                              results.minimize)
    # Repeated runs of a tuner: its median best so far and the simultaneous band
    # of evp.anytime, against its trials.
    anytime = results.runs is not None
    if anytime and x == "cost":
        raise ValueError("x='cost': repeated runs are drawn against the tuner's "
                         "trials; leave x out")
    if anytime:
        table = (tables.anytime_table(results, ns=ns, confidence=confidence)
                 if table is None else table.copy())
        table["curve"] = table["median"]
        std, method = False, "anytime"
    elif table is None:
        table = tables.tuning_curve_table(results, estimator=estimator, ns=ns,
                                          method=method, confidence=confidence)
    needed = {}
    if target is not None and not anytime:  # where each model's guide goes
        budgets = tables.budget_table(results, target, estimator=estimator)
        needed = dict(zip(budgets["model"], budgets["trials (expected)"],
                          strict=True))
    models = list(dict.fromkeys(table["model"]))
    if panels is None:
        panels = ax is None and len(models) > 2
    if panels and ax is not None:
        raise ValueError("panels=True draws a figure of its own: leave ax out, or "
                         "pass panels=False")
    split = results.scores_as_read
    colors = dict(zip(models, _colors(palette, len(models)), strict=True))
    position = "budget" if x == "cost" else "n"

    with plt.rc_context(theme()):
        if ax is not None:
            figure, axes, owners = ax.figure, [ax], [models]
        elif panels:
            figure, axes = _panels(len(models))
            owners = [[m] for m in models]
        else:
            figure, one = plt.subplots(figsize=(6.4, 3.8), layout="constrained")
            axes, owners = [one], [models]

        # Limits first: an open band edge fades out towards them.
        pieces = [table["curve"]]
        if std:
            for model in models:
                rows = table[table["model"] == model]
                low, high = split[model].min(), split[model].max()
                pieces += [np.clip(rows["curve"] - rows["std"], low, high),
                           np.clip(rows["curve"] + rows["std"], low, high)]
        if method is not None:
            pieces += [table["band_lower"], table["median"], table["band_upper"]]
        if target is not None:
            pieces.append([target])
        low, high = _finite_range(*pieces)
        pad = 0.05 * (high - low or 1.0)
        open_up = method is not None and not np.isfinite(table["band_upper"]).all()
        open_down = method is not None and not np.isfinite(table["band_lower"]).all()
        # Room for the fade and its label on an open side.
        limits = (low - pad - (4 * pad if open_down else 0),
                  high + pad + (4 * pad if open_up else 0))
        xs = table[position].to_numpy(dtype=float)
        x_limits = (xs.min(), xs.max())
        if ax is not None and (ax.get_lines() or ax.collections):
            # Drawn over an earlier call (one model at a time): widen, never cut.
            bottom, top = ax.get_ylim()
            left, right = ax.get_xlim()
            limits = (min(limits[0], bottom), max(limits[1], top))
            x_limits = (min(x_limits[0], left), max(x_limits[1], right))

        for panel, own in zip(axes, owners, strict=True):
            panel.set_ylim(*limits)
            if logx:
                panel.set_xscale("log")
            panel.set_xlim(*x_limits)
            if panels:
                panel.set_title(own[0], color="0.15")
                for other in models:
                    if other in own:
                        continue
                    rows = table[table["model"] == other]
                    context, = panel.plot(rows[position], rows["curve"], color="0.72",
                                          linewidth=0.9, zorder=1, label="_nolegend_")
                    context.set_gid(CONTEXT)
            sides = set()
            for index, model in enumerate(own):
                rows = table[table["model"] == model]
                color = colors[model]
                scores = split[model]
                where = rows[position].to_numpy(dtype=float)
                panel.plot(where, rows["curve"], color=color, linewidth=1.8,
                           label=model, zorder=4)
                if std:
                    smallest, largest = float(scores.min()), float(scores.max())
                    panel.fill_between(
                        where,
                        np.clip(rows["curve"] - rows["std"], smallest, largest),
                        np.clip(rows["curve"] + rows["std"], smallest, largest),
                        color=color, alpha=STD_ALPHA, linewidth=0)
                if method is not None:
                    if not anytime:  # the median beside the expected best
                        panel.plot(where, rows["median"], color=color, linestyle="--",
                                   linewidth=1.1, zorder=3, label="_nolegend_")
                    opened = _band(panel, where, rows["band_lower"].to_numpy(),
                                   rows["median"].to_numpy(),
                                   rows["band_upper"].to_numpy(), color,
                                   nudge=index)
                    sides.update(opened)
                if target is not None and not anytime:
                    n_needed = needed[model]
                    if n_needed is not None:
                        spot = rows.loc[rows["n"] == n_needed, position]
                        spot = float(spot.iloc[0]) if len(spot) else float(n_needed)
                        panel.axvline(spot, color=color, linestyle=":", linewidth=1)
            if target is not None:
                panel.axhline(target, color="0.4", linestyle=":", linewidth=1)
            _open_label(panel, sides)
            if logx:
                plain_log_axis(panel.xaxis)

        xlabel = (cost_label(cost, cost_unit) if x == "cost"
                  else "trials of the tuner (n)" if anytime
                  else "rounds of random search (n)")
        word = "lowest" if minimize else "best"
        # What is drawn: the expected best alone, or beside the median and its
        # band (the legend says which line is which).
        ylabel = (f"median {word} {y} so far" if anytime
                  else f"{word} {y} of n rounds" if method is not None
                  else score_label(y, minimize))
        if panels:
            for panel in axes:
                panel.set_xlabel("")
                panel.set_ylabel("")
            figure.supxlabel(xlabel, fontsize="medium")
            figure.supylabel(ylabel, fontsize="medium")
        else:
            axes[0].set_xlabel(xlabel)
            axes[0].set_ylabel(ylabel, labelpad=6)
        shown = [(m, colors[m]) for m in models]
        if ax is not None:  # with the models of earlier calls on this axes
            earlier = [(label, line.get_color()) for line, label
                       in zip(*ax.get_legend_handles_labels(), strict=True)
                       if hasattr(line, "get_color") and label not in models]
            shown = earlier + shown
        handles = _legend_handles(
            [] if panels else shown,
            y=y, minimize=minimize, estimator=estimator, std=std, method=method,
            confidence=confidence, anytime=anytime)
        if ax is None:
            # Across the figure: below one panel, above several (whose shared
            # x label is below).
            figure.legend(handles=handles,
                          loc="outside upper center" if panels
                          else "outside lower center",
                          ncols=min(len(handles), 3 if len(handles) > 4 else 4),
                          fontsize="small")
        elif hue is not None or method is not None:
            # Inside the axes it was given: beside it may be another panel.
            ax.legend(handles=handles, title=hue, fontsize="small",
                      title_fontsize="small")
    if panels:
        return np.array(axes, dtype=object)
    return axes[0]


def _legend_handles(models, *, y, minimize, estimator, std, method, confidence,
                    dashes: bool = True, anytime: bool = False):
    Line2D = import_optional_dependency("matplotlib.lines").Line2D
    Patch = import_optional_dependency("matplotlib.patches").Patch

    handles = [Line2D([], [], color=color, linewidth=1.8, label=name)
               for name, color in models]
    word = "lowest" if minimize else "best"
    if anytime:
        handles.append(Line2D([], [], color="0.3", linewidth=1.8,
                              label=f"median {word} {y} so far, across runs"))
        handles.append(Patch(facecolor=(0.3, 0.3, 0.3, BAND_ALPHA * 1.5),
                             edgecolor="0.3", linewidth=0.9,
                             label=f"{confidence:.0%} band, simultaneous over n"))
        return handles
    handles.append(Line2D([], [], color="0.3", linewidth=1.8,
                          label=f"expected {word} {y} ({estimator.upper()})"))
    if std:
        handles.append(Patch(facecolor="0.3", alpha=STD_ALPHA * 2, linewidth=0,
                             label="± 1 std"))
    if method is not None and dashes:
        handles.append(Line2D([], [], color="0.3", linestyle="--", linewidth=1.1,
                              label=f"median {word} {y}"))
    if method is not None:
        handles.append(Patch(facecolor=(0.3, 0.3, 0.3, BAND_ALPHA * 1.5),
                             edgecolor="0.3", linewidth=0.9,
                             label=f"{confidence:.0%} band "
                                   f"({METHOD_NAMES.get(method, method)})"))
    return handles


# Opacity of the evidence strip, by strength.
EVIDENCE_ALPHA = {"strong": 0.9, "fair": 0.55, "weak": 0.25}
EVIDENCE = "evp-evidence"


def _evidence_strip(ax, ns, winners, strengths, colors, *,
                    top: bool = False) -> None:
    """A strip along the bottom (or `top`) of `ax`: per run of budgets, the
    winner's colour, as opaque as the evidence is strong; blank where there is
    none."""
    blended_transform_factory = import_optional_dependency(
        "matplotlib.transforms").blended_transform_factory

    ns = np.asarray(ns, dtype=float)
    if ns.size == 0:
        return
    # Each budget owns the stretch half-way (geometrically) to its neighbours.
    middle = np.sqrt(ns[1:] * ns[:-1]) if ax.get_xscale() == "log" else (
        (ns[1:] + ns[:-1]) / 2)
    edges = np.concatenate([[ns[0]], middle, [ns[-1]]])
    where = blended_transform_factory(ax.transData, ax.transAxes)
    start = 0
    for stop in range(1, ns.size + 1):
        if stop < ns.size and (winners[stop], strengths[stop]) == (
                winners[start], strengths[start]):
            continue
        if winners[start]:
            low, high = (0.955, 1.0) if top else (0.0, 0.045)
            span = ax.fill_between([edges[start], edges[stop]], low, high,
                                   transform=where, linewidth=0,
                                   color=colors[winners[start]],
                                   alpha=EVIDENCE_ALPHA[strengths[start]])
            span.set_gid(EVIDENCE)
        start = stop


@_names_as_written
def plot_comparison(
    comparison,
    names=("a", "b"),
    *,
    y: str = "score",
    minimize: bool | None = None,
    costs=None,
    cost: str | None = None,
    cost_unit: str | None = None,
    logx: bool = True,
    palette=None,
    ax=None,
):
    """Draw two models' tuning-curve bands and the evidence that one beats the other.

    Each model's band is a translucent fill with solid edges around its estimate
    (an infinite edge drawn open, as in :func:`plot_tuning_curves`); a strip along
    the bottom shows, per budget, the model the evidence favours in its colour,
    opaque for strong, lighter for fair and weak, blank for none.

    Parameters
    ----------
    comparison : evp.Comparison, or a sequence of (names, Comparison) pairs
        What :func:`evp.compare` returns (1-D scores). Several pairs are drawn as
        small multiples, one panel per pair, on shared axes.
    names : (str, str)
        The two models' names, for a single comparison.
    y : str
        The score's name, for the axis label.
    minimize : bool, optional
        Scores are losses; default: as the comparison was made.
    costs : mapping of str to float, optional
        Mean cost of a round of each model: then the horizontal axis is expected
        cost (n × mean cost per round) and each band sits at its own model's cost.
        The evidence strip, which compares equal numbers of rounds, runs along the
        top, on an axis of rounds.
    cost, cost_unit : str, optional
        The cost column's name and unit, for the axis label.
    logx : bool
        Logarithmic horizontal axis with plain tick labels.
    palette : seaborn palette, optional
    ax : matplotlib.axes.Axes, optional
        For a single comparison; default: a new figure.

    Returns
    -------
    matplotlib.axes.Axes, or a numpy array of them (one per pair)
    """
    plt = import_optional_dependency("matplotlib.pyplot")
    Line2D = import_optional_dependency("matplotlib.lines").Line2D
    Patch = import_optional_dependency("matplotlib.patches").Patch

    single = not isinstance(comparison, list | tuple)
    pairs = [(tuple(names), comparison)] if single else [
        (tuple(pair), result) for pair, result in comparison]
    if not single and ax is not None:
        raise ValueError("several comparisons draw a figure of their own: leave ax "
                         "out")
    for (a, b), result in pairs:
        if a == b:
            raise ValueError(f"names: a comparison of two different models, got "
                             f"{a!r} twice")
        if np.ndim(result.evidence) != 1:
            raise ValueError("comparison: one sample per model (1-D scores) only")
    if minimize is None:
        minimize = bool(getattr(pairs[0][1].band_a, "minimize", False))
    models = list(dict.fromkeys(m for pair, _ in pairs for m in pair))
    colors = dict(zip(models, _colors(palette, len(models)), strict=True))
    if costs is not None:
        missing = [m for m in models if m not in costs]
        if missing:
            raise ValueError(f"costs: no mean cost per round for {missing}")

    with plt.rc_context(theme()):
        if ax is not None:
            figure, axes = ax.figure, [ax]
        elif len(pairs) == 1:
            figure, one = plt.subplots(figsize=(6.4, 3.8), layout="constrained")
            axes = [one]
        else:
            figure, axes = _panels(len(pairs))

        def position(model, ns):
            ns = np.asarray(ns, dtype=float)
            return ns * float(costs[model]) if costs is not None else ns

        pieces, xs = [], []
        for (a, b), result in pairs:
            for model, band in ((a, result.band_a), (b, result.band_b)):
                pieces += [band.lower, band.estimate, band.upper]
                xs.append(position(model, result.ns))
        low, high = _finite_range(*pieces)
        pad = 0.05 * (high - low or 1.0)
        open_up = any(not np.isfinite(p).all() for p in pieces[2::3])
        open_down = any(not np.isfinite(p).all() for p in pieces[0::3])
        # Room for the evidence strip (at the bottom; on top on a cost axis) and
        # the open edges' fade.
        strip = (1.0, 2.5) if costs is not None else (2.5, 1.0)
        limits = (low - strip[0] * pad - (4 * pad if open_down else 0),
                  high + strip[1] * pad + (4 * pad if open_up else 0))
        xs = np.concatenate(xs)

        for panel, ((a, b), result) in zip(axes, pairs, strict=True):
            panel.set_ylim(*limits)
            if logx:
                panel.set_xscale("log")
            panel.set_xlim(xs.min(), xs.max())
            if len(pairs) > 1:
                # Long names on two lines: side by side, titles must fit a panel.
                title = f"{a} vs {b}" if len(a) + len(b) <= 24 else f"{a}\nvs {b}"
                panel.set_title(title, color="0.15")
            sides = set()
            for index, (model, band) in enumerate(((a, result.band_a),
                                                   (b, result.band_b))):
                where = position(model, result.ns)
                panel.plot(where, band.estimate, color=colors[model], linewidth=1.8,
                           label=model, zorder=4)
                sides.update(_band(panel, where, band.lower, band.estimate,
                                   band.upper, colors[model], nudge=index))
            if costs is None:
                _evidence_strip(panel, result.ns, result.winner((a, b)),
                                result.strength(), colors)
            else:
                # The evidence compares equal numbers of rounds, which cost each
                # model differently: its strip runs along a rounds axis on top.
                rounds = panel.twiny()
                if logx:
                    rounds.set_xscale("log")
                rounds.set_xlim(float(np.min(result.ns)), float(np.max(result.ns)))
                _evidence_strip(rounds, result.ns, result.winner((a, b)),
                                result.strength(), colors, top=True)
                rounds.set_xlabel("rounds (n): the evidence at equal rounds",
                                  fontsize="small")
                if logx:
                    plain_log_axis(rounds.xaxis)
            _open_label(panel, sides)
            if logx:
                plain_log_axis(panel.xaxis)

        statistic = getattr(pairs[0][1].band_a, "statistic", "median")
        word = "lowest" if minimize else "best"
        runs = getattr(pairs[0][1].band_a, "runs", None)  # an anytime band's
        xlabel = (cost_label(cost or "cost", cost_unit) if costs is not None
                  else "trials of the tuner (n)" if runs
                  else "rounds of random search (n)")
        ylabel = f"{statistic} {word} {y}"
        if len(axes) > 1:
            figure.supxlabel(xlabel, fontsize="medium")
            figure.supylabel(ylabel, fontsize="medium")
        else:
            axes[0].set_xlabel(xlabel)
            axes[0].set_ylabel(ylabel, labelpad=6)
        confidence = pairs[0][1].confidence
        method = getattr(pairs[0][1].band_a, "method", None)
        handles = [Line2D([], [], color=colors[m], linewidth=1.8, label=m)
                   for m in models]
        handles.append(Patch(facecolor=(0.3, 0.3, 0.3, BAND_ALPHA * 1.5),
                             edgecolor="0.3", linewidth=0.9,
                             label=f"{confidence:.0%} band"
                                   + (f" ({METHOD_NAMES.get(method, method)})"
                                      if method else "")))
        handles += [Patch(facecolor="0.3", alpha=EVIDENCE_ALPHA[s], linewidth=0,
                          label=f"{s} evidence") for s in EVIDENCE_ALPHA]
        if ax is None:
            figure.legend(handles=handles,
                          loc="outside upper center" if len(axes) > 1
                          else "outside lower center",
                          ncols=min(len(handles), 3 if len(handles) > 4 else 4),
                          fontsize="small")
        else:
            ax.legend(handles=handles, fontsize="small", loc="upper left",
                      bbox_to_anchor=(1.02, 1.0), borderaxespad=0)
    if len(axes) > 1:
        return np.array(axes, dtype=object)
    return axes[0]


@_names_as_written
def plot_tail_fit(dist, ys, threshold, *, confidence: float = 0.95,
                  method: str = "ld_highest_density", label: str | None = None,
                  color=None, ax=None):
    r"""QQ plot of a fitted (noisy) quadratic tail, with a simultaneous band.

    Each score :math:`Y_{(i)}` of the fitted region (above `threshold`; at or
    below it for a convex fit) is drawn against the fitted quantile at its
    plotting position, :math:`F^{-1}((i - 1/2)/n)`, and the shaded band is the
    CDF band mapped through the fit, :math:`[F^{-1}(l_i), F^{-1}(u_i)]`. A score
    outside it is exactly where :func:`evp.parametric.goodness_of_fit` fails: the
    fitted CDF leaves the band there.

    Parameters
    ----------
    dist : evp.parametric.QuadraticDistribution or NoisyQuadraticDistribution
        The fit.
    ys : array_like, shape (n,)
        All the scores (the band needs the ranks among all n).
    threshold : float
    confidence : float, default 0.95
        Of the band.
    method : str, default "ld_highest_density"
        The CDF band (see :func:`evp.cdf_band`).
    label : str, optional
        The panel's title.
    color : optional
        Default the palette's first colour.
    ax : matplotlib.axes.Axes, optional

    Returns
    -------
    matplotlib.axes.Axes
    """
    plt = import_optional_dependency("matplotlib.pyplot")

    table = tables.qq_table(dist, ys, threshold, confidence=confidence, method=method)
    scores, x, low, high, outside = (
        table[c].to_numpy() for c in ("score", "fitted quantile", "band lower",
                                      "band upper", "outside"))
    if ax is None:
        with plt.rc_context(theme()):
            _, ax = plt.subplots(figsize=(4.2, 4.0), layout="constrained")
    color = color or PALETTE[0]
    # The fit speaks only in its region: nothing of it is drawn past the
    # threshold (the band's edges and the diagonal stop there).
    convex = bool(getattr(dist, "convex", False))
    clip = np.minimum if convex else np.maximum
    low, high = clip(low, threshold), clip(high, threshold)
    finite = np.isfinite(low) & np.isfinite(high)
    ax.fill_between(x[finite], low[finite], high[finite], color=color,
                    alpha=BAND_ALPHA, linewidth=0,
                    label=f"{confidence:.0%} band through the fit")
    ax.plot(x[~outside], scores[~outside], "o", color=color, markersize=3,
            label="scores in the fitted region")
    if outside.any():
        ax.plot(x[outside], scores[outside], "x", color=PALETTE[5], markersize=5,
                label="outside the band")
    span = np.array([min(x.min(), scores.min()), max(x.max(), scores.max())])
    span = np.minimum(span, threshold) if convex else np.maximum(span, threshold)
    ax.plot(span, span, color="0.4", linewidth=0.8, linestyle="--", label="y = x")
    ax.set(xlabel="fitted quantile", ylabel="score", title=label or "")
    ax.legend(fontsize="small")
    return ax


@_names_as_written
def plot_extrapolation(fit, found, ys, *, extrapolate: float = 10,
                       label: str | None = None, y: str = "score",
                       cost_per_round: float | None = None,
                       cost: str | None = None, color=None, ax=None):
    """A fitted median tuning curve beyond the rounds run, with its confidence band.

    Draws the fit's median tuning curve from 1 to `extrapolate` × the rounds run,
    the band of the confidence set around it (where the model speaks: above the
    threshold), the empirical median tuning curve of the rounds run as dots, and
    a dotted line at the rounds run.

    Parameters
    ----------
    fit : evp.parametric.NoisyQuadraticDistribution or QuadraticDistribution
    found : evp.parametric.ConfidenceSet
    ys : array_like
        The scores the fit and the set come from.
    extrapolate : float, default 10
        How far to draw, in multiples of the rounds run.
    label : str, optional
        The panel's title.
    y : str, default "score"
        The score's name, for the axis label.
    cost_per_round : float, optional
        The mean cost of a round: adds a top axis of expected cost.
    cost : str, optional
        The cost's name (and unit), e.g. "GPU hours".
    color, ax : optional

    Returns
    -------
    matplotlib.axes.Axes
    """
    plt = import_optional_dependency("matplotlib.pyplot")

    size, minimize = len(ys), bool(found.minimize)
    table = tables.extrapolation_table(fit, found, ys, extrapolate=extrapolate)
    fitted = table[table["curve"] == "fitted"]
    empirical = table[table["curve"] == "empirical"]
    if ax is None:
        with plt.rc_context(theme()):
            _, ax = plt.subplots(figsize=(4.6, 3.6), layout="constrained")
    color = color or PALETTE[0]
    ks, low, high = (fitted[c].to_numpy() for c in ("n", "lower", "upper"))
    shown = np.isfinite(low) & np.isfinite(high)
    ax.fill_between(ks[shown], low[shown], high[shown], color=color,
                    alpha=BAND_ALPHA, linewidth=0,
                    label=f"{found.confidence:.0%} band (confidence set)")
    # The fit describes only the scores beyond its threshold: where its median
    # falls short of it, the model says nothing, and no curve is drawn.
    median = fitted["median"].to_numpy(dtype=float)
    threshold = float(found.threshold)
    speaks = median <= threshold if minimize else median >= threshold
    ax.plot(ks, np.where(speaks, median, np.nan), color=color,
            label="fitted median")
    ax.axhline(threshold, color=color, linewidth=0.7, linestyle="--", alpha=0.6,
               label="threshold of the fitted tail")
    ax.plot(empirical["n"].to_numpy(), empirical["median"].to_numpy(), "o",
            color="0.2", markersize=2.5, label="empirical median")
    ax.axvline(size, color="0.6", linewidth=0.8, linestyle=":")
    ax.set(xscale="log", title=label or "", xlabel="rounds of random search (n)",
           ylabel=f"median {'lowest' if minimize else 'best'} {y}")
    plain_log_axis(ax.xaxis)
    if cost_per_round is not None:
        top = ax.secondary_xaxis("top", functions=(
            lambda n: n * cost_per_round, lambda c: c / cost_per_round))
        top.set_xlabel(f"expected {cost or 'cost'}")
        # Its range from the rounds', and as few labels as the bottom axis has.
        plain_log_axis(top.xaxis, (cost_per_round, float(ks.max()) * cost_per_round),
                       most=4)
    return ax


@_names_as_written
def plot_plan(table, names, budget: int, *, likely: float = 0.8, ax=None):
    """The chance of a strong verdict at `budget` against the extra rounds of each
    model, one curve per direction and one for either way (± 2 Monte Carlo
    standard errors), and the calibrated range for either way shaded (the
    plan is read from it), from :func:`evp.tables.plan_table`.

    Returns
    -------
    matplotlib.axes.Axes
    """
    plt = import_optional_dependency("matplotlib.pyplot")

    a, b = names
    if ax is None:
        with plt.rc_context(theme()):
            _, ax = plt.subplots(figsize=(5.6, 3.4), layout="constrained")
    extra = table["more rounds of each"].to_numpy()
    curves = [(f"strong: {a} better", f"{a} better", PALETTE[0], "-"),
              (f"strong: {b} better", f"{b} better", PALETTE[1], "-"),
              ("strong either way", "either way", "0.2", "--"),
              ("if none beyond the extremes", "either way, if no score lies\nbeyond "
               "those seen", "0.55", ":")]
    for column, label, color, style in curves:
        ax.plot(extra, table[column].to_numpy(), style, color=color, marker="o",
                markersize=3, label=label)
    either = table["strong either way"].to_numpy()
    spread = 2 * table["s.e."].to_numpy()
    ax.fill_between(extra, np.clip(either - spread, 0, 1),
                    np.clip(either + spread, 0, 1), color="0.2", alpha=0.12,
                    linewidth=0)
    if {"strong, low end", "strong, high end"} <= set(table.columns):
        # The calibrated range, which a plan is read from (the simulated point
        # is too hopeful on real searches).
        ax.fill_between(extra, table["strong, low end"].to_numpy(dtype=float),
                        table["strong, high end"].to_numpy(dtype=float),
                        color=PALETTE[2], alpha=0.18, linewidth=0,
                        label="either way: the\ncalibrated range")
    ax.axhline(likely, color="0.6", linewidth=0.8, linestyle=":")
    ax.set(ylim=(-0.02, 1.02), xlabel="more rounds of each model",
           ylabel="chance of a strong verdict",
           title=f"What more rounds would settle at n = {budget}")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize="small",
              title="strong evidence", title_fontsize="small")
    return ax


# ------------------------------------------------------ many models, many tasks

_STRENGTH = {"strong": 3, "fair": 2, "weak": 1, "none": 0}


def _highlighted(models, highlight) -> list:
    """The models to draw in bold, in the order given (an ordered list, so that
    a figure is drawn the same way on every run); a name that is none of
    `models` is refused, naming the closest model and the models (a misspelt
    name would leave the figure without the bold line it was asked for)."""
    import difflib

    chosen = list(dict.fromkeys(str(m) for m in (
        [highlight] if isinstance(highlight, str) else highlight or [])))
    known = list(dict.fromkeys(str(m) for m in models))
    unknown = [m for m in chosen if m not in known]
    if unknown:
        close = difflib.get_close_matches(unknown[0], known, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        shown = ", ".join(map(repr, known[:12])) + (", …" if len(known) > 12 else "")
        raise ValueError(f"highlight: no model {unknown[0]!r}{hint}; the models are "
                         f"{shown}")
    return chosen


@_names_as_written
def plot_verdict_matrix(table, n=None, *, highlight=None, ax=None):
    """The verdicts of :func:`evp.compare_all` at budget `n` (default the largest)
    as a matrix: row a, column b, coloured by the evidence that a beats b.

    Returns
    -------
    matplotlib.axes.Axes
    """
    plt = import_optional_dependency("matplotlib.pyplot")
    ListedColormap = import_optional_dependency("matplotlib.colors").ListedColormap

    n = table["n"].max() if n is None else n
    at = table[table["n"] == n]
    models = list(dict.fromkeys([*at["a"], *at["b"]]))
    matrix = np.full((len(models), len(models)), np.nan)
    place = {m: i for i, m in enumerate(models)}
    for a, b, label in at[["a", "b", "evidence"]].itertuples(index=False):
        matrix[place[a], place[b]] = _STRENGTH[str(label)]
    if ax is None:
        side = min(2.2 + 0.28 * len(models), 14)
        with plt.rc_context(theme()):
            _, ax = plt.subplots(figsize=(side + 1.6, side), layout="constrained")
    colors = ListedColormap(["#f2f2f2", "#cde3f2", "#6aaed6", PALETTE[0]])
    image = ax.imshow(matrix, cmap=colors, vmin=-0.5, vmax=3.5)
    ticks = range(len(models))
    small = "small" if len(models) <= 12 else 6
    ax.set_xticks(list(ticks), models, rotation=90, fontsize=small)
    ax.set_yticks(list(ticks), models, fontsize=small)
    for label in (*ax.get_xticklabels(), *ax.get_yticklabels()):
        if label.get_text() in _highlighted(models, highlight):
            label.set_fontweight("bold")
    ax.set(xlabel="b", ylabel="a")
    ax.set_title(f"Evidence that a beats b at n = {n:g}", fontsize="medium")
    bar = ax.figure.colorbar(image, ax=ax, ticks=[0, 1, 2, 3], shrink=0.6)
    bar.ax.set_yticklabels(["none", "weak", "fair", "strong"], fontsize="small")
    ax.grid(False)
    return ax


@_names_as_written
def plot_best_set(frame, *, highlight=None, ax=None):
    """The set that may still be best (:func:`evp.best_set`'s ``.frame``, or any
    budgets × models table of booleans): one row per model, filled where it may
    still be best.

    Returns
    -------
    matplotlib.axes.Axes
    """
    plt = import_optional_dependency("matplotlib.pyplot")
    ListedColormap = import_optional_dependency("matplotlib.colors").ListedColormap

    models = [str(m) for m in frame.columns]
    if ax is None:
        with plt.rc_context(theme()):
            _, ax = plt.subplots(figsize=(min(2.5 + 0.35 * len(frame), 12),
                                          min(1.2 + 0.22 * len(models), 12)),
                                 layout="constrained")
    ax.imshow(frame.to_numpy(float).T, cmap=ListedColormap(["#f2f2f2", PALETTE[0]]),
              vmin=0, vmax=1, aspect="auto")
    ax.set_xticks(range(len(frame)), [f"{n:g}" for n in frame.index],
                  fontsize="small")
    ax.set_yticks(range(len(models)), models,
                  fontsize="small" if len(models) <= 20 else 6)
    for label in ax.get_yticklabels():
        if label.get_text() in _highlighted(models, highlight):
            label.set_fontweight("bold")
    ax.set(xlabel="budget n (rounds)")
    ax.set_title("May still be best (filled)", fontsize="medium")
    ax.grid(False)
    return ax


def _budget_axes(ax):
    """`ax`, or a new panel of the size the views by budget share."""
    plt = import_optional_dependency("matplotlib.pyplot")

    if ax is None:
        with plt.rc_context(theme()):
            _, ax = plt.subplots(figsize=(6.4, 4.0), layout="constrained")
    return ax


def _named_models(ranked, label: int, highlight, *, leaders: bool) -> list:
    """The models a view by budget names: those first at some budget (with
    `leaders`, in budget order, so that a rerun draws the same figure), the
    `label` best at the largest budget, and the highlighted ones."""
    last = ranked[ranked["n"] == ranked["n"].max()].sort_values("mean rank")
    first = (list(ranked.sort_values(["n", "mean rank"], kind="stable")
                  .groupby("n").head(1)["model"]) if leaders else [])
    return list(dict.fromkeys([*first, *last["model"].head(label),
                               *_highlighted(ranked["model"], highlight)]))


@_names_as_written
def plot_ranks(ranked, *, highlight=None, label: int = 6, ax=None):
    """Mean rank across tasks against the budget (:func:`evp.ranking.rank_table`),
    one line per model, rank 1 at the top; the models first at some budget, the
    `label` best at the largest budget and `highlight` are named, the rest grey.

    Returns
    -------
    matplotlib.axes.Axes
    """
    ax = _budget_axes(ax)
    named = _named_models(ranked, label, highlight, leaders=True)
    colors = dict(zip(named, _colors(PALETTE, len(named)), strict=False))
    for model, part in ranked.groupby("model", sort=False):
        part = part.sort_values("n")
        shown = model in colors
        bold = model in _highlighted(ranked["model"], highlight)
        ax.plot(part["n"], part["mean rank"], marker="o", markersize=3 if shown
                else 0, color=colors.get(model, "0.8"),
                linewidth=2.4 if bold else 1.2 if shown else 0.7,
                zorder=3 if shown else 1, label=model if shown else None)
    ax.set_xscale("log")
    plain_log_axis(ax.xaxis)
    ax.invert_yaxis()
    ax.set(xlabel="budget n (rounds)", ylabel="mean rank across tasks (1 = best)")
    ax.set_title("Ranks by budget", fontsize="medium")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize="small")
    return ax


@_names_as_written
def plot_aggregate(ranked, *, highlight=None, label: int = 6, ax=None):
    """The aggregate median tuning curve on each task's scale, with its band
    (:func:`evp.ranking.rank_table`) where the band is bounded, for the models
    named as in :func:`plot_ranks`.

    Returns
    -------
    matplotlib.axes.Axes
    """
    ax = _budget_axes(ax)
    named = _named_models(ranked, label, highlight, leaders=False)
    for model, color in zip(named, _colors(PALETTE, len(named)), strict=False):
        part = ranked[ranked["model"] == model].sort_values("n")
        n = part["n"].to_numpy(float)
        low = part["scaled lower"].to_numpy(float)
        high = part["scaled upper"].to_numpy(float)
        # An open edge (too few rounds to bound the best of n) is not drawn as
        # if it were a number: the band stops where it opens.
        bounded = np.isfinite(low) & np.isfinite(high)
        ax.fill_between(n, np.where(bounded, low, np.nan),
                        np.where(bounded, high, np.nan), color=color, alpha=0.12,
                        linewidth=0)
        ax.plot(n, part["scaled median"], color=color, marker="o", markersize=3,
                linewidth=2.4 if model in _highlighted(named, highlight) else 1.4,
                label=model)
    budgets = ranked["n"].to_numpy(float)
    if not np.isfinite(ranked["scaled median"].to_numpy(float)).any():
        # Every task's scores tie (each scale is empty), so no point is drawn:
        # the axis spans the budgets (a log axis of no data cannot be drawn),
        # and the figure says why it is empty.
        ax.set_xlim(budgets.min(), max(budgets.max(), budgets.min() * 10))
        ax.set_ylim(0, 1)
        ax.text(0.5, 0.5, "every model scores the same on every task:\nno scale to "
                "place the curves on", transform=ax.transAxes, ha="center",
                va="center", color="0.3")
    ax.set_xscale("log")
    plain_log_axis(ax.xaxis)
    ax.set(xlabel="budget n (rounds)",
           ylabel="median best, on each task's scale\n(0: one round, 1: best seen)")
    ax.set_title("Aggregate tuning curves", fontsize="medium")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize="small")
    return ax


@_names_as_written
def plot_task_curves(curves, *, y: str = "score", minimize: bool = False,
                     highlight=None, columns: int = 3):
    """Each task's median tuning curves on its own scale, a small panel per
    task (:func:`evp.ranking.task_curves`'s table: ``task``, ``model``,
    ``n``, ``median``), one line per model in the same colour on every panel,
    and one legend below them.

    Returns
    -------
    numpy.ndarray of matplotlib.axes.Axes
        One per task (any panel left over is hidden).
    """
    plt = import_optional_dependency("matplotlib.pyplot")

    tasks = list(dict.fromkeys(curves["task"]))
    models = list(dict.fromkeys(curves["model"]))
    marked = _highlighted(models, highlight)
    colors = dict(zip(models, _colors(PALETTE, len(models)), strict=False))
    columns = max(1, min(columns, len(tasks)))
    rows = -(-len(tasks) // columns)
    with plt.rc_context(theme()):
        figure, axes = plt.subplots(rows, columns, squeeze=False, sharex=True,
                                    figsize=(2.2 * columns + 0.3, 1.9 * rows + 0.8),
                                    layout="constrained")
    for ax, task in zip(axes.flat, tasks, strict=False):
        part = curves[curves["task"] == task]
        for model, line in part.groupby("model", sort=False):
            line = line.sort_values("n")
            ax.plot(line["n"], line["median"], color=colors[model],
                    linewidth=2.2 if model in marked else 1.2, marker="o",
                    markersize=2, label=str(model))
        ax.set_xscale("log")
        plain_log_axis(ax.xaxis)
        ax.set_title(str(task), fontsize="medium")
        ax.tick_params(labelsize="small")
    for ax in axes.flat[len(tasks):]:
        ax.set_visible(False)
    for ax in axes[-1]:
        ax.set_xlabel("budget n (rounds)", fontsize="small")
    for ax in axes[:, 0]:
        ax.set_ylabel(f"median {'lowest' if minimize else 'best'} {y}",
                      fontsize="small")
    # Every model once, from whichever panel drew it (a model may lack a task).
    drawn = {}
    for ax in axes.flat[:len(tasks)]:
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            drawn.setdefault(label, handle)
    figure.legend(list(drawn.values()), list(drawn), loc="outside lower center",
                  fontsize="small", ncols=min(len(drawn), 3))
    return axes.ravel()[:len(tasks)]


@_names_as_written
def plot_profiles(profile, *, highlight=None, ax=None):
    """Performance profiles at one budget (:func:`evp.ranking.profile_table`): the
    share of tasks on which each model's median curve reaches each level of the
    task's scale.

    Returns
    -------
    matplotlib.axes.Axes
    """
    plt = import_optional_dependency("matplotlib.pyplot")

    if ax is None:
        with plt.rc_context(theme()):
            _, ax = plt.subplots(figsize=(6.4, 4.0), layout="constrained")
    models = list(dict.fromkeys(profile["model"]))
    marked = _highlighted(models, highlight)
    for model, color in zip(models, _colors(PALETTE, len(models)), strict=False):
        part = profile[profile["model"] == model]
        ax.step(part["tau"], part["share of tasks"], where="post", color=color,
                linewidth=2.4 if model in marked else 1.2,
                label=model if len(models) <= 12 or model in marked else None)
    ax.set(xlabel="level τ on each task's scale", ylabel="share of tasks reaching τ",
           ylim=(-0.02, 1.02))
    ax.set_title("Performance profiles", fontsize="medium")
    if ax.get_legend_handles_labels()[0]:
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize="small")
    return ax


@_names_as_written
def plot_ranking(table, *, highlight=None, y: str = "score"):
    """The figure of ``evp compare`` with many models: the ranks across tasks
    (:func:`evp.ranking.rank_table`'s table) or, for one task, the verdict matrix
    at the largest budget (:func:`evp.compare_all`'s table)."""
    if "mean rank" in table:
        return plot_ranks(table, highlight=highlight)
    return plot_verdict_matrix(table, highlight=highlight)


def _cliques(order: list, differ: set) -> list[tuple[int, int]]:
    """Maximal runs i..j of models in rank order in which no pair differs."""
    runs = []
    for i in range(len(order)):
        j = i
        while j + 1 < len(order) and not any(
                frozenset((order[k], order[j + 1])) in differ for k in range(i, j + 1)):
            j += 1
        if j > i and not any(a <= i and j <= b for a, b in runs):
            runs.append((i, j))
    return runs


@_names_as_written
def plot_critical_difference(ranked, pairs, n, *, highlight=None, ax=None):
    """A critical-difference-style figure at budget `n`: the models on their mean
    rank across tasks (:func:`evp.ranking.rank_table`), and a bar joining each
    maximal group of models that no test tells apart, the tests being each pair's
    Wilcoxon signed-rank test across tasks with Holm over the pairs
    (:func:`evp.ranking.pairs_across_tasks`'s ``differ``), not the differences of
    mean ranks.

    Returns
    -------
    matplotlib.axes.Axes
    """
    plt = import_optional_dependency("matplotlib.pyplot")

    at = ranked[ranked["n"] == n].sort_values("mean rank")
    if at.empty:
        raise ValueError(f"n={n} is not one of the table's budgets: "
                         f"{sorted(set(ranked['n']))}")
    order = list(at["model"])
    here = pairs[(pairs["n"] == n) & pairs["differ"]]
    differ = {frozenset(p) for p in here[["a", "b"]].itertuples(index=False)}
    groups = _cliques(order, differ)
    count = len(order)
    if ax is None:
        with plt.rc_context(theme()):
            _, ax = plt.subplots(figsize=(6.4, 1.4 + 0.22 * count + 0.15 * len(groups)),
                                 layout="constrained")
    marked = _highlighted(order, highlight)
    ranks_ = at["mean rank"].to_numpy(float)
    left = [i for i in range(count) if i < (count + 1) // 2]
    for i, (model, rank) in enumerate(zip(order, ranks_, strict=True)):
        side = i in left
        y = -(i if side else count - 1 - i) - 1
        x_text = 0.5 if side else count + 0.5
        ax.plot([rank, rank, x_text], [0, y, y], color="0.3", linewidth=0.8)
        # Outside the line's end: rank 1 is on the right (the axis is inverted).
        ax.text(x_text + (-0.1 if side else 0.1), y, f"{model} ({rank:.2f})",
                ha="left" if side else "right", va="center", fontsize="small",
                fontweight="bold" if model in marked else "normal")
    for g, (i, j) in enumerate(groups):
        y = 0.35 + 0.3 * g
        ax.plot([ranks_[i] - 0.05, ranks_[j] + 0.05], [y, y], color=PALETTE[0],
                linewidth=3, solid_capstyle="round")
    ax.set_xlim(count + 0.5, 0.5)  # rank 1, the best, on the right
    ax.set_ylim(-(count + 1) // 2 - 1, 0.6 + 0.3 * len(groups))
    ax.spines[["left", "right", "bottom"]].set_visible(False)
    ax.xaxis.set_ticks_position("top")
    ax.set_yticks([])
    ax.set_xticks(range(1, count + 1, max(1, -(-count // 12))))  # at most 12
    ax.grid(False)
    ax.set_title(f"Mean rank at n = {n}; bars join models no test tells apart",
                 fontsize="medium", pad=22)
    return ax


@_names_as_written
def plot_sequential_bands(table, *, y: str = "score", minimize: bool = False,
                          logx: bool = True, palette=None, ax=None):
    """Draw each model's sequential band (the table of :func:`evp.analyses`'s
    watch: columns model, n, lower, estimate, upper): a translucent band
    around the estimate per model, an infinite edge drawn open.

    Returns the matplotlib Axes.
    """
    plt = import_optional_dependency("matplotlib.pyplot")

    models = list(dict.fromkeys(table["model"]))
    colors = dict(zip(models, _colors(palette, len(models)), strict=True))
    with plt.rc_context(theme()):
        if ax is None:
            _, ax = plt.subplots(figsize=(6.4, 3.8), layout="constrained")
        low, high = _finite_range(table["lower"], table["estimate"],
                                  table["upper"])
        span = high - low or 1.0
        # Room for an open edge's fade and its label, on the side it opens to.
        top = 0.4 if not np.isfinite(table["upper"]).all() else 0.08
        bottom = 0.4 if not np.isfinite(table["lower"]).all() else 0.08
        ax.set_ylim(low - bottom * span, high + top * span)
        opened = set()
        for i, model in enumerate(models):
            rows = table[table["model"] == model]
            x = rows["n"].to_numpy(dtype=float)
            estimate = rows["estimate"].to_numpy(dtype=float)
            opened |= set(_band(ax, x, rows["lower"].to_numpy(dtype=float),
                                estimate, rows["upper"].to_numpy(dtype=float),
                                colors[model], nudge=i))
            ax.plot(x, estimate, color=colors[model], marker="o", markersize=3,
                    linewidth=1.4, label=str(model))
        budgets = np.unique(table["n"].to_numpy(dtype=float))
        if logx and budgets.size > 1:
            ax.set_xscale("log")
            ax.xaxis.set_minor_locator(
                import_optional_dependency("matplotlib.ticker").NullLocator())
        ax.set_xticks(budgets, [f"{n:g}" for n in budgets])
        ax.set_xlabel("budget n (rounds of search)")
        # The median best of n rounds: not the expected best of score_label.
        ax.set_ylabel(f"median best {y} of n rounds"
                      + (" (lower is better)" if minimize else ""))
        ax.legend(fontsize="small", frameon=False)
        if opened:
            _open_label(ax, opened)
    return ax
