"""`evp reproduce`: the paper's runs, in place, only on success, without churn."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.needs("papermill", "nbformat")

ROOT = Path(__file__).resolve().parents[1]


def evp(*args, cwd):
    return subprocess.run([sys.executable, "-m", "evp.cli", *map(str, args)],
                          capture_output=True, text=True, cwd=cwd, timeout=600)


def write_notebook(path, name, body):
    """A small analysis notebook that writes one figure through evp.notebook."""
    import nbformat

    cells = [
        nbformat.v4.new_code_cell("fail = False\nfigures_dir = None",
                                  metadata={"tags": ["parameters"]}),
        nbformat.v4.new_code_cell(
            "import matplotlib\nmatplotlib.use('Agg')\n"
            "import matplotlib.pyplot as plt\n"
            "from evp.notebook import progress, save, start\n"
            f"FIGURES = start({name!r}, figures_dir)\n"
            "for _ in progress(range(3)):\n    pass\n"
            "fig, ax = plt.subplots()\n"
            "ax.plot([0, 2] if fail else [0, 1])\n"
            f"save(fig, FIGURES / '{name}-line')\n"
            f"print('{name} ran')"),
        nbformat.v4.new_code_cell(body),
    ]
    for i, cell in enumerate(cells):
        cell["id"] = f"{name}-{i}"
    notebook = nbformat.v4.new_notebook(cells=cells, metadata={"kernelspec": {
        "name": "python3", "display_name": "Python 3", "language": "python"}})
    path.write_text(nbformat.writes(notebook))


@pytest.fixture
def project(tmp_path):
    """A project with two notebooks, executed once: one can be told to fail."""
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "figures").mkdir()
    write_notebook(tmp_path / "notebooks" / "steady.ipynb", "steady", "print('done')")
    write_notebook(
        tmp_path / "notebooks" / "fragile.ipynb", "fragile",
        "if fail:\n"
        "    fig, ax = plt.subplots()\n"
        "    save(fig, FIGURES / 'fragile-extra')\n"
        "    raise ValueError('fail: told to fail')")
    done = evp("reproduce", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    return tmp_path


def snapshot(folder):
    return {p.relative_to(folder): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def test_a_failing_notebook_leaves_its_files_untouched(project):
    before = snapshot(project)
    done = evp("reproduce", "-p", "fail=True", cwd=project)
    assert done.returncode == 2
    failures = [line for line in done.stderr.splitlines() if "failed" in line]
    assert failures == [
        "evp reproduce: failed: fragile: ValueError: fail: told to fail"]
    after = snapshot(project)
    for name in ("notebooks/fragile.ipynb", "figures/fragile-line.png",
                 "figures/fragile-line.pdf"):
        assert after[Path(name)] == before[Path(name)], name
    assert not (project / "figures" / "fragile-extra.png").exists()
    # The other notebook still ran, with the parameter (papermill records it).
    assert "executed 1 of 2 notebook(s)" in done.stdout
    steady = Path("notebooks/steady.ipynb")
    assert after[steady] != before[steady]
    assert b'"fail": true' in after[steady]


def test_a_rerun_rewrites_nothing(project):
    before = snapshot(project)
    done = evp("reproduce", cwd=project)
    assert done.returncode == 0, done.stderr
    assert "0 changed" in done.stdout
    assert snapshot(project) == before
    text = (project / "notebooks" / "steady.ipynb").read_text()
    # No timestamps, durations or progress bars are kept.
    for churn in ("start_time", "end_time", "duration", "iopub", "it/s", "\\r"):
        assert churn not in text, churn
    assert "steady ran" in text
    # Nor does the kernel's log reach the user (its transport warning, say).
    assert "without encryption" not in done.stdout + done.stderr
    assert "IPKernelApp" not in done.stdout + done.stderr
    # A parameter that no notebook takes is refused before anything runs.
    refused = evp("reproduce", "-p", "nope=1", cwd=project)
    assert refused.returncode == 2
    assert refused.stderr.strip() == ("evp reproduce: -p nope: no notebook run here "
                                      "takes a parameter 'nope'")
    assert snapshot(project) == before


def _mirror():
    value = os.environ.get("EVP_DATA_DIR")
    shared = ROOT.parent / "shared" / "data"
    return value or (str(shared) if shared.is_dir() else None)


def test_a_clean_reproduce_leaves_git_status_clean(tmp_path):
    """The paper's runs of real notebooks, copied with their figures and data into
    a fresh repository: rerunning them changes no file."""
    mirror = _mirror()
    if mirror is None:
        pytest.skip("needs the offline data mirror: set EVP_DATA_DIR")
    names = ["deberta_tutorial", "mean_vs_median", "sst_case_studies"]
    (tmp_path / "notebooks").mkdir()
    for name in names:
        shutil.copy(ROOT / "notebooks" / f"{name}.ipynb", tmp_path / "notebooks")
    shutil.copytree(ROOT / "figures", tmp_path / "figures")
    shutil.copytree(ROOT / "data", tmp_path / "data")
    git = ["git", "-c", "user.name=evp", "-c", "user.email=evp@localhost"]
    for command in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "paper runs"]):
        subprocess.run(git + command, cwd=tmp_path, check=True)
    done = subprocess.run(
        [sys.executable, "-m", "evp.cli", "reproduce",
         *[arg for name in names for arg in ("--only", name)]],
        cwd=tmp_path, capture_output=True, text=True, timeout=600,
        env=dict(os.environ, EVP_DATA_DIR=mirror))
    assert done.returncode == 0, done.stderr
    status = subprocess.run(["git", "status", "--porcelain"], cwd=tmp_path,
                            capture_output=True, text=True, check=True).stdout
    assert status == ""
