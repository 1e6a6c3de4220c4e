"""The tuning-curve plot draws what the library computes."""

import re

import numpy as np
import pandas as pd
import pytest

import evp
from evp.plot import plot_tuning_curves
from evp.tables import tuning_curve_table

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


# ------------------------------------------------------- the design, by structure


@pytest.fixture
def short():
    """Too few rounds for large budgets: the bands have no upper bound there."""
    rng = np.random.default_rng(3)
    return pd.DataFrame({
        "model": ["a"] * 20 + ["b"] * 20,
        "f1": np.concatenate([rng.uniform(0.5, 0.8, 20), rng.uniform(0.6, 0.7, 20)]),
        "seconds": rng.uniform(1, 3, 40),
    })


def all_artists(figure):
    return list(figure.findobj())


def texts(figure):
    from matplotlib.text import Text

    return [t.get_text() for t in figure.findobj(Text) if t.get_text()]


def test_bands_are_translucent_fills_with_edges_and_no_hatching(short):
    from evp.plot import BAND_EDGE

    ax = plot_tuning_curves(short, y="f1", hue="model", method="ks")
    figure = ax.figure
    assert not [a for a in all_artists(figure)
                if hasattr(a, "get_hatch") and a.get_hatch()]
    legend = figure.legends[0]
    assert not [h for h in legend.legend_handles
                if hasattr(h, "get_hatch") and h.get_hatch()]
    edges = [line for line in ax.get_lines() if line.get_gid() == BAND_EDGE]
    assert len(edges) == 4  # lower and upper, per model
    from matplotlib.collections import PolyCollection

    fills = [c for c in ax.collections if isinstance(c, PolyCollection)]
    assert fills and all(0 < c.get_alpha() < 0.5 for c in fills)
    assert "80% band (KS)" in texts(figure)


def test_an_infinite_upper_edge_is_drawn_open_and_labelled(short):
    from evp.plot import OPEN_EDGE, OPEN_EDGE_FADE, OPEN_EDGE_LABEL

    band = evp.tuning_curve_band(short["f1"][:20], np.arange(1, 21), 0.8)
    assert np.isinf(band.upper).any()  # the premise
    ax = plot_tuning_curves(short, y="f1", hue="model",
                            method="ld_highest_density")
    arrows = [a for a in ax.texts if a.get_gid() == OPEN_EDGE]
    assert len(arrows) == 2  # one per model
    labels = [t for t in ax.texts if t.get_gid() == OPEN_EDGE_LABEL]
    assert [t.get_text().replace("\n", " ") for t in labels] == [
        "no upper bound: more rounds needed"]
    fades = [c for c in ax.collections if c.get_gid() == OPEN_EDGE_FADE]
    alphas = [c.get_alpha() for c in fades]
    assert fades and max(alphas) < 0.2 and min(alphas) < 0.01  # fading out
    # Nothing is drawn at infinity: every vertex is finite, within the axes.
    top = ax.get_ylim()[1]
    for collection in ax.collections:
        for path in collection.get_paths():
            y = path.vertices[:, 1]
            assert np.isfinite(y).all() and y.max() <= top + 1e-9


def test_losses_say_lowest_and_open_downwards(short):
    from evp.plot import OPEN_EDGE_LABEL

    losses = short.assign(val_loss=1 - short["f1"])
    ax = plot_tuning_curves(losses, y="val_loss", hue="model",
                            method="ld_highest_density", minimize=True)
    assert ax.get_ylabel() == "lowest val_loss of n rounds"  # expected and median
    words = texts(ax.figure)
    assert "expected lowest val_loss (V)" in words
    assert not [w for w in words if "best" in w]
    labels = [t.get_text() for t in ax.texts if t.get_gid() == OPEN_EDGE_LABEL]
    assert [t.replace("\n", " ") for t in labels] == [
        "no lower bound: more rounds needed"]


def test_plain_ticks_and_a_cost_axis_with_its_unit(short):
    ax = plot_tuning_curves(short, y="f1", hue="model", cost="seconds", x="cost")
    ax.figure.canvas.draw()
    labels = [t.get_text() for t in ax.get_xticklabels() if t.get_text()]
    assert labels and all(re.fullmatch(r"[\d,.]+", t) for t in labels), labels
    assert "seconds" in ax.get_xlabel() and "(s)" in ax.get_xlabel()
    ax = plot_tuning_curves(short, y="f1", hue="model", cost="seconds", x="cost",
                            cost_unit="GPU hours")
    assert "(GPU hours)" in ax.get_xlabel()
    ax = plot_tuning_curves(short, y="f1", hue="model", ns=[1, 10, 100])
    ax.figure.canvas.draw()
    shown = [t.get_text() for t in ax.get_xticklabels()
             if t.get_text() and 1 <= t.get_position()[0] <= 100]
    assert shown == ["1", "10", "100"]


def test_cost_units_are_read_off_column_names():
    from evp.plot import cost_unit

    assert cost_unit("seconds") == "s"
    assert cost_unit("train_hours") == "h"
    assert cost_unit("gpu_hours") == "GPU hours"
    assert cost_unit("wall-clock (min)") == "min"
    assert cost_unit("cost") is None


def test_the_y_label_is_clear_of_the_data_and_the_palette_is_okabe_ito(results):
    from matplotlib.colors import to_hex

    from evp.plot import PALETTE

    ax = plot_tuning_curves(results, y="accuracy", hue="model")
    figure = ax.figure
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()
    label = ax.yaxis.label.get_window_extent(renderer)
    ticks = [t.get_window_extent(renderer) for t in ax.get_yticklabels()
             if t.get_text()]
    data = ax.get_window_extent(renderer)
    assert label.x1 <= data.x0 and all(label.x1 <= t.x0 for t in ticks)
    colors = {line.get_label(): to_hex(line.get_color()) for line in ax.get_lines()}
    assert [colors["cnn"], colors["lr"]] == [c.lower() for c in PALETTE[:2]]


def test_more_than_two_models_get_a_panel_each_on_shared_axes(short):
    from evp.plot import CONTEXT

    three = pd.concat([short, short.iloc[:20].assign(model="c",
                                                     f1=short["f1"][:20] - 0.1)])
    axes = plot_tuning_curves(three, y="f1", hue="model", method="dkw")
    assert isinstance(axes, np.ndarray) and len(axes) == 3
    assert [ax.get_title() for ax in axes] == ["a", "b", "c"]
    assert all(ax.get_ylim() == axes[0].get_ylim() for ax in axes)
    assert axes[0].get_shared_y_axes().joined(axes[0], axes[2])
    # Each panel shows the other two models in grey, behind.
    assert all(len([line for line in ax.get_lines() if line.get_gid() == CONTEXT])
               == 2 for ax in axes)
    figure = axes[0].figure
    # The expected best beside the median and its band: said as both.
    assert figure.get_supylabel() == "best f1 of n rounds"
    # Two models, or an axes of one's own, stay in one panel.
    assert not isinstance(plot_tuning_curves(short, y="f1", hue="model"),
                          np.ndarray)
    import matplotlib.pyplot as plt

    ax = plt.figure().gca()
    assert plot_tuning_curves(three, y="f1", hue="model", ax=ax) is ax
    with pytest.raises(ValueError, match="panels=True draws a figure"):
        plot_tuning_curves(three, y="f1", hue="model", ax=ax, panels=True)


def test_the_comparison_figure_shows_both_bands_and_the_evidence(short):
    from evp.plot import EVIDENCE, plot_comparison

    a = short.loc[short["model"] == "a", "f1"]
    b = short.loc[short["model"] == "b", "f1"] - 0.5
    result = evp.compare(a, b, np.arange(1, 21), 0.8, method="dkw")
    ax = plot_comparison(result, ("a", "b"), y="f1")
    strip = [c for c in ax.collections if c.get_gid() == EVIDENCE]
    assert strip  # a beats b strongly somewhere
    assert ax.get_ylabel() == "median best f1"
    assert {"a", "b", "strong evidence"} <= set(texts(ax.figure))
    assert not [x for x in all_artists(ax.figure)
                if hasattr(x, "get_hatch") and x.get_hatch()]
    axes = plot_comparison([(("a", "b"), result), (("b", "a"), result)])
    assert [p.get_title() for p in axes] == ["a vs b", "b vs a"]
    with pytest.raises(ValueError, match="two different models"):
        plot_comparison(result, ("a", "a"))


def test_set_theme_gives_other_figures_the_same_look():
    import matplotlib as mpl
    from matplotlib.colors import to_hex

    from evp.plot import PALETTE, set_theme

    with mpl.rc_context():
        set_theme()
        colors = mpl.rcParams["axes.prop_cycle"].by_key()["color"]
        assert [to_hex(c) for c in colors[:3]] == [c.lower() for c in PALETTE[:3]]
        assert mpl.rcParams["axes.spines.top"] is False


def test_one_model_at_a_time_on_the_same_axes_keeps_every_curve(results):
    import matplotlib.pyplot as plt

    ax = plt.figure().gca()
    for model in ("cnn", "lr"):
        plot_tuning_curves(results[results["model"] == model], y="accuracy",
                           hue="model", ax=ax, palette=["C0"])
    bottom, top = ax.get_ylim()
    for line in ax.get_lines():
        y = np.asarray(line.get_ydata(), dtype=float)
        assert bottom <= y.min() and y.max() <= top
    assert ax.get_xlim()[1] >= 20
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels[:2] == ["cnn", "lr"]


def test_tail_fit_qq_plot_marks_exactly_the_scores_outside_the_band():
    import matplotlib.pyplot as plt

    from evp.parametric import QuadraticDistribution
    from evp.plot import plot_tail_fit

    truth = QuadraticDistribution(0.0, 1.0, 2)  # uniform on [0, 1]
    ys = truth.sample(400, rng=np.random.default_rng(3))
    for dist, expect_outside in ((truth, False),
                                 (QuadraticDistribution(0.1, 1.1, 2), True)):
        ax = plot_tail_fit(dist, ys, 0.5, confidence=0.95)
        band = evp.cdf_band(ys, 0.95)
        y = band.scores
        tail = y > 0.5
        cdf = dist.cdf(y[tail])  # the CDF, not the quantiles the plot uses
        outside = (cdf < band.lower[tail]) | (cdf > band.upper[tail])
        lines = {line.get_label(): line for line in ax.get_lines()}
        inside_points = lines["scores in the fitted region"].get_xydata()
        assert len(inside_points) == int((~outside).sum())
        marked = lines.get("outside the band")
        assert (marked is not None) == expect_outside == bool(outside.any())
        if marked is not None:
            np.testing.assert_allclose(np.sort(marked.get_ydata()),
                                       np.sort(y[tail][outside]))
        assert len(ax.collections) == 1  # the band, shaded once
        assert ax.get_xlabel() == "fitted quantile"
        plt.close(ax.figure)


# ------------------------------------------------------------- overlapping text


def test_a_figure_with_overlapping_labels_is_refused(tmp_path):
    import matplotlib.pyplot as plt

    from evp.plot import FigureOverlapError, save_figure, text_overlaps

    figure, ax = plt.subplots(figsize=(4, 3))
    ax.plot([1, 2, 3], [1, 2, 3])
    ax.text(1.5, 2.5, "first note")
    ax.text(1.55, 2.5, "second note")
    found = text_overlaps(figure)
    assert ("text 'first note'", "text 'second note'") in found
    with pytest.raises(FigureOverlapError, match=r"^crowded: text 'first note' "
                       r"overlaps text 'second note'; move one") as refused:
        save_figure(figure, tmp_path / "crowded")
    assert isinstance(refused.value, ValueError) and "\n" not in str(refused.value)
    assert not list(tmp_path.iterdir())  # nothing written
    plt.close(figure)


def test_a_clean_figure_is_saved(tmp_path):
    import matplotlib.pyplot as plt

    from evp.plot import save_figure, text_overlaps

    figure, ax = plt.subplots(figsize=(4, 3), layout="constrained")
    ax.plot([1, 2, 3], [1, 2, 3], label="rising")
    ax.set(title="a title", xlabel="x", ylabel="y")
    ax.legend(loc="lower right")
    assert text_overlaps(figure) == []
    paths = save_figure(figure, tmp_path / "clean")
    assert [p.name for p in paths] == ["clean.png", "clean.pdf"]
    plt.close(figure)


def test_crowded_ticks_titles_and_panels_are_found():
    import matplotlib.pyplot as plt

    from evp.plot import text_overlaps

    figure, ax = plt.subplots(figsize=(3, 2))
    ax.set_xticks(np.arange(0, 1.01, 0.05))
    found = text_overlaps(figure)
    assert found and all("x tick label" in a and "x tick label" in b
                         for a, b in found)
    plt.close(figure)
    figure, (left, right) = plt.subplots(1, 2, figsize=(5, 2), layout="constrained")
    left.set_title("a title far too long for its narrow panel")
    right.set_title("and another one beside it")
    assert ("title 'a title far too long for its narrow pan…'",
            "title 'and another one beside it'") in text_overlaps(figure)
    plt.close(figure)


def test_a_legend_on_the_data_is_found_and_one_beside_it_is_not():
    import matplotlib.pyplot as plt

    from evp.plot import check_text_overlaps, text_overlaps

    for where, clear in (({"loc": "upper left"}, True),
                         ({"loc": "center"}, False),
                         ({"loc": "upper left", "bbox_to_anchor": (1.02, 1)}, True)):
        figure, ax = plt.subplots(figsize=(4, 3), layout="constrained")
        ax.plot(np.linspace(0, 1, 50), np.linspace(0, 1, 50), label="diagonal")
        ax.legend(**where)
        found = text_overlaps(figure)
        assert (found == []) == clear, (where, found)
        if not clear:
            assert found == [("the legend", "the line 'diagonal'")]
            with pytest.raises(ValueError, match="move the legend off the data"):
                check_text_overlaps(figure)
            assert text_overlaps(figure, data=False) == []
        plt.close(figure)
    # Opaque fills (a stack plot) count as data; markers too.
    figure, ax = plt.subplots(figsize=(4, 3))
    ax.stackplot([1, 2, 3], [1, 1, 1], [2, 2, 2], labels=["a", "b"])
    ax.legend(loc="center")
    assert ("the legend", "an opaque fill") in text_overlaps(figure)
    plt.close(figure)


def test_a_legend_on_the_data_is_moved_beside_its_panel_and_the_rest_warned(
        tmp_path):
    import matplotlib.pyplot as plt

    from evp.plot import FigureOverlapError, save_figure, text_overlaps, tidy_figure

    figure, ax = plt.subplots(figsize=(4, 3), layout="constrained")
    ax.plot(np.linspace(0, 1, 50), np.linspace(0, 1, 50), label="diagonal")
    ax.legend(loc="center")
    assert text_overlaps(figure) == [("the legend", "the line 'diagonal'")]
    assert tidy_figure(figure) == [] and text_overlaps(figure) == []
    legend = ax.get_legend().get_window_extent()
    assert legend.x0 > ax.get_window_extent().x1  # beside the panel, outside it
    assert [p.name for p in save_figure(figure, tmp_path / "moved")] == [
        "moved.png", "moved.pdf"]
    plt.close(figure)
    # What tidying cannot mend is refused, or on a user's data written with a
    # warning that names it.
    figure, ax = plt.subplots(figsize=(4, 3))
    ax.text(1.5, 2.5, "first note")
    ax.text(1.55, 2.5, "second note")
    with pytest.raises(FigureOverlapError):
        save_figure(figure, tmp_path / "crowded")
    with pytest.warns(UserWarning, match=r"crowded: text 'first note' overlaps text "
                      r"'second note'.*\(written as it is\)"):
        save_figure(figure, tmp_path / "crowded", strict=False)
    assert (tmp_path / "crowded.png").is_file()
    plt.close(figure)


def test_a_text_on_markers_or_an_arrow_is_found():
    import matplotlib.pyplot as plt

    from evp.plot import text_overlaps

    figure, ax = plt.subplots(figsize=(4, 3))
    ax.plot([1, 2, 3], [1, 2, 3], "o", label="points")
    ax.annotate("K=3", (2, 2), ha="center", va="center")
    assert text_overlaps(figure) == [("text 'K=3'", "markers of the line 'points'")]
    plt.close(figure)
    figure, ax = plt.subplots(figsize=(4, 3))
    ax.set(xlim=(0, 1), ylim=(0, 1))
    ax.annotate("", xy=(0.9, 0.9), xytext=(0.9, 0.1),
                arrowprops={"arrowstyle": "-|>"})
    ax.text(0.9, 0.5, "on the arrow", ha="center")
    assert text_overlaps(figure) == [("text 'on the arrow'", "an arrow")]
    plt.close(figure)


def representative_figures():
    """Every plotting function of evp.plot, on the inputs the notebooks give it."""
    import matplotlib.pyplot as plt

    from evp.parametric import NoisyQuadraticDistribution, confidence_set
    from evp.plot import plot_comparison, plot_extrapolation, plot_plan, plot_tail_fit
    from evp.tables import plan_table

    rng = np.random.default_rng(3)
    short = pd.DataFrame({
        "model": ["a"] * 20 + ["b"] * 20,
        "f1": np.concatenate([rng.uniform(0.5, 0.8, 20), rng.uniform(0.6, 0.7, 20)]),
        "seconds": rng.uniform(1, 3, 40)})
    long = pd.DataFrame({
        "model": np.repeat(["cnn", "lr", "lboe"], 60),
        "accuracy": np.concatenate([rng.beta(8, 4, 60), rng.beta(9, 4, 60),
                                    rng.beta(7, 4, 60)]),
        "train_hours": rng.uniform(0.5, 40, 180)})
    losses = short.assign(val_loss=1 - short["f1"])
    yield "curves", plot_tuning_curves(long, y="accuracy", hue="model", panels=False,
                                       target=0.8)
    yield "bands", plot_tuning_curves(short, y="f1", hue="model",
                                      method="ld_highest_density")
    yield "losses", plot_tuning_curves(losses, y="val_loss", hue="model",
                                       method="ld_highest_density", minimize=True)
    yield "cost", plot_tuning_curves(long, y="accuracy", hue="model", x="cost",
                                     cost="train_hours", panels=False)
    yield "panels", plot_tuning_curves(long, y="accuracy", hue="model", method="ks")
    a = short.loc[short["model"] == "a", "f1"].to_numpy()
    b = short.loc[short["model"] == "b", "f1"].to_numpy()
    result = evp.compare(a, b, np.arange(1, 21), 0.8)
    yield "comparison", plot_comparison(result, ("a", "b"), y="f1")
    yield "comparison, cost", plot_comparison(result, ("a", "b"), y="f1",
                                              costs={"a": 2.0, "b": 30.0},
                                              cost="seconds")
    yield "comparisons", plot_comparison([(("a", "b"), result),
                                          (("b", "a"), evp.compare(b, a, np.arange(
                                              1, 21), 0.8))], y="f1")
    lost = evp.compare(1 - a, 1 - b, np.arange(1, 21), 0.8, minimize=True)
    yield "comparison, losses", plot_comparison(lost, ("a", "b"), y="val_loss")
    ys = rng.beta(6, 3, 300)
    fit = NoisyQuadraticDistribution.fit(ys, limits=(0.6, np.inf),
                                         constraints={"c": (1, 4)})
    found = confidence_set(ys, 0.6, 0.8, constraints={"c": (1, 4)})
    yield "tail fit", plot_tail_fit(fit, ys, 0.6, label="a model")
    yield "extrapolation", plot_extrapolation(fit, found, ys, label="a model",
                                              cost_per_round=3.5, cost="GPU hours")
    _figure, axes = plt.subplots(1, 3, figsize=(12.6, 3.6), layout="constrained")
    for ax, per_round in zip(axes, (0.02, 7.0, 300.0), strict=True):
        plot_extrapolation(fit, found, ys, label=f"{per_round} h a round", ax=ax,
                           cost_per_round=per_round, cost="GPU hours")
    yield "extrapolations", axes[0]
    table = plan_table(evp.read_results(short, score="f1", group="model"), "a", "b",
                       10, [0, 10, 20], replications=40)
    yield "plan", plot_plan(table, ("a", "b"), 10)


def test_every_plotting_function_draws_without_overlaps():
    import matplotlib.pyplot as plt

    from evp.plot import text_overlaps

    drawn = 0
    for name, axes in representative_figures():
        figure = np.ravel(axes)[0].figure
        assert text_overlaps(figure) == [], name
        plt.close(figure)
        drawn += 1
    assert drawn == 13


def test_the_open_label_keeps_off_its_arrows():
    from evp.plot import OPEN_EDGE, OPEN_EDGE_LABEL, text_overlaps

    rng = np.random.default_rng(1)
    # Open from n = 7 on: in the middle of 1-40, on the right of 1-11.
    frame = pd.DataFrame({"model": ["a"] * 40 + ["b"] * 40,
                          "loss": np.concatenate([rng.uniform(0.2, 0.5, 40),
                                                  rng.uniform(0.25, 0.45, 40)])})
    for ns in (np.arange(1, 41), np.arange(1, 12)):
        ax = plot_tuning_curves(frame, y="loss", hue="model", minimize=True,
                                method="ld_highest_density", ns=ns)
        label = next(t for t in ax.texts if t.get_gid() == OPEN_EDGE_LABEL)
        arrows = [t for t in ax.texts if t.get_gid() == OPEN_EDGE]
        assert label.get_text().startswith("no lower bound")
        assert not [pair for pair in text_overlaps(ax.figure) if "arrow" in pair[1]]
        if arrows and len(ns) == 11:  # the arrows stand on the right
            assert label.get_horizontalalignment() == "left"


def test_a_fitted_tail_is_not_drawn_beyond_its_threshold():
    from evp.parametric import NoisyQuadraticDistribution, confidence_set
    from evp.plot import plot_extrapolation, plot_tail_fit

    rng = np.random.default_rng(0)
    ys = rng.beta(6, 3, 200)
    for minimize in (False, True):
        scores = 1 - ys if minimize else ys
        threshold = 0.3 if minimize else 0.7
        limits = (-np.inf, threshold) if minimize else (threshold, np.inf)
        fit = NoisyQuadraticDistribution.fit(
            scores, limits=limits, constraints={"c": (1, 4), "convex": minimize})
        found = confidence_set(scores, threshold, 0.8, minimize=minimize,
                               constraints={"c": (1, 4)})
        ax = plot_extrapolation(fit, found, scores)
        lines = {line.get_label(): line for line in ax.get_lines()}
        median = np.asarray(lines["fitted median"].get_ydata(), dtype=float)
        drawn = median[np.isfinite(median)]
        assert drawn.size
        beyond = drawn <= threshold if minimize else drawn >= threshold
        assert beyond.all()
        assert np.isnan(median).any()  # at n = 1 the median is short of it
        ax = plot_tail_fit(fit, scores, threshold)
        for collection in ax.collections:
            y = np.concatenate([p.vertices[:, 1] for p in collection.get_paths()])
            assert (y <= threshold + 1e-12).all() if minimize else (
                y >= threshold - 1e-12).all()
        diagonal = next(line for line in ax.get_lines() if line.get_label() == "y = x")
        y = np.asarray(diagonal.get_ydata(), dtype=float)
        assert (y <= threshold + 1e-12).all() if minimize else (
            y >= threshold - 1e-12).all()


def test_an_inverted_loss_axis_says_so_on_its_label():
    import matplotlib.pyplot as plt

    from evp import read_results
    from evp.notebook import INVERTED_NOTE, orient_axis

    losses = read_results(pd.DataFrame({"val_loss": [0.3, 0.2, 0.5]}),
                          score="val_loss", minimize=True)
    scores = read_results(pd.DataFrame({"f1": [0.3, 0.2, 0.5]}), score="f1")
    figure, (before, after, x, plain) = plt.subplots(1, 4)
    before.set_ylabel(losses.axis_label("median"))
    orient_axis(losses, before)
    orient_axis(losses, after)  # the label comes later
    after.set_ylabel(losses.axis_label("median"))
    orient_axis(losses, x, "x")
    x.set_xlabel("val_loss")
    orient_axis(scores, plain)
    plain.set_ylabel(scores.axis_label("median"))
    for label in (before.get_ylabel(), after.get_ylabel()):
        assert label == f"median lowest val_loss\n{INVERTED_NOTE}"
    assert x.get_xlabel() == f"val_loss\n{INVERTED_NOTE}"
    assert x.get_ylabel() == ""  # no note on an empty label
    assert plain.get_ylabel() == "median best f1"
    figure.canvas.draw()
    assert before.yaxis.label.get_window_extent().height > 0
    plt.close(figure)


def test_notebooks_save_figures_only_through_evp_notebook_save():
    import json
    from pathlib import Path

    root = Path(__file__).resolve().parents[1] / "notebooks"
    paths = sorted(root.rglob("*.ipynb"))
    assert len(paths) > 5
    offenders = []
    for path in paths:
        if ".ipynb_checkpoints" in path.parts:
            continue
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        for index, cell in enumerate(cells):
            if cell["cell_type"] != "code":
                continue
            source = "".join(cell["source"])
            code = "\n".join(line.split("#", 1)[0] for line in source.splitlines())
            if re.search(r"\b(savefig|save_figure|_save)\s*\(", code):
                offenders.append(f"{path.relative_to(root)} cell {index}")
    assert not offenders, ("save figures with evp.notebook.save (which checks them "
                           f"for overlapping text): {offenders}")
