"""Running the analysis notebooks: what ``evp reproduce`` and ``evp run`` do.

* :func:`execute` — one notebook through papermill, in a quiet kernel of its own,
  without progress bars; the result written cleaned (:func:`clean`: no timestamps
  or progress bars), and :class:`NotebookFailed` with the error's first line when
  a cell fails.
* :func:`reproduce` — every analysis notebook of a folder in place: a notebook
  that succeeds replaces the committed one only if something but execution
  metadata changed (:func:`replace_if_changed`); one that fails leaves the
  committed notebook and its figures as they were.
* :func:`find_notebook`, :func:`notebooks` — which notebooks are analyses.
* :func:`claims_index` — every notebook's claims in one table, ``claims.csv``,
  which :func:`reproduce` writes beside the figures.
* :func:`run_usage` — the ``evp run`` command that runs a notebook on a user's
  results, and its parameters, read from the notebook's ``parameters`` cell.

The cells themselves call :mod:`evp.notebook`; this module runs them from outside.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from evp._optional import import_optional_dependency
from evp._workspace import PROGRESS_VARIABLE, progress

__all__ = [
    "CLAIMS_INDEX",
    "DATA",
    "KINDS",
    "SKIPPED_FOLDERS",
    "STATUSES",
    "STATUSES_BY_KIND",
    "NotebookFailed",
    "Reproduction",
    "claim_status",
    "claims_index",
    "clean",
    "execute",
    "find_notebook",
    "notebooks",
    "own_notebooks",
    "replace_if_changed",
    "reproduce",
    "run_usage",
]

# Folders whose notebooks are not analyses to execute: nbgrader assignments (the
# teacher's versions hold solutions; nbgrader runs them) and Jupyter's autosaves.
SKIPPED_FOLDERS = {"assignments", ".ipynb_checkpoints"}


def notebooks(folder: Path, only: list[str] | None = None) -> list[Path]:
    """The analysis notebooks under `folder` (shallow first), or those named in
    `only`, in that order."""
    found = sorted(
        (p for p in folder.rglob("*.ipynb")
         if not SKIPPED_FOLDERS & set(p.relative_to(folder).parts[:-1])),
        key=lambda p: (len(p.relative_to(folder).parts), p),
    )
    if only:
        names = {p.stem: p for p in found}
        unknown = [name for name in only if Path(name).stem not in names]
        if unknown:
            raise ValueError(f"no notebook named {', '.join(unknown)} in {folder}; "
                             f"available: {', '.join(names) or 'none'}")
        found = [names[Path(name).stem] for name in only]
    return found


def own_notebooks() -> Path | None:
    """evp's own notebooks: the ``notebooks/`` folder of the checkout this
    package was installed from (None where it was installed without one)."""
    folder = Path(__file__).resolve().parents[1] / "notebooks"
    return folder if folder.is_dir() else None


def find_notebook(name: str) -> Path:
    """An analysis notebook: the file, where `name` is the path of a
    ``.ipynb`` file; else evp's own notebook of that name (or path inside
    evp's ``notebooks/``, e.g. ``classroom/significance_tests``).

    A name is never looked up in the current folder: a ``notebooks/`` folder
    there is someone's, and a name must not run what another person put
    there. The user's own notebook is given by its path.
    """
    path = Path(name).expanduser()
    if path.suffix == ".ipynb":
        if path.is_file():
            return path.resolve()
        raise ValueError(f"NOTEBOOK: no such notebook {path}")
    folder = own_notebooks()
    if folder is None:
        raise ValueError(f"NOTEBOOK: no notebook {name!r}: evp was installed "
                         "without its notebooks; give the path of a .ipynb file")
    found = notebooks(folder)
    for candidate in found:
        relative = candidate.relative_to(folder).with_suffix("").as_posix()
        if name.removesuffix(".ipynb") in (candidate.stem, relative):
            return candidate.resolve()
    available = ", ".join(p.relative_to(folder).with_suffix("").as_posix()
                          for p in found)
    raise ValueError(f"NOTEBOOK: evp has no analysis notebook {name!r} (a notebook "
                     f"of your own: give its path, NAME.ipynb); evp's: {available}")


#: The index of every notebook's claims that :func:`reproduce` writes.
CLAIMS_INDEX = "claims.csv"
#: Whose claim a row of the index is (its ``kind``): a paper's; a property of
#: evp's own code (a test, not a reproduction); the project's extension beyond
#: the papers. A notebook's table calls it ``credit``.
KINDS = ("paper", "code", "extension")
#: What a claim was judged on: the paper's data, a substitute for it (models
#: trained here), or synthetic data.
DATA = ("paper", "substitute", "synthetic")
#: What became of a claim, by its kind. Only a paper's claims are reproduced; one
#: that fails on a substitute says nothing about the paper, and only one that
#: fails on data that can test it (the paper's, or the paper's own synthetic
#: setting) is refuted.
STATUSES_BY_KIND = {
    "paper": ("reproduced", "not reproduced on the substitute", "refuted",
              "not covered"),
    "extension": ("holds", "does not hold", "not covered"),
    "code": ("passes", "fails"),
}
#: Every status, in the order the README and the site count them.
STATUSES = tuple(s for kind in KINDS for s in STATUSES_BY_KIND[kind])
#: The status of a row whose notebook has not said its kind and data yet.
UNCLASSIFIED = ""
#: The index's columns.
INDEX_COLUMNS = ["notebook", "source", "kind", "data", "claim", "measured", "status",
                 "why"]


def claim_status(kind: str, data: str, holds: bool, check: str = "") -> str:
    """The index's status of one claim: see `STATUSES_BY_KIND`. `check` is the
    notebook's kind of check (``"not covered"`` where the data cannot check it);
    a row without a kind is `UNCLASSIFIED`."""
    if kind not in KINDS or data not in DATA:
        return UNCLASSIFIED
    if check == "not covered" and kind != "code":
        return "not covered"
    if kind == "paper":
        return ("reproduced" if holds else "not reproduced on the substitute"
                if data == "substitute" else "refuted")
    if kind == "extension":
        return "holds" if holds else "does not hold"
    return "passes" if holds else "fails"


def claims_index(figures: Path) -> pd.DataFrame:
    """Every notebook's claims table (``<notebook>-claims.csv`` in `figures`), one
    row per claim: ``notebook``, ``source``, ``kind`` (`KINDS`: the paper's claim,
    a property of evp's code, the project's extension), ``data`` (`DATA`: the
    paper's, a substitute, synthetic), ``claim``, ``measured``, ``status`` and
    ``why`` (what the run found, unless the claim was reproduced, holds or
    passes).

    The kind and data are the notebook's ``credit`` and ``data`` columns; the
    status follows from them and the notebook's own check (:func:`claim_status`):
    a paper's claim that holds is ``reproduced``; one that does not is ``not
    reproduced on the substitute`` on a substitute and ``refuted`` on data that
    can test it; one the data cannot check (kind of check ``not covered``) is
    ``not covered``. An extension ``holds``, ``does not hold`` or is ``not
    covered``; a property of the code ``passes`` (a notebook asserts it) or
    ``fails``. A table without credit and data
    gives its rows no kind, data or status (`UNCLASSIFIED`).
    """
    rows = []
    for path in sorted(Path(figures).glob("*-claims.csv")):
        notebook = path.name.removesuffix("-claims.csv")
        table = pd.read_csv(path, keep_default_na=False, dtype=str)
        for row in table.to_dict("records"):
            kind, data = row.get("credit", ""), row.get("data", "")
            holds = str(row["holds"]).strip().lower() == "true"
            status = claim_status(kind, data, holds, row.get("kind", ""))
            done = status in ("reproduced", "holds", "passes")
            rows.append({"notebook": notebook, "source": row.get("source", ""),
                         "kind": kind, "data": data, "claim": row["claim"],
                         "measured": row["this run"], "status": status,
                         "why": "" if done else row["this run"]})
    return pd.DataFrame(rows, columns=INDEX_COLUMNS)


#: The notebook parameters that ``evp run`` sets from options of its own.
RUN_OPTIONS = {"score_column": "--score", "group_column": "--group",
               "models": "--models", "runs_column": "--runs",
               "order_column": "--order", "cost_column": "--cost",
               "minimize": "--minimize"}
#: The options' placeholders, as ``evp run --help`` names them.
_PLACEHOLDERS = {"--score": "COL", "--group": "COL", "--models": "A,B",
                 "--runs": "COL", "--order": "COL", "--cost": "COL"}
#: Options shown in the command itself when the notebook takes them (the others
#: are listed beside it).
_IN_COMMAND = ("--score", "--group", "--models", "--runs")
#: Parameters that ``evp run`` always sets itself: RESULTS, and where and how the
#: run reports.
RUN_SETS = ("results_path", "check_claims", "figures_dir")


@dataclass
class RunUsage:
    """How to run one analysis notebook on your results (:func:`run_usage`).

    ``command`` is the ``evp run`` command line; ``options`` the parameters that
    its options set, as (option, parameter, help); ``parameters`` every other
    parameter, as (``-p NAME=DEFAULT``, help), with its default as ``-p`` reads
    it.
    """

    notebook: str
    command: str
    options: list[tuple[str, str, str]]
    parameters: list[tuple[str, str]]


def _as_option_value(default: str) -> str:
    """A parameters-cell default written as ``-p NAME=VALUE`` reads it back."""
    import ast

    try:
        value = ast.literal_eval(default)
    except (ValueError, SyntaxError):
        return default
    if isinstance(value, str):
        return value
    if isinstance(value, list | tuple) and value and all(
            isinstance(v, int | float) and not isinstance(v, bool) for v in value):
        return ",".join(repr(v) for v in value)
    return repr(value)


def run_usage(notebook: Path, name: str | None = None) -> RunUsage | None:
    """The ``evp run`` command for `notebook` and its parameters, read from the
    notebook's ``parameters`` cell (``None`` if it takes no ``results_path``: it
    cannot run on your results).

    `name` is the notebook as ``evp run`` is told it (default: its file name's
    stem, e.g. ``classroom/significance_tests`` needs saying).
    """
    papermill = import_optional_dependency("papermill", purpose="running a notebook")

    declared = papermill.inspect_notebook(str(notebook))
    if "results_path" not in declared:
        return None
    name = name or Path(notebook).stem
    options = [(RUN_OPTIONS[key], key, declared[key]["help"])
               for key in declared if key in RUN_OPTIONS]
    shown = [option for option in _IN_COMMAND
             if any(option == o for o, _, _ in options)]
    command = " ".join(["evp run", name, "RESULTS",
                        *(f"{o} {_PLACEHOLDERS[o]}" for o in shown)])
    parameters = [(f"-p {key}={_as_option_value(p['default'])}", p["help"])
                  for key, p in declared.items()
                  if key not in RUN_OPTIONS and key not in RUN_SETS]
    return RunUsage(name, command, options, parameters)


@dataclass
class Reproduction:
    """What :func:`reproduce` did: the notebooks run, those whose committed copy
    changed, and one line per failure."""

    notebooks: list[Path]
    changed: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    #: Notebooks whose figures an interrupted run had left half-written, put
    #: back as they were before it.
    restored: list[str] = field(default_factory=list)
    #: Where what a failed or interrupted notebook had written over or beside
    #: its figures is kept (nothing of it is deleted: a file saved there
    #: meanwhile may be someone's).
    kept: list[Path] = field(default_factory=list)


# Where reproduce keeps each notebook's figures while it runs, inside the
# figures folder: what a killed run leaves there is put back by the next.
_JOURNAL = ".evp-reproduce-journal"
_JOURNAL_RECORD = "FILES.json"


def reproduce(folder: Path, figures: Path, parameters: dict,
              only: list[str] | None = None) -> Reproduction:
    """Execute the analysis notebooks of `folder` in place (see the module).

    Each notebook gets the parameters it declares, so that one it does not take
    neither warns nor lands in its committed copy; a parameter no notebook takes
    is an error.

    One run at a time: the notebooks' and the figures' folders are locked
    (:func:`evp._output.exclusive`; a second run is refused at once with
    :class:`evp._output.FolderBusy`). A notebook replaces its committed copy
    atomically once it has run to its end; its figures are kept in a journal
    in the figures folder while it runs, put back if it fails, and put back by
    the next run if this one is killed (``Reproduction.restored``); what it
    had written over or beside them is moved aside, never deleted
    (``Reproduction.kept``).
    """
    from evp._output import exclusive

    folder, figures = Path(folder), Path(figures)
    with exclusive(folder, what="evp reproduce"), \
            exclusive(figures, what="evp reproduce"):
        done = Reproduction([])
        done.restored = _recover(figures, done.kept)
        return _reproduce(folder, figures, parameters, only, done)


def _recover(figures: Path, kept: list | None = None) -> list[str]:
    """Put back the figures of the notebooks an interrupted run left in the
    journal; their names. Where what they had written is kept is appended to
    `kept`."""
    import shutil

    journal = figures / _JOURNAL
    if not journal.is_dir() or journal.is_symlink():
        return []
    restored = []
    for entry in sorted(p for p in journal.iterdir()
                        if p.is_dir() and not p.is_symlink()):
        changed, aside = _restore_entry(figures, entry)
        if changed:
            restored.append(entry.name)
        if aside is not None and kept is not None:
            kept.append(aside)
    shutil.rmtree(journal, ignore_errors=True)
    return restored


def _keep(figures: Path, stem: str) -> Path:
    """Copy notebook `stem`'s figures into the journal, the record of their
    names written last (an entry without it was never used)."""
    import shutil

    from evp._output import write_file

    entry = figures / _JOURNAL / stem
    shutil.rmtree(entry, ignore_errors=True)
    entry.mkdir(parents=True)
    names = [f.name for f in figures.glob(f"{stem}-*") if f.is_file()]
    for name in names:
        shutil.copy2(figures / name, entry / name)
    write_file(entry / _JOURNAL_RECORD, json.dumps(sorted(names)))
    return entry


def _journal_names(entry: Path) -> set[str] | None:
    """The names an entry of the journal recorded (files of notebook
    `entry.name`, in the figures folder itself); None where its record is not
    one evp wrote: not a list of such names."""
    try:
        names = json.loads((entry / _JOURNAL_RECORD).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return None
    if not (isinstance(names, list) and all(
            isinstance(n, str) and n.startswith(f"{entry.name}-")
            and "/" not in n and "\\" not in n and "\0" not in n
            and n not in (".", "..") for n in names)):
        return None
    return set(names)


def _restore_entry(figures: Path, entry: Path) -> tuple[bool, Path | None]:
    """Put notebook `entry.name`'s figures back from the journal; (whether
    anything was put back, the folder where what the notebook had written
    over or beside them is kept). Nothing is deleted: a file the notebook
    added, or one it changed, is moved into a new folder beside them,
    ``<name>-unfinished-<token>``, since a file saved there while it ran may
    be someone's. The entry is removed."""
    import shutil

    from evp._output import write_file

    names = _journal_names(entry)
    changed, aside = False, None

    def keep(path: Path) -> None:
        nonlocal aside
        if aside is None:
            aside = Path(tempfile.mkdtemp(prefix=f"{entry.name}-unfinished-",
                                          dir=figures))
            os.chmod(aside, 0o755)
        os.replace(path, aside / path.name)

    if names is not None:
        for path in sorted(figures.glob(f"{entry.name}-*")):
            if path.is_file() and not path.is_symlink() and path.name not in names:
                keep(path)
                changed = True
        for name in sorted(names):
            source = entry / name
            if not source.is_file() or source.is_symlink():
                continue
            content = source.read_bytes()
            target = figures / name
            if os.path.lexists(target) and not (
                    target.is_file() and target.read_bytes() == content):
                if target.is_file() or target.is_symlink():
                    keep(target)
                else:
                    continue  # a folder there now: someone's; left alone
            if not target.is_file():
                write_file(target, content)
                changed = True
    shutil.rmtree(entry, ignore_errors=True)
    return changed, aside


def _reproduce(folder: Path, figures: Path, parameters: dict, only, done
               ) -> Reproduction:
    import shutil

    from evp._output import write_file

    papermill = import_optional_dependency("papermill", purpose="running a notebook")

    found = notebooks(folder, only)
    done.notebooks = found
    if not found:
        return done
    declared = {path: set(papermill.inspect_notebook(str(path))) for path in found}
    unused = [key for key in parameters
              if not any(key in names for names in declared.values())]
    if unused:
        raise ValueError(f"-p {unused[0]}: no notebook run here takes a parameter "
                         f"{unused[0]!r}")
    with tempfile.TemporaryDirectory(prefix="evp-reproduce-") as scratch:
        for path in (bar := progress(found, unit="notebook")):
            bar.set_description(path.stem)
            # What the notebook may overwrite: put back if it fails, or by
            # the next run if this one is killed.
            entry = _keep(figures, path.stem)
            executed = Path(scratch) / path.name
            own = {k: v for k, v in parameters.items() if k in declared[path]}
            try:
                execute(path, executed, parameters=own, cwd=path.parent)
            except Exception as error:  # reported by the caller; the others run
                aside = _restore_entry(figures, entry)[1]
                if aside is not None:
                    done.kept.append(aside)
                reason = (str(error) if isinstance(error, NotebookFailed) else
                          f"{type(error).__name__}: {error}".splitlines()[0])
                done.failures.append(f"{path.stem}: {reason}")
                continue
            except BaseException:
                _restore_entry(figures, entry)
                raise
            if replace_if_changed(executed, path):
                done.changed.append(path.stem)
            shutil.rmtree(entry, ignore_errors=True)
    shutil.rmtree(figures / _JOURNAL, ignore_errors=True)
    if figures.is_dir() and any(figures.glob("*-claims.csv")):
        write_file(figures / CLAIMS_INDEX,
                   claims_index(figures).to_csv(index=False))
    return done


class NotebookFailed(RuntimeError):
    """A notebook stopped with an error; the message is the error's first line."""


def clean(notebook: dict) -> dict:
    """An executed notebook without what changes from run to run.

    Drops execution timestamps and durations (cells' ``execution`` and
    ``papermill`` metadata, the notebook's papermill record but for its
    parameters), widget state and progress-bar outputs (widget views and streams
    redrawn with carriage returns), and joins consecutive pieces of one stream
    (the kernel splits printed text wherever a flush happened to fall), so that
    rerunning a notebook whose results did not change rewrites the same bytes.
    """
    notebook = json.loads(json.dumps(notebook))
    metadata = notebook.get("metadata", {})
    metadata.pop("widgets", None)
    record = metadata.pop("papermill", None) or {}
    if record.get("parameters"):
        metadata["papermill"] = {"parameters": record["parameters"]}
    for cell in notebook.get("cells", []):
        cell.get("metadata", {}).pop("execution", None)
        cell.get("metadata", {}).pop("papermill", None)
        if "outputs" in cell:
            cell["outputs"] = _joined([o for o in cell["outputs"]
                                       if not _is_progress(o)])
    return notebook


def _joined(outputs: list) -> list:
    joined = []
    for output in outputs:
        previous = joined[-1] if joined else {}
        if (output.get("output_type") == "stream"
                and previous.get("output_type") == "stream"
                and previous.get("name") == output.get("name")):
            text = "".join(previous["text"]) + "".join(output["text"])
            previous["text"] = text.splitlines(keepends=True)
        else:
            joined.append(output)
    return joined


def _is_progress(output: dict) -> bool:
    if "application/vnd.jupyter.widget-view+json" in output.get("data", {}):
        return True
    text = output.get("text", "")
    return output.get("output_type") == "stream" and "\r" in "".join(text)


def _dumps(notebook: dict) -> str:
    nbformat = import_optional_dependency("nbformat", purpose="writing a notebook")
    return nbformat.writes(nbformat.from_dict(notebook)) + "\n"


def _local_kernel_manager(folder: str):
    """A kernel manager that talks to its kernel over local (IPC) sockets in
    `folder`, a fresh temporary folder for each run.

    Over TCP the kernel warns that its traffic is unencrypted, and a port picked
    by the manager can be taken before the kernel binds it, which kills the
    kernel's heartbeat with a traceback on the user's terminal. IPC sockets are
    files; kept in a folder of their own, kernels started side by side never
    share one.
    """
    from jupyter_client.manager import AsyncKernelManager
    from traitlets import default

    class LocalKernelManager(AsyncKernelManager):
        @default("transport")
        def _default_transport(self):
            return "ipc"

        @default("ip")
        def _default_ip(self):
            return os.path.join(folder, "kernel")

    return LocalKernelManager


def execute(source, output, *, parameters=None, cwd=None) -> None:
    """Run notebook `source` with papermill and write it, cleaned, to `output`.

    The kernel runs in `cwd` with progress bars off and its transport warning
    silenced. On an error in a cell, the partial notebook is still written to
    `output`, and :class:`NotebookFailed` is raised with the error's type and
    first line.
    """
    papermill = import_optional_dependency("papermill", purpose="running a notebook")
    from papermill.exceptions import PapermillExecutionError

    output = Path(output)
    previous_setting = os.environ.get(PROGRESS_VARIABLE)
    os.environ[PROGRESS_VARIABLE] = "0"
    failure = None
    try:
        with tempfile.TemporaryDirectory(prefix="evp-kernel-") as sockets:
            papermill.execute_notebook(
                str(source), str(output), parameters=parameters or None,
                cwd=None if cwd is None else str(cwd), progress_bar=False,
                kernel_manager_class=_local_kernel_manager(sockets),
                # The kernel's own log (an interrupt at shutdown, say) says
                # nothing about the notebook.
                extra_arguments=["--IPKernelApp.log_level=CRITICAL"],
            )
    except PapermillExecutionError as error:
        failure = f"{error.ename}: {_first_line(error.evalue)}"
    except Exception as error:  # the kernel did not start, or died
        failure = f"{type(error).__name__}: {_first_line(error)}"
    finally:
        if previous_setting is None:
            os.environ.pop(PROGRESS_VARIABLE, None)
        else:
            os.environ[PROGRESS_VARIABLE] = previous_setting
    if output.exists():
        output.write_text(_dumps(clean(json.loads(output.read_text()))))
    if failure is not None:
        raise NotebookFailed(failure)


def _first_line(message) -> str:
    return (str(message).strip().splitlines() or [""])[0]


def replace_if_changed(new, committed) -> bool:
    """Move the executed notebook `new` over `committed` if anything but execution
    metadata differs (see :func:`clean`); else delete it. Returns whether it did."""
    new, committed = Path(new), Path(committed)
    text = _dumps(clean(json.loads(new.read_text())))
    if committed.exists() and _dumps(clean(json.loads(committed.read_text()))) == text:
        new.unlink()
        return False
    from evp._output import write_file

    write_file(committed, text)  # atomically: the old notebook or the new one
    new.unlink()
    return True


def run_atomically(notebook, out, parameters: dict, *, cwd=None,
                   trials: pd.DataFrame | None = None) -> tuple[Path, list[str]]:
    """Execute `notebook` on a user's results into folder `out`, all or nothing
    (``evp run``): into a temporary folder beside `out`, which replaces `out`
    only once the notebook has run to its end; the caller holds
    :func:`evp._output.exclusive` on `out`. `trials`, when given, is written as
    ``trials.csv`` and read by the notebook instead of its ``results_path``.

    Returns the executed notebook's path and the names of the other files
    written. A notebook that fails leaves `out` as it was; its partial copy is
    kept in a new folder beside it, ``<out>-failed-<token>/``
    (:func:`evp._output.keep_failed`: never a folder that exists), and
    :class:`NotebookFailed` names it.
    """
    from evp._output import atomic_folder, keep_failed

    notebook, out = Path(notebook), Path(out)
    with atomic_folder(out) as partial:
        parameters = dict(parameters)
        if trials is not None:
            trials.to_csv(partial / "trials.csv", index=False)
            parameters["results_path"] = str(partial / "trials.csv")
        parameters["figures_dir"] = str(partial)
        executed = partial / notebook.name
        try:
            execute(notebook, executed, parameters=parameters, cwd=cwd)
        except NotebookFailed as error:
            if executed.exists():
                text = executed.read_text().replace(str(partial), str(out))
                kept = keep_failed(out, {executed.name: text}) / executed.name
                raise NotebookFailed(f"{error} (the partial notebook is "
                                     f"{kept})") from None
            raise
        # The notebook names the folder it will live in, not the one it ran in.
        executed.write_text(executed.read_text().replace(str(partial), str(out)))
        written = sorted(p.name for p in partial.iterdir()
                         if p != executed and not p.name.startswith(".evp-"))
    return out / notebook.name, written
