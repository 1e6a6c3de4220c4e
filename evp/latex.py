r"""LaTeX for a paper: ``booktabs`` tables and an appendix section to ``\input``.

* :func:`escape` — a user's string (a model's name, a column, a note) as LaTeX text.
* :func:`latex_table` — a DataFrame as a ``table`` float with ``booktabs`` rules
  and a caption.

What it writes needs ``\usepackage{booktabs}`` (and ``graphicx`` for a report's
figures) in the paper's preamble, nothing else: the characters that ``pdflatex``
cannot typeset from UTF-8 text without more packages (≈, ≥, ±, σ, arrows) are
written as math.
"""

from __future__ import annotations

import re
import textwrap
import unicodedata

import numpy as np
import pandas as pd

from evp._escape import CONTROLS
from evp._numbers import decimals, number

__all__ = ["PREAMBLE", "escape", "latex_table", "title"]

#: What a document needs in its preamble to ``\input`` evp's LaTeX.
PREAMBLE = ("\\usepackage[T1]{fontenc}\n\\usepackage{booktabs}\n"
            "\\usepackage{graphicx}\n")

# LaTeX's special characters, each as text. The backslash goes first, by the
# regular expression below, so that the braces it writes are not escaped again.
_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$",
            "#": r"\#", "_": r"\_\allowbreak{}", "{": r"\{", "}": r"\}",
            "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
            "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}",
            # Read by the command before them, not shown: a row (after \\) or an
            # \item that starts with "[" takes it for an optional argument ("Missing
            # number", or the item's label); after \\ a "*" is taken too. Braced,
            # each is only itself.
            "[": "{[}", "]": "{]}", "*": "{*}",
            # The ligatures of T1 text ("--" an en dash, "''" a closing quote,
            # ",," a low quote; "!`" and "?`" inverted marks): a name keeps its
            # characters. A backquote is a quote mark in T1, so spelled out.
            "`": r"\textasciigrave{}"}
_LIGATURES = r"([-',])(?=\1)"
# Characters beyond Latin-1 that evp's own tables and notes use, and that
# pdflatex's UTF-8 input does not set up: as math or text commands.
_UNICODE = {"≈": r"$\approx$", "≥": r"$\geq$", "≤": r"$\leq$", "±": r"$\pm$",
            "×": r"$\times$", "−": r"$-$", "→": r"$\rightarrow$",
            "←": r"$\leftarrow$", "∞": r"$\infty$", "·": r"$\cdot$",
            "²": r"$^2$", "σ": r"$\sigma$", "α": r"$\alpha$", "Δ": r"$\Delta$",
            "γ": r"$\gamma$", "ε": r"$\varepsilon$", "Σ": r"$\Sigma$",
            "∈": r"$\in$", "≠": r"$\neq$", "⌈": r"$\lceil$", "⌉": r"$\rceil$",
            "…": r"\ldots{}", "–": "--", "—": "---", "‘": "`", "’": "'",
            "“": "``", "”": "''", "§": r"\S{}", "✓": r"$\checkmark$"}
_PATTERN = re.compile("|".join([_LIGATURES, *(re.escape(c) for c in [*_SPECIAL,
                                                                      *_UNICODE])]))
_SPACES = dict.fromkeys(CONTROLS, " ")
# The letters below U+0180 that the T1, OT1 and TS1 encodings do not set up for
# UTF-8 input ("Unicode character Ħ not set up for use with LaTeX").
_UNSET = frozenset("ĦħĸĿŀŉŦŧſ")


def escape(text) -> str:
    r"""`text` as LaTeX that typesets as written: the special characters escaped
    (``model_a`` → ``model\_\allowbreak{}a``: a long name may break after its
    underscores; ``50%`` → ``50\%``), the symbols evp writes as
    math, and any other character beyond what ``pdflatex`` reads from UTF-8
    spelled by its nearest ASCII letters (its Unicode name where there are none).

    >>> escape("lr_0.1 & 50% #1")
    'lr\\_\\allowbreak{}0.1 \\& 50\\% \\#1'
    >>> escape("≈ 3 GPU-hours, n ≥ 2")
    '$\\approx$ 3 GPU-hours, n $\\geq$ 2'
    """
    # A control character as a space: a newline (two make a blank line, which
    # ends a paragraph and breaks a table's row), a tab, an escape.
    text = str(text).translate(_SPACES)
    out = _PATTERN.sub(_escaped, text)
    return "".join(c if ord(c) < 0x180 and c not in _UNSET else _ascii(c)
                   for c in out)


def _escaped(match) -> str:
    found = match.group()
    if match.group(1):  # the first of a ligature's pair, kept apart from the next
        return found + "{}"
    return _SPECIAL.get(found) or _UNICODE[found]


def title(text) -> str:
    r"""`text` escaped as a heading: as :func:`escape`, but an identifier is
    never broken (no break after its underscores: ``val_acc`` stays whole)."""
    return escape(text).replace(r"\_\allowbreak{}", r"\_")


# Greek letters by name as math: "βVAE" is $\beta$VAE. Capitals that look
# like Latin ones (Alpha, Beta, ...) are those letters; omicron is an o.
_GREEK_CAPITALS = ("gamma", "delta", "theta", "lambda", "xi", "pi", "sigma",
                   "upsilon", "phi", "psi", "omega")
_GREEK_SMALL = {"phi": "varphi", "final sigma": "varsigma", "epsilon": "varepsilon",
                "omicron": None}
_GREEK_SYMBOLS = {"theta symbol": "vartheta", "phi symbol": "phi",
                  "pi symbol": "varpi", "rho symbol": "varrho",
                  "lunate epsilon symbol": "epsilon", "kappa symbol": "varkappa"}


def _greek(character: str) -> str | None:
    """A Greek letter as LaTeX math (or its Latin look-alike), else None."""
    name = unicodedata.name(character, "").lower()
    for prefix, capital in (("greek small letter ", False),
                            ("greek capital letter ", True), ("greek ", False)):
        if not name.startswith(prefix):
            continue
        letter = name.removeprefix(prefix).replace("lamda", "lambda")
        if prefix == "greek ":
            command = _GREEK_SYMBOLS.get(letter)
        elif capital:
            command = (letter.capitalize() if letter in _GREEK_CAPITALS
                       else None)
        else:
            command = _GREEK_SMALL.get(letter, letter)
        if command is not None and " " not in command:
            return f"$\\{command}$"
        plain = unicodedata.normalize("NFKD", character).encode("ascii", "ignore")
        look_alike = {"alpha": "A", "beta": "B", "epsilon": "E", "zeta": "Z",
                      "eta": "H", "iota": "I", "kappa": "K", "mu": "M", "nu": "N",
                      "omicron": "O", "rho": "P", "tau": "T", "chi": "X"}
        if capital and letter in look_alike:
            return look_alike[letter]
        if letter == "omicron":
            return "o"
        return plain.decode() or None
    return None


def _ascii(character: str) -> str:
    """A character pdflatex cannot set, as LaTeX math (a Greek letter), as its
    ASCII letters (é is kept above; here e.g. Ł) or, failing that, its Unicode
    name in brackets (braced, so that no command before it reads it as an
    optional argument)."""
    greek = _greek(character)
    if greek:
        return greek
    plain = unicodedata.normalize("NFKD", character).encode("ascii", "ignore")
    if plain:
        return escape(plain.decode())
    name = unicodedata.name(character, f"U+{ord(character):04X}").lower()
    return f"{{[}}{name}{{]}}"


def _cell(value, places: int | None = None, open_: bool = False) -> str:
    if isinstance(value, bool | np.bool_):
        return "yes" if value else "no"
    if isinstance(value, float | np.floating):
        if np.isnan(value):
            return ""
        if np.isinf(value):  # an open band edge
            if open_:
                return "open"
            return r"$\infty$" if value > 0 else r"$-\infty$"
        text = number(value, places)
        # A minus sign, not a hyphen: "−0.25", as the number is typeset.
        return (r"$-$" + escape(text[1:]) if text.startswith("-")
                else escape(text))
    if value is None or value is pd.NA or value is pd.NaT:
        return ""
    return escape(value)


def _plain(value, places: int | None = None) -> str:
    """A cell's text as it reads, before escaping: what its width is."""
    if isinstance(value, float | np.floating) and np.isfinite(value):
        return number(value, places)
    if isinstance(value, float | np.floating) and np.isinf(value):
        return "open"
    return str(value)


def _numeric(column: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(column) and not pd.api.types.is_bool_dtype(
        column)


def _wrapped(name, width: int = 14) -> list[str]:
    """A column's name in lines of about `width` characters, broken between words
    or after an underscore (a model's name, k_nearest_neighbors, is as wide as
    its longest part), never inside a word."""
    # A space after each underscore lets textwrap break there; taken out again.
    lines = textwrap.wrap(str(name).replace("_", "_ "), width,
                          break_long_words=False, break_on_hyphens=False)
    return [line.replace("_ ", "_") for line in lines] or [""]


def _header(name, width: int = 14, align: str = "l") -> str:
    """A column's name, broken into lines of about `width` characters (a cell of
    its own, its lines aligned as the column's numbers or text: `align`), so
    that long names do not widen the table."""
    lines = _wrapped(name, width)
    if len(lines) == 1:
        return escape(lines[0])
    return (f"\\begin{{tabular}}[b]{{@{{}}{align}@{{}}}}"
            + " \\\\ ".join(escape(x) for x in lines) + "\\end{tabular}")


def _groups(lengths: list, page: int) -> list[list[int]]:
    """The columns in the fewest parts of about equal width that each fit a
    line of `page` characters, every part led by the first column (what names
    the rows); one part when no count of parts fits."""
    rest = list(range(1, len(lengths)))
    for parts in range(2, len(rest) + 1):
        groups = [[0, *(int(j) for j in chunk)]
                  for chunk in np.array_split(rest, parts)]
        if all(sum(lengths[j] + 3 for j in group) <= page for group in groups):
            return groups
    return [[0, *rest]]


#: About the characters of \\small text a column of a two-column page holds
#: (about 240pt): a table wider than this is set across both columns.
COLUMN = 50


def latex_table(frame: pd.DataFrame, *, caption: str, label: str | None = None,
                wrap: int = 40, page: int = 76, open_: str | None = None) -> str:
    r"""`frame` as a ``table`` float: ``booktabs`` rules, numbers right-aligned
    (4 significant digits, open band edges as :math:`\infty`), text left-aligned,
    long column names on several lines, and columns whose text runs longer than
    `wrap` characters set as wrapping paragraphs. A table wider than a column of
    a two-column page is a ``table*`` (both columns; in one column, a plain
    float), and one still wider than its line is scaled to fit it (only then:
    LaTeX measures it).

    Parameters
    ----------
    frame : pandas.DataFrame
        Its columns become the header, its rows the body (the index is left out).
    caption : str
        Below the table; say the method, the confidence and the rounds.
    label : str, optional
        For ``\ref``; written as given (letters, digits, ``:-_.``).
    wrap : int, default 40
    page : int, default 76
        About the characters of \small text a line holds (345pt).
    open_ : str, optional
        What an open band edge means, for the caption: given, an infinite cell
        reads "open" and the caption ends with "Open: `open_`."; by default
        it reads :math:`\infty`.

    Returns
    -------
    str
        Text to ``\input``; needs ``\usepackage{booktabs}``.
    """
    if not isinstance(frame, pd.DataFrame):
        raise ValueError(f"frame must be a pandas DataFrame, got "
                         f"{type(frame).__name__}")
    if label is not None and not re.fullmatch(r"[A-Za-z0-9:._-]+", label):
        raise ValueError(f"label must be letters, digits and ':._-', got {label!r}")
    places = [decimals(frame.iloc[:, j]) if _numeric(frame.iloc[:, j]) else None
              for j in range(frame.shape[1])]
    opened = open_ is not None and any(
        isinstance(v, float | np.floating) and np.isinf(v)
        for row in frame.itertuples(index=False) for v in row)
    cells = [[_cell(v, places[j], opened) for j, v in enumerate(row)]
             for row in frame.itertuples(index=False)]
    plain = [[_plain(v, places[j]) for j, v in enumerate(row)]
             for row in frame.itertuples(index=False)]
    kinds, lengths, words, width, heads = [], [], [], 0, []
    for j, name in enumerate(frame.columns):
        # A column of numbers is as wide as its numbers: its name wraps to
        # them ("scaled median" on two lines over 0.901), not the reverse.
        heads.append(max(8, *(len(row[j]) for row in plain)) if _numeric(
            frame.iloc[:, j]) and plain else 14)
        header = max(len(line) for line in _wrapped(name, heads[-1]))
        # Measured as typeset (an escaped underscore is one character wide).
        longest = max([header, *(len(row[j]) for row in plain)])
        lengths.append(min(longest, 60))
        # The longest word a paragraph cell cannot break (a model's name).
        words.append(max(len(w) for text in [str(name), *(row[j] for row in plain)]
                         for w in [*re.split(r"[\s_/-]+", text), ""]))
        if _numeric(frame.iloc[:, j]):
            kinds.append("r")
        elif longest > wrap:
            kinds.append("p")
            longest = wrap
        else:
            kinds.append("l")
        width += longest + 3  # a column's padding is about 3 characters
    # Paragraph columns share what the others leave of the line (about 0.016
    # of it per character at \small, 0.035 per column's padding), each in
    # proportion to its text and at most `share`: the table never runs over.
    share = max(0.9 / max(1, frame.shape[1]), 0.3)
    fixed = sum(0.016 * n for n, k in zip(lengths, kinds, strict=True) if k != "p")
    room = 0.95 - fixed - 0.035 * len(kinds)
    weights = [n for n, k in zip(lengths, kinds, strict=True) if k == "p"]
    least = [0.017 * w + 0.01 for w, k in zip(words, kinds, strict=True) if k == "p"]
    widths = [max(low, min(share, max(room, 0) * w / sum(weights)))
              for w, low in zip(weights, least, strict=True)]
    natural = width  # in characters, paragraphs at their `wrap`
    if widths:  # paragraphs set the width: too wide only if they run over
        width = page + 1 if sum(widths) > room + 1e-9 else 0
    widths = iter(widths)
    columns = [f"p{{{next(widths):.2f}\\linewidth}}" if k == "p" else k
               for k in kinds]
    # A paragraph cell is ragged-right (no stretched gaps between its words);
    # \raggedright redefines \\, so its rows end in \tabularnewline.
    ragged = "p" in kinds
    end = " \\tabularnewline" if ragged else " \\\\"
    cells = [[f"\\raggedright {c}" if k == "p" and c else c
              for c, k in zip(row, kinds, strict=True)] for row in cells]
    def tabular(chosen) -> list[str]:
        return [f"\\begin{{tabular}}{{{''.join(columns[j] for j in chosen)}}}",
                "\\toprule",
                " & ".join(_header(frame.columns[j], heads[j],
                                   "r" if kinds[j] == "r" else "l")
                           for j in chosen) + end,
                "\\midrule",
                *(" & ".join(row[j] for j in chosen) + end for row in cells),
                "\\bottomrule", "\\end{tabular}"]

    groups = _groups(lengths, page) if width > page and not ragged else None
    if groups is not None and len(groups) > 1:
        # Too wide for a line: the columns in parts, one under the other, each
        # led by the first column, at the text's size (a table scaled to fit
        # was set at 6pt in one column).
        body = []
        for part, chosen in enumerate(groups):
            body += ([] if part == 0 else ["\\par\\medskip"]) + tabular(chosen)
        width = 0
    else:
        body = tabular(range(len(columns)))
    if width > page:  # maybe wider than the line: scaled to it only if it is
        body = ["\\sbox0{%", *body, "}%",
                "\\ifdim\\wd0>\\linewidth\\resizebox{\\linewidth}{!}{\\usebox0}%",
                "\\else\\usebox0\\fi"]
    # Wider than a column of a two-column page: across both columns.
    float_ = "table*" if natural > COLUMN else "table"
    if opened:
        caption = f"{caption.rstrip('.')}. Open: {open_.rstrip('.')}."
    lines = [f"\\begin{{{float_}}}[htbp]", "\\centering", "\\small", *body,
             f"\\caption{{{escape(caption)}}}"]
    if label is not None:
        lines.append(f"\\label{{{label}}}")
    lines.append(f"\\end{{{float_}}}")
    return "\n".join(lines) + "\n"
