"""Build the companion website: ``python docs/build.py [--out site]`` (``make site``).

Stages this folder with what the site shows into a temporary folder, then runs
Sphinx on it with warnings as errors. Nothing is executed: every notebook is shown
as committed, with its outputs.

- ``notebooks/`` — each analysis notebook, with a *Run it on your data* box read
  from its ``parameters`` cell (:func:`evp.runner.run_usage`) and a mark on the
  cell that checks its claims;
- ``classroom/`` — the classroom notebooks (the teacher's, with the exercises'
  solutions), their student versions (``*-student.ipynb``: exercises without
  solutions, outputs cleared, no cells for one's own results or claims), and the
  nbgrader assignments as students get them (solutions, hidden tests and outputs
  cleared, as ``nbgrader generate_assignment`` clears them);
- ``_claims.html`` — ``figures/claims.csv`` as a sortable table, with counts by kind
  and status, each row linking to the cell that checks it;
- ``api.md`` — every public module of evp, by autodoc;
- ``cli.md`` — ``evp --help`` and each command's ``--help``;
- ``_static/mathjax`` — MathJax, from the jupyter-server-mathjax package, so that
  the math renders offline.
"""

from __future__ import annotations

import argparse
import html
import os
import pkgutil
import shutil
import sys
import tempfile
import time
from pathlib import Path

import nbformat

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
NOTEBOOKS = ROOT / "notebooks"
CLASSROOM = NOTEBOOKS / "classroom"
ASSIGNMENTS = CLASSROOM / "assignments" / "source"
FIGURES = ROOT / "figures"
#: The id of the mark put before the cell that checks a notebook's claims.
CLAIMS_CELL = "claims-check"


# ------------------------------------------------------------------ notebooks


def _markdown(source: str) -> nbformat.NotebookNode:
    return nbformat.v4.new_markdown_cell(source)


def _cell(text: str) -> str:
    """Text for a Markdown table cell."""
    return " ".join(text.split()).replace("|", "\\|") or "—"


def run_box(notebook: Path, name: str) -> str | None:
    """The *Run it on your data* box of `notebook`, in MyST Markdown, from its
    parameters cell; None where it cannot run on a user's results."""
    from evp.runner import run_usage

    usage = run_usage(notebook, name)
    if usage is None:
        return None
    lines = [
        "````{admonition} Run it on your data", ":class: tip run-box", "",
        "From the repository root, with `RESULTS` your file (CSV, TSV, JSON Lines, "
        "Parquet), a tuner's or tracker's record, or a folder written by "
        "`evp search`:", "",
        "```bash", usage.command, "```", "",
        f"It writes the executed notebook, its figures and its claims table to "
        f"`evp-runs/{Path(name).name}/` (`--out DIR` to choose); on your results "
        "the claims are reported, not asserted. The options set these parameters:",
        "", "| option | parameter | meaning |", "|---|---|---|",
        *(f"| `{option}` | `{key}` | {_cell(help_)} |"
          for option, key, help_ in usage.options),
    ]
    if usage.parameters:
        lines += ["", "Every other parameter, shown with its default, is set with "
                  "`-p NAME=VALUE`:", "", "| parameter | meaning |", "|---|---|",
                  *(f"| `{option}` | {_cell(help_)} |"
                    for option, help_ in usage.parameters)]
    lines += ["", "`evp run --help` lists every option (see the "
              "[command line](../cli.md)).", "````"]
    return "\n".join(lines)


def _mark_claims_cell(nb: nbformat.NotebookNode, up: str) -> bool:
    """Put a mark before the cell that checks the claims; False if none does."""
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "code" and "report_claims(" in cell.source:
            nb.cells.insert(i, _markdown(
                f'<span id="{CLAIMS_CELL}"></span>\n\n'
                f"*The next cell checks this notebook's claims; the "
                f"[claims index]({up}index.md#claims) lists every notebook's.*"))
            return True
    return False


def stage_notebook(source: Path, target: Path, name: str, up: str) -> bool:
    """Copy a notebook for the site, with its run box after the title cell and
    the mark on its claims cell; True if it checks claims."""
    nb = nbformat.read(source, as_version=4)
    box = run_box(source, name)
    if box:
        nb.cells.insert(1, _markdown(box))
    checks = _mark_claims_cell(nb, up)
    target.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, target)
    return checks


def student_version(source: Path, target: Path) -> None:
    """An nbgrader assignment as students get it: solutions, hidden tests, mark
    schemes and outputs cleared."""
    from nbgrader.preprocessors import (
        ClearHiddenTests,
        ClearMarkScheme,
        ClearOutput,
        ClearSolutions,
    )

    nb = nbformat.read(source, as_version=4)
    resources = {"language": "python"}
    for step in (ClearSolutions, ClearHiddenTests, ClearMarkScheme, ClearOutput):
        nb, resources = step().preprocess(nb, resources)
    target.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, target)


#: Cells with this tag stay out of a classroom notebook's student version: running
#: it on one's own results, and the claims tables.
TEACHER_ONLY = "teacher-only"
#: A line of a parameters cell from which on the parameters concern one's own
#: results: the student version stops the cell there.
OWN_RESULTS = "# On your own results"


def _clear_solution(source: str, markdown: bool) -> str:
    """`source` with each ``### BEGIN SOLUTION`` ... ``### END SOLUTION`` region
    replaced by nbgrader's stub."""
    lines, inside = [], False
    for line in source.splitlines():
        if "BEGIN SOLUTION" in line:
            inside = True
            indent = line[:len(line) - len(line.lstrip())]
            lines += (["YOUR ANSWER HERE"] if markdown else
                      [f"{indent}# YOUR CODE HERE",
                       f"{indent}raise NotImplementedError()"])
        elif "END SOLUTION" in line:
            inside = False
        elif not inside:
            lines.append(line)
    return "\n".join(lines)


def classroom_student_version(source: Path, target: Path) -> None:
    """A classroom notebook as students get it: the exercises' solutions cleared,
    the cells tagged ``teacher-only`` left out (and the parameters on one's own
    results, from the line that starts with `OWN_RESULTS`), every output cleared
    (students run it), the title marked as the student version."""
    nb = nbformat.read(source, as_version=4)
    cells = []
    for cell in nb.cells:
        if TEACHER_ONLY in cell.metadata.get("tags", []):
            continue
        lines = cell.source.splitlines()
        cut = [i for i, line in enumerate(lines) if line.startswith(OWN_RESULTS)]
        lines = lines[:cut[0]] if cut else lines
        cell.source = "\n".join(line for line in lines
                                if line.strip() != "# NBVAL_CHECK_OUTPUT")
        if "BEGIN SOLUTION" in cell.source:
            cell.source = _clear_solution(cell.source, cell.cell_type == "markdown")
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
        cells.append(cell)
    title = cells[0].source.splitlines()
    if title and title[0].startswith("# "):
        title[0] += " (student version)"
        cells[0].source = "\n".join(title)
    nb.cells = cells
    target.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, target)


def student_versions(out: Path) -> list[Path]:
    """Write every student version (the classroom notebooks' and the
    assignments') into `out`; the files written."""
    written = []
    for source in sorted(CLASSROOM.glob("*.ipynb")):
        written.append(out / f"{source.stem}-student.ipynb")
        classroom_student_version(source, written[-1])
    for source in sorted(ASSIGNMENTS.glob("*/*.ipynb")):
        written.append(out / "assignments" / source.name)
        student_version(source, written[-1])
    return written


def _analyses() -> list[Path]:
    from evp.runner import notebooks

    return notebooks(NOTEBOOKS)


# ------------------------------------------------------------------ the claims


def claims_table(pages: dict[str, str]) -> str:
    """figures/claims.csv as a sortable HTML table, with counts by kind (the
    papers' claims, the project's extensions, properties of evp's own code) and
    status; each notebook in `pages` (name → page) links to its claims cell."""
    import pandas as pd

    from evp.runner import CLAIMS_INDEX, STATUSES_BY_KIND

    claims = pd.read_csv(FIGURES / CLAIMS_INDEX, keep_default_na=False)
    parts = [f'<ul class="claim-counts"><li><strong>{len(claims)}</strong> claims'
             "</li>"]
    for kind in ("paper", "extension", "code"):  # every one of KINDS
        mine = claims[claims["kind"] == kind]
        counts = ", ".join(
            f"<strong>{int((mine['status'] == s).sum())}</strong> {html.escape(s)}"
            for s in STATUSES_BY_KIND[kind])
        parts.append(f"<li><strong>{len(mine)}</strong> "
                     f"{html.escape(CLAIM_KINDS[kind])}: {counts}</li>")
    unclassified = int((claims["status"] == "").sum())
    if unclassified:
        parts.append(f"<li><strong>{unclassified}</strong> not yet classified</li>")
    parts += ["</ul>", "<p>" + html.escape(
        "Kind: the paper's claim; a property of evp's own code (a test, not a "
        "reproduction); or the project's extension beyond the papers. Data: the "
        "paper's; a substitute (e.g. the SST-5 models trained here); or synthetic. "
        "Only a paper's claim is reproduced; one that fails on a substitute says "
        "nothing about the paper, and is refuted only on data that can test it.")
        + "</p>",
        '<table class="claims sortable table" id="claims-table">',
        "<thead><tr><th>#</th><th>notebook</th><th>claim</th><th>source</th>"
        "<th>measured</th><th>status</th><th>kind</th><th>data</th></tr></thead>",
        "<tbody>"]
    for number, row in enumerate(claims.to_dict("records"), 1):
        name = html.escape(row["notebook"])
        page = pages.get(row["notebook"])
        where = (f'<a href="{html.escape(page)}#{CLAIMS_CELL}">{name}</a>' if page
                 else name)
        status = row["status"] or "not yet classified"
        parts.append(
            f'<tr class="{html.escape(status.replace(" ", "-"))}">'
            f"<td>{number}</td><td>{where}</td><td>{html.escape(row['claim'])}</td>"
            f"<td>{html.escape(row['source'])}</td>"
            f"<td>{html.escape(row['measured'])}</td>"
            f'<td class="status">{html.escape(status)}</td>'
            f"<td>{html.escape(row['kind'])}</td><td>{html.escape(row['data'])}</td>"
            "</tr>")
    parts += ["</tbody>", "</table>"]
    return "\n".join(parts) + "\n"


#: How the site's counts name each kind of claim.
CLAIM_KINDS = {"paper": "the papers' claims", "extension": "the project's extensions",
               "code": "properties of evp's own code (tests, not reproductions)"}


# ------------------------------------------------------------------ reference


def api_page() -> str:
    """Every public module of evp, by autodoc."""
    import evp

    modules = ["evp", *sorted(
        m.name for m in pkgutil.walk_packages(evp.__path__, "evp.")
        if not any(part.startswith("_") for part in m.name.split(".")))]
    lines = ["# API reference", "",
             "Every public module of `evp`, from its docstrings. The names `import "
             "evp` gives are documented in the modules that define them.", ""]
    for module in modules:
        lines += [f"## `{module}`", "", "```{eval-rst}",
                  f".. automodule:: {module}"]
        if module == "evp":
            lines.append("   :no-members:")
        lines += ["```", ""]
    return "\n".join(lines)


def cli_page() -> str:
    """``evp --help`` and every command's ``--help``."""
    from evp.cli import build_parser

    os.environ["COLUMNS"] = "88"  # argparse wraps the help to the terminal's width
    parser = build_parser()
    commands = next(a for a in parser._actions
                    if isinstance(a, argparse._SubParsersAction))
    lines = ["# Command line", "",
             "`evp` is installed with the package (`pip install "
             "evp-tuning-curves`). Each command's `--help`, as it prints it:", "",
             "```text", parser.format_help().rstrip(), "```", ""]
    for name, command in commands.choices.items():
        lines += [f"## `evp {name}`", "", "```text", command.format_help().rstrip(),
                  "```", ""]
    return "\n".join(lines)


# ------------------------------------------------------------------ the build


def stage(staging: Path) -> None:
    """Lay out the site's sources in `staging`."""
    shutil.copytree(DOCS, staging, dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns("__pycache__", "build.py"))
    pages = {}
    for source in _analyses():
        relative = source.relative_to(NOTEBOOKS)
        classroom = relative.parts[0] == "classroom"
        target = staging / ("classroom" if classroom else "notebooks") / relative.name
        if stage_notebook(source, target, relative.with_suffix("").as_posix(),
                          up="../"):
            pages[source.stem] = target.relative_to(staging).with_suffix(
                ".html").as_posix()
    student_versions(staging / "classroom")
    (staging / "_claims.html").write_text(claims_table(pages))
    (staging / "api.md").write_text(api_page())
    (staging / "cli.md").write_text(cli_page())
    import jupyter_server_mathjax

    mathjax = Path(jupyter_server_mathjax.__file__).parent / "static"
    shutil.copytree(mathjax, staging / "_static" / "mathjax",
                    ignore=shutil.ignore_patterns("localization"))


def build(out: Path) -> int:
    """Stage and build the site into `out`; Sphinx's exit status."""
    from sphinx.cmd.build import build_main

    with tempfile.TemporaryDirectory(prefix="evp-site-") as scratch:
        staging = Path(scratch) / "src"
        stage(staging)
        # Built in the scratch folder, then moved: myst-nb writes its outputs
        # beside the build folder (jupyter_execute/), which must not be the
        # checkout.
        built = Path(scratch) / "site"
        status = build_main(["-b", "html", "-W", "--keep-going", "-q", "-j", "auto",
                             "-d", str(Path(scratch) / "doctrees"),
                             str(staging), str(built)])
        if out.exists():
            shutil.rmtree(out)
        if status == 0:
            shutil.move(built, out)
        return status


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "site"),
                        help="the folder to write (replaced; default: site/)")
    parser.add_argument("--students", metavar="DIR",
                        help="write only the student versions of the classroom "
                             "notebooks and assignments into DIR (no site)")
    args = parser.parse_args(argv)
    if args.students:
        for path in student_versions(Path(args.students)):
            print(path)
        return 0
    start = time.perf_counter()
    status = build(Path(args.out))
    if status == 0:
        pages = sum(1 for _ in Path(args.out).rglob("*.html"))
        print(f"built {pages} pages in {args.out} in "
              f"{time.perf_counter() - start:.1f} s")
    return status


if __name__ == "__main__":
    sys.exit(main())
