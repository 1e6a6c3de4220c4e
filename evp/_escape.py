"""Users' strings (model, task and column names) written where they could act
rather than show: on a terminal, in a report, in a spreadsheet.

* :func:`one_line` — a string on one line of a terminal, its control and
  bidirectional formatting characters written as escapes.
* :func:`visible` — the bidirectional formatting characters alone as escapes,
  for documents (HTML, Markdown) whose own markup keeps lines apart.
* :func:`csv_text` — a table as CSV whose text cells no spreadsheet reads as a
  formula.
* :func:`look_alike` — two names that print alike (they differ only in
  invisible characters, spaces or Unicode normalisation), and how they differ.
* :func:`mathtext` — a string that matplotlib shows as written, never as
  mathtext (``"$10 a$"`` is not an italic "10a"; ``"$\\x$"`` is no parser error).
"""

from __future__ import annotations

import csv
import unicodedata

import pandas as pd

__all__ = ["BIDI", "CONTROLS", "csv_text", "look_alike", "mathtext", "one_line",
           "visible"]

#: The control characters (C0, DEL, C1): a terminal acts on them rather than
#: showing them (a newline breaks a one-line message, an escape sequence
#: recolours it).
CONTROLS = (*range(32), *range(127, 160))
#: The bidirectional formatting characters (embeddings, overrides, isolates,
#: the directional marks): a terminal or a browser reorders the text around
#: them, so that a name can show as another (a right-to-left override turns
#: "model_b‮a_" into what reads as another model).
BIDI = (*range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x200E, 0x200F, 0x061C)

_BIDI = {c: f"\\u{c:04x}" for c in BIDI}
_ONE_LINE = {c: f"\\x{c:02x}" for c in CONTROLS}
_ONE_LINE.update({ord("\n"): "\\n", ord("\r"): "\\r", ord("\t"): "\\t"})
_ONE_LINE.update(_BIDI)


def one_line(text) -> str:
    r"""`text` on one line, as escapes where a terminal would act: ``"a\nb"``
    shows as ``a\nb``, a right-to-left override as ``\u202e``."""
    return str(text).translate(_ONE_LINE)


def visible(text) -> str:
    r"""`text` with its bidirectional formatting characters as escapes
    (``\u202e``), and nothing else changed."""
    return str(text).translate(_BIDI)


# What makes a spreadsheet read a cell as a formula (OWASP's CSV injection
# list): a cell starting with one of these.
_FORMULA = ("=", "+", "-", "@", "\t", "\r")


def _cell(value):
    """A text cell that a spreadsheet would read as a formula, prefixed with a
    single quote (OWASP's rule); numbers and anything else as they are."""
    if isinstance(value, str) and value.startswith(_FORMULA):
        return "'" + value
    return value


def csv_text(frame: pd.DataFrame) -> str:
    """`frame` as CSV text (no index) that a spreadsheet opens as data: every
    text cell and column name quoted, those starting like a formula (``=``,
    ``+``, ``-``, ``@``, a tab, a carriage return) prefixed with ``'``; numbers
    (negative ones too) written as numbers."""
    shown = frame.copy()
    shown.columns = [_cell(str(c)) for c in frame.columns]
    for index in range(frame.shape[1]):  # by position: names may repeat
        values = frame.iloc[:, index]
        if values.dtype == object or pd.api.types.is_string_dtype(values):
            shown.isetitem(index, values.map(_cell).astype(object))
    return shown.to_csv(index=False, quoting=csv.QUOTE_NONNUMERIC)


def mathtext(text) -> str:
    r"""`text` as matplotlib shows it as written: every dollar sign escaped
    (``\$``), so that no pair of them opens mathtext. Matplotlib then shows each
    ``\$`` as ``$`` and leaves every other character, a backslash too, as it is.

    >>> mathtext("$10 a$")
    '\\$10 a\\$'
    """
    return str(text).replace("$", "\\$")


# Characters that show as nothing, besides the format characters (Unicode's
# category Cf: zero-width space U+200B, soft hyphen U+00AD, byte-order mark
# U+FEFF, the joiners, the bidirectional controls): the combining grapheme
# joiner, the variation selectors and the Hangul fillers.
_BLANK = frozenset({0x034F, 0x115F, 0x1160, 0x3164, 0xFFA0, *range(0xFE00, 0xFE10)})


def _invisible(character: str) -> bool:
    return (unicodedata.category(character) == "Cf" or ord(character) in _BLANK)


def _key(name: str) -> str:
    """What a name shows as: NFC, without invisible characters, its spaces
    collapsed."""
    shown = "".join(c for c in unicodedata.normalize("NFC", name)
                    if not _invisible(c))
    return " ".join(shown.split())


def look_alike(names) -> tuple[str, str, str] | None:
    r"""The first two of `names` (strings) that are two as written but print
    alike, and how they differ: ``(first, second, why)``, or None.

    They differ only in invisible characters (a zero-width space U+200B, a soft
    hyphen U+00AD, a byte-order mark U+FEFF, ...), in their spaces ("a b" and
    "a  b"), or in their Unicode normalisation (NFC "café" and NFD "café").

    >>> look_alike(["model", "mo\u200bdel"])
    ('model', 'mo\u200bdel', 'invisible characters (U+200B ZERO WIDTH SPACE)')
    """
    seen: dict[str, str] = {}
    for name in names:
        key = _key(name)
        if key not in seen:
            seen[key] = name
            continue
        first = seen[key]
        if first == name:
            continue
        hidden = sorted({c for c in first + name if _invisible(c)})
        if hidden:
            why = "invisible characters (" + ", ".join(
                f"U+{ord(c):04X} {unicodedata.name(c, 'unnamed')}"
                for c in hidden) + ")"
        elif (unicodedata.normalize("NFC", first)
              == unicodedata.normalize("NFC", name)):
            why = "Unicode normalisation (composed and decomposed accents)"
        else:
            why = "their spaces"
        return first, name, why
    return None
