"""A reader's option, declared once where the reader is: its default, and the
words the command line offers it in.

A reader lists its options as ``{name: Option(...)}`` beside its ``read``;
:class:`evp.readers.registry.Reader` keeps them, :func:`evp.read_results` passes
each reader its own, and the command line makes one flag of each
(``per_trial`` → ``--per-trial``). A new option is then its entry here and its
use in ``read``.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Option"]


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
    """

    default: object = None
    help: str = ""
    metavar: str | None = None
    choices: tuple | None = None
