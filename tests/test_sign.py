"""Direction is data, never wording: negate every score and flip the direction,
and every analysis comes out the same apart from the numbers' signs. The curves
and bands are exactly negated (lower and upper edges trade places); the
verdicts, best sets, rank orders, plans and every sentence are unchanged but
for the signs of the numbers in them. The rounds are an even number per model,
where the median of one round has two conventions (the issue this guards)."""

import re
import warnings

import numpy as np
import pandas as pd
import pytest

import evp
from evp import analyses

MODELS = ["knn", "mlp", "rf", "svm"]


def _frame(tasks: int = 1, rounds: int = 12) -> pd.DataFrame:
    rng = np.random.default_rng(7)
    rows = []
    for t in range(tasks):
        for i, model in enumerate(MODELS):
            losses = rng.normal(0.3 + 0.04 * i + 0.02 * t, 0.05, rounds)
            losses[:2] = np.round(losses[:2], 1)  # a few ties
            rows += [{"task": f"t{t}", "model": model, "loss": v} for v in losses]
    return pd.DataFrame(rows)


def both(frame: pd.DataFrame, **roles):
    """The same rounds as a loss (minimised) and negated (maximised)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        loss = evp.read_results(frame, score="loss", group="model", minimize=True,
                                **roles)
        negated = evp.read_results(frame.assign(loss=-frame["loss"]), score="loss",
                                   group="model", minimize=False, **roles)
    return loss, negated


def unsigned(text: str) -> str:
    """`text` with every number's sign dropped."""
    return re.sub(r"[-−](?=\d|inf)", "", text)


def same_words(a, b) -> None:
    assert a.notes, type(a).__name__
    assert [unsigned(s) for s in a.notes] == [unsigned(s) for s in b.notes]


def negated(a: pd.DataFrame, b: pd.DataFrame, swaps=(), negate=(), same=()):
    """Columns `negate` of `a` are minus those of `b`; each (low, high) of
    `swaps` is minus (high, low) there; `same` are equal."""
    for column in negate:
        np.testing.assert_array_equal(a[column].to_numpy(float),
                                      -b[column].to_numpy(float), err_msg=column)
    for low, high in swaps:
        np.testing.assert_array_equal(a[low].to_numpy(float),
                                      -b[high].to_numpy(float), err_msg=low)
        np.testing.assert_array_equal(a[high].to_numpy(float),
                                      -b[low].to_numpy(float), err_msg=high)
    for column in same:
        assert a[column].tolist() == b[column].tolist(), column


@pytest.fixture(scope="module")
def one():
    return both(_frame())


def test_the_median_of_an_even_number_of_rounds_is_negated_exactly():
    losses = np.random.default_rng(0).uniform(size=28)
    ns = [1, 2, 3, 5, 10]
    np.testing.assert_array_equal(evp.quantile_tuning_curve(losses, ns, minimize=True),
                                  -evp.quantile_tuning_curve(-losses, ns))
    for construction in ("band", "top_band", "budgets", "auto"):
        other = np.random.default_rng(1).uniform(size=30)
        loss = evp.compare(losses, other, ns, minimize=True,
                           construction=construction)
        score = evp.compare(-losses, -other, ns, construction=construction)
        np.testing.assert_array_equal(loss.band_a.lower, -score.band_a.upper)
        np.testing.assert_array_equal(loss.band_a.upper, -score.band_a.lower)
        np.testing.assert_array_equal(loss.band_a.estimate, -score.band_a.estimate)
        assert list(loss.evidence) == list(score.evidence)
        assert loss.construction == score.construction


def test_curves(one):
    a, b = (analyses.curves(r) for r in one)
    negated(a.table, b.table, swaps=[("band_lower", "band_upper")],
            negate=["curve", "median"], same=["model", "n", "std"])
    same_words(a, b)


def test_curves_named_budgets(one):
    a, b = (analyses.curves(r, ns=[1, 5, 30]) for r in one)
    negated(a.table, b.table, swaps=[("band_lower", "band_upper")],
            negate=["curve", "median"], same=["model", "n"])
    same_words(a, b)


@pytest.mark.parametrize("ns", [None, [5], [1, 5, 10]])
def test_two_models(one, ns):
    a, b = (analyses.two_models(r, "knn", "rf", ns) for r in one)
    for model in ("knn", "rf"):
        negated(a.table, b.table, swaps=[(f"{model} lower", f"{model} upper")],
                negate=[f"{model} median"])
    negated(a.table, b.table, same=["n", "knn beats rf", "rf beats knn"])
    same_words(a, b)
    assert str(a.family) == str(b.family)


def test_plan(one):
    a, b = (analyses.plan(r, "knn", "mlp", 3, [10, 40], replications=60)
            for r in one)
    pd.testing.assert_frame_equal(a.table, b.table)
    same_words(a, b)
    assert a.sentence == b.sentence


def test_many_models(one):
    a, b = (analyses.many_models(r) for r in one)
    negated(a.table, b.table, negate=["a median", "b median"],
            same=["a", "b", "n", "evidence", "construction"])
    assert a.best.frame.equals(b.best.frame)
    assert a.summary().equals(b.summary())
    assert a.matrix().equals(b.matrix())
    same_words(a, b)


def test_pairs(one):
    a, b = (analyses.pairs(r.select(["knn", "mlp", "svm"])) for r in one)
    assert a.table.equals(b.table)
    same_words(a, b)


def test_budgets(one):
    a, b = (analyses.budgets(r, 0.35 if r.minimize else -0.35) for r in one)
    assert a.table.equals(b.table)
    assert unsigned(a.what) == unsigned(b.what)


def test_tail():
    # One of svm's rounded losses lies exactly at the threshold: beyond it means
    # strictly better, for a loss as for its negation.
    loss, score = (r.select(["svm"]) for r in both(_frame(rounds=30)))
    assert (loss.scores_as_read["svm"] == 0.4).sum() == 1
    a = analyses.tail(loss, 0.4)
    b = analyses.tail(score, -0.4)
    # A loss's confidence set is the mirror image of its negation's: its band is
    # exactly negated. So is its fit, the same optimisation of the same negated
    # losses, to the optimiser's last digits: they vary from process to process
    # (numpy's sums by memory alignment), about 1e-8 here.
    negated(a.table, b.table, swaps=[("band lower", "band upper")],
            same=["model", "n"])
    np.testing.assert_allclose(a.table["fitted median"], -b.table["fitted median"],
                               rtol=1e-6)
    for x, y in zip(a.fits, b.fits, strict=True):
        assert (x.fit.convex, y.fit.convex, x.fit.c) == (True, False, y.fit.c)
        np.testing.assert_allclose([x.fit.a, x.fit.b, x.fit.o],
                                   [-y.fit.b, -y.fit.a, y.fit.o], rtol=1e-6)
        assert x.best == (-y.best[1], -y.best[0])
        assert (x.found.c, x.found.o, x.found.n_tail) == (y.found.c, y.found.o,
                                                         y.found.n_tail)
    assert [unsigned(s) for s in a.notes] == [unsigned(s) for s in b.notes]
    # The band's open edge is the worse one: +inf for a loss, -inf for a score.
    assert a.table["band upper"].eq(np.inf).any()
    assert "worse edge +inf" in a.lines[-1] and "worse edge -inf" in b.lines[-1]


def test_many_tasks():
    a, b = (analyses.many_tasks(r) for r in both(_frame(tasks=5), task="task"))
    # The scaled curves are oriented (higher is better), losses too: the same.
    negated(a.table, b.table, same=["n", "model", "mean rank", "may be best on",
                                    "tasks", "scaled lower", "scaled median",
                                    "scaled upper"])
    negated(a.curves, b.curves, swaps=[("lower", "upper")], negate=["median"],
            same=["task", "model", "n", "best", "scaled median"])
    assert a.pairs.equals(b.pairs)
    assert a.ranks().equals(b.ranks())
    assert a.best_by_task().equals(b.best_by_task())
    same_words(a, b)
