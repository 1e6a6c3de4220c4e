"""Slides from the lecture notebooks, built offline.

    python notebooks/classroom/slides.py OUTDIR [--reveal PREFIX]

writes ``OUTDIR/<notebook>.slides.html`` for each lecture notebook of this folder
(``significance_tests``, ``tuning_and_cross_validation``), with ``jupyter
nbconvert --to slides``: every Markdown cell that opens with a heading starts a
slide, a figure or table below it a sub-slide (press the down arrow); the code is
left out (the slides show what it drew and printed), and so are the cells tagged
``teacher-only``.

The build needs no network. nbconvert's slides load reveal.js (and MathJax, for
the formulas) from a CDN when they are opened; where the room has no network, each
file carries its own small slide viewer instead (left and right arrows, or a
click, move between slides; formulas stay in TeX), or give ``--reveal`` the
folder of a local copy of reveal.js 4 (``npm pack reveal.js@4``, unpacked).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
LECTURES = ("significance_tests", "tuning_and_cross_validation")

# Shown when reveal.js could not be loaded (no network): one slide at a time.
OFFLINE_VIEWER = """
<style>
.evp-offline .reveal .slides > section { display: none; max-width: 60em;
  margin: 1em auto; }
.evp-offline .reveal .slides > section.evp-current,
.evp-offline .reveal .slides > section.evp-current > section { display: block; }
.evp-offline .evp-counter { position: fixed; right: 1em; bottom: 1em; color: #666; }
</style>
<script>
window.addEventListener("load", function () {
  setTimeout(function () {
    if (typeof Reveal !== "undefined" && Reveal.isReady && Reveal.isReady()) return;
    var slides = document.querySelectorAll(".reveal .slides > section");
    if (!slides.length) return;
    document.body.classList.add("evp-offline");
    var counter = document.createElement("div");
    counter.className = "evp-counter";
    document.body.appendChild(counter);
    var at = 0;
    function show(i) {
      at = Math.max(0, Math.min(slides.length - 1, i));
      slides.forEach(function (s, j) { s.classList.toggle("evp-current", j === at); });
      counter.textContent = (at + 1) + " / " + slides.length;
      window.scrollTo(0, 0);
    }
    document.addEventListener("keydown", function (e) {
      if (["ArrowRight", "PageDown", " "].includes(e.key)) show(at + 1);
      if (["ArrowLeft", "PageUp"].includes(e.key)) show(at - 1);
    });
    document.addEventListener("click", function () { show(at + 1); });
    show(0);
  }, 1500);
});
</script>
"""


def slide_notebook(path: Path):
    """The lecture notebook with slide marks, without teacher-only cells."""
    import nbformat

    notebook = nbformat.read(path, as_version=4)
    cells = []
    for cell in notebook.cells:
        if "teacher-only" in cell.metadata.get("tags", []):
            continue
        if cell.cell_type == "markdown" and cell.source.lstrip().startswith("#"):
            kind = "slide"
        elif cell.cell_type == "code" and any(
                output.get("output_type") in ("display_data", "execute_result")
                for output in cell.get("outputs", [])):
            kind = "subslide"
        else:
            kind = "-"
        cell.metadata["slideshow"] = {"slide_type": kind}
        cells.append(cell)
    notebook.cells = cells
    return notebook


def build(outdir: Path, reveal: str | None = None,
          lectures: tuple[str, ...] = LECTURES) -> list[Path]:
    """Write the slides; their paths."""
    from nbconvert import SlidesExporter

    exporter = SlidesExporter(exclude_input=True, exclude_input_prompt=True,
                              exclude_output_prompt=True)
    if reveal:
        exporter.reveal_url_prefix = reveal
    outdir.mkdir(parents=True, exist_ok=True)
    written = []
    for name in lectures:
        body, _ = exporter.from_notebook_node(slide_notebook(HERE / f"{name}.ipynb"))
        body = body.replace("</body>", OFFLINE_VIEWER + "</body>", 1)
        target = outdir / f"{name}.slides.html"
        target.write_text(body, encoding="utf-8")
        written.append(target)
    return written


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("outdir", type=Path, help="the folder for the slides")
    parser.add_argument("--reveal", help="URL or folder of a local reveal.js 4 copy")
    args = parser.parse_args(argv)
    for path in build(args.outdir, args.reveal):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
