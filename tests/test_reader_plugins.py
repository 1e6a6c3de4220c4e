"""Readers as plug-ins: a reader another package installs (entry-point group
``evp.readers``) is found, tried, and its Results go through read_results and the
command line like evp's own; a broken one is skipped with a warning."""

import textwrap

import pytest

import evp
from evp.cli import main
from evp.readers import READERS_GROUP, plugin_readers

# A tiny package: a reader of ".toy" files, lines "model score", and the
# distribution metadata that installs it under the entry-point group.
TOY_READER = '''
import pandas as pd
from evp import Results


class ToyReader:
    """Reads .toy files: one round per line, "MODEL SCORE"."""

    def sniff(self, source):
        return str(source).endswith(".toy")

    def read(self, source, **options):
        with open(source) as lines:
            rows = [line.split() for line in lines if line.strip()]
        frame = pd.DataFrame({"model": [m for m, _ in rows],
                              "loss": [float(s) for _, s in rows]})
        return Results(frame, score="loss", group="model", minimize=True,
                       direction="the toy format: lower is better",
                       notes=("read by the toy reader",), source=str(source))


READER = ToyReader()
BROKEN = object()
'''


@pytest.fixture
def installed(tmp_path, monkeypatch):
    site = tmp_path / "site"
    (site / "evp_toy_reader-0.1.dist-info").mkdir(parents=True)
    (site / "evp_toy_reader.py").write_text(textwrap.dedent(TOY_READER))
    info = site / "evp_toy_reader-0.1.dist-info"
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: evp-toy-reader\n"
                                   "Version: 0.1\n")
    (info / "entry_points.txt").write_text(
        f"[{READERS_GROUP}]\ntoy = evp_toy_reader:READER\n"
        "broken = evp_toy_reader:BROKEN\n")
    monkeypatch.syspath_prepend(str(site))
    path = tmp_path / "runs.toy"
    path.write_text("".join(f"{m} {0.5 - 0.01 * i + (0.2 if m == 'b' else 0)}\n"
                            for i in range(20) for m in "ab"))
    return path


def test_an_installed_reader_is_found_and_read_like_evps_own(installed):
    with pytest.warns(RuntimeWarning, match="'broken'.*skipped"):
        readers = plugin_readers()
    assert list(readers) == ["toy"]
    results = evp.read_results(installed)  # the plug-ins are loaded once
    assert results.tuner == "toy" and results.score == "loss"
    assert results.minimize and results.direction == "the toy format: lower is better"
    assert results.models == ["a", "b"] and "read by the toy reader" in results.notes
    assert evp.compare_all(results, [1, 5]).shape[0] == 4


def test_the_command_line_reads_it_too(installed, capsys):
    assert main(["curve", str(installed), "--group", "model", "--ns", "1,5"]) == 0
    said = capsys.readouterr()
    assert said.out.splitlines()[1].split()[0] == "a"
    assert "'broken'" in said.err and "skipped" in said.err


def test_without_the_plugin_the_file_is_refused_in_one_line(tmp_path, capsys):
    path = tmp_path / "runs.toy"
    path.write_text("a 0.5\n")
    assert main(["curve", str(path), "--score", "x"]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1
