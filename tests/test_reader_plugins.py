"""Readers as plug-ins: a reader another package installs (entry-point group
``evp.readers``) is found, tried, and its Results go through read_results and the
command line like evp's own; a broken one is skipped with a warning."""

import sys
import textwrap

import pytest

import evp
from evp.cli import main
from evp.readers import READERS_GROUP, plugin_readers
from evp.readers.registry import PluginError

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


# A plug-in that does, at `STEP` ("sniff" or "read"), what `DOES` says; it reads
# .toy files like the toy reader otherwise.
HOSTILE = '''
import os

import pandas as pd
from evp import Results

STEP, DOES = {step!r}, {does!r}


def act(step, source):
    if step != STEP:
        return None
    if DOES == "exit 0":
        raise SystemExit(0)
    if DOES == "raise":
        raise RuntimeError("the plug-in's own bug")
    if DOES == "edit":
        with open(source, "a") as stream:
            stream.write("c 0.1\\n")
    if DOES == "delete":
        os.remove(source)
    if DOES == "junk":
        return {{"model": ["a"], "loss": [0.1]}}
    return None


class Hostile:
    def sniff(self, source):
        act("sniff", source)
        return str(source).endswith(".toy")

    def read(self, source, **options):
        with open(source) as lines:
            rows = [line.split() for line in lines if line.strip()]
        junk = act("read", source)
        if junk is not None:
            return junk
        frame = pd.DataFrame({{"model": [m for m, _ in rows],
                              "loss": [float(s) for _, s in rows]}})
        return Results(frame, score="loss", group="model", minimize=True,
                       direction="the toy format: lower is better",
                       source=str(source))


READER = Hostile()
'''


def install_hostile(tmp_path, monkeypatch, step, does, module="evp_hostile"):
    """Install a hostile plug-in under `module`; the .toy file it is given."""
    site = tmp_path / "site"
    info = site / f"{module}-0.1.dist-info"
    info.mkdir(parents=True)
    (site / f"{module}.py").write_text(HOSTILE.format(step=step, does=does))
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module}\n"
                                   "Version: 0.1\n")
    (info / "entry_points.txt").write_text(
        f"[{READERS_GROUP}]\nhostile = {module}:READER\n")
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.delitem(sys.modules, module, raising=False)
    data = tmp_path / "data"
    data.mkdir()
    path = data / "runs.toy"
    path.write_text("".join(f"{m} {0.5 - 0.01 * i}\n" for i in range(10) for m in "ab"))
    return path


@pytest.mark.parametrize(("step", "does", "said"), [
    ("sniff", "exit 0", "failed in sniff (SystemExit: 0)"),
    ("read", "exit 0", "failed in read (SystemExit: 0)"),
    ("sniff", "raise", "failed in sniff (RuntimeError: the plug-in's own bug)"),
    ("read", "raise", "failed in read (RuntimeError: the plug-in's own bug)"),
    ("read", "junk", "returned {'model': ['a'], 'loss': [0.1]}, not evp.Results"),
    ("read", "edit", "changed"),
    ("sniff", "edit", "changed"),
    ("read", "delete", "changed"),
])
def test_a_hostile_plugin_is_one_line_naming_it_and_exit_2(tmp_path, monkeypatch,
                                                           capsys, step, does, said):
    path = install_hostile(tmp_path, monkeypatch, step, does)
    status = main(["curve", str(path), "--group", "model", "--ns", "1,5"])
    out, err = capsys.readouterr()
    assert status == 2, err
    assert out == ""  # nothing of the plug-in's results is used
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("evp curve: RESULTS: the evp reader 'hostile' "
                               "(hostile = evp_hostile:READER, from the package "
                               "evp_hostile 0.1)")
    assert said in lines[0] and "uninstall" in lines[0]


def test_the_library_raises_a_plugin_error(tmp_path, monkeypatch):
    path = install_hostile(tmp_path, monkeypatch, "read", "edit", "evp_hostile2")
    with pytest.raises(PluginError, match=r"'hostile'.*changed .*runs\.toy in read"):
        evp.read_results(path)


def test_a_well_behaved_plugin_still_reads(tmp_path, monkeypatch):
    path = install_hostile(tmp_path, monkeypatch, "none", "none", "evp_hostile3")
    assert evp.read_results(path).tuner == "hostile"


# A plug-in with options: "scale" (its own: a flag of every command that reads
# results), "sep" (evp's file reader's too: the one --sep serves both) and
# "method" (curve's own flag: the plug-in's is a keyword of read_results only).
SCALED = '''
import pandas as pd
from evp import Results


class Scaled:
    options = {"scale": "1", "sep": " ", "method": "plain"}

    def sniff(self, source):
        return str(source).endswith(".scaled")

    def read(self, source, *, score=None, scale="1", sep=" ", method="plain"):
        with open(source) as lines:
            rows = [line.split(sep) for line in lines if line.strip()]
        frame = pd.DataFrame({"model": [m for m, _ in rows],
                              "acc": [float(s) * float(scale) for _, s in rows]})
        return Results(frame, score="acc", group="model", minimize=False,
                       direction="the scaled format: higher is better",
                       notes=(f"scale {scale}, sep {sep!r}, method {method}",),
                       source=str(source))


READER = Scaled()
'''


def test_a_plugins_options_are_flags_of_the_command_line(tmp_path, monkeypatch,
                                                         capsys):
    site = tmp_path / "site"
    info = site / "evp_scaled-0.1.dist-info"
    info.mkdir(parents=True)
    (site / "evp_scaled.py").write_text(SCALED)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: evp-scaled\n"
                                   "Version: 0.1\n")
    (info / "entry_points.txt").write_text(
        f"[{READERS_GROUP}]\nscaled = evp_scaled:READER\n")
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.delitem(sys.modules, "evp_scaled", raising=False)
    path = tmp_path / "runs.scaled"
    scores = {"a": [0.1, 0.2, 0.4], "b": [0.3, 0.5, 0.6]}
    path.write_text("".join(f"{m};{s}\n" for m, ss in scores.items() for s in ss))
    assert main(["curve", str(path), "--ns", "1", "--method", "none",
                 "--scale", "10", "--sep", ";"]) == 0
    out, err = capsys.readouterr()
    # At n = 1 the expected best is the mean score, here of the scaled scores.
    for model, ss in scores.items():
        line = next(row for row in out.splitlines() if row.split()[0] == model)
        assert float(line.split()[2]) == pytest.approx(10 * sum(ss) / 3, abs=1e-4)
    assert "scale 10, sep ';', method plain" in err
    # Its own option in every command's help; curve's --method stays curve's.
    with pytest.raises(SystemExit):
        main(["report", "--help"])
    assert "--scale VALUE" in capsys.readouterr().out
    # The library takes all three.
    results = evp.read_results(path, sep=";", scale="2", method="m")
    assert results.frame["acc"].max() == pytest.approx(1.2)
    assert "method m" in results.notes[0]


def _install(tmp_path, monkeypatch, module: str, code: str, entries: str):
    """Install `code` as the package `module`, its entry points `entries`."""
    site = tmp_path / f"site-{module}"
    info = site / f"{module}-0.1.dist-info"
    info.mkdir(parents=True)
    (site / f"{module}.py").write_text(textwrap.dedent(code))
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module}\n"
                                   "Version: 0.1\n")
    (info / "entry_points.txt").write_text(f"[{READERS_GROUP}]\n{entries}\n")
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.delitem(sys.modules, module, raising=False)


# Plug-ins whose options would stand for the command line's own names, and one
# whose options attribute raises.
RESERVED = '''
class Reserved:
    options = {"command": "x", "names": "y", "handler": "z"}

    def sniff(self, source):
        return str(source).endswith(".reserved")

    def read(self, source, **options):
        raise RuntimeError("never asked")


class Raising:
    @property
    def options(self):
        raise RuntimeError("options exploded")

    def sniff(self, source):
        return False

    def read(self, source, **options):
        raise RuntimeError("never asked")


RESERVED = Reserved()
RAISING = Raising()
'''


def test_a_plugin_with_reserved_options_is_skipped_and_breaks_no_command(
        tmp_path, monkeypatch, capsys):
    _install(tmp_path, monkeypatch, "evp_reserved", RESERVED,
             "reserved = evp_reserved:RESERVED\nraising = evp_reserved:RAISING")
    # A command that reads no results hears nothing of the plug-ins.
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    out, err = capsys.readouterr()
    assert out.startswith("evp ") and err == ""
    # A command that reads results works, and says once why each is skipped.
    path = tmp_path / "runs.csv"
    path.write_text("model,acc\na,0.5\na,0.6\nb,0.7\nb,0.4\n")
    assert main(["curve", str(path), "--score", "acc", "--group", "model",
                 "--ns", "1"]) == 0
    out, err = capsys.readouterr()
    assert [row.split()[0] for row in out.splitlines()[1:]] == ["a", "b"]
    warned = [line for line in err.splitlines() if "warning:" in line]
    assert len(warned) == 2, err
    assert ("'reserved'" in warned[1] and "'command', 'handler', 'names'" in warned[1]
            and "evp keeps for itself" in warned[1] and warned[1].endswith("skipped"))
    assert ("'raising'" in warned[0] and "options exploded" in warned[0]
            and warned[0].endswith("skipped"))
    with pytest.warns(RuntimeWarning, match="'reserved'.*skipped"):
        assert list(plugin_readers()) == []


# A plug-in that reads DataFrames, and changes the one it is given in place.
MUTATING = '''
import pandas as pd
from evp import Results


class Mutating:
    def sniff(self, source):
        return isinstance(source, pd.DataFrame) and "toy_loss" in source

    def read(self, source, **options):
        source["toy_loss"] = source["toy_loss"].abs()  # the user's frame changed
        return Results(source.copy(), score="toy_loss", minimize=True,
                       direction="the toy: lower is better", source="a DataFrame")


READER = Mutating()
'''


def test_a_plugin_that_changes_the_users_dataframe_is_caught(tmp_path, monkeypatch):
    import pandas as pd

    _install(tmp_path, monkeypatch, "evp_mutating", MUTATING,
             "mutating = evp_mutating:READER")
    frame = pd.DataFrame({"toy_loss": [0.3, -0.2, 0.25]})
    with pytest.raises(PluginError, match=r"'mutating'.*changed the DataFrame it "
                                          r"was given in read, so its results are "
                                          r"not used"):
        evp.read_results(frame)
