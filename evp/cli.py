"""The `evp` command line.

    evp curve RESULTS --score COL [--group COL] [--estimator v|u|w]
              [--band METHOD --confidence 0.8] [--out FILE.csv|FILE.png]
    evp compare RESULTS --score COL --group COL A B [--confidence 0.8]
    evp reproduce [--only NAME] [-p key=value ...]
    evp search sst5 --model lr|lboe|cnn --trials 100 --seed 0 --out FILE.jsonl

Bad input gives a one-line message on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import ast
import sys
import warnings
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


# Folders whose notebooks are not analyses to execute: nbgrader assignments (the
# teacher's versions hold solutions; nbgrader runs them) and Jupyter's autosaves.
SKIPPED_FOLDERS = {"assignments", ".ipynb_checkpoints"}


def _notebooks(folder: Path, only: list[str] | None) -> list[Path]:
    found = sorted(
        (p for p in folder.rglob("*.ipynb")
         if not SKIPPED_FOLDERS & set(p.relative_to(folder).parts[:-1])),
        key=lambda p: (len(p.relative_to(folder).parts), p),
    )
    if only:
        names = {p.stem: p for p in found}
        unknown = [name for name in only if Path(name).stem not in names]
        if unknown:
            raise UsageError(f"no notebook named {', '.join(unknown)} in {folder}; "
                             f"available: {', '.join(names) or 'none'}")
        found = [names[Path(name).stem] for name in only]
    return found


BAND_METHODS = ("dkw", "ks", "ld_equal_tailed", "ld_highest_density")
FIGURE_SUFFIXES = (".png", ".pdf", ".svg")


def _budgets(text: str | None):
    if text is None:
        return None
    try:
        return [float(v) if "." in v else int(v) for v in text.split(",")]
    except ValueError:
        message = f"--ns expects numbers separated by commas, not {text!r}"
        raise UsageError(message) from None


def _results(args: argparse.Namespace):
    from evp.datasets import read_results

    return read_results(args.results, score=args.score, group=args.group,
                        cost=getattr(args, "cost", None))


def curve(args: argparse.Namespace) -> int:
    import pandas as pd

    from evp.plot import tuning_curve_table

    out = Path(args.out) if args.out else None
    if out is not None and out.suffix not in (".csv", *FIGURE_SUFFIXES):
        raise UsageError(f"--out must end in .csv or {', '.join(FIGURE_SUFFIXES)}, "
                         f"got {out.name}")
    # Keep the user's column names: they label the table's plot.
    data = _results(args).rename(columns={"score": args.score, "group": args.group,
                                          "cost": args.cost})
    options = dict(y=args.score, hue=args.group, cost=args.cost,
                   estimator=args.estimator,
                   ns=_budgets(args.ns), band=args.band, confidence=args.confidence,
                   minimize=args.minimize)
    table = tuning_curve_table(data, **options)
    with pd.option_context("display.max_rows", None, "display.width", 120):
        print(table.to_string(index=False, float_format=lambda v: f"{v:.4f}"))
    if out is None:
        return 0
    if out.suffix == ".csv":
        table.to_csv(out, index=False)
    else:
        import matplotlib

        matplotlib.use("Agg")
        from evp.plot import plot_tuning_curves

        ax = plot_tuning_curves(data, **options, x="cost" if args.cost else "trials")
        ax.figure.savefig(out, bbox_inches="tight", dpi=150)
    print(f"wrote {out}")
    return 0


def compare(args: argparse.Namespace) -> int:
    import pandas as pd

    from evp.bands import compare as compare_models

    data = _results(args)
    scores = {}
    for name in (args.a, args.b):
        rows = data[data["group"] == name]
        if rows.empty:
            groups = ", ".join(map(str, data["group"].unique()))
            raise UsageError(f"no rounds of model {name!r} in column {args.group!r}; "
                             f"models: {groups}")
        scores[name] = rows["score"].to_numpy()
    ns = _budgets(args.ns)
    if ns is None:
        ns = list(range(1, min(map(len, scores.values())) + 1))
    result = compare_models(scores[args.a], scores[args.b], ns, args.confidence,
                            method=args.method, minimize=args.minimize)
    table = pd.DataFrame({
        "n": result.ns,
        f"{args.a} lower": result.band_a.lower,
        f"{args.a} median": result.band_a.estimate,
        f"{args.a} upper": result.band_a.upper,
        f"{args.b} lower": result.band_b.lower,
        f"{args.b} median": result.band_b.estimate,
        f"{args.b} upper": result.band_b.upper,
        f"evidence {args.a} beats {args.b}": result.evidence,
    })
    with pd.option_context("display.max_rows", None, "display.width", 160):
        print(table.to_string(index=False, float_format=lambda v: f"{v:.4f}"))
    return 0


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
            str(path), str(path), parameters=parameters, cwd=str(path.parent),
            progress_bar=False,
        )
    print(f"executed {len(notebooks)} notebook(s) in {folder}")
    return 0


def search(args: argparse.Namespace) -> int:
    try:
        from evp.search import sst5
    except ImportError as error:  # pragma: no cover - needs the search extra
        raise UsageError(f"needs the search extra: pip install 'evp[search]' "
                         f"({error})") from None
    from evp.search.runner import run_search

    if args.trials < 1 or args.jobs < 1:
        raise UsageError("--trials and --jobs must be at least 1")
    trials = run_search(
        train=sst5.train, sample=sst5.sample_config, task=args.task,
        model=args.model, trials=args.trials, seed=args.seed, out=args.out,
        jobs=args.jobs,
        options={"subset": args.subset, "max_epochs": args.max_epochs},
    )
    seconds = [t["seconds"] for t in trials]
    print(f"{len(trials)} trials in {args.out}: best dev accuracy "
          f"{max(t['accuracy'] for t in trials):.4f}; seconds per trial mean "
          f"{sum(seconds) / len(seconds):.1f}, min {min(seconds):.1f}, "
          f"max {max(seconds):.1f}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="evp", description="Judge models by their tuning effort.")
    commands = parser.add_subparsers(dest="command", required=True)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("results", metavar="RESULTS",
                        help="search results: .csv, .tsv or .jsonl, one row per round")
    common.add_argument("--score", required=True, metavar="COL",
                        help="column of validation scores")
    common.add_argument("--minimize", action="store_true",
                        help="scores are losses: lower is better")
    common.add_argument("--ns", metavar="N,N,...",
                        help="budgets to report (default 1..B)")

    one = commands.add_parser(
        "curve", parents=[common], help="tuning curves of one or more models",
        description="Expected best score after n rounds of random search, its "
                    "standard deviation, and optional confidence bands.")
    one.add_argument("--group", metavar="COL", help="column naming the model")
    one.add_argument("--cost", metavar="COL", help="column of per-round cost")
    one.add_argument("--estimator", choices=("v", "u", "w"), default="v")
    one.add_argument("--band", choices=BAND_METHODS,
                     help="add a median tuning-curve band of this kind")
    one.add_argument("--confidence", type=float, default=0.8)
    one.add_argument("--out", metavar="FILE", help="write a .csv table or a figure")
    one.set_defaults(handler=curve)

    two = commands.add_parser(
        "compare", parents=[common], help="does model A beat model B?",
        description="Median tuning-curve bands of two models and, per budget, the "
                    "evidence that A beats B: strong, fair, weak or none.")
    two.add_argument("--group", required=True, metavar="COL",
                     help="column naming the model")
    two.add_argument("a", metavar="A", help="first model")
    two.add_argument("b", metavar="B", help="second model")
    two.add_argument("--confidence", type=float, default=0.8)
    two.add_argument("--method", choices=BAND_METHODS, default="ld_highest_density")
    two.set_defaults(handler=compare)

    hunt = commands.add_parser(
        "search", help="run (or resume) a random hyperparameter search",
        description="Random search on SST-5; one JSON line per finished trial. "
                    "Rerunning the same command resumes after the last complete "
                    "trial.")
    hunt.add_argument("task", choices=("sst5",))
    hunt.add_argument("--model", required=True, choices=("lr", "lboe", "cnn"))
    hunt.add_argument("--trials", type=int, default=100)
    hunt.add_argument("--seed", type=int, default=0)
    hunt.add_argument("--out", required=True, metavar="FILE.jsonl")
    hunt.add_argument("--jobs", type=int, default=1, help="trials run in parallel")
    hunt.add_argument("--subset", type=int, metavar="N",
                      help="use only the first N sentences of each split (tests)")
    hunt.add_argument("--max-epochs", type=int, metavar="N",
                      help="cap on training epochs (default: per model)")
    hunt.set_defaults(handler=search)

    run = commands.add_parser(
        "reproduce", help="execute the notebooks with papermill, in place",
        description="Execute every notebook under the folder (or those named with "
                    "--only) in place with papermill, each in its own folder; "
                    "figures go to figures/. nbgrader assignments are skipped.")
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
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            status = args.handler(args)
        except (UsageError, ValueError, OSError) as error:
            print(f"evp {args.command}: {error}", file=sys.stderr)
            status = 2
    # Each distinct warning once, on one line, without the library's file and line.
    shown = (RuntimeWarning, UserWarning)
    for message in dict.fromkeys(str(w.message) for w in caught
                                 if issubclass(w.category, shown)):
        print(f"evp {args.command}: warning: {message}", file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
