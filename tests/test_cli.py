"""The `evp` command end to end, through a subprocess, checked against the library."""

import io
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import evp
from evp import cli


def run(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "evp.cli", *map(str, args)],
                          capture_output=True, text=True, cwd=cwd, timeout=120)


@pytest.fixture
def results_csv(tmp_path):
    rng = np.random.default_rng(7)
    frame = pd.DataFrame({
        "model": ["a"] * 30 + ["b"] * 25,
        "acc": np.round(np.concatenate([rng.uniform(0.6, 0.9, 30),
                                        rng.uniform(0.2, 0.5, 25)]), 6),
        "seconds": rng.uniform(1, 5, 55).round(3),
    })
    path = tmp_path / "results.csv"
    frame.to_csv(path, index=False)
    return path, frame


def parse_table(text):
    return pd.read_csv(io.StringIO(text), sep=r"\s+")


def test_curve_prints_the_library_numbers(results_csv):
    path, frame = results_csv
    done = run("curve", path, "--score", "acc", "--group", "model", "--estimator", "u")
    assert done.returncode == 0, done.stderr
    table = parse_table(done.stdout)
    for model, rows in table.groupby("model"):
        scores = frame.loc[frame["model"] == model, "acc"].to_numpy()
        ns = np.arange(1, len(scores) + 1)
        np.testing.assert_array_equal(rows["n"], ns)
        np.testing.assert_allclose(rows["curve"],
                                   evp.expected_max(scores, ns, estimator="u"),
                                   atol=5e-5)
        np.testing.assert_allclose(rows["std"], evp.expected_max_std(scores, ns),
                                   atol=5e-5)


@pytest.mark.needs("matplotlib", "seaborn")
def test_curve_with_band_writes_csv_and_figure(results_csv, tmp_path):
    path, frame = results_csv
    out = tmp_path / "curve.csv"
    done = run("curve", path, "--score", "acc", "--method", "ld_highest_density",
               "--confidence", "0.8", "--out", out)
    assert done.returncode == 0, done.stderr
    written = pd.read_csv(out)
    ns = np.arange(1, 56)
    band = evp.tuning_curve_band(frame["acc"], ns, 0.8)
    np.testing.assert_allclose(written["curve"], evp.expected_max(frame["acc"], ns))
    np.testing.assert_allclose(written["band_lower"], band.lower)
    np.testing.assert_allclose(written["band_upper"], band.upper)
    figure = tmp_path / "curve.png"
    done = run("curve", path, "--score", "acc", "--group", "model", "--cost",
               "seconds", "--out", figure)
    assert done.returncode == 0, done.stderr
    assert figure.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_compare_prints_the_library_labels(results_csv):
    path, frame = results_csv
    done = run("compare", path, "--score", "acc", "--group", "model", "a", "b",
               "--ns", "1,2,5,10")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert lines[0].split()[-6:] == ["a", "beats", "b", "b", "beats", "a"]
    forward = [line.split()[-2] for line in lines[1:]]
    backward = [line.split()[-1] for line in lines[1:]]
    a = frame.loc[frame["model"] == "a", "acc"]
    b = frame.loc[frame["model"] == "b", "acc"]
    assert forward == list(evp.compare(a, b, [1, 2, 5, 10], 0.8).evidence)
    assert backward == list(evp.compare(b, a, [1, 2, 5, 10], 0.8).evidence)
    assert forward[0] == "strong"  # a's scores all lie above b's
    assert backward == ["none"] * 4


def test_compare_says_when_the_second_model_is_better(results_csv):
    # b's band lies wholly above a's: the table says so in its own column,
    # where a one-way table would say "none".
    path, _ = results_csv
    done = run("compare", path, "--score", "acc", "--group", "model", "b", "a",
               "--ns", "1,2")
    assert done.returncode == 0, done.stderr
    rows = [line.split() for line in done.stdout.strip().splitlines()[1:]]
    assert [(r[0], r[-2], r[-1]) for r in rows] == [("1", "none", "strong"),
                                                    ("2", "none", "strong")]


@pytest.mark.parametrize("args", [
    ("curve", "missing.csv", "--score", "acc"),
    ("curve", "{csv}", "--score", "nope"),
    ("curve", "{csv}", "--score", "acc", "--out", "table.xlsx"),
    ("curve", "{csv}", "--score", "acc", "--ns", "1,x"),
    ("compare", "{csv}", "--score", "acc", "--group", "model", "a", "zzz"),
    ("reproduce", "--only", "no_such_notebook"),
])
def test_bad_input_is_one_line_without_traceback(args, results_csv, tmp_path):
    path, _ = results_csv
    done = run(*(a.replace("{csv}", str(path)) for a in args), cwd=tmp_path)
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr


@pytest.mark.parametrize("command", ["curve", "compare", "reproduce", "run"])
def test_help(command):
    done = run(command, "--help")
    assert done.returncode == 0 and "usage: evp " + command in done.stdout


def test_reproduce_finds_analyses_in_subfolders_but_not_assignments(tmp_path):
    for name in ("b.ipynb", "classroom/a.ipynb",
                 "classroom/assignments/source/x/x.ipynb",
                 ".ipynb_checkpoints/b-checkpoint.ipynb"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("{}")
    found = cli._notebooks(tmp_path, None)
    # Top-level analyses first, then the classroom's.
    assert [p.relative_to(tmp_path).as_posix() for p in found] == [
        "b.ipynb", "classroom/a.ipynb"]
    assert cli._notebooks(tmp_path, ["a"]) == [tmp_path / "classroom/a.ipynb"]
    with pytest.raises(cli.UsageError, match="no notebook named x"):
        cli._notebooks(tmp_path, ["x"])


def test_the_old_band_option_still_works_with_a_deprecation_note(results_csv):
    path, _ = results_csv
    new = run("curve", path, "--score", "acc", "--method", "ks", "--ns", "1,5")
    old = run("curve", path, "--score", "acc", "--band", "ks", "--ns", "1,5")
    assert old.returncode == 0 and old.stdout == new.stdout
    assert old.stderr.strip() == ("evp curve: warning: --band is renamed --method; "
                                  "--band will be removed")


def test_plot_takes_method_and_the_old_band_keyword():
    import warnings

    from evp.plot import tuning_curve_table

    data = pd.DataFrame({"score": np.random.default_rng(1).random(30)})
    new = tuning_curve_table(data, ns=[1, 4], method="ks")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        old = tuning_curve_table(data, ns=[1, 4], band="ks")
    pd.testing.assert_frame_equal(old, new)
    assert [w.category for w in caught] == [DeprecationWarning]
    with pytest.raises(ValueError, match="disagree"), pytest.warns(DeprecationWarning):
        tuning_curve_table(data, ns=[1], method="ks", band="dkw")
