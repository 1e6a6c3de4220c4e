"""The steps every analysis notebook shares: parameters, data, figures and claims.

Each notebook in ``notebooks/`` runs on its paper's data by default and on your own
search results when its ``results_path`` parameter names them. The parameters mean
the same everywhere:

``results_path``
    Your results (CSV, TSV, JSON Lines, or a folder written by ``evp search``), one
    row per round of random search; None for the paper's data.
``score_column``, ``group_column``, ``cost_column``
    The columns of the score, of the model's name and of each round's cost.
``models``
    The models to analyse, in order; None for the paper's, or all of yours in
    file order. A list, or as papermill's ``-p`` passes it, a string:
    ``a,b`` or ``'["a", "b"]'``.
``minimize``
    The scores are losses. The analysis then works on the negated loss, so that
    higher is better throughout; figures label their axes with the loss itself.
``check_claims``
    Assert the paper's claims. Only on the paper's data: on yours the claims
    table is reported, not asserted.
``figures_dir``
    Where figures and the claims table go; None for ``figures/`` of this
    project on the paper's data, and ``evp-runs/<notebook>/`` under the current
    folder on yours.

Everything here is what a notebook, the command line and a plot would otherwise
write twice; what is specific to one analysis stays in its notebook. The last part
runs notebooks for ``evp run`` and ``evp reproduce``: :func:`execute` (papermill,
no progress bars, a quiet kernel), :func:`clean` (no timestamps or progress bars
in what is written) and :func:`replace_if_changed`.
"""

from __future__ import annotations

import json
import math
import os
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from evp.datasets import read_results, scores_by_model

__all__ = [
    "DEBERTA",
    "METHOD_NAMES",
    "REUTERS",
    "SST5_SEARCHES",
    "NotebookFailed",
    "PaperData",
    "Results",
    "as_count",
    "as_list",
    "budget_axis",
    "clean",
    "data_limits",
    "execute",
    "figures_folder",
    "kde_bounds",
    "load_results",
    "progress",
    "project_root",
    "replace_if_changed",
    "report_claims",
    "save",
    "start",
]

METHOD_NAMES = {
    "ld_highest_density": "LD highest-density",
    "ld_equal_tailed": "LD equal-tailed",
    "ks": "KS",
    "dkw": "DKW",
}

# Set to 0 by `evp run` and `evp reproduce`: executed notebooks keep no progress bars.
PROGRESS_VARIABLE = "EVP_PROGRESS"
RUNS_FOLDER = "evp-runs"


def project_root(start=None, *, installed: bool = True) -> Path | None:
    """The evp checkout around `start` (default: the current folder), found as the
    first folder, going up, with both ``notebooks/`` and ``figures/``; else, if
    `installed`, the checkout this package was installed from; else None."""
    start = Path.cwd() if start is None else Path(start).resolve()
    for folder in (start, *start.parents):
        if (folder / "notebooks").is_dir() and (folder / "figures").is_dir():
            return folder
    checkout = Path(__file__).resolve().parents[1]
    return checkout if installed and (checkout / "notebooks").is_dir() else None


# ------------------------------------------------------------------ parameters


def as_list(value, name: str, *, kind: Callable = str) -> list | None:
    """A list-valued notebook parameter, however it was passed.

    papermill's ``-p NAME VALUE`` passes strings, so besides a list (or one value)
    this accepts JSON (``'["a", "b"]'``, ``'[6, 48]'``) and comma-separated text
    (``a,b``, ``6,48``). Each item is converted with `kind`. None stays None.

    >>> as_list("6, 48", "sample_sizes", kind=int)
    [6, 48]
    >>> as_list('["lr", "cnn"]', "models")
    ['lr', 'cnn']
    """
    if value is None:
        return None
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            try:
                value = json.loads(text)
            except json.JSONDecodeError:
                raise ValueError(f"{name}: {value!r} is not a JSON list; write it as "
                                 f"'[\"a\", \"b\"]' or a,b") from None
        else:
            value = [part.strip() for part in text.split(",") if part.strip()]
    elif not isinstance(value, list | tuple | np.ndarray | pd.Index):
        value = [value]
    try:
        items = [_convert(item, kind) for item in value]
    except (TypeError, ValueError):
        raise ValueError(f"{name}: expected a list of {kind.__name__} values, got "
                         f"{value!r}") from None
    if not items:
        raise ValueError(f"{name}: the list is empty; give at least one value")
    return items


def as_count(value, name: str, *, at_least: int = 1) -> int:
    """A whole-number parameter (a number of draws, rounds, …), however passed.

    >>> as_count("500", "n_draws")
    500
    """
    try:
        (count,) = as_list(value, name, kind=int)
    except ValueError:
        count = None
    if count is None:
        raise ValueError(f"{name}: expected a whole number, got {value!r}")
    if count < at_least:
        raise ValueError(f"{name}: must be at least {at_least}, got {count}")
    return count


def _convert(item, kind):
    if kind is int:
        number = float(item)
        if not number.is_integer():
            raise ValueError(item)
        return int(number)
    return kind(item)


# ------------------------------------------------------------------ the data


@dataclass(frozen=True)
class PaperData:
    """Where a notebook's default data come from and how to label them."""

    load: Callable[[], pd.DataFrame]
    score: str
    group: str
    models: tuple[str, ...]
    score_name: str
    bounds: tuple[float, float] = (0.0, 1.0)
    cost: str | None = None
    names: dict = field(default_factory=dict)
    source: str = ""


def _load_deberta():
    from evp.datasets import load_deberta

    return load_deberta()


def _load_reuters():
    from evp.datasets import load_reuters

    return load_reuters()


def _load_sst5_searches():
    from evp.datasets import load_search

    root = project_root()
    folder = root / "data" / "sst5" if root else None
    if folder is None or not folder.is_dir():
        raise FileNotFoundError(
            "results_path: this project's SST-5 searches live in data/sst5 of the evp "
            "repository, which is not beside this installation; pass results_path")
    return load_search(folder)


DEBERTA = PaperData(
    load=_load_deberta, score="best_matched", group="model",
    models=("deberta-v3-base", "deberta-base"), score_name="accuracy",
    names={"deberta-base": "DeBERTa", "deberta-v3-base": "DeBERTaV3"},
    source="DeBERTa and DeBERTaV3 on MultiNLI (Lourie, Cho and He 2024)",
)
REUTERS = PaperData(
    load=_load_reuters, score="f1", group="model", models=("mlp", "lstm"),
    score_name="F1", source="Reuters MLP and LSTM (Tang et al. 2020)",
)
SST5_SEARCHES = PaperData(
    load=_load_sst5_searches, score="accuracy", group="model", cost="seconds",
    models=("lr", "cnn", "lboe"), score_name="dev accuracy",
    source="this project's SST-5 random searches (data/sst5)",
)


@dataclass
class Results:
    """One notebook's data: a tidy frame and each model's scores.

    ``scores`` hold each model's scores in file order, negated when `minimize`
    (so that higher is always better); ``data`` is the tidy frame of
    :func:`evp.datasets.read_results`.
    """

    data: pd.DataFrame
    scores: dict
    minimize: bool
    paper: PaperData | None
    score_name: str
    source: str
    notes: list = field(default_factory=list)

    @classmethod
    def from_scores(cls, scores: dict, *, score_name: str = "score",
                    source: str = "") -> Results:
        """Results of a notebook's own making (a simulated bag, say): a frame with
        ``score`` and ``group`` columns is built from {model: scores}."""
        data = pd.concat([pd.DataFrame({"score": np.asarray(s, dtype=float),
                                        "group": str(m)})
                          for m, s in scores.items()], ignore_index=True)
        return cls(data=data, scores={str(m): np.asarray(s, dtype=float)
                                      for m, s in scores.items()},
                   minimize=False, paper=None, score_name=score_name, source=source)

    @property
    def models(self) -> list[str]:
        return list(self.scores)

    def first(self, count: int) -> list[str]:
        """The first `count` models, with a printed note when there are more."""
        chosen = self.models[:count]
        if len(self.models) > count:
            names = " and ".join(self.label(m) for m in chosen)
            print(f"note: analysing the first {'model' if count == 1 else 'models'}, "
                  f"{names}, of {len(self.models)}; choose with models")
        return chosen

    @property
    def is_paper(self) -> bool:
        """True on the paper's data (the claims are then asserted)."""
        return self.paper is not None

    def label(self, model: str) -> str:
        """The model's display name (the paper's spelling on its data)."""
        return (self.paper.names if self.paper else {}).get(model, model)

    def show(self, values):
        """Scores as the user knows them: the loss again when `minimize`."""
        return -np.asarray(values) if self.minimize else values

    def axis_label(self, statistic: str = "") -> str:
        """E.g. "median best accuracy", or "median lowest val_loss" for losses."""
        word = "lowest" if self.minimize else "best"
        return " ".join(part for part in (statistic, word, self.score_name) if part)

    def orient_axis(self, ax, axis: str = "y") -> None:
        """On losses, label the negated-loss axis with the loss (best at the top)."""
        if not self.minimize:
            return
        from matplotlib.ticker import FuncFormatter

        target = ax.yaxis if axis == "y" else ax.xaxis
        target.set_major_formatter(FuncFormatter(lambda v, _: f"{-v + 0:.4g}"))

    def bounds(self, lower=None, upper=None) -> tuple[float, float]:
        """The score's known range, oriented like ``scores``; ±inf where unknown.

        `lower` and `upper` are in the user's units (the loss itself when
        `minimize`); None means the paper's range on its data and unbounded on
        yours. The range must contain every score.
        """
        if lower is None and upper is None and self.paper is not None:
            lower, upper = self.paper.bounds
        low = -math.inf if lower is None else float(lower)
        high = math.inf if upper is None else float(upper)
        if not low < high:
            raise ValueError(f"lower_bound, upper_bound: need lower_bound < "
                             f"upper_bound, got {lower} and {upper}")
        shown = {m: self.show(s) for m, s in self.scores.items()}
        smallest = min(float(s.min()) for s in shown.values())
        largest = max(float(s.max()) for s in shown.values())
        if low > smallest or high < largest:
            raise ValueError(
                f"lower_bound, upper_bound: the range [{lower}, {upper}] must contain "
                f"every score, which run from {smallest:g} to {largest:g}; set them "
                f"to the metric's possible range, or None if unknown")
        return (-high, -low) if self.minimize else (low, high)

    def sizes(self, values, name: str, *, models=None, at_least: int = 1,
              at_most: int | None = None, reason: str = "") -> list[int]:
        """Sample sizes that the data allow, in order, without repeats.

        A size above the rounds of the smallest model (or above `at_most`, for
        the `reason` given) is replaced by that number, with a printed note; a
        size below `at_least`, or data too small for it, is an error naming the
        parameter.
        """
        values = as_list(values, name, kind=int)
        if values is None:
            raise ValueError(f"{name}: give one or more sample sizes, not None")
        models = self.models if models is None else models
        smallest = min(models, key=lambda m: self.scores[m].size)
        limit = self.scores[smallest].size
        why = f"the {limit} rounds of model {self.label(smallest)!r}"
        if at_most is not None and at_most < limit:
            limit, why = at_most, reason or f"at most {at_most}"
        low = [v for v in values if v < at_least]
        if low:
            raise ValueError(f"{name}: sizes must be at least {at_least}, got {low}")
        if limit < at_least:
            raise ValueError(f"{name}: at most {limit} fit ({why}), but this "
                             f"analysis needs at least {at_least}")
        clipped = [v for v in values if v > limit]
        if clipped:
            shown = ", ".join(map(str, clipped))
            print(f"note: {name} {shown} {'exceeds' if len(clipped) == 1 else 'exceed'}"
                  f" {why}; using {limit} instead")
        return list(dict.fromkeys(min(v, limit) for v in values))


def load_results(results_path=None, *, paper: PaperData | None = None,
                 score_column=None, group_column=None, models=None,
                 minimize=False, cost_column=None, need: int = 1,
                 name: str = "this notebook") -> Results:
    """Read a notebook's data: the paper's (``results_path=None``) or the user's.

    Parameters
    ----------
    results_path : str, os.PathLike or None
        The user's results, relative to the current folder; None for `paper`.
    paper : PaperData, optional
        The notebook's own data and labels.
    score_column, group_column, cost_column : str, optional
        Columns of the user's results; None for the paper's (the score column is
        required on the user's results).
    models : list of str or str, optional
        Models to analyse, in order (see :func:`as_list`); default the paper's,
        or every model of the user's results in file order.
    minimize : bool
        The scores are losses.
    need : int
        Models the analysis needs; fewer is an error naming `models`.
    name : str
        The notebook, for messages.

    Returns
    -------
    Results
    """
    minimize = bool(minimize)
    models = as_list(models, "models")
    if results_path is None:
        if paper is None:
            raise ValueError(f"results_path: {name} has no default data; name your "
                             "results file")
        data = read_results(paper.load(), score=score_column or paper.score,
                            group=group_column or paper.group,
                            cost=cost_column or paper.cost)
        models = models or list(paper.models)
        score_name, source = paper.score_name, paper.source
    else:
        path = Path(results_path).expanduser()
        if score_column is None:
            raise ValueError(f"score_column: name the column of scores in "
                             f"{path.name}")
        data = read_results(path, score=score_column, group=group_column,
                            cost=cost_column)
        score_name, source, paper = str(score_column), str(results_path), None
    scores = scores_by_model(data, models, minimize=minimize)
    if len(scores) < need:
        hint = ("name the column of model names with group_column"
                if group_column is None and paper is None
                else "list more models, or use results with more")
        raise ValueError(f"models: {name} compares {need} models, but got "
                         f"{len(scores)} ({', '.join(scores)}); {hint}")
    results = Results(data=data, scores=scores, minimize=minimize, paper=paper,
                      score_name=score_name, source=source)
    tied = [results.label(m) for m, s in scores.items() if np.unique(s).size < s.size]
    if tied:
        # The bands assume continuous scores; with ties they are a close
        # approximation. Said once here, not once per call.
        warnings.filterwarnings("ignore", message="scores contain ties")
        results.notes.append(f"tied scores in {', '.join(tied)}: the bands' coverage "
                             "is exact for continuous scores, close with ties")
    if minimize:
        results.notes.append(f"{score_name} is a loss: the analysis works on "
                             f"-{score_name}, so that higher is better; figures show "
                             f"{score_name} with the best at the top, and tables "
                             f"in -{score_name} say so")
    return results


# ------------------------------------------------------------------ figures


FIGURES_VARIABLE = "EVP_FIGURES_DIR"


def figures_folder(name: str, figures_dir=None, *, paper: bool = True) -> Path:
    """The folder for a notebook's figures and claims table (created).

    None means ``figures/`` of the evp checkout around the current folder on the
    paper's data (see :func:`project_root`), and ``evp-runs/<name>/`` under the
    current folder on the user's; the environment variable ``EVP_FIGURES_DIR``,
    when set, replaces both (so that a check of the notebooks leaves the checkout
    alone).
    """
    if figures_dir is None:
        figures_dir = os.environ.get(FIGURES_VARIABLE) or None
    root = (project_root(installed=False) if paper and figures_dir is None
            else None)
    if figures_dir is not None:
        folder = Path(figures_dir).expanduser()
    elif root is not None:
        folder = root / "figures"
    else:
        folder = Path(RUNS_FOLDER) / name
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def start(name: str, figures_dir=None, results: Results | None = None) -> Path:
    """Set the plotting theme, print the data's notes; return the figures folder."""
    from evp.plot import set_theme

    set_theme()  # the look of evp's own figures, for every notebook figure
    if results is not None:
        print(f"data: {results.source}; models: "
              f"{', '.join(results.label(m) for m in results.models)}")
        for note in results.notes:
            print(f"note: {note}")
    return figures_folder(name, figures_dir,
                          paper=results is None or results.is_paper)


def save(figure, stem) -> None:
    """Write `figure` as PNG and PDF, byte for byte reproducibly (returns nothing,
    so that a notebook cell ending in it shows no paths)."""
    from evp.plot import save_figure

    save_figure(figure, stem)


def budget_axis(ax, n, *, log: bool = True) -> None:
    """Budgets 1..n on the x-axis, log-scaled, with plain tick labels (1, 10, 100)."""
    import matplotlib.pyplot as plt

    n = max(math.ceil(n), 2)
    if not log:
        ax.set_xlim(1, n)
        return
    ax.set(xscale="log", xlim=(1, n))
    ticks = [t for t in (1, 2, 3, 5, 10, 20, 30, 50, 100, 200, 300, 500, 1000, 2000,
                         5000, 10000) if t <= n]
    ticks = ticks[:: max(1, -(-len(ticks) // 7))]
    if n / ticks[-1] > 1.4:  # label the largest budget too, unless crowded
        ticks.append(n)
    ax.set_xticks(ticks, [f"{t:g}" for t in ticks])
    ax.xaxis.set_minor_formatter(plt.NullFormatter())


def data_limits(*arrays, pad: float = 0.05, bounds=(-math.inf, math.inf)):
    """(bottom, top) around the finite values of `arrays`, leaving out values at
    the `bounds` (a vacuous band edge), padded by `pad` of the range."""
    values = np.concatenate([np.ravel(a) for a in arrays]).astype(float)
    keep = np.isfinite(values) & (values > bounds[0]) & (values < bounds[1])
    values = values[keep]
    if values.size == 0:
        return (0.0, 1.0)
    low, high = float(values.min()), float(values.max())
    span = high - low or max(abs(high), 1.0) * 0.1
    return (low - pad * span, high + pad * span)


def kde_bounds(scores, bandwidth: float, lower: float, upper: float):
    """Bounds for :class:`evp.simulate.ReflectedKDE`: the known ones, and where a
    bound is unknown, one 50 kernel widths past the data, where reflection changes
    nothing in double precision (a plain Gaussian KDE on that side)."""
    scores = np.asarray(scores)
    low = lower if math.isfinite(lower) else float(scores.min()) - 50 * bandwidth
    high = upper if math.isfinite(upper) else float(scores.max()) + 50 * bandwidth
    return (low, high)


def progress(iterable: Iterable | None = None, **options):
    """A tqdm progress bar, left out of executed notebooks (``EVP_PROGRESS=0``)."""
    if os.environ.get(PROGRESS_VARIABLE, "1") == "0":
        options["disable"] = True
    with warnings.catch_warnings():  # tqdm.auto warns when ipywidgets is missing
        warnings.simplefilter("ignore")
        from tqdm.auto import tqdm
    return tqdm(iterable, **options)


# ------------------------------------------------------------------ claims


def report_claims(rows, *, name: str, folder, check: bool, results=None,
                  width: int = 110) -> pd.DataFrame:
    """Print the claims table, write it as ``<name>-claims.csv``, assert it.

    Parameters
    ----------
    rows : list of tuple
        (claim, what this run found, holds) or (claim, found, holds, kind), kind
        being "must hold" (true for any data) or "empirical".
    name : str
        The notebook's name.
    folder : path
        Where the CSV goes (the figures folder).
    check : bool
        Assert the claims: every row, or only the "must hold" ones when kinds are
        given. Ignored on a user's data (`results` not the paper's), where the
        table is reported only.
    results : Results, optional
    """
    columns = ["claim", "this run", "holds", "kind"][: len(rows[0])]
    claims = pd.DataFrame(rows, columns=columns)
    claims["holds"] = claims["holds"].astype(bool)
    claims.to_csv(Path(folder) / f"{name}-claims.csv", index=False)
    with pd.option_context("display.max_colwidth", width,
                           "display.width", 2 * width + 40):
        print(claims.to_string(index=False))
    if check and (results is None or results.is_paper):
        asserted = claims if "kind" not in claims else claims[
            claims["kind"] == "must hold"]
        failed = asserted[~asserted["holds"]]
        if len(failed):
            raise AssertionError("claims that do not hold: "
                                 + "; ".join(failed["claim"]))
    return claims


# ------------------------------------------------------------------ running them


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
    import nbformat

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
    import tempfile

    import papermill
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
    committed.write_text(text)
    new.unlink()
    return True
