"""The tuning-curve plot draws what the library computes."""

import numpy as np
import pandas as pd
import pytest

import evp
from evp.plot import plot_tuning_curves, tuning_curve_table

pytestmark = pytest.mark.needs("matplotlib", "seaborn")


@pytest.fixture(autouse=True)
def no_screen():
    import matplotlib

    matplotlib.use("Agg")


@pytest.fixture
def results():
    rng = np.random.default_rng(0)
    return pd.DataFrame({
        "model": ["cnn"] * 20 + ["lr"] * 15,
        "accuracy": np.concatenate([rng.uniform(0.3, 0.45, 20),
                                    rng.uniform(0.35, 0.42, 15)]),
        "seconds": np.concatenate([np.full(20, 60.0), np.full(15, 5.0)]),
    })


def test_table_matches_the_estimators(results):
    table = tuning_curve_table(results, y="accuracy", hue="model", cost="seconds",
                               estimator="u")
    cnn = results.loc[results["model"] == "cnn", "accuracy"]
    rows = table[table["model"] == "cnn"]
    np.testing.assert_allclose(rows["curve"],
                               evp.expected_max(cnn, np.arange(1, 21), estimator="u"))
    np.testing.assert_allclose(rows["std"],
                               evp.expected_max_std(cnn, np.arange(1, 21)))
    np.testing.assert_allclose(rows["budget"], np.arange(1, 21) * 60.0)
    assert len(table) == 35


def test_plot_curves_shading_and_guides(results):
    ax = plot_tuning_curves(results, y="accuracy", hue="model", target=0.42)
    lines = {line.get_label(): line for line in ax.get_lines()}
    assert {"cnn", "lr"} <= set(lines)
    lr = results.loc[results["model"] == "lr", "accuracy"]
    np.testing.assert_allclose(lines["lr"].get_ydata(),
                               evp.expected_max(lr, np.arange(1, 16)))
    assert ax.get_xscale() == "log"
    # The ±1 std shading never leaves the observed score range.
    from matplotlib.collections import PolyCollection

    for patch, model in zip(
            [c for c in ax.collections if isinstance(c, PolyCollection)],
            ["cnn", "lr"], strict=True):
        scores = results.loc[results["model"] == model, "accuracy"]
        y = patch.get_paths()[0].vertices[:, 1]
        assert y.min() >= scores.min() - 1e-12 and y.max() <= scores.max() + 1e-12
    # A dotted vertical guide at each model's budget to reach the target.
    verticals = [line.get_xdata()[0] for line in ax.get_lines()
                 if line.get_linestyle() == ":" and line.get_xdata()[0]
                 == line.get_xdata()[1]]
    cnn = results.loc[results["model"] == "cnn", "accuracy"]
    expected = [evp.budget_to_reach(s, 0.42) for s in (cnn, lr)]
    assert sorted(verticals) == sorted(n for n in expected if n is not None)


def test_plot_against_cost(results):
    ax = plot_tuning_curves(results, y="accuracy", hue="model", cost="seconds",
                            x="cost", std=False)
    lines = {line.get_label(): line for line in ax.get_lines()}
    np.testing.assert_allclose(lines["cnn"].get_xdata(), np.arange(1, 21) * 60.0)
    with pytest.raises(ValueError, match="cost"):
        plot_tuning_curves(results, y="accuracy", x="cost")
    with pytest.raises(ValueError, match="no column 'acc'"):
        plot_tuning_curves(results, y="acc")
