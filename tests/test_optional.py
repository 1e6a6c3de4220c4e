"""Optional packages: a core install (numpy, scipy, pandas, pooch) works without
them, and a missing one is said in one line naming the extra that installs it."""

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from evp import read_results
from evp._optional import (
    DISTRIBUTION,
    EXTRAS,
    import_optional_dependency,
    missing_message,
)
from evp.cli import main
from evp.readers.files import BIG_FILE

ROOT = Path(__file__).resolve().parents[1]


def without(monkeypatch, package: str) -> None:
    """Make `package` unimportable, as on a core install."""
    for name in [m for m in sys.modules if m.split(".")[0] == package]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, package, None)


def big_csv(path: Path) -> Path:
    """A CSV just over the big-file size: two models' scores and a wide column of
    notes the analysis does not need."""
    notes = "x" * 40_000
    rows = BIG_FILE // len(notes) + 10
    with open(path, "w") as out:
        out.write("model,score,notes\n")
        for i in range(rows):
            out.write(f"{'ab'[i % 2]},{(i % 97) / 97:.4f},{notes}\n")
    assert path.stat().st_size > BIG_FILE
    return path


def test_a_core_install_reads_a_csv_over_64_mib_without_tqdm(tmp_path, monkeypatch,
                                                             capsys):
    path = big_csv(tmp_path / "big.csv")
    without(monkeypatch, "tqdm")
    with pytest.warns(UserWarning, match=r"read 2 of its 3 columns"):
        results = read_results(path, score="score", group="model")
    frame = results.frame
    assert len(frame) == BIG_FILE // 40_000 + 10
    assert set(frame["model"]) == {"a", "b"}
    # The command line too: a table, no progress bar, no message about tqdm.
    assert main(["curve", str(path), "--score", "score", "--group", "model",
                 "--ns", "1,10", "--method", "none"]) == 0
    out, err = capsys.readouterr()
    assert "tqdm" not in out + err and "Traceback" not in err


def test_without_tqdm_a_progress_bar_is_none_that_still_iterates(monkeypatch):
    from evp._workspace import progress

    without(monkeypatch, "tqdm")
    bar = progress(["x", "y"], unit="notebook")
    assert list(bar) == ["x", "y"]
    with progress(total=10, unit="B") as counting:
        counting.update(4)
        counting.set_description("reading")
        counting.set_postfix(best="0.5")


def test_a_missing_optional_package_is_one_line_naming_its_extra(monkeypatch):
    without(monkeypatch, "tqdm")
    with pytest.raises(ImportError) as raised:
        import_optional_dependency("tqdm.auto")
    assert str(raised.value) == ("tqdm is not installed: pip install "
                                 "'evp-tuning-curves[notebooks]'")
    assert raised.value.name == "tqdm"
    assert import_optional_dependency("tqdm.auto", errors="ignore") is None
    without(monkeypatch, "pyarrow")
    with pytest.raises(ImportError, match=r"^reading x\.parquet needs pyarrow: pip "
                                          r"install 'evp-tuning-curves\[parquet\]'$"):
        import_optional_dependency("pyarrow", purpose="reading x.parquet")


def test_the_command_line_says_the_extra_for_a_package_missing_deep_inside(
        monkeypatch, capsys, tmp_path):
    """A bare "No module named ..." raised anywhere under a command is said as the
    helper says it, in one line."""
    without(monkeypatch, "papermill")
    (tmp_path / "r.csv").write_text("score\n0.5\n0.6\n")
    status = main(["run", "reuters_point_estimates_and_bootstrap",
                   str(tmp_path / "r.csv"), "--score", "score",
                   "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err.strip()
    assert status == 2
    assert err.endswith(missing_message("papermill")), err
    assert len(err.splitlines()) == 1


def test_a_package_broken_inside_its_own_import_is_not_called_missing(
        tmp_path, monkeypatch):
    (tmp_path / "evp_broken_probe.py").write_text("import evp_absent_dependency\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ModuleNotFoundError, match="evp_absent_dependency"):
        import_optional_dependency("evp_broken_probe", extra="notebooks")


def test_every_extra_named_is_one_of_pyproject():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["name"] == DISTRIBUTION
    unknown = {p: e for p, e in EXTRAS.items()
               if e not in project["optional-dependencies"]}
    assert not unknown, f"extras not in pyproject.toml: {unknown}"


def test_bad_errors_argument_is_refused():
    with pytest.raises(ValueError, match="errors"):
        import_optional_dependency("tqdm", errors="warn")


# Without matplotlib, seaborn's absence is never reached: that case needs it.
@pytest.mark.parametrize("package", [
    "matplotlib", pytest.param("seaborn", marks=pytest.mark.needs("matplotlib"))])
def test_without_matplotlib_a_figure_is_one_line_naming_the_extra(monkeypatch,
                                                                   package):
    """Drawing needs the notebooks extra; a core install says so in one line, for
    evp.plot, evp.report, evp.notebook and evp.analyses alike (their imports of
    matplotlib and seaborn are lazy: importing them needs neither)."""
    import evp.analyses
    import evp.notebook
    import evp.plot

    without(monkeypatch, package)
    said = f"{package} is not installed: pip install 'evp-tuning-curves[notebooks]'"
    with pytest.raises(ImportError) as raised:
        evp.plot.set_theme()
    assert str(raised.value) == said and raised.value.name == package
    if package == "matplotlib":
        for draw in (lambda: evp.plot.plot_tuning_curves({"a": [0.1, 0.3, 0.2]}),
                     lambda: evp.notebook.budget_axis(None, 10),
                     lambda: evp.analyses.Tail.__new__(evp.analyses.Tail).plot()):
            with pytest.raises(ImportError) as raised:
                draw()
            assert str(raised.value) == said


def test_evps_drawing_modules_import_without_matplotlib():
    code = ("import sys\n"
            "sys.modules['matplotlib'] = sys.modules['seaborn'] = None\n"
            "import evp.plot, evp.report, evp.notebook, evp.analyses\n"
            "try:\n"
            "    evp.plot.plot_tuning_curves({'a': [0.1, 0.3, 0.2]})\n"
            "except ImportError as error:\n"
            "    print(error)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True,
                          text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout == ("matplotlib is not installed: pip install "
                           "'evp-tuning-curves[notebooks]'\n")
