"""evp plan: what more rounds would settle, through the command line."""

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import evp
from evp import cli


@pytest.fixture
def close_models(tmp_path):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({
        "model": ["bert"] * 15 + ["roberta"] * 15,
        "acc": np.r_[rng.normal(0.80, 0.03, 15), rng.normal(0.83, 0.03, 15)],
        "gpu_hours": rng.uniform(0.5, 1.5, 30),
    })
    path = tmp_path / "runs.csv"
    frame.to_csv(path, index=False)
    return path, frame


def test_plan_through_a_subprocess_with_cost(close_models, tmp_path):
    path, frame = close_models
    figure = tmp_path / "plan.png"
    done = subprocess.run(
        [sys.executable, "-m", "evp.cli", "plan", str(path), "--score", "acc",
         "--group", "model", "bert", "roberta", "--budget", "5", "--more",
         "10,50,300", "--cost", "gpu_hours", "--out", str(figure)],
        capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert figure.stat().st_size > 0
    sentence = done.stdout.strip().splitlines()[-1]
    # The library's numbers, in the table.
    plan = evp.verdict_power(frame.acc[:15], frame.acc[15:], 5, [10, 50, 300],
                             construction="top_band",
                             replications=1000, rng=0)
    assert f"{plan.strong[-1]:.4f}" in done.stdout
    cost = frame.groupby("model")["gpu_hours"].mean().sum()
    assert f"{300 * cost:.4f}" in done.stdout
    # The sentence is read from the range, names the rounds, their cost in GPU
    # hours and the budget, and carries the simulated point with its s.e.
    assert f"{plan.strong_low[-1]:.4f}" in done.stdout
    assert f"{plan.strong_high[-1]:.4f}" in done.stdout
    assert plan.strong_low[-1] < 0.8 <= plan.strong_high[-1]
    assert sentence.startswith("after 300 more rounds of each (≈ ")
    # A low end too small to bound the chance is said as such, not as "0%".
    chance = (f"of at most {plan.strong_high[-1]:.0%} (the rounds so far cannot "
              "bound it from below" if plan.strong_low[-1] < 0.005 else
              f"between {plan.strong_low[-1]:.0%} and {plan.strong_high[-1]:.0%}")
    assert f"GPU hours), a strong verdict at n = 5 has a chance {chance}" in sentence
    assert (f"(simulated {plan.strong[-1]:.0%} ± {plan.strong_error[-1]:.1%} s.e."
            in sentence)
    first = [10, 50, 300][int(np.argmax(plan.strong_high >= 0.8))]
    assert sentence.endswith(f"no fewer than {first} more rounds of each can give "
                             "80%; read from 80% LD highest-density top bands "
                             "(exact over the better half of the order "
                             "statistics), simultaneous over n = 1, 2, 3, … "
                             "(every budget)")
    assert "today, at n = 5" in done.stderr and "too hopeful" in done.stderr
    assert "if none beyond the extremes" in done.stdout


def test_plan_gives_a_point_it_can_bound_from_below(tmp_path, capsys):
    # Far apart, with many rounds: the low end passes 80%, and the sentence
    # says so with the range and the simulated point.
    rng = np.random.default_rng(4)
    frame = pd.DataFrame({"model": ["a"] * 60 + ["b"] * 60,
                          "acc": np.r_[rng.normal(0.9, 0.01, 60),
                                       rng.normal(0.7, 0.01, 60)]})
    path = tmp_path / "far.csv"
    frame.to_csv(path, index=False)
    status = cli.main(["plan", str(path), "--score", "acc", "--group", "model",
                       "a", "b", "--budget", "3", "--more", "0,20"])
    out, err = capsys.readouterr()
    assert status == 0, err
    plan = evp.verdict_power(frame.acc[:60], frame.acc[60:], 3, [0, 20], rng=0,
                             construction="top_band")
    assert plan.strong_low[0] >= 0.8
    assert out.strip().splitlines()[-1] == (
        f"about 0 more rounds of each give a strong verdict at n = 3 with a chance "
        f"between {plan.strong_low[0]:.0%} and {plan.strong_high[0]:.0%} "
        f"(simulated {plan.strong[0]:.0%} ± {plan.strong_error[0]:.1%} s.e.; on "
        "HPOBench's grids such a range held the realised chance in at least 89.8% "
        "of cases, and the simulated point ran 0.07 to 0.16 too hopeful); read "
        "from 80% LD highest-density top bands (exact over the better half of the "
        "order statistics), simultaneous over n = 1, 2, 3, … (every budget)")


def test_plan_caps_the_replications_by_their_memory(close_models, capsys):
    path, _ = close_models
    status = cli.main(["plan", str(path), "--score", "acc", "--group", "model",
                       "bert", "roberta", "--budget", "3", "--replications",
                       "100000000"])
    assert status == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    # 30 observed rounds and 2 x 100 new ones, about 70 bytes each per future.
    assert "--replications 100000000 would take about 1.61e+03 GB" in err
    most = int(4e9 // (70 * 230))
    assert f"at most {most} fit in 4 GB: give --replications {most} or fewer" in err


def test_plan_says_when_more_rounds_will_not_settle_it(tmp_path, capsys):
    rng = np.random.default_rng(1)
    same = rng.normal(0.8, 0.03, 40)
    frame = pd.DataFrame({"model": ["a"] * 20 + ["b"] * 20, "acc": same})
    path = tmp_path / "same.csv"
    frame.to_csv(path, index=False)
    status = cli.main(["plan", str(path), "--score", "acc", "--group", "model",
                       "a", "b", "--budget", "3", "--more", "10,20"])
    out, err = capsys.readouterr()
    assert status == 0, err
    # The same scores, split: the low end is near none, and the sentence
    # follows the range's high end: "too close" exactly where even the most
    # rounds leave it under 20% (the verdict read from the top band over every
    # budget, compare's default).
    plan = evp.verdict_power(same[:20], same[20:], 3, [10, 20], rng=0,
                             construction="top_band")
    assert plan.strong_low.max() < 0.005
    said = " ".join(out.split())  # the terminal wraps long sentences
    assert ("too close" in said) == bool(plan.strong_high.max() < 0.2)
    assert f"a chance of at most {plan.strong_high.max():.0%}" in said
    assert "s.e." in said and "between 0%" not in said


def test_plan_reads_losses_the_right_way(tmp_path, capsys):
    rng = np.random.default_rng(2)
    frame = pd.DataFrame({"model": ["good"] * 12 + ["bad"] * 12,
                          "val_loss": np.r_[rng.normal(0.3, 0.05, 12),
                                            rng.normal(0.6, 0.05, 12)]})
    path = tmp_path / "losses.csv"
    frame.to_csv(path, index=False)
    status = cli.main(["plan", str(path), "--score", "val_loss", "--minimize",
                       "--group", "model", "good", "bad", "--budget", "4",
                       "--more", "30"])
    out, err = capsys.readouterr()
    assert status == 0, err
    row = out.splitlines()[1].split()
    # strong: good better, strong: bad better
    assert float(row[1]) > 0.9 and float(row[2]) == 0.0


@pytest.mark.parametrize("args, match", [
    (["--budget", "0"], "--budget"),
    (["--budget", "3", "--more", "-5"], "--more"),
    (["--budget", "3", "--more", "ten"], "--more"),
])
def test_plan_refuses_bad_options_in_one_line(close_models, capsys, args, match):
    path, _ = close_models
    try:
        status = cli.main(["plan", str(path), "--score", "acc", "--group", "model",
                           "bert", "roberta", *args])
    except SystemExit as exit:  # argparse refuses --more itself
        status = exit.code
    assert status == 2
    err = capsys.readouterr().err
    assert match in err and len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


def test_plan_refuses_a_model_against_itself(close_models, capsys):
    path, _ = close_models
    status = cli.main(["plan", str(path), "--score", "acc", "--group", "model",
                       "bert", "bert", "--budget", "3"])
    assert status == 2
    assert "both 'bert'" in capsys.readouterr().err


@pytest.mark.needs("matplotlib")
def test_plan_and_the_report_say_the_same(tmp_path, capsys):
    # One question, one number: evp plan's sentence is the report's, word for word
    # (the same extra rounds, replications and seed).
    from evp.report import build_report

    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"model": ["a"] * 15 + ["b"] * 15,
                          "acc": np.r_[rng.normal(0.80, 0.03, 15),
                                       rng.normal(0.83, 0.03, 15)]})
    path = tmp_path / "pair.csv"
    frame.to_csv(path, index=False)
    status = cli.main(["plan", str(path), "--score", "acc", "--group", "model",
                       "a", "b", "--budget", "2"])
    out, err = capsys.readouterr()
    assert status == 0, err
    said = out.strip().splitlines()[-1]
    report = build_report(evp.read_results(path, score="acc", group="model"),
                          budget=2)
    settle = next(v for k, v in dict(report.sections).items()
                  if k.startswith("What would settle"))
    assert settle == [f"a vs b: {said}."]
    assert "s.e." in said
