r"""Search results from scikit-learn: a fitted search, or its ``cv_results_``.

:func:`evp.read_results` reads through this module a fitted
``RandomizedSearchCV``, ``GridSearchCV``, ``HalvingRandomSearchCV`` or
``HalvingGridSearchCV`` (any object with a ``cv_results_`` dict), the
``cv_results_`` dict itself, or a DataFrame (or a CSV file) holding it, as
``pd.DataFrame(search.cv_results_)`` writes it. One row per candidate (a
configuration of hyperparameters), in the order scikit-learn evaluated them.

What is read, by ``cv_results_``'s own column names:

* ``mean_test_score`` — the score: each candidate's mean over the folds of the
  cross-validation; under multi-metric scoring (``scoring={"accuracy": …,
  "f1": …}``) one ``mean_test_<scorer>`` per scorer, and the scorer to read must
  be named (``score="accuracy"``);
* ``split<k>_test_<scorer>`` — the score on each fold, kept: the folds are the
  same for every candidate, so they are paired data for the significance
  tests;
* ``mean_fit_time`` — the mean seconds of one fit of the candidate (one fold),
  a cost column; ``std_*``, ``rank_test_*``, ``mean_score_time``,
  ``param_<name>`` and ``params`` are kept as read;
* ``iter`` and ``n_resources`` — the iteration of a successive-halving search
  and the resources (samples, by default) each candidate had in it.

scikit-learn's scores are higher-is-better by convention (a loss is scored
negated, ``neg_mean_squared_error``), so the direction is known. A candidate
whose fit failed has a missing score (``error_score=np.nan``, the default): a
failed round.

How the candidates were chosen is recorded (``Results.strategy``), as it decides
what the curves mean:

* ``RandomizedSearchCV`` draws the candidates independently from the
  distributions given: random search, the rounds IID and in the order drawn,
  the assumption of every curve and band. The order is tested for
  exchangeability like any other.
* ``GridSearchCV`` tries every point of a grid: not random search. The rows are
  read with a warning: the curves then describe configurations drawn at random
  from the grid's points, not the search that ran; the grid's order is not a
  trial order, so it is not tested.
* The halving searches (successive halving) score every candidate on a small
  budget first, keep the best third (``factor=3``) for a larger budget, and so
  on. Only the first iteration's candidates are independent draws (all of
  them, each on the smallest budget); every later iteration holds the survivors
  of the one before, chosen by their scores, so their scores are not draws of
  anything a tuning curve describes: curves from them would be optimistic, the
  more so the more rounds of halving. A halving search is therefore refused as
  a whole: read its first iteration with ``iteration=0`` (the random draws on
  the smallest budget, said in a note), or another with a warning.

Nothing is ever unpickled: a search saved with pickle or joblib is not read
from its file (loading a pickle runs the code in it); load it yourself if you
trust it, and pass the object, or save ``pd.DataFrame(search.cv_results_)`` as
CSV.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from evp._validation import _describe
from evp.readers._knows import OBJECT, SHAPE, Claim, Direction, Knows, Reader
from evp.readers._trials import COMPLETED, FAILED, Objective, Trial, trial_table
from evp.results import Results

__all__ = ["PICKLE_SUFFIXES", "is_cv_results", "is_search", "read_search"]

#: File endings of pickled objects, which are never loaded.
PICKLE_SUFFIXES = (".pkl", ".pickle", ".joblib", ".pck", ".pcl", ".dill")

_MEAN = re.compile(r"^mean_test_(.+)$")
_SPLIT = re.compile(r"^split\d+_test_")
_STRATEGIES = {
    "RandomizedSearchCV": "random",
    "GridSearchCV": "grid",
    "HalvingRandomSearchCV": "halving random",
    "HalvingGridSearchCV": "halving grid",
}
_DIRECTION = ("scikit-learn's scorers: higher is better (a loss is scored "
              "negated, neg_…)")


def is_search(obj) -> bool:
    """A scikit-learn search (``*SearchCV``) or any object with a
    ``cv_results_`` dict, fitted or not; recognised without importing sklearn."""
    if isinstance(obj, pd.DataFrame | dict | str | bytes):
        return False
    if isinstance(getattr(obj, "cv_results_", None), dict):
        return True
    return type(obj).__name__.endswith("SearchCV") and hasattr(obj, "fit")


def is_cv_results(obj) -> bool:
    """A ``cv_results_`` dict or DataFrame: ``mean_test_*``, ``rank_test_*`` and
    ``split<k>_test_*`` columns."""
    if isinstance(obj, dict):
        keys = [str(k) for k in obj]
    elif isinstance(obj, pd.DataFrame):
        keys = [str(c) for c in obj.columns]
    else:
        return False
    return (any(_MEAN.match(k) for k in keys)
            and any(k.startswith("rank_test_") for k in keys)
            and any(_SPLIT.match(k) for k in keys))


def _scorers(columns) -> list[str]:
    return [m.group(1) for c in columns if (m := _MEAN.match(str(c)))]


def _score_column(columns, score, scoring) -> str:
    """The ``mean_test_*`` column that `score` names."""
    scorers = _scorers(columns)
    shown = ", ".join(scorers)
    if score is None:
        if len(scorers) == 1:
            return f"mean_test_{scorers[0]}"
        raise ValueError(f"score: the search scored {len(scorers)} metrics "
                         f"({shown}); name one, e.g. score='{scorers[0]}'")
    score = str(score)
    if score in scorers:
        return f"mean_test_{score}"
    if score in (f"mean_test_{s}" for s in scorers):
        return score
    if scorers == ["score"] and isinstance(scoring, str) and score == scoring:
        return "mean_test_score"  # scoring="accuracy" is reported as score
    raise ValueError(f"score: the search has no scorer {score!r}; its scorers: "
                     f"{shown} (columns mean_test_<scorer>)")


def read_search(search_or_results, *, score=None, iteration=None) -> Results:
    """One row per candidate of a scikit-learn search.

    Parameters
    ----------
    search_or_results : search object, dict or pandas.DataFrame
        A fitted ``RandomizedSearchCV``, ``GridSearchCV``,
        ``HalvingRandomSearchCV`` or ``HalvingGridSearchCV`` (or another object
        with ``cv_results_``), its ``cv_results_`` dict, or that dict as a
        DataFrame.
    score : str, optional
        The scorer: ``"accuracy"`` reads ``mean_test_accuracy`` (the column's
        name is accepted too). Default: the one scorer (``mean_test_score``);
        needed under multi-metric scoring.
    iteration : int, optional
        For a successive-halving search: the iteration to read (``iter``
        column). ``0`` reads every candidate, each on the smallest budget: the
        independent draws. A later one reads the survivors of the ones before,
        with a warning. Needed when the search ran more than one iteration.

    Returns
    -------
    evp.Results
        Its frame: ``cv_results_`` as a DataFrame (the chosen iteration's rows,
        for a halving search), the score ``mean_test_<scorer>``; ``tuner`` is
        ``"scikit-learn"``, ``strategy`` says how candidates were chosen, the
        notes what was read and left out.

    Raises
    ------
    ValueError
        An unfitted search; several scorers and no `score`, or an unknown one;
        a halving search of several iterations without `iteration`, or an
        iteration it did not run.
    TypeError
        Not a search, a ``cv_results_`` dict nor such a DataFrame.
    """
    obj = search_or_results
    kind = type(obj).__name__
    scoring = None
    if is_search(obj):
        results = getattr(obj, "cv_results_", None)
        if not isinstance(results, dict):
            raise ValueError(f"path_or_frame: the {kind} is not fitted (it has no "
                             "cv_results_): call its fit first")
        frame = pd.DataFrame(results)
        scoring = getattr(obj, "scoring", None)
        strategy = _STRATEGIES.get(kind)
        source = f"scikit-learn {kind}"
    elif is_cv_results(obj):
        frame = pd.DataFrame(obj) if isinstance(obj, dict) else obj.copy()
        kind = None
        strategy = ("halving" if {"iter", "n_resources"} <= set(frame.columns)
                    else None)
        source = "scikit-learn cv_results_"
    else:
        raise TypeError(f"path_or_frame: not a scikit-learn search nor its "
                        f"cv_results_, got {_describe(obj)}")
    frame = frame.reset_index(drop=True)
    column = _score_column(frame.columns, score, scoring)
    folds = [c for c in frame.columns if re.fullmatch(
        rf"split\d+_test_{re.escape(column.removeprefix('mean_test_'))}", str(c))]
    notes, warnings = [], []
    total = len(frame)
    halving = strategy is not None and strategy.startswith("halving")
    if halving:
        frame, more, warned = _iteration(frame, iteration, kind or "halving search")
        notes += more
        warnings += warned
    elif iteration is not None:
        raise ValueError(f"iteration: only a successive-halving search has "
                         f"iterations; the {kind or 'cv_results_'} has none: leave "
                         "iteration out")
    scored = pd.to_numeric(frame[column], errors="coerce").notna()
    more = (f", the mean over {len(folds)} folds (the per-fold scores "
            f"{folds[0]}…{folds[-1]} kept, paired across candidates)" if folds else "")
    frame, note = trial_table(
        (Trial(row, COMPLETED if ok else FAILED, None if ok else "no score",
               label=i)
         for (i, row), ok in zip(frame.to_dict("index").items(), scored,
                                 strict=True)),
        Objective(column, False, more=more),
        what=source, noun="candidates", failed_means=": their fits failed",
        details=(len(frame) != total and f"{len(frame)} of the {total} candidates "
                 "read", "mean_fit_time" in frame and (
                     "cost column 'mean_fit_time' (seconds per fit on one fold): "
                     "pass cost='mean_fit_time'")))
    notes.insert(0, note)
    ordered = True
    if strategy == "random":
        label = (f"scikit-learn {kind}: random search, candidates drawn "
                 "independently, in the order drawn")
    elif strategy == "grid":
        label = f"scikit-learn {kind}: every point of a grid (not random search)"
        ordered = False
        warnings.append(
            f"{kind} tried every point of a grid, which is not random search: the "
            "curves and bands describe configurations drawn at random from the "
            "grid's points, not the search that ran, and the grid's order is not "
            "a trial order (not tested for exchangeability); RandomizedSearchCV "
            "draws them")
    elif halving:
        label = (f"scikit-learn {kind or 'successive halving'}: successive "
                 "halving, one iteration read")
        if strategy == "halving grid":
            ordered = False
            warnings.append(
                f"{kind} starts from every point of a grid, which is not random "
                "search: the curves and bands describe configurations drawn at "
                "random from the grid's points, and the grid's order is not a "
                "trial order (not tested for exchangeability)")
    elif kind is not None:
        label = f"scikit-learn {kind}"
        notes.append(f"{kind} is not one of scikit-learn's searches that evp knows "
                     "(RandomizedSearchCV, GridSearchCV, the halving searches): "
                     "the rows are read in their order, and tested as any trials")
    else:
        label = None
        notes.append("cv_results_ do not say how the candidates were chosen "
                     "(RandomizedSearchCV draws them at random, GridSearchCV "
                     "walks a grid, which is not random search): the rows are "
                     "read in their order; pass the search object to record it")
    if label is not None and strategy in ("random", "grid"):
        notes[0] += "; " + label.split(": ", 1)[1]  # how the candidates were chosen
    return Results(frame, score=column, minimize=False, direction=_DIRECTION,
                   notes=tuple(notes), warnings=tuple(warnings), strategy=label,
                   tuner="scikit-learn", ordered=ordered, source=source,
                   name=_estimator_name(obj) if kind is not None else None)


def _estimator_name(search) -> str | None:
    """The name of the model a search tuned: its estimator's class, the last step
    of a pipeline (``LogisticRegression``), so that one search's curve is not
    named after the score column."""
    estimator = getattr(search, "estimator", None)
    steps = getattr(estimator, "steps", None)
    if steps:
        estimator = steps[-1][1]
    return type(estimator).__name__ if estimator is not None else None


def _iteration(frame: pd.DataFrame, iteration, kind: str):
    """The rows of one iteration of a successive-halving search, with its notes
    and warnings."""
    steps = sorted(int(i) for i in pd.unique(frame["iter"]))
    resources = frame.groupby("iter")["n_resources"].first()
    shown = ", ".join(f"{int(resources[i]):g}" for i in steps)
    how = ("pass iteration=0 to evp.readers.sklearn.read_search, or keep only the "
           "rows with iter == 0, to read the first iteration")
    if iteration is None and len(steps) > 1:
        raise ValueError(
            f"iteration: a {kind} ran {len(steps)} iterations of successive "
            f"halving (resources {shown}), each keeping the best candidates of "
            "the one before: only iteration 0's candidates are independent draws "
            "(on the smallest budget), the later ones are survivors chosen by "
            f"their scores, not draws a tuning curve describes; {how} as random "
            f"search on {int(resources[steps[0]]):g} resources")
    if iteration is None and steps != [0]:
        raise ValueError(
            f"iteration: these rows are iteration {steps[0]} of a {kind} only, the "
            "survivors of the iterations before, chosen by their scores: not "
            f"independent draws; {how}, or pass iteration={steps[0]} to "
            "evp.readers.sklearn.read_search to read these with a warning")
    if iteration is None:
        iteration = 0
    if isinstance(iteration, bool) or not isinstance(iteration, int | np.integer):
        raise ValueError(f"iteration must be a whole number, got "
                         f"{_describe(iteration)}")
    if int(iteration) not in steps:
        raise ValueError(f"iteration: the {kind} ran iterations "
                         f"{', '.join(map(str, steps))}, not {iteration}")
    iteration = int(iteration)
    rows = frame[frame["iter"] == iteration].reset_index(drop=True)
    budget = f"{int(resources[iteration]):g}"
    left = len(frame) - len(rows)
    note = (f"successive halving: iteration {iteration} of {len(steps)} read, "
            f"{len(rows)} candidates each on {budget} resources (n_resources)"
            + (f"; {left} rows of the other iterations left out" if left else ""))
    warnings = []
    if iteration == 0:
        note += ("; iteration 0 holds every candidate, drawn before any was "
                 "scored: random draws for HalvingRandomSearchCV, scored on the "
                 "smallest budget, so the curves are those of that budget")
    else:
        warnings.append(
            f"iteration {iteration} of a {kind} holds the survivors of the "
            "iterations before, kept for their scores: they are not independent "
            "draws, and curves and bands from them are optimistic; iteration=0 "
            "reads the draws")
    return rows, [note], warnings


def _is_search(source) -> bool:
    return is_search(source) or (isinstance(source, dict) and is_cv_results(source))


def _read_cv_results(source, *, score=None):
    return read_search(source, score=score).replace(source="a DataFrame")


#: What scikit-learn records: the order it drew a randomized search's
#: candidates (a grid has none).
KNOWS = Knows(direction=Direction(other="assume"),
              order="the order scikit-learn drew its candidates (a randomized "
                    "search; a grid has none)")
#: The readers of a fitted search (or its cv_results_ dict), and of its
#: cv_results_ as a table (a DataFrame, or a CSV file's), as the registry
#: lists them.
READER = Reader("scikit-learn", "a scikit-learn search", _is_search,
                lambda s, score=None: read_search(s, score=score),
                claim=Claim(OBJECT, ("object",), cost=0), knows=KNOWS,
                names_score=True)
TABLE_READER = Reader("scikit-learn", "scikit-learn's cv_results_ table",
                      lambda s: isinstance(s, pd.DataFrame) and is_cv_results(s),
                      _read_cv_results, claim=Claim(SHAPE, ("table",), cost=0),
                      knows=KNOWS, names_score=True)
