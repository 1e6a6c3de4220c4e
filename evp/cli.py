"""The `evp` command line.

    evp reproduce [--only NAME] [-p key=value ...]   run the notebooks (papermill)
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path


class UsageError(Exception):
    """Bad input on the command line: reported in one line, exit status 2."""


def _parse_parameter(text: str) -> tuple[str, object]:
    """`key=value` → (key, value), the value read as a Python literal if it is one."""
    key, sep, value = text.partition("=")
    if not sep or not key.isidentifier():
        raise UsageError(f"-p expects key=value, got {text!r}")
    try:
        return key, ast.literal_eval(value)
    except (ValueError, SyntaxError):
        return key, value


def _notebooks(folder: Path, only: list[str] | None) -> list[Path]:
    found = sorted(folder.glob("*.ipynb"))
    if only:
        names = {p.stem: p for p in found}
        unknown = [name for name in only if Path(name).stem not in names]
        if unknown:
            raise UsageError(f"no notebook named {', '.join(unknown)} in {folder}; "
                             f"available: {', '.join(names) or 'none'}")
        found = [names[Path(name).stem] for name in only]
    return found


def reproduce(args: argparse.Namespace) -> int:
    folder = Path(args.notebooks)
    if not folder.is_dir():
        raise UsageError(f"--notebooks: no folder {folder}")
    parameters = dict(_parse_parameter(p) for p in args.parameter)
    notebooks = _notebooks(folder, args.only)
    if not notebooks:
        print(f"no notebooks in {folder}: nothing to reproduce")
        return 0
    import papermill
    from tqdm.auto import tqdm

    for path in (bar := tqdm(notebooks, unit="notebook")):
        bar.set_description(path.stem)
        papermill.execute_notebook(
            str(path), str(path), parameters=parameters, cwd=str(folder),
            progress_bar=False,
        )
    print(f"executed {len(notebooks)} notebook(s) in {folder}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="evp", description="Judge models by their tuning effort.")
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser(
        "reproduce", help="execute the notebooks with papermill, in place",
        description="Execute every notebook (or those named with --only) in place "
                    "with papermill; figures go to figures/.")
    run.add_argument("--only", action="append", metavar="NAME",
                     help="run only this notebook (repeatable)")
    run.add_argument("-p", "--parameter", action="append", default=[],
                     metavar="KEY=VALUE", help="papermill parameter (repeatable)")
    run.add_argument("--notebooks", default="notebooks", metavar="DIR",
                     help="folder of notebooks (default: notebooks)")
    run.set_defaults(handler=reproduce)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.handler(args)
    except (UsageError, ValueError, FileNotFoundError) as error:
        print(f"evp {args.command}: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
