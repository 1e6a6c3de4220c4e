"""The `evp` command line::

    evp curve RESULTS --score COL [--group COL | --pool] [--estimator v|u|w]
              [--method METHOD|none --confidence 0.8] [--ns 1,5,10|all]
              [--out FILE.csv|.tex|.png|.pdf|.svg]
    evp compare RESULTS --score COL --group COL A B [--confidence 0.8]
              [--cost COL] [--out FILE.csv|.tex|.png|.pdf|.svg]
    evp reproduce [--only NAME] [-p key=value ...]
    evp run NOTEBOOK RESULTS --score COL [--group COL] [--models A,B] [--minimize]
            [--cost COL] [-p NAME=VALUE ...] [--out DIR]
    evp watch RESULTS --score COL --group COL [--ns 1,5] [--max-rounds N]
              [--follow [--interval 2]]
    evp search sst5 --model lr|lboe|cnn --trials 100 --seed 0 --out FILE.jsonl
               [--backend local|ray [--address ADDR]]

Bad input gives a one-line message on stderr and exit status 2; messages from the
library that name its keyword arguments (``estimator='v'``) are translated into the
options that set them (``--estimator v``).
"""

from __future__ import annotations

import argparse
import ast
import itertools
import os
import re
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

import evp
from evp import analyses
from evp._numbers import beyond_float, fixed
from evp._optional import DISTRIBUTION, install_command, missing_message
from evp._validation import reason as _reason
from evp.analyses import DEFAULT_MORE_ROUNDS, METHODS


class UsageError(Exception):
    """Bad input on the command line: reported in one line, exit status 2."""


def _parse_parameter(text: str) -> tuple[str, object]:
    """`key=value` → (key, value), the value read as a Python literal if it is one."""
    key, sep, value = text.partition("=")
    if not sep or not key.isidentifier():
        raise UsageError(f"-p expects key=value, got {text!r}")
    try:
        parsed = ast.literal_eval(value)
    except (ValueError, SyntaxError):
        return key, value
    # 6,12 reads as a tuple: a notebook wants it as a list.
    return key, list(parsed) if isinstance(parsed, tuple) else parsed


BAND_METHODS = METHODS  # the CDF bands' names
FIGURE_SUFFIXES = (".png", ".pdf", ".svg")


def _confidence(text: str) -> float:
    """--confidence: a level strictly between 0 and 1 (80% is 0.8)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expects a number between 0 and 1, got "
                                         f"{text!r}") from None
    if not 0 < value < 1:
        hint = f" (for {value:g}%, give {value / 100:g})" if 1 < value < 100 else ""
        raise argparse.ArgumentTypeError(f"must lie strictly between 0 and 1, got "
                                         f"{text}{hint}")
    return value


def _bounds(text: str) -> tuple[float, float]:
    """--bounds LO,HI: the score's possible range."""
    try:
        low, high = (float(v) for v in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expects LO,HI, e.g. 0,1; got "
                                         f"{text!r}") from None
    beyond = [v.strip() for v in text.split(",") if beyond_float(v)]
    if beyond:  # read as infinite, 1e400 would be no bound at all
        raise argparse.ArgumentTypeError(f"{beyond[0]} is beyond the range of a "
                                         "float (±1.8e308); give the score's range")
    if not low < high:
        raise argparse.ArgumentTypeError(f"needs LO < HI, got {text}")
    return low, high


def _budgets(text: str | None):
    """--ns: None for the readable default, "all" for every budget, or a list of
    whole numbers of rounds."""
    if text is None:
        return None
    if text.strip().lower() == "all":
        return "all"
    try:
        values = [float(v) for v in text.split(",")]
    except ValueError:
        values = None
    if not values or any(not v.is_integer() or v < 1 for v in values):
        raise UsageError(f"--ns expects whole numbers of rounds (at least 1) "
                         f"separated by commas, e.g. --ns 1,5,10, or --ns all; got "
                         f"{text!r}")
    return sorted({int(v) for v in values})


def _inputs(args: argparse.Namespace) -> list:
    """Every results path the command reads (several with NAME=PATH)."""
    sources = getattr(args, "sources", None)
    return list(sources.values()) if sources else [args.results]


def _named_source(word: str):
    """(name, path) of a NAME=PATH argument naming a file or folder that exists,
    else None."""
    name, sep, path = word.partition("=")
    if not sep or not name or word.startswith("-"):
        return None
    return (name, path) if Path(path).expanduser().exists() else None


def _several_sources(args: argparse.Namespace, words: list) -> list:
    """NAME=PATH results, several searches one model each: gathered into
    args.sources from RESULTS and the words argparse left over (or took for
    model names); the other words returned."""
    first = _named_source(args.results)
    rest, named = [], [first] if first else []
    for word in words:
        found = _named_source(word)
        (named.append(found) if found else rest.append(word))
    if named:
        if not first:
            raise UsageError(f"RESULTS: with several searches name each one, "
                             f"NAME=PATH; got {args.results!r} first")
        names = [n for n, _ in named]
        if len(set(names)) != len(names):
            raise UsageError(f"RESULTS: each search's name once, got "
                             f"{', '.join(names)}")
        args.sources = dict(named)
        args.results = named[0][1]
    return rest


def _results(args: argparse.Namespace, group: str | None, said: Said):
    """The results RESULTS names, read as the input options say; the reader's
    notes and warnings said."""
    from evp.readers import POOLED_MODELS, read_results

    failed = args.failed
    if args.drop_bad_rows:
        if failed not in (None, "drop"):
            raise UsageError(f"--drop-bad-rows is --failed drop; it contradicts "
                             f"--failed {failed}: give --failed only")
        failed = "drop"
    results = read_results(getattr(args, "sources", None) or args.results,
                           score=args.score, group=group,
                           cost=getattr(args, "cost", None), order=args.order,
                           runs=args.runs, task=args.task,
                           failed=failed or "error", minimize=_direction(args),
                           bounds=getattr(args, "bounds", None),
                           **_reading_options(args))
    if getattr(args, "pool", False):  # pooled as asked: no warning of it
        results = results.replace(warnings=tuple(
            w for w in results.warnings if POOLED_MODELS not in w))
    said.read(results)
    return results


class Said:
    """What a command has to say beside its result: notes on what was read or
    assumed, and warnings that an assumption looks broken, in the order said.
    A handler returns it with its status; the command line prints it on stderr
    (stdout holds the table alone) once the command has succeeded; an error is
    one line instead."""

    def __init__(self):
        self.lines: list[tuple[str, str]] = []  # ("note" or "warning", text)

    def note(self, text: str) -> None:
        self.lines.append(("note", text))

    def warn(self, text: str) -> None:
        self.lines.append(("warning", text))

    def read(self, results) -> None:
        """The reader's notes and warnings."""
        for note in results.notes:
            self.note(note)
        for warning in results.warnings:
            self.warn(warning)


def _direction(args: argparse.Namespace) -> bool | None:
    """--minimize (True), --maximize (False), or neither (None)."""
    return True if args.minimize else False if args.maximize else None


def _single_model_name(path: str) -> str:
    """The name of the one model of a file without --group: the file's name."""
    name = Path(path).name
    return name.split(".")[0] or name


def _check_out(out: str | None, inputs=()) -> Path | None:
    """--out as a path evp may write (see evp._output.check_output)."""
    from evp._output import check_output

    if out is None:
        return None
    path = Path(out)
    if path.suffix.lower() not in (".csv", ".tex", *FIGURE_SUFFIXES):
        raise UsageError(f"--out must end in .csv, .tex (a LaTeX table) or "
                         f"{', '.join(FIGURE_SUFFIXES)}, got {path.name}")
    return check_output(path, inputs=inputs, name="--out")


def _write(out: Path, content, said: Said, force: bool = False) -> None:
    """Write --out atomically (evp._output.write_output: a file evp did not
    write is replaced only with --force), saying so, and saying when it
    replaced a file."""
    from evp._output import write_output

    if write_output(out, content, force=force):
        said.note(f"replaced the existing {out}")
    print(f"wrote {out}")


def _print_table(table) -> None:
    # One row a line, whatever the models are called (see _shown).
    table = table.rename(columns=_shown).map(
        lambda v: _shown(v) if isinstance(v, str) else v)
    with pd.option_context("display.max_rows", None, "display.width", 200):
        print(table.to_string(index=False, float_format=fixed))


def _save_figure(result, out: Path) -> None:
    from evp.plot import _save

    first = result.flat[0] if isinstance(result, np.ndarray) else result
    _save(first.figure, out)


def _finish(table, out: Path | None, draw, caption: str, said: Said, *,
            force: bool = False, shown=None) -> tuple[int, Said]:
    """Print the table, then write it (.csv, or .tex with `caption`) or the figure
    `draw()` returns to --out (replacing a file evp did not write only when
    `force`). `shown`, when given, is printed instead: a summary of a table too
    long to read."""
    _print_table(table if shown is None else shown)
    if out is None:
        return 0, said
    if out.suffix.lower() == ".csv":
        from evp._escape import csv_text

        _write(out, csv_text(table), said, force)
    elif out.suffix.lower() == ".tex":
        from evp.latex import latex_table

        _write(out, latex_table(table, caption=caption), said, force)
    else:
        import matplotlib

        matplotlib.use("Agg")  # files only: no screen needed
        drawn = draw()
        _write(out, lambda path: _save_figure(drawn, path), said, force)
    return 0, said


def curve(args: argparse.Namespace) -> tuple[int, Said]:
    said = Said()

    method = args.method
    if args.old_band:
        if method not in (None, args.old_band):
            raise UsageError("--band is the old name of --method: give --method only")
        print("evp curve: warning: --band is renamed --method; --band will be "
              "removed", file=sys.stderr)
        method = args.old_band
    # The median band by default (the LD highest-density band, as the paper
    # recommends); --method none prints the curves alone.
    method = {None: "ld_highest_density", "none": None}.get(method, method)
    if args.pool and args.group:
        raise UsageError("--pool and --group contradict each other: --group COL "
                         "draws one curve per model, --pool one for all rows")
    out = _check_out(args.out, _inputs(args))
    ns = _budgets(args.ns)
    results = _results(args, args.group, said)
    if args.group is None:
        from evp.readers import POOLED_MODELS

        # A column naming models is not pooled silently: read_results warns
        # of it (evp.readers.POOLED_MODELS), and the command refuses.
        pooled = [w for w in results.warnings if POOLED_MODELS in w]
        if pooled and not args.pool:
            raise UsageError(pooled[0])
        # One model, named after the file rather than the score.
        results = results.replace(
            name=results.name or _single_model_name(args.results))
    if results.task is not None:
        if args.tail is not None or results.runs is not None:
            raise UsageError("--task: --tail and --runs read one task at a time; "
                             "run them on one task's rows")
        if out is not None and out.suffix.lower() not in (".csv", ".tex"):
            raise UsageError(f"--out {out.name}: a figure draws one task; with "
                             "--task write the table (.csv or .tex), or draw a "
                             "task's rows alone")
    if args.tail is not None:
        return _tail(args, results, ns, out, said)
    found = analyses.curves(results, estimator=args.estimator, method=method,
                            confidence=args.confidence, ns=ns,
                            drawn=out is not None and out.suffix.lower()
                            in FIGURE_SUFFIXES)
    for sentence in found.notes:
        said.note(sentence)
    return _finish(found.table, out, lambda: found.plot(
        cost_unit=args.cost_unit, x="cost" if args.cost else "trials"),
        found.caption(), said, force=args.force)


def _tail(args, results, ns, out, said: Said) -> tuple[int, Said]:
    """evp curve --tail: each model's fitted noisy quadratic tail (see
    evp.analyses.tail)."""
    found = analyses.tail(results, args.tail, args.confidence, ns)
    for line in found.lines:
        print(line)
    for sentence in found.notes:
        said.note(sentence)
    return _finish(found.table, out, found.plot, found.caption(), said,
                   force=args.force)


def compare(args: argparse.Namespace) -> tuple[int, Said]:
    said = Said()
    if args.all or len(args.models) != 2 or args.task is not None:
        return _compare_many(args)
    if args.baseline is not None:
        raise UsageError("--baseline is for three or more models: name them, or "
                         "give --all")
    a, b = args.models
    if a == b:
        raise UsageError(f"A and B are both {a!r}: name two different models "
                         "to compare")
    out = _check_out(args.out, _inputs(args))
    ns = _budgets(args.ns)
    results = _results(args, args.group, said)
    if results.group is None:
        raise UsageError("--group: name the column of model names, e.g. --group "
                         "model (several Optuna studies: --study A,B)")
    _check_highlight(args, results.select([a, b]))
    found = analyses.two_models(results, a, b, ns, args.confidence,
                                method=args.method,
                                drawn=out is not None and out.suffix.lower()
                                in FIGURE_SUFFIXES)
    for sentence in found.notes:
        said.note(sentence)
    return _finish(found.table, out, lambda: found.plot(cost_unit=args.cost_unit),
                   found.caption(), said, force=args.force)


def _compare_many(args: argparse.Namespace) -> tuple[int, Said]:
    """evp compare with three or more models (or --all), or with --task: the set
    that may still be best and every pair's verdict, family-wise; across tasks,
    the ranks, the aggregate curve and the pairs' tests."""
    said = Said()
    if args.models and args.all:
        raise UsageError("--all compares every model: leave out the model names, "
                         "or drop --all")
    if len(args.models) == 1:
        raise UsageError(f"compare needs two or more models, got only "
                         f"{args.models[0]!r}: name another, or give --all")
    if len(set(args.models)) != len(args.models):
        raise UsageError(f"each model once, got {' '.join(args.models)}")
    out = _check_out(args.out, _inputs(args))
    ns = _budgets(args.ns)
    results = _results(args, args.group, said)
    if results.group is None:
        raise UsageError("--group: name the column of model names, e.g. --group "
                         "model (several Optuna studies: --study A,B)")
    if results.runs is not None:
        raise UsageError("--runs: several models' repeated runs are compared two "
                         "at a time; name two models")
    if args.models:
        results = results.select(args.models)
    if args.baseline is not None and args.baseline not in results.models:
        raise UsageError(f"--baseline {args.baseline!r} is not one of the models: "
                         f"{', '.join(results.models)}")
    _check_highlight(args, results)
    if results.task is not None and args.adjust not in (None, "holm"):
        raise UsageError(f"--adjust {args.adjust}: across tasks the pairs' Wilcoxon "
                         "tests are always adjusted by Holm's step-down; leave "
                         "--adjust out")
    asked = args.adjust or "holm"
    adjust = None if asked == "none" else asked
    shown = None  # the table itself, unless it is summarised
    if results.task is not None:
        found = analyses.many_tasks(results, ns, args.confidence,
                                    baseline=args.baseline, method=args.method)
        print(found.heading)
    else:
        found = analyses.many_models(results, ns, args.confidence, adjust=adjust,
                                     baseline=args.baseline, method=args.method)
    for sentence in found.notes:
        said.note(sentence)
    table = None  # every pair's rows: built only to print or write them
    if results.task is None:
        rows = found.pairs.rows
        wanted = args.rows or (out is not None
                               and out.suffix.lower() in (".csv", ".tex"))
        if wanted and rows > analyses.MAX_PAIR_ROWS:
            raise UsageError(
                f"{'--rows' if args.rows else '--out'}: every pair's verdict at "
                f"every budget is {rows:,} rows ({len(results.models):,} models, "
                f"{len(found.pairs.budgets)} budgets), more than the "
                f"{analyses.MAX_PAIR_ROWS:,} evp prints or writes: name fewer models, "
                "compare with one (--baseline), or give fewer budgets (--ns)")
        if not args.rows:
            shown = found.summary()
            said.note(f"each model's strong verdicts, at any budget, counted; "
                      f"every pair's verdict at every budget ({rows} rows): "
                      "--rows prints them, --out FILE.csv writes them")
        table = found.table if wanted else shown
    caption = found.what if results.task is not None else found.caption()
    return _finish(found.table if table is None else table, out, lambda: found.plot(
        highlight=_listed(args.highlight)), caption, said, force=args.force,
        shown=shown)


def plan(args: argparse.Namespace) -> tuple[int, Said]:
    said = Said()
    from evp.plot import cost_unit

    if args.a == args.b:
        raise UsageError(f"A and B are both {args.a!r}: name two different models "
                         "to plan for")
    out = _check_out(args.out, _inputs(args))
    results = _results(args, args.group, said)
    if results.group is None:
        raise UsageError("--group: name the column of model names, e.g. --group "
                         "model (several Optuna studies: --study A,B)")
    ns = _budgets(args.ns)
    found = analyses.plan(results, args.a, args.b, args.budget, args.more,
                          args.confidence, method=args.method,
                          replications=args.replications, seed=args.seed,
                          tail=args.tail,
                          unit=args.cost_unit or cost_unit(results.cost),
                          ns=ns)
    for sentence in found.notes:
        said.note(sentence)
    done = _finish(found.table, out, found.plot, found.caption(), said,
                   force=args.force)
    print(found.sentence)
    return done


def watch(args: argparse.Namespace) -> tuple[int, Said]:
    """Read a running search, again every --interval seconds with --follow,
    until it is settled (0) or the maximum is reached (1)."""
    import time

    from evp.monitoring import Monitor

    said = Said()
    ns = _budgets(args.ns) or [1]
    if ns == "all":
        raise UsageError("--ns: a watch settles a few budgets named, e.g. --ns 1,5; "
                         "not all")
    if args.interval <= 0:
        raise UsageError(f"--interval must be a positive number of seconds, got "
                         f"{args.interval:g}")
    out = _check_out(args.out, _inputs(args))
    # One monitor for every look: each round keeps the place it was first read
    # at, as the sequential bands need.
    monitor = Monitor(None, ns, args.confidence, max_rounds=args.max_rounds,
                      plan=args.plan, seed=args.seed)
    started, last, seen, stamp = time.monotonic(), None, None, None
    while True:
        now = _stamp(_inputs(args))
        if seen is not None and now is not None and now == stamp:
            results = None  # nothing written since the last look: nothing new
        else:
            try:
                results = _results(args, args.group,
                                   said if seen is None else Said())
                stamp = now
            except (ValueError, OSError):
                if seen is None or not args.follow:
                    raise  # bad input from the start: exit 2
                results = None  # a file caught mid-write: read it next time
        if results is not None:
            seen = monitor.update(results)
            text = "\n".join(_shown(line) for line in seen.lines())
            if text != last:
                if sys.stdout.isatty():
                    print("\x1b[H\x1b[2J", end="")  # the summary in place
                elif last is not None:
                    print()
                print(text, flush=True)
                last = text
            if seen.settled or seen.exhausted or not args.follow:
                break
        if args.timeout is not None and time.monotonic() - started > args.timeout:
            said.note(f"stopped following after --timeout {args.timeout:g} "
                      "seconds, unsettled")
            break
        time.sleep(args.interval)
    if out is not None:
        print()
        _finish(seen.table, out, seen.plot, seen.caption(), said, force=args.force)
    return (0 if seen.settled else 1), said


def _stamp(paths) -> tuple | None:
    """The size and modification time of every input file, to tell a file
    that has not changed; None where an input is not a plain file (a folder,
    a database URL): those are read at every look."""
    stamps = []
    for path in paths:
        try:
            found = os.stat(path)
        except (OSError, TypeError, ValueError):
            return None
        if not Path(path).is_file():
            return None
        stamps.append((str(path), found.st_size, found.st_mtime_ns))
    return tuple(stamps)


def _more_rounds(text: str) -> list[int]:
    """--more: extra rounds of each model, comma-separated whole numbers ≥ 0."""
    try:
        values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected whole numbers of rounds such as 10,20,50, got {text!r}"
        ) from None
    if not values or min(values) < 0:
        raise argparse.ArgumentTypeError(
            f"expected whole numbers of rounds ≥ 0 such as 10,20,50, got {text!r}")
    return sorted(set(values))


def _check_highlight(args: argparse.Namespace, results) -> None:
    """--highlight names models of the results: checked before the work,
    whether or not a figure draws it (a misspelt name is no silent no-op)."""
    if args.highlight is not None:
        from evp.plot import _highlighted

        _highlighted(results.models, _listed(args.highlight))


def _listed(value: str | None) -> list[str] | None:
    """A comma-separated option as a list (None when not given)."""
    if value is None:
        return None
    return [v.strip() for v in value.split(",") if v.strip()]


def report(args: argparse.Namespace) -> tuple[int, Said]:
    from evp.report import build_report

    said = Said()
    out = Path(args.out)
    if out.suffix.lower() not in (".html", ".htm", ".md", ".markdown", ".tex"):
        raise UsageError(f"--out must end in .html, .md or .tex, got {args.out!r}")
    from evp._output import check_output

    out = check_output(out, inputs=_inputs(args), name="--out")
    results = _results(args, args.group, said)
    models = None if args.models is None else [
        m.strip() for m in args.models.split(",") if m.strip()]
    built = build_report(results, models=models, target=args.target,
                         confidence=args.confidence, method=args.method,
                         strategy=args.strategy, title=args.title,
                         budget=args.budget, highlight=_listed(args.highlight),
                         vector_figures=out.suffix.lower() == ".tex",
                         score_name=args.score_name, negate=args.negate)
    from evp.analyses import for_paper

    # The reader's notes and warnings are said already (with their advice on
    # the options, which the report leaves out); the report's own, once.
    known = set(results.notes) | {for_paper(note) for note in results.notes}
    for note in built.notes[1:]:
        if note not in known:
            said.note(note)
    replaced = []
    saved = built.save(out, inputs=_inputs(args), replaced=replaced,
                       force=args.force)
    print(f"wrote {saved}")
    for path in replaced:
        said.note(f"replaced the existing {path}")
    return 0, said


def reproduce(args: argparse.Namespace) -> int:
    from evp.runner import reproduce as reproduce_notebooks

    folder = Path(args.notebooks)
    if not folder.is_dir():
        raise UsageError(f"--notebooks: no folder {folder}")
    figures = (Path(args.figures) if args.figures
               else folder.resolve().parent / "figures")
    parameters = dict(_parse_parameter(p) for p in args.parameter)
    from evp._output import FolderBusy

    try:
        done = reproduce_notebooks(folder, figures, parameters, args.only)
    except FolderBusy as error:
        raise UsageError(str(error)) from None
    for stem in done.restored:
        print(f"put back the figures of {stem}, left half-written by an "
              "interrupted run", file=sys.stderr)
    for folder in done.kept:
        print(f"what a notebook wrote before it stopped is kept in {folder}",
              file=sys.stderr)
    if not done.notebooks:
        print(f"no notebooks in {folder}: nothing to reproduce")
        return 0
    ran = len(done.notebooks) - len(done.failures)
    changed = done.changed
    print(f"executed {ran} of {len(done.notebooks)} notebook(s) in {folder}; "
          f"{len(changed)} changed" + (f": {', '.join(changed)}" if changed else ""))
    for line in done.failures:
        print(f"evp reproduce: failed: {line}", file=sys.stderr)
    return 2 if done.failures else 0


def run(args: argparse.Namespace) -> tuple[int, Said]:
    import papermill

    from evp._workspace import RUNS_FOLDER, project_root
    from evp.runner import NotebookFailed, find_notebook, own_notebooks

    if getattr(args, "sources", None):
        raise UsageError("RESULTS: a notebook reads one results file; put the "
                         "searches in one file with a model column (or use evp "
                         "curve, compare or report, which take several)")
    notebook = find_notebook(args.notebook)
    name = notebook.stem
    declared = papermill.inspect_notebook(str(notebook))
    if args.failed == "worst":
        raise UsageError("--failed worst: the notebooks analyse finite scores; give "
                         "--failed drop, or use evp curve, compare or report, which "
                         "count failed rounds as the worst")
    # Read here as curve and compare would (direction, failed rounds, the
    # exchangeability check); the notebook gets what was settled.
    said = Said()
    results = _results(args, args.group, said)
    parameters = {"results_path": str(Path(args.results).expanduser().resolve()),
                  "score_column": results.score, "check_claims": False}
    if results.group is not None:
        parameters["group_column"] = results.group
    if args.models:
        parameters["models"] = [m.strip() for m in args.models.split(",") if m.strip()]
    if results.minimize or "minimize" in declared:
        parameters["minimize"] = results.minimize
    for role, parameter in (("runs", "runs_column"), ("order", "order_column"),
                            ("task", "task_column")):
        column = getattr(results, role)
        if column is None:
            continue
        if parameter in declared:
            parameters[parameter] = column
        elif role == "task" and len(results.tasks) > 1:
            raise UsageError(f"--task: {name} analyses one task, and these results "
                             f"hold {len(results.tasks)}; run it on one task's rows, "
                             "or run benchmark_study (or evp compare, report) to "
                             "judge every task")
        elif role == "runs":
            raise UsageError(f"--runs: {name} analyses one random search per model; "
                             "repeated runs of a tuner are for adaptive_search (or "
                             "evp curve, compare and report)")
    if results.cost is not None:
        if "cost_column" not in declared:
            raise UsageError(f"--cost: {name} has no cost axis (it takes no "
                             "cost_column); leave --cost out")
        parameters["cost_column"] = results.cost
    for text in args.parameter:
        key, value = _parse_parameter(text)
        if key not in declared:
            raise UsageError(f"-p {key}: {name} has no parameter {key!r}; its "
                             f"parameters: {', '.join(declared)}")
        parameters[key] = value
    missing = [key for key in parameters if key not in declared]
    if missing:
        raise UsageError(f"{name} does not take {', '.join(missing)}: it cannot run "
                         "on your results")
    # The folder as named (a link at --out is refused, not followed); its real
    # place for the comparisons.
    out = Path(os.path.abspath(Path(args.out or Path(RUNS_FOLDER) / name)
                               .expanduser()))
    real = out.resolve()
    # evp's own notebooks and figures are the paper's runs; a user's notebook
    # may write beside itself.
    own = own_notebooks()
    root = (own.parent if own is not None and own in notebook.parents
            else project_root(notebook.parent, installed=False))
    protected = [root / "notebooks", root / "figures"] if root else []
    for folder in protected:
        if real == folder.resolve() or folder.resolve() in real.parents:
            raise UsageError(f"--out: {out} is inside {folder}, which holds the "
                             "paper's own runs; choose another folder")
    from evp._output import FolderBusy, check_not_input, exclusive
    from evp.runner import run_atomically

    # Not the results, nor inside a folder of them, nor holding them: a run
    # replaces its whole folder.
    check_not_input(out, inputs=_inputs(args), name="--out")
    # Which file runs, before it runs: a name is evp's own notebook, a path
    # the user's.
    print(f"running {notebook}", flush=True)
    try:
        with exclusive(out, what="evp run"):
            executed, written = run_atomically(
                notebook, out, parameters, cwd=Path.cwd(),
                # What the notebook could not read from RESULTS as it was read
                # here: a tuner's record, rows dropped, a reader's option given.
                trials=(results.frame if results.tuner or results.dropped
                        or _reading_options(args) else None))
    except FolderBusy as error:
        raise UsageError(f"--out: {error}") from None
    except NotebookFailed as error:
        raise UsageError(f"{name} failed: {error}") from None
    print(f"ran {name} on {args.results}: wrote {executed.name} and "
          f"{len(written)} file(s) in {out}: {', '.join(written)}")
    return 0, said


def search(args: argparse.Namespace) -> int:
    try:
        from evp.search import sst5
    except ImportError as error:  # pragma: no cover - needs the search extra
        raise UsageError(f"needs the search extra: {install_command('search')} "
                         f"({error})") from None
    from evp.search.runner import run_search

    for name in ("trials", "max_epochs", "patience", "subset"):
        value = getattr(args, name)
        if value is not None and value < 1:
            flag = "--" + name.replace("_", "-")
            raise UsageError(f"{flag} must be at least 1, got {value}")
    if args.embeddings is not None and not Path(args.embeddings).is_file():
        raise UsageError(f"--embeddings: no such file {args.embeddings}")
    if args.device not in ("auto", "cpu") and not args.device.startswith("cuda"):
        raise UsageError(f"--device must be auto, cpu or cuda[:N], got {args.device}")
    options = {"subset": args.subset, "max_epochs": args.max_epochs,
               "patience": args.patience, "embeddings": args.embeddings,
               "device": args.device}
    if args.model == "lr":
        ignored = [f"--{k.replace('_', '-')}" for k in ("max_epochs", "patience",
                                                         "embeddings")
                   if options.pop(k) is not None]
        options.pop("device")
        if ignored:
            raise UsageError(f"{', '.join(ignored)}: logistic regression has no "
                             "epochs or embeddings; leave them out")
    trials = run_search(
        train=sst5.train, sample=sst5.sample_config, task=args.task,
        model=args.model, trials=args.trials, seed=args.seed, out=args.out,
        jobs=args.jobs, options=options,
        regime=sst5.regime(args.model, **options),
        backend=args.backend, address=args.address,
    )
    seconds = [t["seconds"] for t in trials]
    print(f"{len(trials)} trials in {args.out}: best dev accuracy "
          f"{max(t['accuracy'] for t in trials):.4f}; seconds per trial mean "
          f"{sum(seconds) / len(seconds):.1f}, min {min(seconds):.1f}, "
          f"max {max(seconds):.1f}")
    return 0


class _Help(argparse.RawDescriptionHelpFormatter):
    """Every option's default at the end of its help line, unless it says it."""

    def _get_help_string(self, action):
        text = action.help or ""
        if (not action.option_strings or "default" in text or action.required
                or action.default is argparse.SUPPRESS):
            return text
        if action.default is None:
            return text
        if action.default is False:
            return f"{text} (default: off)"
        return f"{text} (default: %(default)s)"


class _Parser(argparse.ArgumentParser):
    """A parser whose errors are one line, with the command's own usage."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", _Help)
        super().__init__(*args, **kwargs)

    def error(self, message):
        usage = " ".join(self.format_usage().split())
        self.exit(2, f"{self.prog}: error: {message} ({usage}; "
                     f"{self.prog} --help says more)\n")


def _input_options(parser: argparse.ArgumentParser) -> None:
    """How results are read: shared by every subcommand that reads them."""
    way = parser.add_mutually_exclusive_group()
    way.add_argument("--minimize", action="store_true",
                     help="the score is a loss: lower is better (default: as an "
                          "Optuna study says; else higher is better, but a score "
                          "named like a loss needs --minimize or --maximize)")
    way.add_argument("--maximize", action="store_true",
                     help="higher scores are better, whatever the column's name")
    parser.add_argument("--failed", choices=("error", "drop", "worst"),
                        help="failed rounds (no score, or marked crashed, failed or "
                             "killed in a state or status column): error refuses "
                             "and lists them, drop leaves them out, worst counts "
                             "them as rounds worse than every score (default: "
                             "error)")
    parser.add_argument("--drop-bad-rows", action="store_true",
                        help="the same as --failed drop")
    parser.add_argument("--runs", metavar="COL",
                        help="column naming each round's run: repeated runs of a "
                             "tuner (TPE, BO, ASHA: its seeds), each a search in "
                             "--order; the curves are then its median best so far "
                             "across runs, with simultaneous bands (several Optuna "
                             "studies: --runs study; Ray Tune experiments: --runs "
                             "experiment) (default: none, one random search)")
    parser.add_argument("--order", metavar="COL",
                        help="column of each round's place in the search, for the "
                             "exchangeability test (default: a column named trial, "
                             "number, iteration or step; a tuner's own order)")
    parser.add_argument("--task", metavar="COL",
                        help="column naming each round's task (data set): the same "
                             "models searched on several tasks; compare and report "
                             "then judge every task and rank the models across "
                             "them (default: one task; a folder of evp search "
                             "trials with one subfolder per task sets it)")
    # The readers' own options (--study, --metric, --sep, …), as each reader
    # declares them: a new one is a flag here without an edit.
    from evp.readers.registry import option_flags

    for name, option in option_flags().items():
        default = option.default if option.default is not None else "none"
        parser.add_argument(f"--{name.replace('_', '-')}", dest=name,
                            metavar=option.metavar, choices=option.choices,
                            help=(option.help if "default:" in option.help
                                  else f"{option.help} (default: {default})"))


def _reading_options(args: argparse.Namespace) -> dict:
    """{option: value} of the readers' options given on the command line (evp's
    and the plug-ins'), as read_results takes them; each declared once, in
    evp.readers.registry, and nowhere else."""
    from evp.readers.registry import option_flags

    given = {name: getattr(args, name, None) for name in option_flags()}
    given.update({name: getattr(args, dest, None)
                  for name, dest in getattr(args, "plugin_options", ())})
    return {name: value for name, value in given.items() if value is not None}


def _plugin_flags(commands) -> None:
    """The plug-ins' own options (evp.readers.registry.plugin_option_flags) as
    flags of every command that reads results, where the command leaves the
    name free; the (name, dest) pairs added are the command's
    ``plugin_options``. Each is kept under a name of its own in the parsed
    arguments, so that no plug-in's option can stand for the command's own."""
    from evp.readers.registry import plugin_option_flags

    options = plugin_option_flags()
    for command in commands.choices.values():
        if not any(action.dest == "results" for action in command._actions):
            continue
        taken = {action.dest for action in command._actions}
        added = []
        for name, option in options.items():
            flag = f"--{name.replace('_', '-')}"
            if name in taken or flag in command._option_string_actions:
                continue  # named like one of evp's: read_results' keyword only
            default = option.default if option.default is not None else "none"
            dest = f"plugin option {name}"
            command.add_argument(flag, dest=dest, metavar=option.metavar,
                                 help=f"{option.help} (default: {default})")
            added.append((name, dest))
        command.set_defaults(plugin_options=tuple(added))


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="evp", description="Judge models by their tuning effort.")
    parser.add_argument("--version", action="version",
                        version=f"%(prog)s {evp.__version__}")
    commands = parser.add_subparsers(dest="command", required=True,
                                     parser_class=_Parser)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("results", metavar="RESULTS",
                        help="search results, one row per round: .csv, .tsv, .txt, "
                             ".jsonl or .parquet (optionally compressed: .gz, .bz2, "
                             ".xz, .zst, .zip), including scikit-learn's cv_results_ "
                             "saved as CSV and a W&B runs table exported as CSV; an "
                             "Optuna storage (sqlite:///study.db or a .db file); a "
                             "Ray Tune experiment folder; a KerasTuner project "
                             "folder; a SMAC3 run folder; or an MLflow store (an "
                             "mlruns folder, sqlite:///mlflow.db, a tracking URI; "
                             "see --experiment); several searches, one model "
                             "each: NAME=PATH NAME=PATH …")
    common.add_argument("--score", metavar="COL",
                        help="column of validation scores (required; default for "
                             "a tuner's record: its objective, for Ray Tune: "
                             "--metric)")
    common.add_argument("--ns", metavar="N,N,...|all",
                        help="budgets (rounds of search) to report, or all for "
                             "every n (default: 1, 2, 3, 5, 10, 20, 50, 100, … up "
                             "to the number of rounds B, and B)")
    common.add_argument("--confidence", type=_confidence, default=0.8,
                        metavar="LEVEL",
                        help="confidence of the simultaneous bands, between 0 and 1")
    common.add_argument("--bounds", type=_bounds, metavar="LO,HI",
                        help="the score's possible range, e.g. 0,1 for an accuracy: "
                             "a floor for failed rounds under --failed worst, and "
                             "limits for --tail (default: unbounded)")
    common.add_argument("--cost", metavar="COL",
                        help="column of each round's cost, e.g. training seconds "
                             "(default: none)")
    common.add_argument("--cost-unit", metavar="UNIT",
                        help="unit of --cost for the figure's axis (default: read "
                             "off the column's name, e.g. seconds → s)")
    common.add_argument("--out", metavar="FILE",
                        help="also write the table (.csv, or .tex: a booktabs "
                             "LaTeX table) or a figure (.png, .pdf, .svg) "
                             "(default: print only)")
    common.add_argument("--force", action="store_true",
                        help="let --out replace a file that evp did not write, or "
                             "that was changed since evp wrote it (default: "
                             "refuse; a file evp wrote is replaced without it)")
    _input_options(common)

    one = commands.add_parser(
        "curve", parents=[common], help="tuning curves of one or more models",
        usage="evp curve RESULTS --score COL [--group COL | --pool] [options]",
        description="Expected best score after n rounds of random search, its "
                    "standard deviation, and the median tuning curve with its "
                    "confidence band (80% LD highest-density by default; "
                    "--method none for none). A file "
                    "holding several models needs --group (one curve per model) "
                    "or --pool (all rows one model).")
    one.add_argument("--group", metavar="COL",
                     help="column naming the model: one curve per model (default: "
                          "none; required when a column looks like model names, "
                          "unless --pool)")
    one.add_argument("--pool", action="store_true",
                     help="treat all rows as one model even when a column looks "
                          "like model names")
    one.add_argument("--estimator", choices=("v", "u", "w"), default="v",
                     help="estimator of the expected best score: v (Dodge et al. "
                          "2019), u (unbiased, Tang et al. 2020) or w (Dodge et al. "
                          "2021)")
    one.add_argument("--method", choices=(*BAND_METHODS, "none"),
                     help="the CDF band the median tuning-curve band is made from "
                          "(default: ld_highest_density, at --confidence 0.8), or "
                          "none for the curves without a band")
    one.add_argument("--tail", type=float, metavar="THRESHOLD",
                     help="fit a noisy quadratic to the scores beyond THRESHOLD "
                          "(below it with --minimize; Lourie, He and Cho 2025) and "
                          "print its median curve out to 10 × the rounds run, with "
                          "the exact confidence band and the interval for the best "
                          "achievable score (default: no fit)")
    one.add_argument("--band", choices=BAND_METHODS, dest="old_band",
                     help=argparse.SUPPRESS)  # the old name of --method
    one.set_defaults(handler=curve)

    two = commands.add_parser(
        "compare", parents=[common],
        help="does model A beat model B? for many models or tasks: which may "
             "still be best, and which pairs differ",
        usage="evp compare RESULTS --score COL --group COL [A B | A B C ... | --all] "
              "[--task COL] [options]",
        description="Median tuning-curve bands of two models and, per budget, the "
                    "evidence that A beats B and that B beats A: strong, fair, "
                    "weak or none (Lourie, Cho and He 2024). With --cost, each "
                    "model's expected cost of n rounds is added; the evidence still "
                    "compares equal numbers of rounds.")
    two.add_argument("--group", metavar="COL",
                     help="column naming the model (default: none, so required, "
                          "but for several Optuna studies: --study A,B names the "
                          "models)")
    two.add_argument("models", metavar="MODEL", nargs="*",
                     help="two models A B (does A beat B?), or three or more, or "
                          "none with --all: every pair, family-wise")
    two.add_argument("--all", action="store_true",
                     help="compare every model: the set that may still be best "
                          "and every pair's verdict, family-wise over the pairs "
                          "and budgets")
    two.add_argument("--rows", action="store_true",
                     help="with three or more models: print every pair's verdict "
                          "at every budget (default: how many models each one "
                          "beats, and is beaten by, with strong evidence; --out "
                          "FILE.csv writes every row)")
    two.add_argument("--highlight", metavar="MODEL[,MODEL]",
                     help="with several models: the model(s) to draw in bold in "
                          "the figure --out writes (default: none)")
    two.add_argument("--baseline", metavar="MODEL",
                     help="with several models: compare each with this one only "
                          "(default: every pair); with --task, only the pairs with "
                          "it are tested (Holm over those), and each task's scale "
                          "starts at its one round's expected best")
    two.add_argument("--adjust", choices=("holm", "bonferroni", "none"),
                     help="with three or more models on one task: the bands' "
                          "adjustment for the number of models (default holm, "
                          "which is Bonferroni over the models' bands, the same "
                          "as bonferroni: verdicts read from bands give no "
                          "p-values for Holm's step-down; none: each pair alone, "
                          "labelled unadjusted). Across tasks (--task) the pairs' "
                          "Wilcoxon tests are always Holm-adjusted")
    two.add_argument("--method", choices=BAND_METHODS, default="ld_highest_density",
                     help="CDF band the tuning-curve bands are made from")
    two.set_defaults(handler=compare)

    ahead = commands.add_parser(
        "plan", parents=[common], help="how many more rounds settle A against B?",
        usage="evp plan RESULTS --score COL --group COL A B --budget N "
              "[--more 10,20,50,100] [--cost COL] [options]",
        description="For each number of extra rounds of both models: the "
                    "predicted chance that evp compare then gives strong evidence "
                    "at budget N, each way; the rounds each model would still lack "
                    "for its band to say anything at N; and, with --cost, what the "
                    "extra rounds cost. The chance comes as a range (low end to "
                    "high end, calibrated on real search spaces to hold it 9 "
                    "times in 10) beside the simulated point, which is too "
                    "hopeful on real searches. Then one sentence, read from "
                    "the range: how many more rounds give at least an 80%% chance "
                    "of a strong verdict, that more rounds will not settle it, or "
                    "the range the most rounds give.")
    ahead.add_argument("--group", metavar="COL",
                       help="column naming the model (default: none, so required, "
                            "but for several Optuna studies: --study A,B names the "
                            "models)")
    ahead.add_argument("a", metavar="A", help="first model")
    ahead.add_argument("b", metavar="B", help="second model")
    ahead.add_argument("--budget", type=int, required=True, metavar="N",
                       help="the budget (rounds of search) the verdict is read at")
    ahead.add_argument("--more", type=_more_rounds, metavar="M,M,...",
                       default=list(DEFAULT_MORE_ROUNDS),
                       help="extra rounds of each model to weigh")
    ahead.add_argument("--method", choices=BAND_METHODS,
                       default="ld_highest_density",
                       help="CDF band the tuning-curve bands are made from")
    ahead.add_argument("--replications", type=int, default=1000, metavar="R",
                       help="simulated futures per plan (the chances' Monte Carlo "
                            "error is at most 0.5/sqrt(R)); capped by the memory "
                            "they take (at most 4 GB: about 70 bytes per future "
                            "and round)")
    ahead.add_argument("--seed", type=int, default=0,
                       help="seed of the simulated futures")
    ahead.add_argument("--tail", choices=("exponential", "quadratic"),
                       default="exponential",
                       help="new rounds beyond the best score seen: an exponential "
                            "tail of uncertain scale, or a noisy quadratic fitted "
                            "to the best scores where one passes its "
                            "goodness-of-fit check (from a few rounds the less "
                            "well calibrated)")
    ahead.set_defaults(handler=plan)

    looking = commands.add_parser(
        "watch", parents=[common],
        help="is a running comparison settled yet? verdicts valid however often "
             "you look",
        usage="evp watch RESULTS --score COL --group COL [--ns 1,5] "
              "[--max-rounds N] [--follow] [options]",
        description="Each model's sequential median band (valid at every "
                    "number of rounds, so the results may be read as often as "
                    "they grow), the evidence between every pair, family-wise "
                    "over the pairs, the budgets and every look, and whether one "
                    "model beats every other with strong evidence at every "
                    "budget --ns names. Exit status 0 when settled; 1 when not "
                    "(the maximum reached, or the watch ended); 2 on bad input. "
                    "With --follow, the results are read again every --interval "
                    "seconds until settled or the maximum is reached.")
    looking.add_argument("--group", metavar="COL",
                         help="column naming the model (default: none)")
    looking.add_argument("--max-rounds", type=int, metavar="N",
                         help="the most rounds of each model: narrows the bands, "
                              "and reaching it unsettled ends the watch with "
                              "status 1 (default: none)")
    looking.add_argument("--follow", action="store_true",
                         help="read the results again every --interval seconds "
                              "until settled or the maximum is reached")
    looking.add_argument("--interval", type=float, default=2.0, metavar="SECONDS",
                         help="seconds between looks with --follow")
    looking.add_argument("--timeout", type=float, metavar="SECONDS",
                         help="stop following after this long, unsettled "
                              "(status 1; default: no limit)")
    looking.add_argument("--plan", action="store_true",
                         help="also estimate the further rounds that would "
                              "settle it (simulated futures)")
    looking.add_argument("--seed", type=int, default=0,
                         help="seed of --plan's simulated futures")
    looking.set_defaults(handler=watch)

    paper = commands.add_parser(
        "report",
        help="a report for a paper's appendix (HTML, Markdown or LaTeX)",
        usage="evp report RESULTS --score COL [--group COL] --out FILE [options]",
        description="The reporting checklist of Dodge et al. (2019, Text Box 1) "
                    "filled in from the results (what a file cannot tell is marked "
                    "'to fill in'), then the expected best score with ±1 std, the "
                    "median tuning-curve bands, the verdicts between every pair of "
                    "models in both directions, and the budget to reach a target.")
    paper.add_argument("results", metavar="RESULTS",
                       help="search results, one row per round (as for evp curve)")
    paper.add_argument("--score", metavar="COL",
                       help="column of validation scores (required; default for "
                            "a tuner's record: its objective, for Ray Tune: "
                            "--metric)")
    paper.add_argument("--group", metavar="COL",
                       help="column naming the model (default: one model)")
    paper.add_argument("--models", metavar="A,B,...",
                       help="the models to report, in this order (default: all)")
    paper.add_argument("--cost", metavar="COL",
                       help="column of each round's cost, e.g. training seconds "
                            "(default: none; the checklist's training duration is "
                            "then read from a duration the results record, such as "
                            "mean_fit_time or duration_seconds, else to fill in)")
    paper.add_argument("--target", type=float, metavar="SCORE",
                       help="the score whose budget to report (default: the "
                            "weakest model's expected best after all its rounds)")
    paper.add_argument("--confidence", type=_confidence, default=0.8,
                       metavar="LEVEL",
                       help="confidence of the bands and verdicts, between 0 and 1")
    paper.add_argument("--bounds", type=_bounds, metavar="LO,HI",
                       help="the score's possible range, a floor for failed rounds "
                            "under --failed worst (default: unbounded)")
    paper.add_argument("--method", choices=BAND_METHODS,
                       default="ld_highest_density",
                       help="CDF band the tuning-curve bands are made from")
    paper.add_argument("--budget", type=int, metavar="N",
                       help="the budget at which 'what would settle it' plans a "
                            "strong verdict for each pair without one (default: "
                            "per pair, the largest budget its rounds can bound)")
    paper.add_argument("--strategy", metavar="TEXT",
                       help="how hyperparameters were chosen, e.g. 'random search' "
                            "(default: as recorded in the results, else to fill in)")
    paper.add_argument("--title", metavar="TEXT",
                       help="the report's title (default: the study and the models)")
    paper.add_argument("--score-name", metavar="TEXT",
                       help="the score's name in the report's words, tables and "
                            "figures, e.g. 'log loss' (default: the score column's "
                            "name)")
    paper.add_argument("--negate", action="store_true",
                       help="report the negated score, its direction flipped: a "
                            "score recorded as its negation (neg_log_loss, "
                            "maximised) reported as the loss, named by "
                            "--score-name")
    paper.add_argument("--highlight", metavar="MODEL[,MODEL]",
                       help="with three or more models or several tasks: the "
                            "model(s) to draw in bold, e.g. your own (default: "
                            "none)")
    paper.add_argument("--out", required=True, metavar="FILE",
                       help="report.html (one self-contained page), report.md or "
                            "appendix.tex (a LaTeX section to \\input; both with "
                            "their figures in a folder beside them)")
    paper.add_argument("--force", action="store_true",
                       help="let --out and its figures replace files that evp did "
                            "not write, or that were changed since (default: "
                            "refuse)")
    _input_options(paper)
    paper.set_defaults(handler=report)

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
    hunt.add_argument("--jobs", type=int, metavar="N",
                      help="trials run at once (default: 1 locally; with --backend "
                           "ray, the Ray cluster's CPUs)")
    hunt.add_argument("--backend", choices=("local", "ray"), default="local",
                      help="run trials here (local) or as Ray tasks (ray)")
    hunt.add_argument("--address", metavar="ADDR",
                      help="with --backend ray, the Ray cluster to run on, e.g. "
                           "auto or HOST:6379 (default: start Ray on this machine)")
    hunt.add_argument("--subset", type=int, metavar="N",
                      help="use only the first N sentences of each split (tests)")
    hunt.add_argument("--max-epochs", type=int, metavar="N",
                      help="cap on training epochs (default: 12 for lboe, 5 for cnn; "
                           "the papers': 50)")
    hunt.add_argument("--patience", type=int, metavar="N",
                      help="stop after N epochs without a better dev accuracy "
                           "(default: 3; the papers': 10)")
    hunt.add_argument("--embeddings", metavar="PATH",
                      help="pretrained word vectors in GloVe's text format (the "
                           "papers': 50-d GloVe); default: learned from scratch")
    hunt.add_argument("--device", default="auto", metavar="DEVICE",
                      help="auto (a GPU when torch sees one), cpu or cuda "
                           "(default: auto)")
    hunt.set_defaults(handler=search)

    again = commands.add_parser(
        "reproduce", help="rerun the paper's analyses: the notebooks, in place",
        description="Execute every notebook under the folder (or those named with "
                    "--only) with papermill, each in its own folder, into a "
                    "temporary file. A notebook that succeeds replaces the "
                    "committed one if anything but execution metadata changed; one "
                    "that fails leaves the committed notebook and its figures as "
                    "they were, the others still run, and the command ends with "
                    "one line per failure and exit status 2. nbgrader assignments "
                    "are skipped.")
    again.add_argument("--only", action="append", metavar="NAME",
                       help="run only this notebook (repeatable)")
    again.add_argument("-p", "--parameter", action="append", default=[],
                       metavar="KEY=VALUE", help="papermill parameter (repeatable)")
    again.add_argument("--notebooks", default="notebooks", metavar="DIR",
                       help="folder of notebooks (default: notebooks)")
    again.add_argument("--figures", metavar="DIR",
                       help="folder the notebooks write figures to (default: "
                            "figures/ beside the notebooks folder)")
    again.set_defaults(handler=reproduce)

    own = commands.add_parser(
        "run", help="run one analysis notebook on your own results",
        description="Execute an analysis notebook on your results and write the "
                    "executed notebook, its figures (PNG and PDF) and its claims "
                    "table (CSV) to --out. Claims are reported, not asserted. "
                    "Nothing is written inside notebooks/ or figures/. Relative "
                    "paths are relative to the current folder.")
    own.add_argument("notebook", metavar="NOTEBOOK",
                     help="the name of one of evp's notebooks (e.g. "
                          "deberta_tutorial, classroom/significance_tests), or "
                          "the path of a .ipynb file of your own")
    own.add_argument("results", metavar="RESULTS",
                     help="your results: .csv, .tsv, .jsonl, or a folder written "
                          "by evp search; one row per round")
    own.add_argument("--score", metavar="COL",
                     help="column of scores (required; default for an Optuna "
                          "study: its one objective, for Ray Tune: --metric)")
    own.add_argument("--group", metavar="COL",
                     help="column naming the model (default: one model)")
    own.add_argument("--models", metavar="A,B,...",
                     help="models to analyse, in order (default: all, in file "
                          "order)")
    own.add_argument("--cost", metavar="COL",
                     help="column of each round's cost (notebooks with a cost "
                          "axis)")
    own.add_argument("-p", "--parameter", action="append", default=[],
                     metavar="NAME=VALUE",
                     help="any other notebook parameter, e.g. -p sample_size=20 "
                          "or -p sample_sizes=6,12 (repeatable)")
    own.add_argument("--out", metavar="DIR",
                     help="output folder (default: evp-runs/NOTEBOOK)")
    _input_options(own)
    own.set_defaults(handler=run)
    _plugin_flags(commands)
    return parser


# The library's names for what the command line calls otherwise: the results
# a reader reads (RESULTS), and a tail's threshold (--tail).
_LIBRARY_NAMES = {"path_or_frame": "results", "source": "results",
                  "results": "results", "threshold": "tail"}


def parameter_flags(parser: argparse.ArgumentParser | None = None) -> dict:
    """Each parameter the command line sets, by the library's name, and the
    option (or argument) that sets it, read off the parser itself and its
    subcommands: ``{"estimator": "--estimator", "results": "RESULTS", …}``, so
    that a new option speaks for itself in every message."""
    parser = parser or build_parser()
    flags: dict[str, str] = {}
    stack = [parser]
    while stack:
        current = stack.pop()
        for action in current._actions:
            if isinstance(action, argparse._SubParsersAction):
                stack.extend(action.choices.values())
            elif action.option_strings and action.dest != "help":
                flags.setdefault(action.dest, max(action.option_strings, key=len))
    # The positional arguments the library names (a model's "a" or "b" is no
    # keyword: "fit a=0.5" stays as it is).
    flags.update({name: ("RESULTS" if dest == "results" else flags[dest])
                  for name, dest in _LIBRARY_NAMES.items()})
    return flags


def in_command_line_words(message, flags: dict | None = None,
                          names: dict | None = None, param: str | None = None
                          ) -> str:
    """A library message in the command line's words, `flags` being
    :func:`parameter_flags`: the parameter an error names (`param`, the
    ``.param`` of evp.ParameterError) as its option; a keyword the message
    advises (``estimator='v'`` → ``--estimator v``, ``drop_bad_rows=True`` →
    ``--drop-bad-rows``); a message that opens with a parameter's name and a
    colon (``score: no column …``); `names` maps other argument names to the
    user's words (``scores_a`` → the first model's name)."""
    import shlex

    flags = parameter_flags() if flags is None else flags
    message = str(message)
    # Whole words only, and only names of parameters with an option.
    known = "|".join(sorted((re.escape(n) for n in flags), key=len, reverse=True))

    def option(match: re.Match) -> str:
        flag = flags[match.group(1)]
        value = next((v for v in match.groups()[1:] if v is not None), None)
        if flag == "--minimize" and value in ("True", "False"):
            return "--minimize" if value == "True" else "--maximize"
        if value in ("True", "False"):
            return flag if value == "True" else f"no {flag}"
        if value is None or not flag.startswith("-"):
            return flag
        return f"{flag} {shlex.quote(value)}"

    message = re.sub(rf"(?<![\w.])({known})=(?:'([^']*)'|\"([^\"]*)\"|([\w.\-]+))?",
                     option, message)
    # "--estimator v or 'w'": the alternative is a value too.
    message = re.sub(r"(--[\w-]+ [\w.\-]+) or '([^']*)'", r"\1 or \2", message)
    lead = re.match(rf"({known})(:| )", message)
    if lead and (lead.group(2) == ":" or lead.group(1) == param):
        message = flags[lead.group(1)] + message[len(lead.group(1)):]
    if param in flags and flags[param].startswith("-"):
        # The message is about `param`: each mention of it is its option.
        message = re.sub(rf"(?<![\w.\-'\"]){re.escape(param)}(?![\w='\"])",
                         flags[param], message)
    for name, words in (names or {}).items():
        # The user's words as they are: a model named C:\\runs is no pattern.
        message = re.sub(rf"\b{re.escape(name)}\b", lambda _, w=words: str(w),
                         message)
    return message


def _in_words(error: Exception) -> str:
    """An error's message; the system's own (``[Errno 13] Permission denied:
    'x'``) as the file and the reason in words."""
    if (isinstance(error, OSError) and error.errno is not None and error.strerror
            and str(error).startswith("[Errno")):
        where = " → ".join(os.fsdecode(f) for f in (error.filename, error.filename2)
                           if f is not None)
        return f"{where}: {error.strerror}" if where else error.strerror
    return str(error)


def _shown(text) -> str:
    """`text` on one line, its control and bidirectional formatting characters
    written as escapes (evp._escape.one_line)."""
    from evp._escape import one_line

    return one_line(text)


def _composed_names(args: argparse.Namespace) -> None:
    """Model names as typed, composed (NFC) as evp reads them from results: a
    terminal may type "café" with a combining accent (NFD), which prints alike."""
    import unicodedata

    def composed(value):
        if isinstance(value, str):
            return unicodedata.normalize("NFC", value)
        if isinstance(value, list):
            return [composed(v) for v in value]
        return value

    for name in ("models", "a", "b", "baseline", "highlight"):
        if hasattr(args, name):
            setattr(args, name, composed(getattr(args, name)))


def _model_words(args: argparse.Namespace) -> dict | None:
    """The user's words for the library's in a command's messages: the two
    models' names for ``scores_a`` and ``scores_b`` where a command compares
    two, ``--tail`` for a tail's ``threshold``."""
    if args.command == "curve" and getattr(args, "tail", None) is not None:
        return {"threshold": "--tail"}
    pair = ((args.a, args.b) if args.command == "plan" else
            tuple(args.models) if args.command == "compare" else ())
    return ({"scores_a": pair[0], "scores_b": pair[1]} if len(pair) == 2
            else None)


def main(argv: list[str] | None = None) -> int:
    with warnings.catch_warnings(record=True) as loading:
        warnings.simplefilter("always")
        parser = build_parser()  # the plug-ins load: their warnings said below
    args, extra = parser.parse_known_args(argv)
    if hasattr(args, "results"):
        try:
            if args.command == "compare":
                args.models = _several_sources(args, args.models)
            lead = list(itertools.takewhile(lambda word: not word.startswith("-"),
                                            extra))
            rest = _several_sources(args, lead)
        except UsageError as error:
            print(_shown(f"evp {args.command}: {error}"), file=sys.stderr)
            return 2
        extra = extra[len(lead):]
        if args.command == "compare":
            # argparse gives MODEL... only the words before the first option;
            # the model names after the options ("RESULTS --score s --group g A
            # B") are left over, and are the models.
            args.models = [*args.models, *rest]
        else:
            extra = [*rest, *extra]
    if extra:
        own = parser._subparsers._group_actions[0].choices[args.command]
        own.error(f"unrecognized arguments: {' '.join(extra)}")
    _composed_names(args)
    flags = parameter_flags(parser)
    names = _model_words(args)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            done = args.handler(args)
            status, said = done if isinstance(done, tuple) else (done, Said())
            for kind, text in said.lines:
                words = in_command_line_words(text, flags, names)
                print(_shown(f"{kind}: {words}"), file=sys.stderr)
        except ImportError as error:
            # evp's own messages name the extra already; a package's bare
            # "No module named ..." is said as missing_message says it.
            message = (None if DISTRIBUTION in str(error)
                       else missing_message(error.name or ""))
            message = message or in_command_line_words(error, flags)
            print(_shown(f"evp {args.command}: {message}"), file=sys.stderr)
            status = 2
        except (UsageError, ValueError, OSError) as error:
            message = in_command_line_words(_in_words(error), flags, names,
                                            getattr(error, "param", None))
            print(_shown(f"evp {args.command}: {message}"), file=sys.stderr)
            status = 2
        except KeyboardInterrupt:
            print(f"evp {args.command}: interrupted", file=sys.stderr)
            status = 130
        except Exception as error:  # a bug: one line, not a traceback
            if os.environ.get("EVP_DEBUG"):
                raise
            print(_shown(f"evp {args.command}: unexpected {type(error).__name__}: "
                         f"{_reason(error)} (an evp bug: please report it with the "
                         "command; EVP_DEBUG=1 shows the traceback)"),
                  file=sys.stderr)
            status = 3
    # Each distinct warning once, on one line, without the library's file and line.
    shown = (RuntimeWarning, UserWarning)
    for message in dict.fromkeys(str(w.message) for w in (*loading, *caught)
                                 if issubclass(w.category, shown)):
        words = in_command_line_words(message, flags, names)
        print(_shown(f"evp {args.command}: warning: {words}"), file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
