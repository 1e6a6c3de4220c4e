r"""A report of a hyperparameter search for a paper's appendix: the checklist of Dodge
et al. (2019, Text Box 1) filled in from the results, then the tuning curves, the
bands, the verdicts and the budgets, as one HTML page or as Markdown.

What a results file cannot tell (the data splits, the code, the test scores) is
listed as "to fill in", so the checklist is complete and honest about its gaps.

References
----------
Dodge, Gururangan, Card, Schwartz and Smith (2019). Show Your Work: Improved
Reporting of Experimental Results. EMNLP. §5 and Text Box 1.

Dodge, Gururangan, Card, Schwartz and Smith (2021). Expected Validation Performance
and Estimation of a Random Variable's Maximum. Findings of EMNLP. Tables 2-3.
"""

from __future__ import annotations

import base64
import contextlib
import html
import io
import re
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from evp import analyses
from evp._display import MATH_IGNORED
from evp._escape import visible
from evp._numbers import shown_text as _text
from evp._optional import import_optional_dependency
from evp._validation import ParameterError, TiesWarning
from evp.analyses import TO_FILL, for_paper, with_floor, wording
from evp.analyses.wording import OPEN

__all__ = ["Report", "build_report", "for_paper", "with_floor"]


@dataclass(frozen=True, eq=False)
class Report:
    """A filled-in checklist with its figures and tables; save it as .html or .md.

    Attributes
    ----------
    title : str
    checklist : pandas.DataFrame
        One row per checklist item, one column per model.
    sections : list of (str, object)
        The body in order: (heading, content) with content a DataFrame, a list
        of sentences, or the name of a figure in `figures`.
    figures : dict of str to bytes
        PNG images by name.
    notes : list of str
        For the paper's reader: what was read and assumed (no advice on evp's
        options; the command line says that on the terminal).
    vector_figures : dict of str to bytes
        The same figures as PDF, for LaTeX (:meth:`to_latex`).
    warnings : list of str
        Where an assumption looks broken; shown first, highlighted, each once.
    """

    title: str
    checklist: pd.DataFrame
    sections: list = field(default_factory=list)
    figures: dict = field(default_factory=dict)
    notes: list = field(default_factory=list)
    vector_figures: dict = field(default_factory=dict)
    warnings: list = field(default_factory=list)

    def __repr__(self) -> str:
        return (f"Report({self.title!r}, {self.checklist.shape[1] - 1} models, "
                f"{len(self.sections)} sections, {len(self.figures)} figures)")

    def to_html(self) -> str:
        """One self-contained page: figures embedded, no scripts, no links out."""
        return _PAGE.format(title=html.escape(visible(self.title)),
                            body=self._body_html())

    def _repr_html_(self) -> str:
        """The page's body, as a notebook shows it."""
        # A notebook typesets "$...$" in HTML as math: not in a model's name.
        return (f"<div class='evp-report {MATH_IGNORED}'>{self._body_html()}"
                "</div>")

    def _body_html(self) -> str:
        parts = [f"<h1>{html.escape(self.title)}</h1>"]
        parts += [f"<p class='warning'><strong>Warning:</strong> "
                  f"{html.escape(text)}</p>" for text in self.warnings]
        data = _sentences(self.notes, self.checklist.columns[1:])
        if data:
            parts.append(f"<p class='note'><strong>Data.</strong> "
                         f"{html.escape(data)}</p>")
        parts += ["<h2>Reporting checklist</h2>", _html_table(self.checklist)]
        for heading, content in self.sections:
            parts.append(f"<h2>{html.escape(_opened(heading, content))}</h2>")
            if isinstance(content, pd.DataFrame):
                parts.append(_html_table(content))
            elif isinstance(content, str):
                data = base64.b64encode(self.figures[content]).decode()
                parts.append(f"<figure><img alt='{html.escape(heading)}' "
                             f"src='data:image/png;base64,{data}'></figure>")
            else:
                parts.append("<ul>" + "".join(f"<li>{html.escape(s)}</li>"
                                              for s in content) + "</ul>")
        # A name's bidirectional controls would reorder the page around it.
        return visible("\n".join(parts))

    def to_markdown(self, figures_folder: str = "figures") -> str:
        """The same content as Markdown; figures are linked as
        ``figures_folder/NAME.png`` (:meth:`save` writes them there)."""
        from urllib.parse import quote

        data = _sentences(self.notes, self.checklist.columns[1:])
        parts = [f"# {_markdown_text(self.title)}",
                 *(f"> **Warning:** {_markdown_text(text)}"
                   for text in self.warnings),
                 *([f"**Data.** {_markdown_text(data)}"] if data else []),
                 "## Reporting checklist", _markdown_table(self.checklist)]
        for heading, content in self.sections:
            parts.append(f"## {_markdown_text(_opened(heading, content))}")
            if isinstance(content, pd.DataFrame):
                parts.append(_markdown_table(content))
            elif isinstance(content, str):
                parts.append(f"![{_markdown_text(heading)}]"
                             f"({quote(f'{figures_folder}/{content}.png')})")
            else:
                parts.append("\n".join(f"- {_markdown_text(sentence)}"
                                       for sentence in content))
        # A name's bidirectional controls would reorder the page around it.
        return visible("\n\n".join(parts)) + "\n"

    def to_latex(self, figures_folder: str = "figures") -> str:
        r"""The same content as a LaTeX ``\section`` to ``\input`` into a paper's
        appendix: the checklist and the tables as ``booktabs`` tables, the figures
        as ``figures_folder/NAME.pdf`` (:meth:`save` writes them there), every
        string escaped. The paper's preamble needs :data:`evp.latex.PREAMBLE`."""
        from evp.latex import PREAMBLE, escape, latex_table, title

        def fill(frame: pd.DataFrame) -> pd.DataFrame:
            return frame.map(lambda v: f"({TO_FILL})" if v == TO_FILL else v)

        # Notes as paragraphs that may stretch their spaces, so that a long
        # name (RandomizedSearchCV, a column) never runs into the margin.
        # The heading ragged-right: a long model name moves to the next line
        # whole, never into the margin (the contents list gets it plain).
        heading = title(self.title)
        # What was read, in one paragraph: a note per tool's record (one per
        # study across tasks) would open the section with a page of them.
        data = _sentences(self.notes, self.checklist.columns[1:])
        parts = [f"\\section[{{{heading}}}]{{\\protect\\raggedright {heading}}}",
                 *(f"\\begin{{sloppypar}}\\noindent\\textbf{{Warning:}} "
                   f"{escape(text)}\\end{{sloppypar}}\n" for text in self.warnings),
                 *([f"\\begin{{sloppypar}}\\noindent\\textbf{{Data.}} "
                    f"{escape(data)}\\end{{sloppypar}}\n"] if data else []),
                 _latex_checklist(fill(self.checklist))]
        for heading, content in self.sections:
            if isinstance(content, pd.DataFrame):
                parts.append(latex_table(fill(content), caption=heading,
                                         open_=OPEN))
            elif isinstance(content, str):
                # Drawn about 6.5 inches wide at 10-11pt: across both columns
                # of a two-column page their labels stay at about that size
                # (in one column, figure* is a plain figure).
                parts.append("\n".join([
                    "\\begin{figure*}[htbp]", "\\centering",
                    f"\\includegraphics[width=\\linewidth,height=0.6\\textheight,"
                    f"keepaspectratio]{{{figures_folder}/{content}.pdf}}",
                    f"\\caption{{{escape(heading)}}}", "\\end{figure*}"]))
            else:
                items = "\n".join(f"  \\item {escape(s)}" for s in content)
                # Sloppy, so that a line of long model names breaks at a
                # space rather than running into the margin.
                parts.append(f"\\paragraph{{{escape(heading)}}}\n"
                             f"\\begin{{sloppypar}}\\begin{{itemize}}\n{items}\n"
                             "\\end{itemize}\\end{sloppypar}")
        needs = PREAMBLE.replace("\n", " ")
        return f"% needs in the preamble: {needs}\n" + "\n\n".join(parts) + "\n"

    def save(self, path, *, inputs=(), replaced: list | None = None,
             force: bool = False) -> Path:
        """Write ``.html`` (one file), ``.md`` (with its figures as PNG in a
        ``NAME-figures`` folder beside it) or ``.tex`` (a section to ``\\input``,
        its figures as PDF in that folder); return the path.

        Every file is written atomically (a temporary file, then renamed); `path`
        may not be one of `inputs` (the results read), nor may the figures
        folder be, hold or lie inside one; a file that evp did not write (or
        that was changed since) is never replaced unless `force` (ValueError).
        The files replaced are appended to `replaced`, when given.
        """
        from evp._output import (
            check_not_input,
            check_output,
            check_replaceable,
            write_folder_files,
            write_output,
        )

        path = check_output(path, inputs=inputs, suffixes=(
            ".html", ".htm", ".md", ".markdown", ".tex"))
        check_replaceable(path, force=force, name="out")  # before any figure
        suffix = path.suffix.lower()
        done = []
        if suffix in (".html", ".htm"):
            text = self.to_html()
        else:
            latex = suffix == ".tex"
            unsafe = sorted({c for c in path.stem if c in "%#\\"})
            if latex and unsafe:  # \includegraphics reads the folder's name
                raise ValueError(
                    f"out: a LaTeX report includes its figures from "
                    f"{path.stem + '-figures'!r}, and LaTeX reads "
                    f"{' and '.join(unsafe)} in a file name as commands: name the "
                    "file without %, # or \\")
            folder = check_not_input(path.with_name(path.stem + "-figures"),
                                     inputs=inputs, name="out's figures folder")
            images = self.vector_figures if latex else self.figures
            done += write_folder_files(folder, {
                f"{name}.{'pdf' if latex else 'png'}": data
                for name, data in images.items()}, force=force)
            text = (self.to_latex(folder.name) if latex
                    else self.to_markdown(folder.name))
        if write_output(path, text, force=force, name="out"):
            done.insert(0, path)
        if replaced is not None:
            replaced += done
        return path


_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<style>
body {{ font-family: system-ui, sans-serif; max-width: 60rem; margin: 2rem auto;
        padding: 0 1rem; color: #222; line-height: 1.4; }}
table {{ border-collapse: collapse; margin: 0.5rem 0 1.5rem; font-size: 0.9rem; }}
th, td {{ border: 1px solid #ccc; padding: 0.25rem 0.6rem; text-align: left;
          vertical-align: top; }}
th {{ background: #f3f3f3; }}
td.fill {{ color: #a33; font-style: italic; }}
img {{ max-width: 100%; }}
.note {{ color: #555; }}
.warning {{ color: #8a4b00; background: #fff4e0; padding: 0.4rem 0.6rem;
            border-left: 4px solid #d98c00; }}
</style></head>
<body>
{body}
</body></html>
"""


def _sentences(notes, names=()) -> str:
    """`notes` as one paragraph: each a sentence, its first letter capitalised
    (unless it starts with a model's name, or a word that is not plain
    lowercase, such as a column) and ended by a full stop."""
    names = {str(n) for n in names}
    said = []
    for note in notes:
        text = " ".join(str(note).split())
        if not text:
            continue
        first = text.split(" ", 1)[0]
        if first.isalpha() and first.islower() and first not in names:
            text = text[0].upper() + text[1:]
        said.append(text if text.endswith((".", "!", "?")) else text + ".")
    return " ".join(said)


def _latex_checklist(checklist: pd.DataFrame) -> str:
    r"""The checklist for LaTeX. Two models or fewer: a table. More: a list, an
    item each, at the text's size in one column or two (a table of one column
    per model was scaled to about 5pt); a cell that every model shares is said
    once."""
    from evp.latex import escape, latex_table

    caption = ("Reporting checklist (Dodge et al. 2019, Text Box 1), filled in "
               "from the search's results")
    models = list(checklist.columns[1:])
    if len(models) <= 2:
        return latex_table(checklist, wrap=24, caption=caption)
    # Each item a paragraph that opens with its name in bold (a description
    # list's label cannot wrap, and ran into the margin of a column).
    lines = [f"\\paragraph{{{escape(caption)}.}}", "\\begin{sloppypar}"]
    for _, row in checklist.iterrows():
        cells = [row[m] for m in models]
        item = f"\\par\\noindent\\textbf{{{escape(row.iloc[0])}:}}"
        if len(set(map(str, cells))) == 1:
            shared = _text(cells[0])
            lines.append(f"{item} {escape(shared)}" + (
                "" if shared == f"({TO_FILL})" else " (every model)"))
            continue
        lines += [item, "\\begin{itemize}"]
        lines += [f"  \\item {escape(m)}: {escape(_text(c))}"
                  for m, c in zip(models, cells, strict=True)]
        lines.append("\\end{itemize}")
    lines.append("\\end{sloppypar}")
    return "\n".join(lines) + "\n"


def _html_table(frame: pd.DataFrame) -> str:
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in frame.columns)
    rows = []
    for row in frame.itertuples(index=False):
        cells = "".join(
            f"<td class='fill'>{TO_FILL}</td>" if value == TO_FILL
            else f"<td>{html.escape(_text(value))}</td>" for value in row)
        rows.append(f"<tr>{cells}</tr>")
    return (f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}"
            "</tbody></table>")


# Characters that Markdown (CommonMark, GitHub's tables) reads as markup
# anywhere in a line: backslash-escaped, they are shown as they are.
# An underscore inside a word (val_loss) is no emphasis, and stays as it is.
# A dollar sign too: GitHub, GitLab and Jupyter read "$...$" as math.
_MARKDOWN_SPECIAL = re.compile(
    r"([\\`*\[\]<>|~&$]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9]))")


def _markdown_text(value) -> str:
    """`value` as Markdown text that shows it and nothing else: on one line (a
    newline would start a heading or a raw HTML block), markup characters
    backslash-escaped (no link, image, HTML, emphasis or table cell comes from
    a model's name), and a line start that would open a block (``#``, ``>``,
    ``-``, ``1.``) escaped too."""
    text = " ".join(_text(value).split())
    text = _MARKDOWN_SPECIAL.sub(r"\\\1", text)
    if re.match(r"(#+|[-+=]+)(\s|$)|>", text):
        text = "\\" + text
    return re.sub(r"^(\d+)([.)])(?=\s|$)", r"\1\\\2", text)


def _markdown_table(frame: pd.DataFrame) -> str:
    def cell(value) -> str:
        return _markdown_text(value)

    lines = ["| " + " | ".join(cell(c) for c in frame.columns) + " |",
             "|" + "---|" * frame.shape[1]]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |"
              for row in frame.itertuples(index=False)]
    return "\n".join(lines)


def _opened(heading: str, content) -> str:
    """A table's heading, with what "open" means where one of its cells is."""
    if isinstance(content, pd.DataFrame) and any(
            isinstance(v, float | np.floating) and np.isinf(v)
            for v in content.to_numpy().ravel()):
        return f"{heading.rstrip('.')}. Open: {OPEN}."
    return heading


def build_report(results, *, models=None, minimize: bool | None = None,
                 target: float | None = None, confidence: float = 0.8,
                 method: str = "ld_highest_density", strategy: str | None = None,
                 title: str | None = None, budget: int | None = None,
                 highlight=None, vector_figures: bool = True,
                 score_name: str | None = None, negate: bool = False) -> Report:
    r"""Fill in the reporting checklist and draw the curves for a search's results.

    Parameters
    ----------
    results : evp.Results
        As :func:`evp.read_results` returns them: the score, model and cost
        columns, the direction, the strategy and the reader's notes are theirs.
    models : sequence of str, optional
        The models to report, in order; default all.
    minimize : bool, optional
        The score is a loss; default as `results` say (must agree with them).
    target : float, optional
        The score whose budget to report. Default: the weakest model's expected
        best score after all its rounds, which every model reaches.
    confidence : float, default 0.8
        Of the median tuning-curve bands and the verdicts.
    method : str, default "ld_highest_density"
        The CDF band (see :func:`evp.cdf_band`).
    strategy : str, optional
        How hyperparameters were chosen (e.g. "random search, 50 trials per
        model"); default ``results.strategy`` when a reader recorded it, else "to
        fill in".
    title : str, optional
    budget : int, optional
        The budget at which "what would settle it" asks for a strong verdict,
        for every pair without one; default, per pair, the largest budget its
        rounds can bound (:func:`evp.bounded_budget`).
    highlight : str or list of str, optional
        With three or more models: the model(s) to draw in bold (your own).
    vector_figures : bool, default True
        Also draw the figures as PDF, for :meth:`Report.to_latex` (seconds per
        figure; the HTML and Markdown pages need PNG only).
    score_name : str, optional
        The score's name in the report's words, tables and figures (e.g. "log
        loss" for a column called ``value``); default ``results.score_name``.
    negate : bool, default False
        Report the negated score, its direction flipped: a score recorded as
        its negation (``neg_log_loss``, maximised) reported as the loss itself,
        named `score_name` (:func:`evp.analyses.negated`).

    Returns
    -------
    Report
    """
    from evp.results import Results, as_results

    if not isinstance(results, Results):
        raise ValueError(f"results must be evp.Results, as evp.read_results returns "
                         f"them; got {type(results).__name__}")
    if budget is not None and (isinstance(budget, bool) or not isinstance(
            budget, int | np.integer) or budget < 1):
        raise ValueError(f"budget must be a whole number of rounds ≥ 1, got "
                         f"{budget!r}")
    results = as_results(results, minimize=minimize).select(models)
    if negate:
        results = analyses.negated(results, score_name)
    results = with_floor(results)
    if score_name is not None:
        if not isinstance(score_name, str) or not score_name.strip():
            raise ParameterError("score_name", "score_name must name the score, "
                                 f"e.g. 'log loss'; got {score_name!r}")
        # Every sentence, caption and axis label reads it from the results.
        results = results.replace(score_name=" ".join(score_name.split()))
    from evp.plot import _highlighted

    # Checked before the work, whether or not a figure draws it.
    _highlighted(results.models, highlight)
    checklist = analyses.checklist(results, strategy).table

    with _own_warnings() as ours:
        sections, figures, vectors = _body(results, target, confidence, method,
                                           budget, {} if vector_figures else None,
                                           highlight)
    # What the reader says it read, for the paper's reader: its advice on
    # evp's options (pass cost=..., pass the search object) stays on the
    # terminal, where the command line says it.
    notes = analyses.data_notes(results, strategy)
    # evp's own warnings, each once, as a note on the page (a tie warning per
    # pair would otherwise repeat itself); the libraries' are no news.
    if any(issubclass(w.category, TiesWarning) for w in ours):
        notes.append(wording.tied_scores(
            [results.label(m) for m, s in results.scores_as_read.items()
             if np.unique(s[np.isfinite(s)]).size < np.isfinite(s).sum()]))
    notes += list(dict.fromkeys(str(w.message) for w in ours
                                if not issubclass(w.category, TiesWarning)))
    return Report(title=title or wording.title(results),
                  checklist=checklist, sections=sections, figures=figures,
                  notes=list(dict.fromkeys(notes)), vector_figures=vectors or {},
                  warnings=list(dict.fromkeys(for_paper(w)
                                              for w in results.warnings)))


def _is_evps(name: str) -> bool:
    return name == "evp" or name.startswith("evp.")


@contextlib.contextmanager
def _own_warnings():
    """Collect, into the list it yields, the warnings evp itself raises: of a
    class evp defines, or issued by evp's code. The libraries' are dropped:
    matplotlib's ("Glyph 9 missing from font", "constrained_layout not
    applied") point their stack level at evp's line that called matplotlib, so
    the file a warning names cannot tell whose it is; the frame that called
    warnings.warn can."""
    import sys

    caught = []

    def keep(message, category, filename, lineno, file=None, line=None):
        frame = sys._getframe(1)
        while frame is not None and frame.f_globals.get("__name__") == "warnings":
            frame = frame.f_back
        issuer = frame.f_globals.get("__name__", "") if frame is not None else ""
        if _is_evps(getattr(category, "__module__", "")) or _is_evps(issuer):
            caught.append(warnings.WarningMessage(message, category, filename,
                                                  lineno, file, line))

    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.showwarning = keep  # restored when the block ends
        yield caught


def _picture(figure, name: str, figures: dict, vectors: dict) -> None:
    """Lay out `figure` as every saved figure is (a legend on the data moves
    beside its panel; what still runs together is said in a warning), keep it
    as PNG under `name` (and as PDF in `vectors`, unless None), and close it."""
    plt = import_optional_dependency("matplotlib.pyplot")

    from evp.plot import as_written, tidy_figure

    crowded = tidy_figure(as_written(figure))
    if crowded:
        warnings.warn(f"the {name} figure: {crowded[0][0]} overlaps "
                      f"{crowded[0][1]}", UserWarning, stacklevel=2)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=110, bbox_inches="tight")
    figures[name] = buffer.getvalue()
    if vectors is not None:  # PDF for LaTeX, only when asked (it costs seconds)
        vector = io.BytesIO()
        # No creation date, so that the same results write the same file.
        figure.savefig(vector, format="pdf", bbox_inches="tight",
                       metadata={"CreationDate": None})
        vectors[name] = vector.getvalue()
    plt.close(figure)


def _family_sections(results, confidence, method, highlight, figures, vectors):
    """Three or more models on one task (evp.analyses.many_models): what may
    still be best and every pair's verdict, family-wise (a few sentences, a
    table, a matrix, two figures); and the pairs without a strong verdict, for
    what would settle them."""
    matplotlib = import_optional_dependency("matplotlib")

    from evp.plot import theme

    found = analyses.many_models(results, None, confidence, method=method)
    sections = []
    with matplotlib.rc_context(theme()):
        sections.append((wording.heading("best_set", family=found.family),
                         list(found.best_notes)))
        _picture(found.plot_best(highlight=highlight).figure, "best-set", figures,
                 vectors)
        sections.append((wording.heading("best_set_figure"), "best-set"))
        # The verdicts where they can be strong, in evp compare --all's words;
        # pair by pair as a table (a paper takes no list of sentences).
        sections.append((wording.heading("verdicts_many"), list(found.verdict_head)))
        strong = found.strong_table()
        if len(strong):
            sections.append((wording.heading("strong_table"), strong))
        sections.append((wording.heading("matrix", n=found.last), found.matrix()))
        _picture(found.plot(highlight=highlight).figure, "verdicts", figures,
                 vectors)
        sections.append((wording.heading("matrix_figure"), "verdicts"))
    return (sections, found.pairs_without_strong(), found.best.band_confidence)


def _many_body(results, confidence, method, highlight=None, vectors=None):
    """The sections for several tasks (evp.analyses.many_tasks), laid out:
    where the budget changes the answer, the ranks and aggregate curves across
    tasks, the pairs across tasks, and what would settle them."""
    matplotlib = import_optional_dependency("matplotlib")
    plt = import_optional_dependency("matplotlib.pyplot")

    from evp.plot import (
        plot_aggregate,
        plot_critical_difference,
        plot_ranks,
        plot_task_curves,
        theme,
    )
    figures, sections = {}, []
    models = len(results.models)
    with matplotlib.rc_context(theme()):
        found = analyses.many_tasks(results, None, confidence, method=method)
        ranked, pairs = found.table, found.pairs
        if found.ties:
            sections.append((wording.heading("ties"), list(found.ties)))
        sections.append((wording.heading("changes", tasks=len(results.tasks)),
                         list(found.changes)))
        sections.append((wording.heading("ranks"), found.ranks().round(2)))
        last = ranked["n"].max()
        sections.append((wording.heading("aggregate", n=last, confidence=confidence),
                         found.at_largest().round(3)))
        sections.append((wording.heading("best_by_task", family=found.family),
                         found.best_by_task()))
        sections.append((wording.heading("by_task", n=found.curves["n"].max(),
                                 score=results.score_name, family=found.family),
                         found.by_task()))
        _picture(np.ravel(plot_task_curves(
            found.curves, y=results.score_name, minimize=results.minimize,
            highlight=highlight))[0].figure, "task-curves", figures, vectors)
        sections.append((wording.heading("task_curves"), "task-curves"))
        if models <= 20:
            sections.append((wording.heading("wins", n=pairs["n"].max()), found.wins()))
        # In evp compare --task's words: a test that cannot reach its level
        # says so; what the tasks do show follows, as a table.
        sections.append((wording.heading("across", alpha=1 - confidence),
                         list(found.across_head)))
        differ = pairs[pairs["differ"]]
        if len(differ):
            sections.append((wording.heading("differ_table"), differ[
                ["a", "b", "n", "tasks", "a wins", "p (Holm)"]].round(3)))
        else:
            sections.append((wording.heading("tasks_table"), found.tasks_table()))
        missing = found.missing()
        if missing:
            sections.append((wording.heading("missing"),
                             [f"{s}; ranks and tests there use the others." for s
                              in missing]))
        _picture(plot_ranks(ranked, highlight=highlight).figure, "ranks", figures,
                 vectors)
        sections.append((wording.heading("ranks_figure"), "ranks"))
        budgets = sorted(set(ranked["n"]))
        # One above the other, each as wide as one figure: side by side (13
        # inches) their labels were about 3pt on a two-column page.
        figure, axes = plt.subplots(
            2, 1, figsize=(6.4, 2 * (1.1 + 0.2 * models)), layout="constrained")
        for ax, n in zip(axes, (budgets[0], budgets[-1]), strict=True):
            plot_critical_difference(ranked, pairs, n, highlight=highlight, ax=ax)
        _picture(figure, "critical-difference", figures, vectors)
        sections.append((wording.heading("cd_cannot", tasks=len(results.tasks))
                         if found.cannot_decide else wording.heading("cd"),
                         "critical-difference"))
        _picture(plot_aggregate(ranked, highlight=highlight).figure, "aggregate",
                 figures, vectors)
        sections.append((wording.heading("aggregate_figure"), "aggregate"))
        sections.append((wording.heading("settle_tasks"), list(found.settle) or [
            wording.settle_across(pairs, len(results.tasks), confidence)]))
    return sections, figures, vectors


#: Beyond this many models the report draws no panel per model (the best set and
#: the verdict matrix show them all) and plans no pair.
PANELS = 8


def _body(results, target, confidence, method, budget=None, vectors=None,
          highlight=None):
    """The sections after the checklist, and their figures (PNG; PDF too in
    `vectors`, a dict, unless None)."""
    if results.task is not None:
        return _many_body(results, confidence, method, highlight, vectors)
    matplotlib = import_optional_dependency("matplotlib")

    from evp.plot import cost_unit, theme

    figures, sections = {}, []
    many = len(results.models) > 2 and results.runs is None
    panels = len(results.models) <= PANELS
    # Every budget, computed once: the figures draw the analysis' table.
    found = analyses.curves(results, method=method, confidence=confidence,
                            ns="all")
    with matplotlib.rc_context(theme()):
        if panels and results.runs is not None:
            _picture(np.ravel(found.plot())[0].figure, "anytime", figures, vectors)
        elif panels:
            _picture(np.ravel(found.plot(std=True, bands=False))[0].figure, "curves",
                     figures, vectors)
            _picture(np.ravel(found.plot(std=False))[0].figure, "bands", figures,
                     vectors)
    if not panels:
        sections.append((wording.heading("panels"),
                         [wording.panels(len(results.models), PANELS)]))
    elif results.runs is not None:
        sections.append((wording.heading("anytime", score=results.score_name,
                                 family=found.family), "anytime"))
    else:
        sections.append((wording.heading("curves", score=results.score_name), "curves"))
        sections.append((wording.heading("bands", family=found.family), "bands"))
    # Verdicts: every pair, both directions, at the readable budgets up to the
    # pair's smaller number of rounds (as evp compare), read from the family
    # every surface reads by default.
    planned_at = confidence
    if many:  # family-wise: a few sentences and a matrix, never one per pair
        family, open_pairs, planned_at = _family_sections(
            results, confidence, method, highlight, figures, vectors)
        sections += family
    else:
        pairs = analyses.pairs(results, None, confidence, method=method)
        open_pairs = list(pairs.comparisons)
        if pairs.notes:
            sections.append((wording.heading("verdicts_pairs"), list(pairs.notes)))
            sections.append((wording.heading("verdict_table"), pairs.table))
    if results.runs is None and panels:
        settle = analyses.what_would_settle(results, open_pairs, budget, planned_at,
                                            method=method,
                                            unit=cost_unit(results.cost))
        sections.append((wording.heading("settle"), settle or [
            wording.settled(len(results.models) * (len(results.models) - 1) // 2)]))
    reach = analyses.budgets(results, target)
    sections.append((reach.what, list(reach.notes) if reach.notes else reach.table))
    return sections, figures, vectors
