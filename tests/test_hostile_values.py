"""Names and numbers at their extremes, as a hostile user writes them: shown as
written in every figure (no mathtext) and every LaTeX table (no row that a
command before it reads as its argument), never split into look-alike models,
never a number beyond float range taken for a failed round, and nothing that
one model's failed rounds or another's identical scores turn into a wrong
answer or a crash."""

import io
import re
import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest

from evp import cli


def main(capsys, *args):
    """cli.main in process: (exit status, stdout, stderr)."""
    status = cli.main([str(a) for a in args])
    out, err = capsys.readouterr()
    return status, out, err


def write(tmp_path, names, rounds=12, seed=5, name="runs.csv"):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"model": np.repeat(list(names), rounds),
                          "acc": rng.uniform(0.5, 0.9, rounds * len(names)).round(4)})
    path = tmp_path / name
    frame.to_csv(path, index=False)
    return path


# ------------------------------------------------------------ names in figures

#: Names that mathtext would typeset ("$10 a$" as an italic "10a") or fail on
#: ("$\x$": an unknown symbol), and one with an escaped dollar already.
DOLLARS = ("$10 a$", "$\\x$", "a\\$b$")


def shown(text) -> tuple[str, bool]:
    """What matplotlib draws for `text`: (the string, whether as mathtext)."""
    string, math = text._preprocess_math(text.get_text())
    return string, bool(math)


def drawn_texts(figure):
    """Every text the figure shows once drawn, tick labels included."""
    from matplotlib.text import Text

    figure.canvas.draw()  # a name parsed as mathtext would fail here
    return [t for t in figure.findobj(Text) if t.get_visible() and t.get_text()]


@pytest.mark.needs("matplotlib", "seaborn")
def test_every_plot_function_shows_names_as_written():
    """One rule for every drawing path: each public plot function is wrapped."""
    import evp.plot

    functions = [name for name in dir(evp.plot) if name.startswith("plot_")
                 and callable(getattr(evp.plot, name))]
    assert len(functions) >= 12
    unwrapped = [name for name in functions
                 if not getattr(getattr(evp.plot, name), "_evp_as_written", False)]
    assert unwrapped == []


@pytest.mark.needs("matplotlib", "seaborn")
def test_dollar_names_are_drawn_as_written_in_curves_and_matrices():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from evp import analyses
    from evp.results import Results

    rng = np.random.default_rng(0)
    results = Results.from_scores({name: rng.uniform(0.5, 0.9, 15)
                                   for name in DOLLARS})
    figures = [np.ravel(analyses.curves(results).plot())[0].figure]  # panels
    found = analyses.many_models(results, None, 0.8)
    figures.append(found.plot().figure)  # tick labels
    figures.append(found.plot_best().figure)
    for figure in figures:
        texts = drawn_texts(figure)
        strings = [shown(t)[0] for t in texts]
        assert not any(shown(t)[1] for t in texts), strings
        for name in DOLLARS:
            assert name in strings, (name, strings)
        plt.close(figure)


@pytest.mark.needs("matplotlib", "seaborn")
def test_a_users_own_mathtext_on_their_axes_is_left_alone():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from evp import analyses
    from evp.results import Results

    rng = np.random.default_rng(0)
    results = Results.from_scores({name: rng.uniform(0.5, 0.9, 15)
                                   for name in ("$\\x$", "b", "c")})
    figure, (mine, theirs) = plt.subplots(1, 2)
    mine.set_title(r"$\alpha$ sweep")
    analyses.many_models(results, None, 0.8).plot(ax=theirs)
    texts = drawn_texts(figure)
    assert shown(mine.title) == (r"$\alpha$ sweep", True)  # still mathtext
    assert "$\\x$" in [shown(t)[0] for t in texts if t is not mine.title]
    plt.close(figure)


@pytest.mark.needs("matplotlib", "seaborn")
def test_a_notebooks_figure_shows_names_as_written(tmp_path):
    """What the notebooks draw themselves (a legend of model names) is saved
    through evp.notebook.save, which shows every text as written."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from evp import notebook

    figure, ax = plt.subplots()
    for name in DOLLARS:
        ax.plot([1, 2], [1, 2], label=name)
    ax.legend()
    ax.set_title(DOLLARS[1])
    notebook.save(figure, tmp_path / "drawn")
    assert (tmp_path / "drawn.png").exists()
    assert not any(shown(t)[1] for t in drawn_texts(figure))
    plt.close(figure)


@pytest.mark.needs("matplotlib", "seaborn")
def test_report_and_figures_of_a_dollar_name(tmp_path, capsys):
    path = write(tmp_path, ["$\\x$", "b"])
    status, _, err = main(capsys, "curve", path, "--score", "acc", "--group",
                          "model", "--out", tmp_path / "curves.png")
    assert status == 0, err
    status, _, err = main(capsys, "report", path, "--score", "acc", "--group",
                          "model", "--out", tmp_path / "report.html")
    assert status == 0, err
    assert "$\\x$" in (tmp_path / "report.html").read_text()


# --------------------------------------------------------------- names in LaTeX

def test_escape_guards_what_a_command_before_it_would_read():
    from evp.latex import escape

    assert escape("[x]") == "{[}x{]}"
    assert escape("*x") == "{*}x"
    # Names evp spells itself: never a bare bracket.
    assert escape("模型") == ("{[}cjk unified ideograph-6a21{]}"
                              "{[}cjk unified ideograph-578b{]}")
    assert escape("βVAE") == "$\\beta$VAE"
    assert escape("ΛΑ") == "$\\Lambda$A"
    # T1's ligatures kept apart: a name keeps its characters.
    assert escape("a--b") == "a-{}-b"
    assert escape("x''") == "x'{}'"
    assert escape("`q`") == "\\textasciigrave{}q\\textasciigrave{}"
    # Letters below U+0180 that pdflatex does not set from UTF-8.
    assert "Ħ" not in escape("Ħ") and "ſ" not in escape("ſ")
    # evp's own dashes still typeset as dashes.
    assert escape("n = 2–12") == "n = 2--12"


HOSTILE_LATEX = ("[cjk]a", "*star", "模型", "βVAE", "🙂emoji", "a--b", "x,,y",
                 "Ħost")


def test_no_table_row_or_item_starts_with_an_argument():
    from evp.latex import latex_table

    frame = pd.DataFrame({"model": HOSTILE_LATEX, "n": range(len(HOSTILE_LATEX))})
    text = latex_table(frame, caption="c")
    rows = [line for line in text.splitlines() if line.endswith("\\\\")]
    assert len(rows) == len(HOSTILE_LATEX) + 1
    assert not [row for row in rows if row.startswith(("[", "*"))]


@pytest.mark.skipif(any(shutil.which(tool) is None for tool in
                        ("pdflatex", "pdftotext")),
                    reason="needs pdflatex and pdftotext (make test installs them)")
def test_a_table_and_a_list_of_hostile_names_compile_as_written(tmp_path):
    from evp.latex import PREAMBLE, escape, latex_table

    frame = pd.DataFrame({"model": HOSTILE_LATEX, "n": range(len(HOSTILE_LATEX))})
    (tmp_path / "table.tex").write_text(latex_table(frame, caption="names [x]"))
    items = "\n".join(f"\\item {escape(name)}" for name in HOSTILE_LATEX)
    (tmp_path / "main.tex").write_text(
        f"\\documentclass{{article}}\n{PREAMBLE}\\begin{{document}}\n"
        f"\\input{{table}}\n\\begin{{itemize}}\n{items}\n\\end{{itemize}}\n"
        "\\end{document}\n")
    done = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error",
                           "main.tex"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-2000:]
    text = subprocess.run(["pdftotext", str(tmp_path / "main.pdf"), "-"],
                          capture_output=True, text=True, check=True).stdout
    for name in ("[cjk]a", "*star", "a--b", "x,,y", "[slightly smiling face]emoji"):
        assert text.count(name) == 2, (name, text)  # in the table and the list


# ----------------------------------------------------------- look-alike names

@pytest.mark.parametrize("hidden", ["\u200b", "\u00ad", "\ufeff", "\u2060"])
def test_names_differing_only_in_invisible_characters_are_refused(tmp_path, capsys,
                                                                   hidden):
    path = write(tmp_path, ["model", f"mo{hidden}del"])
    status, out, err = main(capsys, "curve", path, "--score", "acc", "--group",
                            "model")
    assert status == 2 and out == "", (out, err)
    assert err.count("\n") == 1, err
    # Both spellings, told apart, and the character that makes them two.
    assert "'model'" in err and repr(f"mo{hidden}del") in err, err
    assert repr(f"mo{hidden}del") != "'model'"  # the escape shows it
    assert f"U+{ord(hidden):04X}" in err and "invisible" in err, err


def test_decomposed_and_composed_accents_are_one_model(tmp_path, capsys):
    import unicodedata

    composed, decomposed = "caf\u00e9", "cafe\u0301"
    assert unicodedata.normalize("NFC", decomposed) == composed
    path = write(tmp_path, [composed, decomposed, "tea"])
    status, out, err = main(capsys, "curve", path, "--score", "acc", "--group",
                            "model", "--ns", "1", "--method", "none")
    assert status == 0, err
    rows = [line.split()[0] for line in out.splitlines()[1:]
            if line.strip() and not line.startswith("note")]
    assert rows == [composed, "tea"], out  # one café, of 24 rounds
    assert "decomposed accents" in out + err
    # Asked for as the terminal typed it, decomposed: the same model.
    from evp import read_results

    results = read_results(path, score="acc", group="model")
    assert results.select([decomposed, "tea"]).models == [composed, "tea"]
    assert results.scores[composed].size == 24
    for command in (["compare", path, "--score", "acc", "--group", "model",
                     decomposed, "tea"],
                    ["plan", path, "--score", "acc", "--group", "model", decomposed,
                     "tea", "--budget", "2", "--replications", "50"]):
        status, _, err = main(capsys, *command)
        assert status == 0, err


def test_results_built_by_hand_refuse_names_that_print_alike():
    from evp.results import Results

    with pytest.raises(ValueError, match=r"'model' and 'mo\\u200bdel' differ only "
                                         "in invisible characters"):
        _ = Results.from_scores({"model": [0.1, 0.2], "mo\u200bdel": [0.3, 0.4]}).models
    with pytest.raises(ValueError, match="Unicode normalisation"):
        _ = Results.from_scores({"caf\u00e9": [0.1, 0.2],
                                 "cafe\u0301": [0.3, 0.4]}).models


# ------------------------------------------------- numbers beyond float range

BIG = "1" + "0" * 400  # 10**400: no float holds it


@pytest.mark.parametrize("written", ["1e400", "-1e400", BIG])
@pytest.mark.parametrize("failed", ["error", "worst"])
def test_a_score_beyond_float_range_is_refused_naming_its_row(tmp_path, capsys,
                                                              written, failed):
    path = tmp_path / "runs.csv"
    rows = ["model,acc", "a,0.5", f"a,{written}", "a,0.7", "b,0.6", "b,0.8"]
    path.write_text("\n".join(rows) + "\n")
    status, out, err = main(capsys, "curve", path, "--score", "acc", "--group",
                            "model", "--failed", failed)
    assert status == 2 and out == "", (out, err)
    assert err.count("\n") == 1, err
    assert "beyond the range of a float" in err and "rows 2 " in err, err
    assert "failed round(s)" not in err


def test_inf_itself_is_still_a_failed_round(tmp_path, capsys):
    path = tmp_path / "runs.csv"
    path.write_text("model,acc\na,0.5\na,inf\na,0.7\nb,0.6\nb,0.8\n")
    status, _, err = main(capsys, "curve", path, "--score", "acc", "--group",
                          "model")
    assert status == 2 and "1 failed round(s)" in err, err


@pytest.mark.parametrize("value", ["1e400", BIG])
def test_json_lines_and_frames_beyond_float_range(tmp_path, value):
    from evp import read_results

    path = tmp_path / "runs.jsonl"
    path.write_text(f'{{"model": "a", "acc": {value}}}\n'
                    '{"model": "a", "acc": 0.5}\n{"model": "b", "acc": 0.6}\n'
                    '{"model": "b", "acc": 0.7}\n')
    with pytest.raises(ValueError, match=r"beyond the range of a float.*"
                                         "or write inf"):
        read_results(path, score="acc", group="model")
    frame = pd.DataFrame({"model": ["a", "a", "b", "b"],
                          "acc": [10**400, 0.5, 0.6, 0.7]}, dtype=object)
    with pytest.raises(ValueError, match=r"holds 100000000000… .401 characters. "
                                         r"in rows 1 "):
        read_results(frame, score="acc", group="model")


def test_results_by_hand_refuse_a_number_beyond_float_range():
    from evp.results import Results

    frame = pd.DataFrame({"m": ["a", "a", "b"], "s": [10**400, 0.5, 0.6]},
                         dtype=object)
    with pytest.raises(ValueError, match=r"beyond the range of a float.*rows 1 "):
        _ = Results(frame, score="s", group="m").scores


def test_std_and_printing_of_scores_near_the_float_limit_stay_finite(tmp_path,
                                                                    capsys):
    from evp.estimators import expected_max_std

    # The spread of the best of n draws is at most the largest magnitude.
    scores = np.array([1e308, -1e308, 0.5, 0.6])
    std = expected_max_std(scores, [1, 2, 5])
    assert np.isfinite(std).all() and (std <= 1e308).all()
    # Scaled by a power of two: the same spread as the scaled scores', scaled.
    np.testing.assert_allclose(std, expected_max_std(scores / 2**1000, [1, 2, 5])
                               * 2**1000, rtol=1e-12)
    # Ordinary scores are not scaled: bit for bit as before.
    plain = np.array([0.5, 0.61, 0.7, 0.9])
    w = np.array([0.25, 0.25, 0.25, 0.25])
    assert expected_max_std(plain, 1) == np.sqrt(((plain - plain @ w) ** 2) @ w)

    path = tmp_path / "runs.csv"
    path.write_text("model,acc\na,1e308\na,-1e308\na,0.5\na,0.6\nb,0.6\nb,0.8\n"
                    "b,0.7\nb,0.65\n")
    status, out, err = main(capsys, "curve", path, "--score", "acc", "--group",
                            "model", "--ns", "1,2")
    assert status == 0, err
    assert "overflow" not in err
    header, *rows = [line.split() for line in out.splitlines()
                     if line.strip() and not line.startswith("note")]
    stds = [float(row[header.index("std")]) for row in rows]
    assert len(stds) == 4 and np.isfinite(stds).all(), out
    assert max(len(word) for word in out.split()) < 20, out  # no 309 digits
    from evp._numbers import fixed, number

    assert number(1e308) == number(1e308, 4) == fixed(1e308) == "1e+308"
    assert number(10210.0) == "10210" and fixed(0.5) == "0.5000"


# ------------------------------------ one model's failed rounds, no floor given

def test_failed_rounds_without_bounds_leave_the_other_models_alone(tmp_path,
                                                                   capsys):
    path = tmp_path / "runs.csv"
    rows = ["model,acc", "a,", "a,0.61", "a,0.7", "a,0.72", "b,0.6", "b,0.8",
            "b,0.65", "b,0.7"]
    path.write_text("\n".join(rows) + "\n")
    common = ["curve", path, "--score", "acc", "--group", "model", "--ns", "1,4",
              "--failed", "worst", "--method", "none"]
    status, out, err = main(capsys, *common)
    assert status == 0, err
    table = pd.read_fwf(io.StringIO("\n".join(
        line for line in out.splitlines() if not line.startswith("note"))))
    a, b = table[table["model"] == "a"], table[table["model"] == "b"]
    # a's expected best is undefined (a failed round, no floor); b's is not.
    assert a["curve"].isna().all() and a["std"].isna().all(), out
    plain = np.array([0.6, 0.8, 0.65, 0.7])
    from evp.estimators import expected_max

    np.testing.assert_allclose(b["curve"], expected_max(plain, [1, 4]), atol=1e-4)
    assert b["std"].notna().all() and (b["std"] > 0).all(), out
    assert "(rows 1; model a)" in err, err
    # With a floor, a's is defined too, and b's is unchanged.
    status, floored, err = main(capsys, *common, "--bounds", "0,1")
    assert status == 0, err
    table = pd.read_fwf(io.StringIO("\n".join(
        line for line in floored.splitlines() if not line.startswith("note"))))
    assert table["curve"].notna().all(), floored
    np.testing.assert_allclose(table[table["model"] == "b"]["curve"], b["curve"])


# --------------------------------------------- two models with the same scores

@pytest.mark.needs("matplotlib", "seaborn")
def test_report_on_two_models_with_the_same_scores(tmp_path, capsys):
    path = tmp_path / "runs.csv"
    scores = [0.5, 0.6, 0.7, 0.8, 0.9]
    pd.DataFrame({"model": ["a"] * 5 + ["b"] * 5,
                  "acc": scores + scores[::-1]}).to_csv(path, index=False)
    status, out, err = main(capsys, "compare", path, "--score", "acc", "--group",
                            "model", "a", "b")
    assert status == 0 and "none" in out, err  # compare answers: no verdict
    status, _, err = main(capsys, "report", path, "--score", "acc", "--group",
                          "model", "--out", tmp_path / "report.md")
    assert status == 0, err
    text = (tmp_path / "report.md").read_text()
    assert "a vs b: the two scored alike, the same 5 scores" in text
    # evp plan refuses the pair, in the same words.
    status, _, err = main(capsys, "plan", path, "--score", "acc", "--group",
                          "model", "a", "b", "--budget", "2")
    assert status == 2 and err.count("\n") == 1, err
    assert "a and b hold the same scores: more rounds predicted from them favour "\
        "neither" in err, err


# ------------------------------------------------- compare --all of many models

def test_every_pairs_verdicts_take_memory_linear_in_the_models(monkeypatch):
    """The sentences and the summary of 300 models' 89,700 pairs are read a
    piece at a time; the table of every pair is built only when asked for."""
    import tracemalloc

    from evp import analyses, ranking
    from evp.results import Results

    rng = np.random.default_rng(0)
    results = Results.from_scores({f"m{i}": rng.normal(rng.uniform(0, 1), 0.1, 12)
                                   for i in range(300)})
    monkeypatch.setattr(ranking, "PIECE", 20_000, raising=False)
    tracemalloc.start()
    try:
        found = analyses.many_models(results, None, 0.8)
        summary = found.summary()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # 89,700 pairs at 6 budgets: their table alone took about 70 MB.
    assert peak < 25e6, f"{peak / 1e6:.0f} MB"
    assert "table" not in found.__dict__ and len(summary) == 300
    assert found.pairs.rows == 300 * 299 * 6
    # Read from the same verdicts as compare_all's table, which is built on use.
    table = found.table
    strong = table[table["evidence"] == "strong"]
    beats = strong.drop_duplicates(["a", "b"])["a"].value_counts()
    first = summary.iloc[0]
    assert first["strongly beats"] == beats.get(first["model"], 0)


def test_rows_beyond_the_bound_are_refused_in_one_line(tmp_path, capsys,
                                                       monkeypatch):
    from evp import analyses

    path = write(tmp_path, [f"m{i}" for i in range(6)], rounds=8)
    monkeypatch.setattr(analyses, "MAX_PAIR_ROWS", 50, raising=False)
    for extra in (["--rows"], ["--out", tmp_path / "pairs.csv"]):
        status, out, err = main(capsys, "compare", path, "--score", "acc",
                                "--group", "model", "--all", *extra)
        assert status == 2 and out == "", (out, err)
        assert err.count("\n") == 1, err
        assert "rows (6 models," in err and extra[0] in err, err
        assert "--baseline" in err and "--ns" in err, err
    assert not (tmp_path / "pairs.csv").exists()
    # The summary needs no such table, and says how many rows there are.
    status, out, err = main(capsys, "compare", path, "--score", "acc", "--group",
                            "model", "--all")
    assert status == 0 and "strongly beats" in out, err


def test_bounds_beyond_float_range_are_refused(tmp_path, capsys):
    from evp._validation import ParameterError, as_bounds
    from evp.results import Results

    path = write(tmp_path, ["a", "b"])
    with pytest.raises(SystemExit) as stop:  # argparse's refusal of the option
        main(capsys, "curve", path, "--score", "acc", "--group", "model",
             "--bounds", "0,1e400")
    err = capsys.readouterr().err
    assert stop.value.code == 2 and "1e400 is beyond the range of a float" in err
    with pytest.raises(ParameterError, match="beyond the range of a float"):
        as_bounds((0, 10**400), 0.1, 0.9)
    results = Results.from_scores({"a": [0.1, 0.2]})
    with pytest.raises(ValueError, match="beyond the range of a float"):
        results.bounds(0, 10**400)


def test_a_latex_report_named_with_percent_or_hash_is_refused(tmp_path):
    """Its figures are \\included by their folder's name, which LaTeX would cut
    at a % (a comment) or refuse at a # (a parameter)."""
    from evp.report import Report

    report = Report("t", pd.DataFrame({"item": ["x"], "m": ["y"]}))
    for name in ("50%.tex", "run#1.tex"):
        with pytest.raises(ValueError, match="name the file without %, # or"):
            report.save(tmp_path / name)
        assert list(tmp_path.iterdir()) == []
    assert report.save(tmp_path / "run [1] ~x.tex").exists()


@pytest.mark.needs("matplotlib", "seaborn")
def test_a_notebooks_figures_are_laid_out_with_names_as_written(tmp_path):
    """evp run's notebooks lay a figure out (tight_layout) before they save it:
    from notebook.start on, every figure shows its names as written."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from evp import notebook

    with matplotlib.rc_context():  # start's theme and hook, for this test only
        notebook.start("hostile", tmp_path)
        figure, ax = plt.subplots()
        ax.plot([1, 2], [1, 2], label="$\\x$")
        ax.set_title("$10 a$: a band")
        ax.legend()
        figure.tight_layout()  # measured as mathtext, "$\x$" failed here
        assert shown(ax.title) == ("$10 a$: a band", False)
        plt.close(figure)
    assert notebook._HOOK not in matplotlib.rcParams["figure.hooks"]


def test_evps_notebooks_draw_no_mathtext_of_their_own():
    """The notebooks' figures show every text as written: a dollar sign in
    their code would be a text that meant mathtext."""
    import json
    from pathlib import Path

    folder = Path(__file__).parent.parent / "notebooks"
    found = [(path.name, line.strip()) for path in sorted(folder.rglob("*.ipynb"))
             for cell in json.loads(path.read_text())["cells"]
             if cell["cell_type"] == "code"
             for line in "".join(cell["source"]).splitlines() if "$" in line]
    assert found == []


@pytest.mark.parametrize("tool", ["syne tune", "ray tune"])
def test_a_tools_record_beyond_float_range_is_refused(tmp_path, tool):
    """A tuner's record read by its reader: a metric of 1e400 is refused, not
    read as infinite and counted as a failed trial."""
    import shutil
    from pathlib import Path

    from evp import read_results

    fixtures = Path(__file__).parent / "fixtures"
    if tool == "syne tune":
        folder = tmp_path / "random-lr"
        shutil.copytree(fixtures / "syne_tune" / "random-lr", folder)
        table = folder / "results.csv.zip"
        frame = pd.read_csv(table)
        text = frame.astype(str)
        text.loc[0, "val_loss"] = "1e400"
        text.to_csv(table, index=False)
        source, options = folder, {"failed": "worst"}
    else:
        folder = tmp_path / "experiment" / "trial_0001"
        folder.mkdir(parents=True)
        (folder / "params.json").write_text('{"lr": 0.1}')
        (folder / "result.json").write_text('{"acc": 1e400, "training_iteration": 1}'
                                            '\n')
        source, options = tmp_path / "experiment", {"metric": "acc", "mode": "max"}
    with pytest.raises(ValueError, match="beyond the range of a float"):
        read_results(source, **options)


def test_a_dollar_name_is_no_math_in_markdown_or_a_notebooks_html():
    """GitHub, GitLab and Jupyter typeset "$...$" in Markdown as math, and a
    notebook's MathJax typesets it in an output's HTML."""
    from evp._display import MATH_IGNORED, page
    from evp.report import Report, _markdown_text

    assert _markdown_text("$10 a$") == "\\$10 a\\$"
    report = Report("$10 a$ and b", pd.DataFrame({"item": ["x"], "$10 a$": ["y"]}))
    markdown = report.to_markdown()
    assert re.search(r"(?<!\\)\$", markdown) is None, markdown  # every $ escaped
    assert "\\$10 a\\$" in markdown
    assert "tex2jax_ignore" in MATH_IGNORED
    assert f"class='evp-report {MATH_IGNORED}'" in report._repr_html_()
    assert f"class='evp-result {MATH_IGNORED}'" in page("$10 a$", ["$x$"])
