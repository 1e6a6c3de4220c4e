"""Reading scikit-learn's searches: fitted objects, cv_results_ and its CSV."""

import os
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest

from evp import read_results
from evp.cli import main

pytestmark = [pytest.mark.needs("sklearn"),
              pytest.mark.filterwarnings("ignore:dropped .* bad row")]


def _tree_search(kind, **options):
    """A small search of decision trees on iris, run by scikit-learn itself."""
    from sklearn.datasets import load_iris
    from sklearn.exceptions import FitFailedWarning
    from sklearn.tree import DecisionTreeClassifier

    x, y = load_iris(return_X_y=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FitFailedWarning)
        warnings.simplefilter("ignore", UserWarning)  # "one or more test scores"
        return kind(DecisionTreeClassifier(random_state=0), cv=3,
                    **options).fit(x, y)


@pytest.fixture(scope="module")
def random_search():
    from sklearn.model_selection import RandomizedSearchCV

    # max_depth=0 is refused by the tree: those fits fail (error_score=nan).
    return _tree_search(RandomizedSearchCV, n_iter=12, random_state=3,
                        param_distributions={"max_depth": [0, 1, 2, 3, 4, 6],
                                             "min_samples_leaf": [1, 5, 20, 40]})


@pytest.fixture(scope="module")
def grid_search():
    from sklearn.model_selection import GridSearchCV

    return _tree_search(GridSearchCV, scoring=["accuracy", "f1_macro"], refit=False,
                        param_grid={"max_depth": [1, 2, 3, 5]})


@pytest.fixture(scope="module")
def halving_search():
    from sklearn.experimental import enable_halving_search_cv  # noqa: F401
    from sklearn.model_selection import HalvingRandomSearchCV

    return _tree_search(HalvingRandomSearchCV, n_candidates=9, min_resources=30,
                        random_state=0,
                        param_distributions={"max_depth": [1, 2, 3, 4, 5, 6],
                                             "min_samples_leaf": [1, 2, 5, 10]})


def test_a_random_search_is_read_in_the_order_drawn(random_search):
    cv = random_search.cv_results_
    results = read_results(random_search, failed="worst")
    frame = results.frame
    assert results.score == "mean_test_score" and results.tuner == "scikit-learn"
    assert results.strategy.startswith("scikit-learn RandomizedSearchCV: random")
    assert results.ordered and not results.minimize
    assert "scikit-learn's scorers" in results.direction
    # The rows are the candidates as drawn, each fold's score kept.
    assert [p for p in frame["params"]] == list(cv["params"])
    for k in range(3):
        np.testing.assert_array_equal(frame[f"split{k}_test_score"],
                                      cv[f"split{k}_test_score"])
    # The fits that failed (max_depth=0) are failed rounds, kept as the worst.
    failing = np.flatnonzero(np.isnan(cv["mean_test_score"]))
    assert failing.size and results.failed == tuple(int(i) + 1 for i in failing)
    assert np.isneginf(frame["mean_test_score"].to_numpy()[failing]).all()
    assert (f"{failing.size} failed (no score {failing.size}): their fits failed"
            in results.notes[0])
    assert "split0_test_score…split2_test_score kept" in results.notes[0]
    assert results.notes[0].endswith("random search, candidates drawn "
                                     "independently, in the order drawn")
    assert "exchangeability test" in " ".join(results.notes)
    # One search, one model: named after its estimator, not the score column.
    assert set(results.exchangeability) == {"DecisionTreeClassifier"}


def test_failed_fits_are_refused_unless_a_policy_is_given(random_search):
    with pytest.raises(ValueError, match="failed round"):
        read_results(random_search)
    with pytest.warns(UserWarning, match="dropped"):
        dropped = read_results(random_search, failed="drop")
    assert np.isfinite(dropped.frame["mean_test_score"]).all()
    assert len(dropped.frame) == 12 - len(dropped.dropped)


def test_mean_fit_time_is_the_cost_column(random_search):
    results = read_results(random_search, failed="drop", cost="mean_fit_time")
    assert results.cost == "mean_fit_time"
    assert (results.frame["mean_fit_time"] >= 0).all()
    assert "pass cost='mean_fit_time'" in results.notes[0]


def test_a_grid_is_read_with_a_warning_and_no_trial_order(grid_search):
    results = read_results(grid_search, score="accuracy")
    assert results.score == "mean_test_accuracy"
    assert "not random search" in results.strategy
    assert not results.ordered and results.order is None
    assert not results.exchangeability  # a grid's order is not a trial order
    assert any("every point of a grid" in w for w in results.warnings)
    assert results.notes[0].endswith("every point of a grid (not random search)")
    assert [c for c in results.frame if c.startswith("split")] == [
        f"split{k}_test_{s}" for s in ("accuracy", "f1_macro") for k in range(3)]


def test_multi_metric_needs_the_scorer_named(grid_search):
    with pytest.raises(ValueError) as error:
        read_results(grid_search)
    assert str(error.value) == ("score: the search scored 2 metrics (accuracy, "
                                "f1_macro); name one, e.g. score='accuracy'")
    assert read_results(grid_search, score="mean_test_f1_macro").score == (
        "mean_test_f1_macro")
    with pytest.raises(ValueError, match="no scorer 'recall'; its scorers: "
                                         "accuracy, f1_macro"):
        read_results(grid_search, score="recall")


def test_the_scoring_name_of_a_single_metric_search_reads(random_search):
    from sklearn.model_selection import RandomizedSearchCV

    search = _tree_search(RandomizedSearchCV, n_iter=4, random_state=0,
                          scoring="balanced_accuracy",
                          param_distributions={"max_depth": [1, 2, 3]})
    assert read_results(search, score="balanced_accuracy").score == "mean_test_score"


def test_a_halving_search_is_refused_and_its_first_iteration_read(halving_search):
    from evp.readers.sklearn import read_search

    cv = pd.DataFrame(halving_search.cv_results_)
    assert cv["iter"].nunique() > 1
    with pytest.raises(ValueError, match="only iteration 0's candidates are "
                                         "independent draws"):
        read_results(halving_search)
    first = read_results(read_search(halving_search, iteration=0))
    assert len(first.frame) == (cv["iter"] == 0).sum() == 9
    assert (first.frame["n_resources"] == 30).all() and first.ordered
    assert "iteration 0 of 2 read" in " ".join(first.notes)
    assert not first.warnings
    # The same rows, kept by the user: read as the first iteration.
    kept = read_results(cv[cv["iter"] == 0])
    np.testing.assert_array_equal(kept.frame["mean_test_score"],
                                  first.frame["mean_test_score"])
    last = read_search(halving_search, iteration=1)
    assert len(last.frame) == (cv["iter"] == 1).sum()
    assert "survivors" in last.warnings[0]
    with pytest.raises(ValueError, match="these rows are iteration 1"):
        read_results(cv[cv["iter"] == 1])
    with pytest.raises(ValueError, match="ran iterations 0, 1, not 5"):
        read_search(halving_search, iteration=5)


def test_cv_results_as_dict_frame_and_csv(random_search, tmp_path, capsys):
    as_dict = read_results(random_search.cv_results_, failed="drop")
    as_frame = read_results(pd.DataFrame(random_search.cv_results_), failed="drop")
    path = tmp_path / "search.csv"
    pd.DataFrame(random_search.cv_results_).to_csv(path, index=False)
    as_csv = read_results(path, failed="drop")
    for results in (as_frame, as_csv):
        np.testing.assert_array_equal(results.frame["mean_test_score"],
                                      as_dict.frame["mean_test_score"])
    assert "do not say how the candidates were chosen" in as_csv.notes[1]
    assert as_csv.source == str(path)
    assert main(["curve", str(path), "--ns", "1,3", "--failed", "drop"]) == 0
    printed = capsys.readouterr()
    assert printed.err.startswith("note: scikit-learn cv_results_: 10 completed "
                                  "candidates")
    assert printed.out.split()[:4] == ["model", "n", "curve", "std"]


def test_a_pickle_file_is_never_loaded(tmp_path):
    marker = tmp_path / "unpickled"

    class Payload:
        def __reduce__(self):
            return os.mkdir, (str(marker),)

    path = tmp_path / "search.pkl"
    path.write_bytes(pickle.dumps(Payload()))
    with pytest.raises(ValueError, match="never unpickles a file"):
        read_results(path, score="mean_test_score")
    assert main(["curve", str(path), "--score", "mean_test_score"]) == 2
    assert not marker.exists()


def test_an_unfitted_search_and_a_contradicted_direction(random_search):
    from sklearn.model_selection import RandomizedSearchCV
    from sklearn.tree import DecisionTreeClassifier

    unfitted = RandomizedSearchCV(DecisionTreeClassifier(), {"max_depth": [1, 2]})
    with pytest.raises(ValueError, match="the RandomizedSearchCV is not fitted"):
        read_results(unfitted)
    with pytest.raises(ValueError, match="minimize: scikit-learn's scorers: higher "
                                         "is better"):
        read_results(random_search, failed="drop", minimize=True)
    with pytest.raises(ValueError, match="iteration: only a successive-halving"):
        from evp.readers.sklearn import read_search

        read_search(random_search, iteration=0)


def test_several_searches_in_one_call(random_search, grid_search, tmp_path):
    from sklearn.model_selection import RandomizedSearchCV

    # One search is named after its estimator, not after the score column.
    alone = read_results(random_search, failed="drop")
    assert alone.models == ["DecisionTreeClassifier"]
    other = _tree_search(RandomizedSearchCV, n_iter=8, random_state=4,
                         param_distributions={"max_depth": [1, 2, 3, 4, 6],
                                              "min_samples_leaf": [1, 5]})
    both = read_results({"shallow": random_search, "deep": other}, failed="drop")
    assert both.models == ["shallow", "deep"] and both.group == "model"
    assert {m: s.size for m, s in both.scores.items()} == {
        "shallow": len(alone.frame), "deep": len(other.cv_results_["params"])}
    assert set(both.exchangeability) == {"shallow", "deep"}
    assert all(note.startswith(("shallow: ", "deep: ")) for note in both.notes)
    # DataFrames and paths too, each one model.
    frame = pd.DataFrame({"acc": [0.5, 0.6, 0.7]})
    path = tmp_path / "c.csv"
    frame.assign(acc=[0.4, 0.3, 0.2]).to_csv(path, index=False)
    mixed = read_results({"a": frame, "c": str(path)}, score="acc")
    assert mixed.models == ["a", "c"] and list(mixed.scores["c"]) == [0.4, 0.3, 0.2]
    # A source of several models, or searches scored differently: one line each.
    two = read_results(pd.DataFrame({"acc": [0.1, 0.2], "m": ["x", "y"]}),
                       score="acc", group="m")
    with pytest.raises(ValueError, match=r"path_or_frame\['two'\] holds 2 models"):
        read_results({"two": two}, score="acc")
    with pytest.raises(ValueError, match=r"path_or_frame\['b'\]: score: the search "
                       "scored 2 metrics"):
        read_results({"a": random_search, "b": grid_search}, failed="drop")


def test_several_searches_must_share_a_score_column(random_search):
    optuna = pytest.importorskip("optuna")
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(direction="maximize",
                                sampler=optuna.samplers.RandomSampler(seed=0))
    study.optimize(lambda t: t.suggest_float("x", 0, 1), n_trials=5)
    with pytest.raises(ValueError, match="score: the searches differ"):
        read_results({"tree": random_search, "study": study}, failed="drop")
