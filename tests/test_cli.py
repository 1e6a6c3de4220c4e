"""The `evp` command end to end, checked against the library: most cases in process
(cli.main), a few through a real subprocess."""

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
    """The printed table, without the note lines that come before it."""
    table = [line for line in text.splitlines(keepends=True)
             if not line.startswith("note: ")]
    return pd.read_csv(io.StringIO("".join(table)), sep=r"\s+")


def main(capsys, *args):
    """cli.main in process: (exit status, stdout, stderr)."""
    status = cli.main([str(a) for a in args])
    out, err = capsys.readouterr()
    return status, out, err


def test_curve_prints_the_library_numbers(results_csv):
    path, frame = results_csv
    done = run("curve", path, "--score", "acc", "--group", "model", "--estimator", "u",
               "--ns", "all")
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



def test_curve_prints_the_median_band_by_default_and_none_turns_it_off(
        results_csv, capsys):
    path, frame = results_csv
    status, out, err = main(capsys, "curve", path, "--score", "acc", "--group",
                            "model", "--ns", "1,5")
    assert status == 0, err
    table = parse_table(out)
    scores = frame.loc[frame["model"] == table["model"].iloc[0], "acc"].to_numpy()
    band = evp.tuning_curve_band(scores, [1, 5], 0.8, method="ld_highest_density")
    np.testing.assert_allclose(table["band_lower"].iloc[:2], band.lower, atol=5e-5)
    np.testing.assert_allclose(table["median"].iloc[:2], band.estimate, atol=5e-5)
    status, out, err = main(capsys, "curve", path, "--score", "acc", "--group",
                            "model", "--ns", "1,5", "--method", "none")
    assert status == 0, err
    assert list(parse_table(out).columns) == ["model", "n", "curve", "std"]


@pytest.mark.needs("matplotlib", "seaborn")
def test_curve_with_band_writes_csv_and_figure(results_csv, tmp_path):
    path, frame = results_csv
    out = tmp_path / "curve.csv"
    done = run("curve", path, "--score", "acc", "--method", "ld_highest_density",
               "--confidence", "0.8", "--out", out, "--pool", "--ns", "all")
    assert done.returncode == 0, done.stderr
    written = pd.read_csv(out)
    ns = np.arange(1, 56)
    # Over every budget the CLI reads the median's top band, as compare does.
    band = evp.compare(frame["acc"], frame["acc"], ns, 0.8,
                       construction="top_band").band_a
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
def test_bad_input_is_one_line_without_traceback(args, results_csv, tmp_path,
                                                 monkeypatch, capsys):
    path, _ = results_csv
    monkeypatch.chdir(tmp_path)
    status, _, err = main(capsys, *(a.replace("{csv}", str(path)) for a in args))
    assert status != 0
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err


@pytest.mark.parametrize("command", ["curve", "compare", "plan", "reproduce", "run"])
def test_help(command, capsys):
    with pytest.raises(SystemExit) as done:
        cli.main([command, "--help"])
    assert done.value.code == 0
    assert "usage: evp " + command in capsys.readouterr().out


def test_reproduce_finds_analyses_in_subfolders_but_not_assignments(tmp_path):
    for name in ("b.ipynb", "classroom/a.ipynb",
                 "classroom/assignments/source/x/x.ipynb",
                 ".ipynb_checkpoints/b-checkpoint.ipynb"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("{}")
    from evp.runner import notebooks

    found = notebooks(tmp_path, None)
    # Top-level analyses first, then the classroom's.
    assert [p.relative_to(tmp_path).as_posix() for p in found] == [
        "b.ipynb", "classroom/a.ipynb"]
    assert notebooks(tmp_path, ["a"]) == [tmp_path / "classroom/a.ipynb"]
    with pytest.raises(ValueError, match="no notebook named x"):
        notebooks(tmp_path, ["x"])


def test_the_old_band_option_still_works_with_a_deprecation_note(results_csv,
                                                                 capsys):
    path, _ = results_csv
    _, new, _ = main(capsys, "curve", path, "--score", "acc", "--method", "ks",
                     "--ns", "1,5", "--pool")
    status, old, err = main(capsys, "curve", path, "--score", "acc", "--band", "ks",
                            "--ns", "1,5", "--pool")
    assert status == 0 and old == new
    assert err.strip().splitlines()[0] == ("evp curve: warning: --band is renamed "
                                           "--method; --band will be removed")


def test_plot_takes_method_and_the_old_band_keyword():
    import warnings

    from evp.tables import tuning_curve_table

    data = pd.DataFrame({"score": np.random.default_rng(1).random(30)})
    new = tuning_curve_table(data, ns=[1, 4], method="ks")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        old = tuning_curve_table(data, ns=[1, 4], band="ks")
    pd.testing.assert_frame_equal(old, new)
    assert [w.category for w in caught] == [DeprecationWarning]
    with pytest.raises(ValueError, match="disagree"), pytest.warns(DeprecationWarning):
        tuning_curve_table(data, ns=[1], method="ks", band="dkw")


# ------------------------------------------------------------------ evp curve


def test_readable_budgets():
    from evp.tables import readable_budgets

    assert readable_budgets(297) == [1, 2, 3, 5, 10, 20, 50, 100, 200, 297]
    assert readable_budgets(100) == [1, 2, 3, 5, 10, 20, 50, 100]
    assert readable_budgets(4) == [1, 2, 3, 4]
    assert readable_budgets(1) == [1]


def test_curve_prints_readable_budgets_per_model_or_every_one(results_csv, capsys):
    path, _ = results_csv
    status, out, _ = main(capsys, "curve", path, "--score", "acc", "--group",
                          "model")
    assert status == 0
    table = parse_table(out)
    assert table.loc[table["model"] == "a", "n"].tolist() == [1, 2, 3, 5, 10, 20, 30]
    assert table.loc[table["model"] == "b", "n"].tolist() == [1, 2, 3, 5, 10, 20, 25]
    status, out, _ = main(capsys, "curve", path, "--score", "acc", "--group",
                          "model", "--ns", "ALL")
    assert status == 0 and len(parse_table(out)) == 55
    status, out, _ = main(capsys, "curve", path, "--score", "acc", "--group",
                          "model", "--ns", "10,2,2")
    assert parse_table(out)["n"].tolist() == [2, 10, 2, 10]


@pytest.mark.parametrize("ns", ["1.5", "0", "1,x", ""])
def test_budgets_are_whole_numbers_of_rounds(results_csv, capsys, ns):
    path, _ = results_csv
    status, _, err = main(capsys, "curve", path, "--score", "acc", "--pool",
                          "--ns", ns)
    assert status == 2
    assert "--ns expects whole numbers of rounds" in err and "--ns all" in err


def test_several_models_are_never_pooled_silently(results_csv, capsys):
    path, frame = results_csv
    status, out, err = main(capsys, "curve", path, "--score", "acc")
    assert status == 2 and out == ""
    assert err.strip() == (
        "evp curve: column 'model' looks like it names models (2 values: a, b): "
        "give --group model for one curve per model, or --pool to treat all 55 "
        "rows as one model")
    status, out, _ = main(capsys, "curve", path, "--score", "acc", "--pool",
                          "--ns", "1,55")
    table = parse_table(out)
    # The one model is named after the file, not after the score.
    assert table["model"].tolist() == ["results", "results"]
    np.testing.assert_allclose(table["curve"],
                               evp.expected_max(frame["acc"], [1, 55]), atol=5e-5)
    status, _, err = main(capsys, "curve", path, "--score", "acc", "--pool",
                          "--group", "model")
    assert status == 2 and "--pool and --group" in err


def test_a_file_of_one_model_needs_no_group(tmp_path, capsys):
    path = tmp_path / "runs.csv"
    pd.DataFrame({"acc": np.linspace(0.5, 0.9, 12), "seed": range(12),
                  "note": [f"run {i}" for i in range(12)]}).to_csv(path, index=False)
    status, out, _ = main(capsys, "curve", path, "--score", "acc")
    assert status == 0 and parse_table(out)["model"].iloc[0] == "runs"


@pytest.mark.needs("matplotlib", "seaborn")
def test_curve_figure_with_losses_and_a_cost(results_csv, tmp_path, capsys):
    _path, frame = results_csv
    losses = tmp_path / "losses.csv"
    frame.assign(val_loss=1 - frame["acc"]).to_csv(losses, index=False)
    out = tmp_path / "curve.svg"
    status, _, err = main(capsys, "curve", losses, "--score", "val_loss", "--group",
                          "model", "--minimize", "--cost", "seconds", "--method",
                          "dkw", "--out", out)
    assert status == 0, err
    svg = out.read_text()
    assert "expected lowest val_loss" in svg and "expected best" not in svg
    assert "mean seconds per round (s)" in svg
    assert "hatch" not in svg


# ---------------------------------------------------------------- evp compare


def test_compare_writes_csv_and_figures_with_integer_budgets(results_csv, tmp_path,
                                                             capsys):
    path, frame = results_csv
    out = tmp_path / "compare.csv"
    status, printed, err = main(capsys, "compare", path, "--score", "acc", "--group",
                                "model", "a", "b", "--out", out)
    assert status == 0, err
    written = pd.read_csv(out)
    assert written["n"].tolist() == [1, 2, 3, 5, 10, 20, 25]
    assert written["n"].dtype.kind == "i"
    assert parse_table(printed.split("wrote")[0])["n"].tolist() == [
        1, 2, 3, 5, 10, 20, 25]
    assert "1.0000" not in printed
    a = frame.loc[frame["model"] == "a", "acc"]
    b = frame.loc[frame["model"] == "b", "acc"]
    result = evp.compare(a, b, written["n"], 0.8)
    assert written["a beats b"].tolist() == list(result.evidence)
    assert written["b beats a"].tolist() == list(result.reverse_evidence)


@pytest.mark.needs("matplotlib", "seaborn")
@pytest.mark.parametrize("suffix", [".png", ".pdf"])
def test_compare_draws_a_figure(results_csv, tmp_path, capsys, suffix):
    path, _ = results_csv
    out = tmp_path / f"compare{suffix}"
    status, _, err = main(capsys, "compare", path, "--score", "acc", "--group",
                          "model", "a", "b", "--method", "dkw", "--out", out)
    assert status == 0, err
    magic = {".png": b"\x89PNG", ".pdf": b"%PDF"}[suffix]
    assert out.read_bytes().startswith(magic)


def test_compare_adds_each_models_cost(results_csv, capsys):
    path, frame = results_csv
    status, out, _ = main(capsys, "compare", path, "--score", "acc", "--group",
                          "model", "a", "b", "--cost", "seconds", "--ns", "1,10")
    assert status == 0
    table = parse_table(out.replace(" cost (s)", "_cost"))
    means = frame.groupby("model")["seconds"].mean()
    np.testing.assert_allclose(table["a_cost"], [means["a"], 10 * means["a"]],
                               atol=5e-5)
    np.testing.assert_allclose(table["b_cost"], [means["b"], 10 * means["b"]],
                               atol=5e-5)


def test_a_model_is_not_compared_with_itself(results_csv, capsys):
    path, _ = results_csv
    status, out, err = main(capsys, "compare", path, "--score", "acc", "--group",
                            "model", "a", "a")
    assert status == 2 and out == ""
    assert err.strip() == ("evp compare: A and B are both 'a': name two different "
                           "models to compare")


def test_errors_are_one_line_with_the_subcommands_usage(results_csv):
    path, _ = results_csv
    done = run("compare", path, "--score", "acc", "--group", "model", "a", "b",
               "--nonsense", "1")
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("evp compare: error: unrecognized arguments: "
                               "--nonsense 1")
    assert "usage: evp compare RESULTS --score COL --group COL [A B" in lines[0]
    assert "{curve,compare" not in lines[0]  # not the top-level usage


# ---------------------------------------------------------------- input


def test_semicolons_and_decimal_commas_are_sniffed(tmp_path, capsys):
    path = tmp_path / "runs.csv"
    path.write_text("model;f1;seconds\na;0,5;1,5\nb;0,75;2\na;0,25;3,0\nb;0,5;1\n")
    status, out, err = main(capsys, "curve", path, "--score", "f1", "--group",
                            "model", "--ns", "1")
    assert status == 0, err
    np.testing.assert_allclose(parse_table(out)["curve"], [0.375, 0.625])
    # Or given: a semicolon file read with commas says which delimiter to pass.
    status, _, err = main(capsys, "curve", path, "--score", "f1", "--sep", ",")
    assert status == 2
    assert "pass --sep ';'" in err and "sep=" not in err


@pytest.mark.needs("pyarrow")
def test_parquet_is_read(results_csv, tmp_path, capsys):
    path, frame = results_csv
    parquet = tmp_path / "results.parquet"
    frame.to_parquet(parquet)
    status, out, _ = main(capsys, "curve", parquet, "--score", "acc", "--group",
                          "model")
    status_csv, out_csv, _ = main(capsys, "curve", path, "--score", "acc",
                                  "--group", "model")
    assert status == status_csv == 0 and out == out_csv


def test_bad_rows_are_refused_or_dropped_and_listed(results_csv, tmp_path, capsys):
    _path, frame = results_csv
    bad = frame.astype({"acc": object})
    bad.loc[[3, 7], "acc"] = ["n/a", None]
    broken = tmp_path / "broken.csv"
    bad.to_csv(broken, index=False)
    status, _, err = main(capsys, "curve", broken, "--score", "acc", "--group",
                          "model")
    assert status == 2
    assert "2 failed round(s)" in err and "rows 4, 8;" in err
    assert "pass --failed drop" in err
    assert "or --failed worst" in err and len(err.strip().splitlines()) == 1
    assert "drop_bad_rows" not in err
    status, out, err = main(capsys, "curve", broken, "--score", "acc", "--group",
                            "model", "--drop-bad-rows", "--ns", "all")
    assert status == 0
    assert "warning: dropped 2 bad row(s) of 55" in err and "rows 4, 8" in err
    assert len(parse_table(out)) == 53


def test_library_messages_speak_the_command_line():
    flags = cli.parameter_flags()

    def speak(message, names=None, param=None):
        return cli.in_command_line_words(message, flags, names, param)

    assert (speak("got n = 300; use estimator='v' or 'w' to extrapolate")
            == "got n = 300; use --estimator v or w to extrapolate")
    assert (speak("ties: method='dkw' holds for any distribution")
            == "ties: --method dkw holds for any distribution")
    assert speak("pass drop_bad_rows=True to drop") == "pass --drop-bad-rows to drop"
    assert speak("x='cost' needs the cost column: pass cost=") == (
        "x='cost' needs the cost column: pass --cost")
    assert speak("path_or_frame: no such file") == "RESULTS: no such file"
    assert (speak("ties (in scores_a and scores_b)", {"scores_a": "bert",
                                                      "scores_b": "gpt"})
            == "ties (in bert and gpt)")
    # The parameter an error names is its option; a model's "a=" no keyword.
    assert speak("ns must be at least 1", param="ns") == "--ns must be at least 1"
    assert speak("ns must be at least 1") == "ns must be at least 1"
    assert speak("fit a=0.5, b=0.7") == "fit a=0.5, b=0.7"
    assert speak("could not be read; pass sep=") == "could not be read; pass --sep"


def test_the_flags_are_read_off_the_parser():
    # An option added to the parser speaks for itself: no list kept by hand.
    parser = cli.build_parser()
    commands = parser._subparsers._group_actions[0].choices
    commands["curve"].add_argument("--brand-new-option", dest="brand_new")
    assert cli.parameter_flags(parser)["brand_new"] == "--brand-new-option"
    assert cli.in_command_line_words(
        "pass brand_new=3", cli.parameter_flags(parser)) == "pass --brand-new-option 3"
    assert not hasattr(cli, "_OPTIONS") and not hasattr(cli, "_speak_cli")
    assert not hasattr(cli, "_SAID")  # a handler returns what it says


def test_every_option_has_help_and_its_default():
    parser = cli.build_parser()
    commands = parser._subparsers._group_actions[0].choices
    for name in ("curve", "compare", "plan"):
        command = commands[name]
        for action in command._actions:
            if not action.option_strings or action.help == "==SUPPRESS==":
                continue
            if "-h" in action.option_strings:
                continue
            shown = command.formatter_class("evp")._get_help_string(action)
            assert action.help, f"{name} {action.option_strings[0]} has no help"
            assert "default" in shown or action.required, (
                f"{name} {action.option_strings[0]}: no default in {shown!r}")
    done = run("curve", "--help")
    assert "(default: v)" in done.stdout and "(default: 0.8)" in done.stdout


def test_several_searches_as_name_equals_path(tmp_path, capsys):
    rng = np.random.default_rng(5)
    for name, centre in (("a", 0.6), ("b", 0.8)):
        pd.DataFrame({"acc": rng.normal(centre, 0.02, 30)}).to_csv(
            tmp_path / f"{name}.csv", index=False)
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    out = tmp_path / "curves.csv"
    assert cli.main(["curve", f"low={a}", f"high={b}", "--score", "acc", "--ns", "1,5",
                 "--out", str(out)]) == 0
    assert list(dict.fromkeys(pd.read_csv(out)["model"])) == ["low", "high"]
    capsys.readouterr()
    assert cli.main(["compare", f"low={a}", f"high={b}", "--score", "acc", "high",
                 "low", "--ns", "3"]) == 0
    assert "strong" in capsys.readouterr().out
    for command in (["curve", str(a), f"high={b}", "--score", "acc"],
                    ["curve", f"low={a}", f"high={b}", "--score", "acc", "--out",
                     str(a)],
                    ["run", "deberta_tutorial", f"low={a}", f"high={b}", "--score",
                     "acc"]):
        assert cli.main(command) == 2
        assert len(capsys.readouterr().err.strip().splitlines()) == 1
