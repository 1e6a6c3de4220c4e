"""LaTeX out: booktabs tables from evp curve, compare and plan (--out FILE.tex), the
report as a section to \\input (evp report --out appendix.tex), every user string
escaped, and the lot compiled by pdflatex and read back from the PDF."""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from evp.latex import PREAMBLE, escape, latex_table

# Model names with LaTeX's special characters: each would break a compile, or
# typeset as something else, unless escaped.
NASTY = ("lr_0.1 & warmup", "50%_drop#2", "{braces}~^$\\")
TOOLS = ("pdflatex", "pdftotext", "pdftoppm")
needs_latex = pytest.mark.skipif(
    any(shutil.which(tool) is None for tool in TOOLS),
    reason="needs pdflatex, pdftotext and pdftoppm (Debian's texlive-latex-"
           "recommended and poppler-utils; make test installs them as root)")


def compile_latex(folder: Path, *inputs: str) -> Path:
    """Compile a document that \\inputs `inputs` with evp's PREAMBLE; the PDF."""
    body = "\n".join(f"\\input{{{name}}}" for name in inputs)
    (folder / "main.tex").write_text(
        f"\\documentclass{{article}}\n{PREAMBLE}\\begin{{document}}\n{body}\n"
        "\\end{document}\n")
    done = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error",
                           "main.tex"], cwd=folder, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stdout[-3000:]
    assert "Overfull \\hbox" not in done.stdout, "a table runs off the page"
    return folder / "main.pdf"


def pdf_text(pdf: Path) -> str:
    text = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], check=True,
                          capture_output=True, text=True).stdout
    return re.sub(r"\s+", " ", text)


def test_escape_writes_every_special_character_as_text():
    assert escape("a_b & c% #d $e") == r"a\_\allowbreak{}b \& c\% \#d \$e"
    # The backslash is escaped once, and the braces its command writes are not.
    assert escape("\\{}") == r"\textbackslash{}\{\}"
    assert escape("~^") == r"\textasciitilde{}\textasciicircum{}"
    assert escape("≈ ≥ ± − ∈") == r"$\approx$ $\geq$ $\pm$ $-$ $\in$"
    assert escape("Łódź") == "Łódź"  # Latin letters pdflatex sets from UTF-8
    # Braced: a row or an \item starting with "[" would read it as an argument.
    assert escape("模型") == ("{[}cjk unified ideograph-6a21{]}"
                              "{[}cjk unified ideograph-578b{]}")


def test_latex_table_is_booktabs_with_numbers_to_the_right():
    frame = pd.DataFrame({"model": ["a_1", "b"], "n": [1, 10],
                          "upper": [0.812345, np.inf]})
    text = latex_table(frame, caption="80% LD bands; 30 rounds", label="tab:x")
    lines = text.splitlines()
    assert "\\begin{tabular}{lrr}" in lines
    assert lines.index("\\toprule") < lines.index("\\midrule") < lines.index(
        "\\bottomrule")
    assert "a\\_\\allowbreak{}1 & 1 & 0.8123 \\\\" in lines
    assert "b & 10 & $\\infty$ \\\\" in lines  # an open band edge
    assert "\\caption{80\\% LD bands; 30 rounds}" in lines
    assert "\\label{tab:x}" in lines
    with pytest.raises(ValueError, match="label must be"):
        latex_table(frame, caption="c", label="tab x")


def test_latex_table_fits_a_page():
    wide = pd.DataFrame({f"a long column name number {i}": [0.123456789]
                         for i in range(12)})
    text = latex_table(wide, caption="wide")
    # Across both columns of a two-column page, in parts one under the other
    # (each led by the first column) at the text's size, never scaled down.
    assert text.startswith("\\begin{table*}") and text.endswith("\\end{table*}\n")
    assert "resizebox" not in text
    parts = text.count("\\begin{tabular}{")
    assert parts > 1 and text.count("\\par\\medskip") == parts - 1
    narrow = latex_table(pd.DataFrame({"n": [1, 2]}), caption="narrow")
    assert narrow.startswith("\\begin{table}") and "resizebox" not in narrow
    # Long names go on several lines of their own cell, a column of numbers'
    # as narrow as its numbers (about 8 characters here).
    assert ("\\begin{tabular}[b]{@{}r@{}}a long \\\\ column \\\\ name \\\\ "
            "number 0") in text
    prose = pd.DataFrame({"item": ["strategy"], "m": ["word " * 30]})
    assert "{lp{0.45\\linewidth}}" in latex_table(prose, caption="prose")


@pytest.fixture(scope="module")
def results_file(tmp_path_factory):
    rng = np.random.default_rng(3)
    rows = [{"model": name, "val_acc": rng.normal(mu, 0.02),
             "gpu_hours": rng.uniform(1, 2), "lr": 10 ** rng.uniform(-5, -2)}
            for name, mu in zip(NASTY, (0.80, 0.78, 0.79), strict=True)
            for _ in range(25)]
    path = tmp_path_factory.mktemp("latex") / "results.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def evp(*args, cwd):
    done = subprocess.run([sys.executable, "-m", "evp.cli", *map(str, args)],
                          cwd=cwd, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done


@needs_latex
@pytest.mark.needs("matplotlib", "seaborn")
def test_tables_and_appendix_compile_and_read_back(results_file):
    folder = results_file.parent
    common = ["--score", "val_acc", "--group", "model"]
    evp("curve", results_file, *common, "--out", "curve.tex", cwd=folder)
    evp("compare", results_file, *common, NASTY[0], NASTY[1], "--out", "compare.tex",
        cwd=folder)
    evp("plan", results_file, *common, NASTY[0], NASTY[1], "--budget", 5, "--cost",
        "gpu_hours", "--replications", 200, "--out", "plan.tex", cwd=folder)
    evp("report", results_file, *common, "--out", "appendix.tex", cwd=folder)
    # The caption says the method, the confidence and the rounds.
    assert re.search(r"\\caption\{.*80\\% LD highest-density top bands .*"
                     r"\(every budget\); rounds: 25 of "
                     r"lr\\_\\allowbreak\{\}0\.1 \\& warmup",
                     (folder / "compare.tex").read_text())
    figures = sorted(p.name for p in (folder / "appendix-figures").iterdir()
                     if not p.name.startswith("."))  # evp's record of its files
    # Three models: their curves and bands, the best set, the verdict matrix.
    assert figures == ["bands.pdf", "best-set.pdf", "curves.pdf", "verdicts.pdf"]

    pdf = compile_latex(folder, "curve.tex", "compare.tex", "plan.tex",
                        "appendix.tex")
    text = pdf_text(pdf)
    for name in NASTY:  # typeset as written
        assert name in text, name
    assert "Reporting checklist" in text
    # The title names the study (the file) and the models, not the score.
    assert ("Hyperparameter search on results: lr_0.1 & warmup, 50%_drop#2 and "
            "{braces}~^$\\") in text
    appendix = (folder / "appendix.tex").read_text()
    assert "\\section[{Hyperparameter search on results: lr\\_0.1" in appendix
    assert "pass " not in appendix  # no advice on evp's options in a paper
    assert "chance of a strong verdict at n = 5" in text
    # The report's two figures are in it, as vector drawings with their text.
    assert "Figure 1:" in text and "Figure 2:" in text
    assert text.count("rounds of random search (n)") >= 2
    subprocess.run(["pdftoppm", "-r", "20", "-png", str(pdf), str(folder / "page")],
                   check=True)
    assert len(list(folder.glob("page-*.png"))) >= 3


def test_paragraph_columns_are_ragged_right_and_numbers_alike():
    frame = pd.DataFrame({"item": ["a", "b"], "m": ["word " * 20, "x"],
                          "score": [0.8564, 0.883]})
    text = latex_table(frame, caption="c")
    # Ragged-right paragraphs: \raggedright, rows ended by \tabularnewline.
    assert "\\raggedright word" in text
    assert text.count("\\tabularnewline") == 3
    # One precision per column: 0.8830, not 0.883 under 0.8564.
    assert "& 0.8564 \\tabularnewline" in text and "& 0.8830 \\tabularnewline" in text
    counts = latex_table(pd.DataFrame({"n": [1.0, 10.0]}), caption="c")
    assert "1 \\\\" in counts and "10 \\\\" in counts  # whole numbers whole


def test_evp_latex_preamble_as_the_readme_writes_it():
    # evp.latex on first use: import evp loads no presentation module.
    code = ("import sys, evp; assert 'evp.latex' not in sys.modules; "
            "print(evp.latex.PREAMBLE); assert 'evp.latex' in sys.modules")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout == PREAMBLE + "\n"
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        import evp

        evp.nothing  # noqa: B018


@needs_latex
@pytest.mark.needs("matplotlib", "seaborn")
@pytest.mark.parametrize("layout", ["", "[twocolumn]"])
def test_a_report_across_tasks_fits_one_and_two_columns(tmp_path, layout):
    """Six models on five tasks (tests/fixtures/across-tasks), compiled as a
    paper would: the preamble its first line names, in one column and in two.
    No line runs more than a few points into the margin (the checklist and the
    tables were scaled down or ran over), and the text reads as a paper's."""
    benchmark = Path(__file__).parent / "fixtures" / "across-tasks" / "benchmark.csv"
    evp("report", benchmark, "--score", "value", "--group", "model", "--task",
        "dataset", "--minimize", "--failed", "drop", "--score-name", "log loss",
        "--out", "appendix.tex", cwd=tmp_path)
    appendix = (tmp_path / "appendix.tex").read_text()
    first = appendix.splitlines()[0]
    assert first.startswith("% needs in the preamble: ")
    preamble = first.removeprefix("% needs in the preamble: ")
    (tmp_path / "paper.tex").write_text(
        f"\\documentclass{layout}{{article}}\n{preamble}\n\\begin{{document}}\n"
        "\\input{appendix}\n\\end{document}\n")
    done = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error",
                           "paper.tex"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:]
    log = (tmp_path / "paper.log").read_text(errors="replace")
    over = [float(x) for x in re.findall(r"Overfull \\hbox \(([\d.]+)pt too wide",
                                         log)]
    assert all(x < 3 for x in over), over
    text = pdf_text(tmp_path / "paper.pdf")
    assert "Data. 859 rounds of 6 models; score: log loss" in text
    assert "Open: the band is unbounded there" in text
    assert "Median tuning curves on each task" in text


def test_a_column_shows_no_more_decimals_than_its_numbers_have():
    from evp.latex import decimals

    assert decimals([1.6, 2.4, 3.8]) == 1  # mean ranks over five tasks
    assert decimals([0.069, 0.071, 0.1]) == 3  # losses recorded to 3 places
    assert decimals([0.8564, 0.883]) == 4  # alike: 0.8830, not 0.883
    assert decimals([2.0, 3.0]) == 0


def test_a_long_number_header_is_aligned_as_its_numbers():
    from evp.latex import latex_table

    text = latex_table(pd.DataFrame({"model name of the run": ["a", "b"],
                                     "median best log loss": [0.1, 0.2]}),
                       caption="x")
    assert "\\begin{tabular}[b]{@{}r@{}}median" in text
    assert "\\begin{tabular}[b]{@{}l@{}}model name" in text
