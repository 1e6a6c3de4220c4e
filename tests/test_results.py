"""evp.Results: one object from every reader to every consumer, and the tables
computed from it apart from the drawing."""

import dataclasses

import numpy as np
import pandas as pd
import pytest

import evp
from evp import tables
from evp.results import Results, as_results


@pytest.fixture
def runs():
    return pd.DataFrame({
        "val_loss": [0.9, 0.4, 0.7, 0.2, 0.5, 0.3, 0.8],
        "optimizer": ["sgd", "adam", "sgd", "adam", "sgd", "adam", "lion"],
        "gpu_hours": [1.0, 2.0, 1.5, 2.5, 1.0, 3.0, 0.5],
        "lr": [1e-3, 1e-4, 3e-4, 1e-5, 1e-2, 1e-3, 1e-4],
    })


@pytest.fixture
def losses(runs):
    return evp.read_results(runs, score="val_loss", group="optimizer",
                            cost="gpu_hours", minimize=True)


def test_results_hold_the_roles_and_the_direction_and_who_said_it(losses, runs):
    assert (losses.score, losses.group, losses.cost) == ("val_loss", "optimizer",
                                                         "gpu_hours")
    assert losses.minimize and losses.direction == "given: minimize=True"
    assert losses.models == ["sgd", "adam", "lion"]  # file order
    np.testing.assert_array_equal(losses.scores_as_read["sgd"], [0.9, 0.7, 0.5])
    np.testing.assert_array_equal(losses.scores["sgd"], [-0.9, -0.7, -0.5])
    np.testing.assert_array_equal(losses.per_model("gpu_hours")["adam"],
                                  [2.0, 2.5, 3.0])
    plain = evp.read_results(runs, score="lr")
    assert not plain.minimize and plain.direction.startswith("assumed")
    assert plain.models == ["lr"]  # one model, named after the score
    assert any("higher lr is better (assumed" in note for note in plain.notes)
    with pytest.raises(ValueError, match="'val_loss' looks like a loss"):
        evp.read_results(runs, score="val_loss")
    said = evp.read_results(runs, score="val_loss", minimize=False)
    assert not said.minimize and said.direction == "given: minimize=False"


def test_results_are_immutable_and_filtering_returns_new_results(losses, runs):
    with pytest.raises(dataclasses.FrozenInstanceError):
        losses.minimize = False
    with pytest.raises(ValueError, match="read-only"):
        losses.scores["adam"][0] = 1.0
    runs.loc[0, "val_loss"] = 99.0  # the reader copied the frame
    assert losses.frame["val_loss"].iloc[0] == 0.9
    two = losses.select(["lion", "sgd"])
    assert two is not losses and two.models == ["lion", "sgd"]
    assert len(two.frame) == 4 and losses.models == ["sgd", "adam", "lion"]
    assert two.minimize and two.cost == "gpu_hours"  # the meaning travels along
    with pytest.raises(ValueError, match=r"models: no rounds of 'rmsprop' in column "
                                         r"'optimizer'; models present: sgd, adam"):
        losses.select(["rmsprop"])
    noted = losses.with_notes("a note", "a note")
    assert noted.notes == ("a note",) and losses.notes == ()


def test_the_repr_is_short_and_says_what_matters(losses):
    text = repr(losses)
    assert len(text) < 200
    for part in ("3 model(s)", "7 rounds", "'val_loss'", "lower is better",
                 "'optimizer'", "'gpu_hours'"):
        assert part in text


def test_a_tuners_direction_cannot_be_contradicted_but_an_assumed_one_can(losses):
    assumed = losses.replace(minimize=False, direction=None)
    assert as_results(assumed, minimize=True).minimize
    tuned = losses.replace(tuner="optuna", direction="the Optuna study's direction")
    with pytest.raises(ValueError, match="contradicts the direction the Optuna"):
        as_results(tuned, minimize=False)
    with pytest.raises(ValueError, match="y='lr': the Results say 'val_loss'"):
        as_results(losses, score="lr")


def test_tables_take_results_and_frames_alike(losses, runs):
    from_results = tables.tuning_curve_table(losses, ns="readable", method="ks")
    from_frame = tables.tuning_curve_table(runs, y="val_loss", hue="optimizer",
                                           cost="gpu_hours", minimize=True,
                                           ns="readable", method="ks")
    pd.testing.assert_frame_equal(from_results, from_frame)
    # Each model's readable budgets stop at its own rounds.
    assert from_results.groupby("model", sort=False)["n"].max().to_dict() == {
        "sgd": 3, "adam": 3, "lion": 1}
    sgd = from_results[from_results["model"] == "sgd"]
    np.testing.assert_allclose(sgd["curve"], evp.expected_max(
        [0.9, 0.7, 0.5], [1, 2, 3], minimize=True))
    np.testing.assert_allclose(sgd["budget"], np.array([1, 2, 3]) * (3.5 / 3))


def test_the_budget_table_is_budget_to_reach(losses):
    table = tables.budget_table(losses, 0.45)
    for model, values in losses.scores_as_read.items():
        costs = losses.per_model(losses.cost)[model]
        expected = evp.budget_to_reach(values, 0.45, cost=costs, minimize=True)
        row = table[table["model"] == model].iloc[0]
        if expected is None:
            assert row["trials (expected)"] is None
        else:
            assert row["trials (expected)"] == int(expected)
            assert row["cost (expected)"] == pytest.approx(expected.expected_cost)
    assert table["trials (expected)"].tolist().count(None) >= 1  # lion cannot


def test_the_verdict_table_says_what_compare_says(losses):
    two = losses.select(["sgd", "adam"])
    found = tables.pairwise_comparisons(two, [1, 2, 3], 0.5, method="ks")
    ((pair, comparison),) = found.items()
    assert pair == ("sgd", "adam")
    table = tables.verdict_table(found)
    assert table["n"].tolist() == [1, 2, 3]
    for cell, winner, strength in zip(table["sgd vs adam"],
                                      comparison.winner(pair),
                                      comparison.strength(), strict=True):
        assert cell == (f"{strength}: {winner}" if winner else "none")
    costs = tables.mean_cost_per_round(two)
    assert costs == {"sgd": pytest.approx(3.5 / 3), "adam": pytest.approx(2.5)}
    frame = tables.comparison_table(comparison, pair, costs=costs)
    np.testing.assert_allclose(frame["adam cost"], frame["n"] * 2.5)


def test_plots_draw_results_as_they_draw_frames(losses, runs):
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from evp.plot import plot_tuning_curves

    drawn = plot_tuning_curves(losses.select(["sgd", "adam"]), method="ks")
    frame = plot_tuning_curves(runs[runs["optimizer"] != "lion"], y="val_loss",
                               hue="optimizer", minimize=True, method="ks")
    for a, b in zip(drawn.get_lines(), frame.get_lines(), strict=True):
        np.testing.assert_array_equal(a.get_ydata(), b.get_ydata())
    assert drawn.get_ylabel() == "lowest val_loss of n rounds"
    plt.close("all")


def test_results_check_their_roles_and_orders(runs):
    with pytest.raises(ValueError, match=r"no column 'acc' in data; columns are "
                                         r"\['val_loss'"):
        Results(runs, score="acc")
    with pytest.raises(ValueError, match="models: no rounds of 'gd'"):
        Results(runs, score="val_loss", group="optimizer", model_order=("gd",))
    made = Results.from_scores({"a": [0.2, 0.1], "b": [0.3]}, score_name="F1")
    assert made.models == ["a", "b"] and made.axis_label("median") == "median best F1"
    assert made.bounds() == (-np.inf, np.inf) and made.rounds == 3


def test_the_old_dataframe_access_still_works_with_a_warning(losses):
    with pytest.warns(DeprecationWarning, match="Results is not a DataFrame"):
        scores = losses["score"]  # the old tidy name of the score column
    np.testing.assert_array_equal(scores, losses.frame["val_loss"])
    with pytest.warns(DeprecationWarning):
        assert losses["lr"].tolist() == losses.frame["lr"].tolist()


def test_by_task_renumbers_failed_rounds_within_each_task():
    # Tasks interleaved row by row; rows 2, 3 and 6 (1-based) failed, kept as
    # the worst: in task x (rows 1, 3, 5) that is its row 2, in task y (rows 2,
    # 4, 6) its rows 1 and 3.
    frame = pd.DataFrame({"task": ["x", "y", "x", "y", "x", "y"],
                          "model": ["a"] * 6,
                          "acc": [0.5, -np.inf, -np.inf, 0.6, 0.7, -np.inf]})
    results = Results(frame, score="acc", group="model", task="task",
                      failed=(2, 3, 6), failures="worst",
                      exchangeability={("x", "a"): 0.25, ("y", "a"): 0.75})
    parts = results.by_task()
    assert list(parts) == ["x", "y"]
    assert parts["x"].failed == (2,) and parts["y"].failed == (1, 3)
    assert parts["x"].frame["acc"].tolist() == [0.5, -np.inf, 0.7]
    assert parts["y"].frame["acc"].tolist() == [-np.inf, 0.6, -np.inf]
    assert parts["x"].exchangeability == {"a": 0.25}
    assert parts["y"].exchangeability == {"a": 0.75}
