"""The README as a newcomer meets it: a fresh venv with the package alone
(`pip install -e .`), the 30-second example's commands verbatim, and a command that
would draw naming the extra to install instead of a traceback."""

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LOCK = ROOT / "requirements" / "lock.txt"


def readme_block(heading: str) -> list[str]:
    """The commands of the first bash block under `heading` in the README."""
    text = (ROOT / "README.md").read_text()
    section = text[text.index(heading):]
    start = section.index("```bash\n") + len("```bash\n")
    block = section[start: section.index("```", start)]
    return [line for line in block.splitlines() if line and not line.startswith("#")]


@pytest.fixture(scope="module")
def core_venv(tmp_path_factory):
    """A new venv holding evp and its core dependencies only, from the lock."""
    venv = tmp_path_factory.mktemp("newcomer") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    pip = [str(python), "-m", "pip", "install", "--quiet",
           "--disable-pip-version-check", "-c", str(LOCK)]
    # The build tools from the lock, then evp without build isolation, as the
    # Makefile installs it (no index needed beyond the packages themselves).
    for args in (["setuptools", "wheel"], ["--no-build-isolation", "-e", str(ROOT)]):
        done = subprocess.run(pip + args, capture_output=True, text=True,
                              timeout=600)
        if done.returncode != 0:
            pytest.skip(f"could not install into a fresh venv (no package index?): "
                        f"{done.stderr.strip().splitlines()[-1:]}")
    return venv


def test_the_30_second_example_from_a_core_install(core_venv, tmp_path):
    shared = ROOT.parent / "shared" / "data"
    if "EVP_DATA_DIR" not in os.environ and not shared.is_dir():
        pytest.skip("needs the Reuters data: set EVP_DATA_DIR")
    # As after `source .venv/bin/activate`.
    env = dict(os.environ, PATH=f"{core_venv / 'bin'}{os.pathsep}{os.environ['PATH']}",
               VIRTUAL_ENV=str(core_venv))
    env.setdefault("EVP_DATA_DIR", str(shared))
    env.pop("PYTHONPATH", None)
    commands = readme_block("## A 30-second example")
    assert [c.split()[:2] for c in commands] == [
        ["python", "-c"], ["evp", "curve"], ["evp", "compare"]]
    ran = [subprocess.run(shlex.split(c), cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=300) for c in commands]
    assert (tmp_path / "reuters.csv").is_file(), ran[0].stderr
    # The figure needs the notebooks extra: said in one line, not a traceback.
    assert ran[1].returncode == 2
    assert ("evp curve: matplotlib is not installed: pip install "
            "'evp-tuning-curves[notebooks]'" in ran[1].stderr.splitlines())
    assert "Traceback" not in ran[1].stderr
    # The table alone needs nothing more.
    assert ran[2].returncode == 0, ran[2].stderr
    assert "lstm beats mlp" in ran[2].stdout
    done = subprocess.run(["python", "-c", "import matplotlib"], env=env,
                          capture_output=True, text=True)
    assert done.returncode != 0  # the venv is core-only indeed
