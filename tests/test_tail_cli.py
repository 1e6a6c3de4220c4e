"""evp curve --tail: the fitted tail, its extrapolated median curve with the exact
band, and the interval for the best achievable score, from the command line."""

import re

import numpy as np
import pandas as pd
import pytest

from evp import cli
from evp.parametric import QuadraticDistribution


def run(capsys, *args):
    status = cli.main(list(map(str, args)))
    out = capsys.readouterr()
    return status, out.out, out.err


@pytest.fixture
def searches(tmp_path):
    # Two models whose scores follow known quadratic distributions: uniform on
    # [0.5, 0.9] (c = 2) and Q(0.4, 0.8, 1).
    rng = np.random.default_rng(11)
    frame = pd.concat([
        pd.DataFrame({"model": "wide", "acc": QuadraticDistribution(0.5, 0.9, 2)
                      .sample(300, rng=rng)}),
        pd.DataFrame({"model": "narrow", "acc": QuadraticDistribution(0.4, 0.8, 1)
                      .sample(300, rng=rng)}),
    ])
    path = tmp_path / "runs.csv"
    frame.to_csv(path, index=False)
    return path


def test_tail_prints_the_best_score_interval_and_a_band_past_the_rounds_run(
        searches, capsys, tmp_path):
    out = tmp_path / "tail.csv"
    status, text, err = run(capsys, "curve", searches, "--score", "acc", "--group",
                            "model", "--tail", 0.6, "--out", out)
    assert status == 0, err
    intervals = dict(re.findall(r"^(\w+): best achievable acc in \[([^\]]+)\]", text,
                                flags=re.M))
    for model, truth in (("wide", 0.9), ("narrow", 0.8)):
        low, high = map(float, intervals[model].split(", "))
        assert low <= truth <= high and high - low < 0.1
    table = pd.read_csv(out)
    assert table.groupby("model")["n"].max().to_dict() == {"narrow": 3000,
                                                           "wide": 3000}
    # The true median curves, b - (b - a)(1 - 2^(-1/k))^(2/c), inside the bands
    # wherever the model speaks (above the threshold).
    for model, (a, b, c) in {"wide": (0.5, 0.9, 2), "narrow": (0.4, 0.8, 1)}.items():
        rows = table[table["model"] == model]
        k = rows["n"].to_numpy(dtype=float)
        truth = b - (b - a) * (1 - 0.5 ** (1 / k)) ** (2 / c)
        speaks = np.isfinite(rows["band lower"].to_numpy())
        assert speaks[-1]
        assert np.all(rows["band lower"][speaks] <= truth[speaks] + 1e-9)
        assert np.all(truth[speaks] <= rows["band upper"][speaks] + 1e-9)
        fitted = rows["fitted median"].to_numpy()
        assert np.allclose(fitted[speaks], truth[speaks], atol=0.01)


def test_tail_draws_a_panel_per_model(searches, capsys, tmp_path):
    pytest.importorskip("matplotlib")
    out = tmp_path / "tail.png"
    status, _, err = run(capsys, "curve", searches, "--score", "acc", "--group",
                         "model", "--tail", 0.6, "--out", out)
    assert status == 0, err
    assert out.read_bytes().startswith(b"\x89PNG")


def test_tail_with_too_few_rounds_beyond_the_threshold_is_one_line(
        searches, capsys):
    status, _, err = run(capsys, "curve", searches, "--score", "acc", "--group",
                         "model", "--tail", 0.899)
    assert status == 2
    assert err.strip().splitlines() == [
        "evp curve: --tail 0.899: only 0 of the 300 rounds of wide lie above it, "
        "and a fit needs at least 5: give a lower --tail"]


def test_a_rejected_tail_is_said_on_its_line_and_bounds_nothing(capsys, tmp_path):
    # A quarter of the rounds piled at a ceiling (accuracy 1.0): no quadratic
    # tail stays inside the band, so the confidence set is empty. It once
    # printed "in [nan, nan]" and a band of inf and -inf without a word.
    rng = np.random.default_rng(3)
    scores = np.concatenate([rng.uniform(0.5, 0.95, 150), np.ones(50)])
    path = tmp_path / "ceiling.csv"
    pd.DataFrame({"acc": scores}).to_csv(path, index=False)
    out = tmp_path / "tail.csv"
    status, text, err = run(capsys, "curve", path, "--score", "acc", "--maximize",
                            "--tail", 0.9, "--out", out)
    assert status == 0, err
    assert "the model is rejected (its 80% confidence set is empty; 62 of 200 " \
        "rounds beyond 0.9)" in text
    assert "nan" not in text.split("\n")[0].lower()
    assert err.count("confidence set is empty") == 1
    assert "try a --tail nearer the best scores" in err
    table = pd.read_csv(out)
    assert table[["band lower", "band upper"]].isna().all().all()
