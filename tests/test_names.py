"""Model and task names as users write them: read as written (None, NA, 1 and
"1", spaces), never pooled or confused, and shown without harm (no formula in a
spreadsheet, no reordering or broken line on a terminal, in a report or in a
LaTeX table)."""

import csv
import io

import numpy as np
import pandas as pd
import pytest

from evp import cli


def main(capsys, *args):
    """cli.main in process: (exit status, stdout, stderr)."""
    status = cli.main([str(a) for a in args])
    out, err = capsys.readouterr()
    return status, out, err


def three_models(tmp_path, names=("alpha", "beta", "gamma")):
    rng = np.random.default_rng(5)
    frame = pd.DataFrame({"model": np.repeat(list(names), 12),
                          "acc": rng.uniform(0.5, 0.9, 12 * len(names)).round(4)})
    path = tmp_path / "runs.csv"
    frame.to_csv(path, index=False)
    return path


# ------------------------------------------------------------------ --highlight

@pytest.mark.parametrize("models", [["--all"], ["alpha", "beta"]])
def test_an_unknown_highlight_is_refused_naming_the_models(tmp_path, capsys,
                                                           models):
    path = three_models(tmp_path)
    status, out, err = main(capsys, "compare", path, "--score", "acc", "--group",
                            "model", *models,
                            "--highlight", "gama")
    assert status == 2 and out == ""
    assert err.count("\n") == 1, err
    assert err.startswith("evp compare: --highlight: no model 'gama'"), err
    if "--all" in models:
        assert "did you mean 'gamma'?" in err and "'alpha', 'beta', 'gamma'" in err
    else:  # the two models compared are the ones a figure draws
        assert "'alpha', 'beta'" in err and "'gamma'" not in err
    status, _, err = main(capsys, "compare", path, "--score", "acc", "--group",
                          "model", "--all",
                          "--highlight", "gamma")
    assert status == 0, err


def test_report_refuses_an_unknown_highlight_before_the_work(tmp_path, capsys):
    path = three_models(tmp_path)
    out = tmp_path / "report.md"
    status, _, err = main(capsys, "report", path, "--score", "acc", "--group",
                          "model", "--out", out,
                          "--highlight", "alpha,delta")
    assert status == 2 and not out.exists()
    assert err.startswith("evp report: --highlight: no model 'delta'"), err
    assert err.count("\n") == 1


def results_of(tmp_path, names, *, scores=None):
    """A results file whose models are `names`, 12 rounds each."""
    rng = np.random.default_rng(9)
    scores = rng.uniform(0.5, 0.9, 12 * len(names)) if scores is None else scores
    frame = pd.DataFrame({"model": np.repeat(list(names), 12),
                          "acc": np.round(scores, 4)})
    path = tmp_path / "runs.csv"
    # Every name quoted: pandas leaves a leading carriage return unquoted.
    frame.to_csv(path, index=False, quoting=csv.QUOTE_NONNUMERIC)
    return path


# ------------------------------------------------------------------ --out .csv

FORMULAS = ["=1+2", "+1", "-a", "@SUM(A1)", "\tcmd", "\rrun"]


def test_csv_cells_that_start_like_a_formula_are_escaped(tmp_path, capsys):
    # Losses, negated: every estimate is a negative number, which stays one.
    path = results_of(tmp_path, [*FORMULAS, "plain"],
                      scores=-np.random.default_rng(2).uniform(1, 2, 84))
    out = tmp_path / "table.csv"
    status, _, err = main(capsys, "curve", path, "--score", "acc", "--group",
                          "model", "--ns", "1,5", "--out", out)
    assert status == 0, err
    with open(out, newline="", encoding="utf-8") as handle:  # a \r as written
        text = handle.read()
    rows = list(csv.reader(io.StringIO(text, newline="")))
    header, body = rows[0], rows[1:]
    models = [row[header.index("model")] for row in body]
    assert {*models} == {"'" + name for name in FORMULAS} | {"plain"}
    for row in rows:
        for cell in row:
            if cell[:1] in ("=", "+", "-", "@", "\t", "\r"):
                float(cell)  # only a number may start so
    estimates = [float(row[header.index("curve")]) for row in body]
    assert max(estimates) < 0
    # The formula's cells are quoted, the numbers are not.
    assert '"\'=1+2",' in text and ',-1.' in text
    # Read back, the table's numbers are numbers.
    back = pd.read_csv(out)
    assert back["curve"].dtype == float and back["n"].dtype == np.int64


# ------------------------------------------------------------------ bidi, newlines

BIDI = ["\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067",
        "\u2068", "\u2069", "\u200e", "\u200f", "\u061c"]


def test_bidirectional_controls_are_escapes_on_the_terminal(tmp_path, capsys):
    names = [f"m{i}{c}x" for i, c in enumerate(BIDI)]
    path = results_of(tmp_path, names)
    status, out, err = main(capsys, "curve", path, "--score", "acc", "--group",
                            "model", "--ns", "1")
    assert status == 0, err
    for c in BIDI:
        assert c not in out + err
        assert f"\\u{ord(c):04x}" in out
    status, out, err = main(capsys, "compare", path, "--score", "acc", "--group",
                            "model", "m0\u202ax", "nothing\u202e")
    assert status == 2 and "\u202e" not in err and "nothing\\u202e" in err


@pytest.mark.needs("matplotlib")
@pytest.mark.parametrize("suffix", [".md", ".html"])
def test_bidirectional_controls_are_escapes_in_a_report(tmp_path, capsys, suffix):
    path = results_of(tmp_path, ["safe", "evil\u202eab", "\u2067iso\u2069"])
    out = tmp_path / f"report{suffix}"
    status, _, err = main(capsys, "report", path, "--score", "acc", "--group",
                          "model", "--out", out)
    assert status == 0, err
    page = out.read_text()
    assert not any(c in page for c in BIDI)
    assert "evil\\u202eab" in page and "\\u2067iso\\u2069" in page


def test_a_name_with_a_blank_line_keeps_a_latex_table_s_rows(tmp_path, capsys):
    path = results_of(tmp_path, ["one\n\ntwo", "three\r\nfour", "five"])
    out = tmp_path / "table.tex"
    status, _, err = main(capsys, "curve", path, "--score", "acc", "--group",
                          "model", "--ns", "1,2", "--out", out)
    assert status == 0, err
    text = out.read_text()
    table = text[text.index("\\begin{tabular}"):text.rindex("\\end{tabular}")]
    lines = table.splitlines()[1:]
    assert all(line.strip() for line in lines), table  # no blank line
    rows = [line for line in lines if not line.startswith("\\") or "&" in line]
    assert all(line.endswith("\\\\") for line in rows), table
    assert sum(line.startswith("one  two &") for line in rows) == 2, table


# ------------------------------------------------------------------ names as written

MISSING_LIKE = ["None", "NA", "nan", "NaN", "null", "N/A", "#N/A", "<NA>", "-nan"]


def test_models_named_like_missing_values_are_those_models(tmp_path, capsys):
    path = results_of(tmp_path, [*MISSING_LIKE, "01", "1"])
    status, out, err = main(capsys, "curve", path, "--score", "acc", "--group",
                            "model", "--ns", "1")
    assert status == 0, err
    shown = [line.split()[0] for line in out.splitlines()[1:]]
    assert shown == [*MISSING_LIKE, "01", "1"]


def test_an_empty_model_name_is_refused_and_dropped_alone(tmp_path, capsys):
    path = tmp_path / "runs.csv"
    rows = ["model,acc", *(f"{m},0.{i + 1}" for m in ("None", "NA", "a")
                           for i in range(4)), ",0.9", " ,0.8"]
    path.write_text("\n".join(rows) + "\n")
    status, out, err = main(capsys, "curve", path, "--score", "acc", "--group",
                            "model", "--ns", "1")
    assert status == 2 and out == "", err
    assert err.startswith("evp curve: group column 'model' has missing or empty "
                          "model names in rows 13, 14 "), err
    assert err.count("\n") == 1
    status, out, err = main(capsys, "curve", path, "--score", "acc", "--group",
                            "model", "--ns", "1", "--failed", "drop")
    assert status == 0, err
    assert [line.split()[0] for line in out.splitlines()[1:]] == ["None", "NA", "a"]


def test_tasks_named_like_missing_values_are_those_tasks(tmp_path, capsys):
    rng = np.random.default_rng(4)
    frame = pd.DataFrame({"task": np.repeat(["NA", "None", "t"], 24),
                          "model": np.tile(np.repeat(["a", "b"], 12), 3),
                          "acc": rng.uniform(0.5, 0.9, 72).round(4)})
    path = tmp_path / "runs.csv"
    frame.to_csv(path, index=False)
    status, out, err = main(capsys, "curve", path, "--score", "acc", "--group",
                            "model", "--task", "task", "--ns", "1")
    assert status == 0, err
    assert [line.split()[0] for line in out.splitlines()[1:]] == [
        "NA", "NA", "None", "None", "t", "t"]


def jsonl(tmp_path, names):
    import json

    path = tmp_path / "runs.jsonl"
    path.write_text("".join(json.dumps({"model": m, "acc": 0.5 + 0.01 * i}) + "\n"
                            for m in names for i in range(5)))
    return path


def test_a_number_and_the_text_of_it_are_not_pooled(tmp_path, capsys):
    path = jsonl(tmp_path, [1, "1"])
    status, out, err = main(capsys, "curve", path, "--score", "acc", "--group",
                            "model", "--ns", "1")
    assert status == 2 and out == ""
    assert err == ("evp curve: group column 'model' holds 1 (int) and '1' (str), "
                   "one name once read as text: write every name of the column as "
                   "text, or rename one\n")


@pytest.mark.parametrize("pair", [("a b", "a  b"), ("a", "a "), ("a\tb", "a b"),
                                  ("x", " x")])
def test_names_that_differ_only_in_spaces_are_refused(tmp_path, capsys, pair):
    path = jsonl(tmp_path, pair)
    status, out, err = main(capsys, "curve", path, "--score", "acc", "--group",
                            "model", "--ns", "1")
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and "differ only in their spaces" in err, err
    assert f"{pair[0]!r} and {pair[1]!r}".replace("\t", "\\t") in err, err
