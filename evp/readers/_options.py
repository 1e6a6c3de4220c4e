"""A reader's option, declared once where the reader is: its default, and the
words the command line offers it in.

A reader lists its options as ``{name: Option(...)}`` beside its ``read``;
:class:`evp.readers.registry.Reader` keeps them, :func:`evp.read_results` passes
each reader its own, and everything else is made from the declaration: the
command line's flag (``per_trial`` → ``--per-trial``), ``evp run``'s passing
of it to the notebook, and the entry of :func:`evp.read_results`' docstring
(:func:`document`, and with it the reference pages). A new option is then two
edits in the reader's module: its entry, and its use in ``read``.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Option", "document"]


@dataclass(frozen=True)
class Option:
    """One option of a reader.

    Attributes
    ----------
    default : object
        What the reader is given when the user gives nothing (None included).
    help : str
        The command line's help, starting with the tool it is for ("Optuna: …").
    metavar : str, optional
        The value's placeholder on the command line (``NAME``).
    choices : tuple, optional
        The values it takes, when they are few.
    claims : bool, default False
        Given, it says the source is its reader's kind (MLflow's
        `experiment`: a tracking URI of any form is then MLflow's).
    doc : str, optional
        What :func:`evp.read_results`' docstring says of it (default: `help`).
    kind : str, default "str"
        Its type, as the docstring says it (the `choices` when given).
    """

    default: object = None
    help: str = ""
    metavar: str | None = None
    choices: tuple | None = None
    claims: bool = False
    doc: str = ""
    kind: str = "str"


def document(options: dict, indent: int = 4) -> str:
    """The numpydoc entries of `options` ({name: Option}), indented by
    `indent` spaces: ``name : kind, default X`` and its text, wrapped."""
    import textwrap

    pad = " " * indent
    lines = []
    for name, option in options.items():
        kind = ("{" + ", ".join(repr(c) for c in option.choices) + "}"
                if option.choices else option.kind)
        default = (", optional" if option.default is None
                   else f", default {option.default!r}")
        lines.append(f"{pad}{name} : {kind}{default}")
        text = option.doc or option.help
        lines += textwrap.wrap(text, 80 - indent, initial_indent=pad + "    ",
                               subsequent_indent=pad + "    ")
    return "\n".join(lines) + "\n"
