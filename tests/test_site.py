"""The companion website (``make site``): built once, offline, with no warnings,
then read in headless Chromium as a reader would, over HTTP.

Every page loads with no console error and no failed request, every image has a
size, every internal link and anchor resolves, the claims index sorts, and the
search finds "DeBERTaV3". A control page with a broken image shows that the
check fails when it should.
"""

from __future__ import annotations

import functools
import http.server
import json
import re
import shutil
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[1]


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


# ------------------------------------------------------------------ run_usage


@pytest.mark.needs("papermill")
def test_the_run_box_options_are_evp_runs_own():
    from evp.cli import build_parser
    from evp.runner import RUN_OPTIONS, run_usage

    run = build_parser()._subparsers._group_actions[0].choices["run"]
    flags = {flag for action in run._actions for flag in action.option_strings}
    assert set(RUN_OPTIONS.values()) <= flags
    usage = run_usage(ROOT / "notebooks" / "deberta_tutorial.ipynb")
    assert usage.command == ("evp run deberta_tutorial RESULTS --score COL "
                             "--group COL --models A,B")
    assert ("-p sample_size=48", "rounds of random search per model (clipped to "
            "the rounds there are)") in usage.parameters
    assert not any("results_path" in p or "figures_dir" in p
                   for p, _ in usage.parameters)


# ------------------------------------------------------------------ the build


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    for package in ("sphinx", "myst_nb", "sphinx_book_theme",
                    "jupyter_server_mathjax", "papermill", "nbgrader"):
        pytest.importorskip(package, reason=f"needs {package}: pip install -e "
                            "'.[notebooks,classroom,site]'")
    out = tmp_path_factory.mktemp("site") / "site"
    done = subprocess.run([sys.executable, str(ROOT / "docs" / "build.py"),
                           "--out", str(out)], capture_output=True, text=True,
                          timeout=300)
    log = done.stdout + done.stderr
    assert done.returncode == 0, log
    assert not re.search(r"WARNING|ERROR", log), log
    return out


def pages(site: Path) -> list[Path]:
    """The site's pages (not the theme's template fragments in _static/)."""
    return sorted(p for p in site.rglob("*.html")
                  if p.relative_to(site).parts[0] != "_static")


def test_every_notebook_and_reference_has_a_page(site):
    names = {p.relative_to(site).as_posix() for p in pages(site)}
    analyses = {f"notebooks/{p.stem}.html"
                for p in (ROOT / "notebooks").glob("*.ipynb")}
    classroom = {f"classroom/{p.stem}.html"
                 for p in (ROOT / "notebooks" / "classroom").glob("*.ipynb")}
    assignments = {f"classroom/assignments/{p.stem}.html" for p in
                   (ROOT / "notebooks/classroom/assignments/source").glob("*/*.ipynb")}
    assert analyses | classroom | assignments | {"index.html", "api.html",
                                                  "cli.html"} <= names
    tutorial = (site / "notebooks" / "deberta_tutorial.html").read_text()
    assert "Run it on your data" in tutorial
    assert "evp run deberta_tutorial RESULTS --score COL" in re.sub(
        r"<[^>]+>", "", tutorial)  # the command, highlighted
    assert 'id="claims-check"' in tutorial
    assert "evp reproduce" in (site / "cli.html").read_text()
    assert "evp.bands.tuning_curve_band" in (site / "api.html").read_text()


def test_students_get_no_solutions(site):
    for page in (site / "classroom" / "assignments").glob("*.html"):
        text = page.read_text()
        assert "YOUR CODE HERE" in text or "YOUR ANSWER HERE" in text, page.name
        assert not re.search(r"BEGIN (SOLUTION|HIDDEN TESTS|MARK SCHEME)", text)


class Links(HTMLParser):
    """The links, sources and ids of one page."""

    def __init__(self):
        super().__init__()
        self.links, self.ids, self.loads = [], set(), []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for key in ("id", "name"):
            if attrs.get(key) and (key == "id" or tag == "a"):
                self.ids.add(attrs[key])
        for key in ("href", "src"):
            if attrs.get(key) is not None:
                self.links.append(attrs[key])
                if tag in ("script", "img", "link", "iframe"):
                    self.loads.append(attrs[key])


@functools.cache
def parsed(page: Path) -> Links:
    links = Links()
    links.feed(page.read_text())
    return links


def test_every_internal_link_resolves_and_nothing_loads_from_outside(site):
    broken, outside, checked = [], [], 0
    for page in pages(site):
        found = parsed(page)
        outside += [f"{page.name}: {u}" for u in found.loads
                    if urlsplit(u).scheme or u.startswith("//")]
        for link in found.links:
            parts = urlsplit(link)
            if parts.scheme or link.startswith("//"):
                continue  # a link out of the site, for the reader to follow
            target = (page.parent / unquote(parts.path)).resolve() if parts.path \
                else page
            if target.is_dir():
                target = target / "index.html"
            checked += 1
            if not target.is_file():
                broken.append(f"{page.relative_to(site)}: {link}")
            elif parts.fragment and target.suffix == ".html" and \
                    unquote(parts.fragment) not in parsed(target).ids:
                broken.append(f"{page.relative_to(site)}: {link} (no such anchor)")
    assert checked > 1000
    assert not broken, broken[:20]
    assert not outside, outside[:20]


# ------------------------------------------------------------------ the browser


@pytest.fixture(scope="module")
def served(site):
    """The site over HTTP on localhost, as a static host serves it."""
    handler = functools.partial(_Quiet, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


# Put first in <head>: reports every error (uncaught, console.error, a resource
# that fails to load) and, once the page has loaded, the size of every image.
PROBE = """<script>
(() => {
  const say = (kind, text) => console.log("evp-probe " + kind + " " + text);
  window.addEventListener("error", (e) => say("error", e.message ||
    ("failed to load " + (e.target.src || e.target.href))), true);
  window.addEventListener("unhandledrejection", (e) => say("error", String(e.reason)));
  const error = console.error;
  console.error = (...args) => { say("error", args.join(" ")); error(...args); };
  window.addEventListener("load", () => setTimeout(() => {
    say("images", JSON.stringify([...document.images].map(
      (i) => [i.getAttribute("src").slice(0, 80), i.naturalWidth, i.naturalHeight])));
    %s
  }, 300));
})();
</script>"""


def render(url: str, profile: Path, budget: int = 5000) -> list[str]:
    """The console lines of Chromium loading `url`."""
    done = subprocess.run(
        [chromium(), "--headless", "--no-sandbox", "--disable-gpu",
         "--enable-logging=stderr", f"--user-data-dir={profile}",
         f"--virtual-time-budget={budget}", "--dump-dom", url],
        capture_output=True, text=True, timeout=120)
    return [line for line in done.stderr.splitlines() if ":CONSOLE" in line]


def probe(site: Path, page: Path, then: str = "") -> Path:
    """A copy of `page` beside it with the probe (and `then`, run after load)."""
    copy = page.with_name(page.stem + ".probe.html")
    copy.write_text(re.sub(r"<head>", "<head>" + PROBE % then, page.read_text(),
                           count=1))
    return copy


def problems(lines: list[str]) -> list[str]:
    """Errors, and images with no size, in a probed page's console lines.

    (MathJax 2 tells a font has loaded by a blank one at about:blank, which
    Chromium refuses with a CORS note: not an error of the page.)
    """
    found = [line for line in lines if "evp-probe error" in line
             or "Uncaught" in line or "Failed to load" in line]
    reported = [line for line in lines if "evp-probe images" in line]
    if not reported:
        return ["the probe did not report: the page did not load"]
    images = json.loads(reported[0].split("evp-probe images ", 1)[1].rsplit('"', 1)[0]
                        .replace('\\"', '"'))
    return found + [f"image with no size: {src}" for src, width, height in images
                    if not (width and height)]


def check(site: Path, served: str, page: Path, profile: Path) -> list[str]:
    copy = probe(site, page)
    url = f"{served}/{copy.relative_to(site).as_posix()}"
    return [f"{page.relative_to(site)}: {p}" for p in problems(render(url, profile))]


needs_chromium = pytest.mark.skipif(
    chromium() is None, reason="needs Debian's chromium (make test installs it "
    "with apt-get where it can; it could not here)")


@needs_chromium
def test_every_page_loads_without_errors_with_every_image(site, served, tmp_path):
    every = [p for p in pages(site) if not p.name.endswith(".probe.html")]
    with ThreadPoolExecutor(3) as pool:
        found = pool.map(lambda ip: check(site, served, ip[1], tmp_path / str(ip[0])),
                         enumerate(every))
        found = [line for lines in found for line in lines]
    assert not found, found[:20]
    images = sum(len(re.findall(r"<img ", p.read_text())) for p in every)
    assert images > 40


@needs_chromium
def test_the_check_fails_on_a_broken_image(site, served, tmp_path):
    # The control: the same check on a page of the site with one image gone.
    page = site / "notebooks" / "broken.html"
    page.write_text((site / "notebooks" / "deberta_tutorial.html").read_text().replace(
        "</article>", '<img src="no-such-figure.png"></article>', 1))
    try:
        found = check(site, served, page, tmp_path)
    finally:
        page.unlink()
    assert any("image with no size: no-such-figure.png" in line for line in found)
    assert any("evp-probe error failed to load" in line for line in found)


@needs_chromium
def test_the_claims_table_sorts(site, served, tmp_path):
    # Click "status" (text, twice: both directions) and "#" (numbers, descending).
    clicks = """
    const table = document.getElementById("claims-table");
    const header = (name) => [...table.tHead.rows[0].cells].find(
      (th) => th.textContent.trim() === name);
    const first = () => table.tBodies[0].rows[0];
    for (const [name, column] of [["status", 5], ["status", 5], ["#", 0], ["#", 0]]) {
      header(name).click();
      say("sorted", name + "=" + first().cells[column].textContent.trim());
    }"""
    copy = probe(site, site / "index.html", clicks)
    lines = render(f"{served}/{copy.name}", tmp_path)
    sorted_ = [line.split("evp-probe sorted ", 1)[1].split('"', 1)[0]
               for line in lines if "evp-probe sorted" in line]
    rows = (site / "index.html").read_text().count('<tr class="')
    assert sorted_ == ["status=does not hold", "status=reproduced", "#=1",
                       f"#={rows}"], lines


@needs_chromium
def test_search_finds_deberta_v3(site, served, tmp_path):
    assert "debertav3" in (site / "searchindex.js").read_text().lower()
    done = subprocess.run(
        [chromium(), "--headless", "--no-sandbox", "--disable-gpu",
         f"--user-data-dir={tmp_path}", "--virtual-time-budget=10000",
         "--dump-dom", f"{served}/search.html?q=DeBERTaV3"],
        capture_output=True, text=True, timeout=120)
    found = re.findall(r'<li[^>]*><a href="([^"?#]+)', done.stdout.split(
        'class="search"', 1)[-1])
    assert "notebooks/deberta_tutorial.html" in found, done.stdout[-3000:]
