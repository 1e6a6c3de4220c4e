"""Rich displays: each result's _repr_html_ is a well-formed compact table (with a
small SVG figure for bands and comparisons, unless turned off), plain repr is
unchanged, and a notebook that shows each object renders in headless Chromium with
no console errors."""

import html.parser
import re
import shutil
import subprocess

import numpy as np
import pytest

import evp
from evp import _display

VOID = {"br", "hr", "img", "meta", "link", "input"}


class Structure(html.parser.HTMLParser):
    """Checks that tags nest and close; counts them and collects the cells."""

    def __init__(self):
        super().__init__()
        self.stack, self.count, self.cells, self.errors = [], {}, [], []
        self._in_cell = False

    def handle_starttag(self, tag, attrs):
        self.count[tag] = self.count.get(tag, 0) + 1
        if tag in ("td", "th"):
            self._in_cell = True
            self.cells.append("")
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.count[tag] = self.count.get(tag, 0) + 1

    def handle_endtag(self, tag):
        if not self.stack or self.stack.pop() != tag:
            self.errors.append(f"unexpected </{tag}>")
        if tag in ("td", "th"):
            self._in_cell = False

    def handle_data(self, data):
        if self._in_cell:
            self.cells[-1] += data


def parse(text: str) -> Structure:
    found = Structure()
    found.feed(text)
    found.close()
    assert found.errors == [] and found.stack == [], (found.errors, found.stack)
    return found


@pytest.fixture(autouse=True)
def default_display():
    yield
    evp.set_display(figures=True, max_rows=12)


@pytest.fixture(scope="module")
def scores():
    rng = np.random.default_rng(7)
    return rng.normal(0.80, 0.02, 40), rng.normal(0.74, 0.02, 40)


@pytest.fixture(scope="module")
def objects(scores):
    a, b = scores
    return {
        "band": evp.tuning_curve_band(a, np.arange(1, 41)),
        "cdf": evp.cdf_band(a),
        "comparison": evp.compare(a, b, np.arange(1, 41)),
        "permutation": evp.paired_permutation_test(a[:10], b[:10]),
        "bootstrap": evp.bootstrap_shift_test(a, b, rng=0),
        "exchangeability": evp.exchangeability_test(a, rng=0),
        "results": evp.Results.from_scores({"a_model": a, "b & c": b}),
        "confidence set": evp.parametric.confidence_set(  # kept small: fast
            a, threshold=float(np.median(a)), constraints={"c": {1, 2}},
            noise_ratios=[0, 0.1]),
        "plan": evp.verdict_power(a[:12], b[:12], 4, [10, 20], replications=100,
                                  rng=0),
        "anytime": evp.anytime_band(np.random.default_rng(1).normal(size=(15, 20)),
                                    np.arange(1, 21)),
    }


def test_every_result_shows_a_well_formed_table(objects):
    for name, thing in objects.items():
        page = parse(thing._repr_html_())
        assert page.count.get("table") == 1, name
        assert page.count.get("th", 0) >= 2, name


def test_bands_and_comparisons_carry_a_figure_that_can_be_turned_off(objects):
    drawn = ("band", "cdf", "comparison", "anytime")
    for name in drawn:
        assert parse(objects[name]._repr_html_()).count.get("svg") == 1, name
    for name in set(objects) - set(drawn):
        assert "<svg" not in objects[name]._repr_html_(), name
    evp.set_display(figures=False)
    for name in drawn:
        assert "<svg" not in objects[name]._repr_html_(), name


def test_the_table_spreads_its_rows_over_the_budgets(objects):
    band = objects["band"]
    evp.set_display(max_rows=5)
    cells = parse(band._repr_html_()).cells
    budgets = [int(c) for c in cells[4::4]]  # after the header: n, lower, median, upper
    assert len(budgets) == 5 and budgets[0] == 1 and budgets[-1] == 40
    assert budgets == sorted(budgets)
    # An open edge reads as ∞, and its line is dashed in the figure.
    assert "∞" in cells and "stroke-dasharray" in band._repr_html_()
    with pytest.raises(ValueError, match="max_rows must be a whole number ≥ 2"):
        evp.set_display(max_rows=1)


def test_verdicts_are_coloured_by_strength(objects):
    comparison = objects["comparison"]
    text = comparison._repr_html_()
    strengths = set(comparison.strength())
    assert "strong" in strengths  # the fixture's models are far apart at small n
    for label in strengths:
        colour = _display.STRENGTH_COLORS[label]
        assert f"color:{colour}" in text, label


def test_plain_repr_is_unchanged(objects):
    assert re.fullmatch(r"TuningCurveBand\(median, 40 budgets from 1 to 40, n=40, "
                        r"confidence=0\.8, method='ld_highest_density'\)",
                        repr(objects["band"]))
    assert repr(objects["results"]).startswith("Results(2 model(s): a_model, b & c;")


def test_user_strings_are_escaped(objects):
    text = objects["results"]._repr_html_()
    assert "b &amp; c" in text and "b & c" not in text


@pytest.mark.skipif(shutil.which("chromium") is None,
                    reason="needs Debian's chromium (make test installs it with "
                           "apt-get where it can)")
@pytest.mark.needs("papermill", "jupyterlab")  # nbclient, nbconvert
def test_a_notebook_showing_each_result_renders_without_console_errors(tmp_path):
    import nbformat
    from nbclient import NotebookClient
    from nbconvert import HTMLExporter

    cells = [nbformat.v4.new_code_cell(code) for code in (
        "import numpy as np, evp\n"
        "rng = np.random.default_rng(7)\n"
        "a, b = rng.normal(0.8, 0.02, 40), rng.normal(0.74, 0.02, 40)",
        "evp.Results.from_scores({'a': a, 'b': b})",
        "evp.tuning_curve_band(a, np.arange(1, 41))",
        "evp.cdf_band(a)",
        "evp.compare(a, b, np.arange(1, 41))",
        "evp.paired_permutation_test(a[:10], b[:10])",
        "evp.bootstrap_shift_test(a, b, rng=0)",
        "evp.parametric.confidence_set(a, threshold=float(np.median(a)),\n"
        "                              constraints={'c': {1, 2}}, noise_ratios=[0])",
    )]
    notebook = nbformat.v4.new_notebook(cells=cells)
    NotebookClient(notebook, timeout=120, kernel_name="python3").execute()
    shown = [c.outputs[0]["data"] for c in notebook.cells[1:]]
    assert all("text/html" in data and "text/plain" in data for data in shown)
    page = tmp_path / "displays.html"
    page.write_text(HTMLExporter(template_name="classic").from_notebook_node(
        notebook)[0])
    done = subprocess.run(
        ["chromium", "--headless", "--no-sandbox", "--disable-gpu",
         "--enable-logging=stderr", f"--user-data-dir={tmp_path / 'profile'}",
         "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=120)
    assert [line for line in done.stderr.splitlines() if ":CONSOLE" in line] == []
    dom = done.stdout
    from evp._display import MATH_IGNORED

    assert dom.count("<svg") >= 3 and dom.count(
        f"class=\"evp-result {MATH_IGNORED}\"") >= 7
