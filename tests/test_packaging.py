"""The three descriptions of the environment agree: pyproject, environment.yml, lock;
the distribution's name, version, license and citation; and the built wheel installs
in a clean environment and runs."""

import email.parser
import re
import shutil
import subprocess
import sys
import tarfile
import tomllib
import venv
import zipfile
from pathlib import Path

import pytest

import evp
from evp._optional import DISTRIBUTION

ROOT = Path(__file__).resolve().parents[1]


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~\[; ]", requirement.strip(), maxsplit=1)[0].lower()


def pyproject_dependencies() -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    names = {_name(r) for r in project["dependencies"]}
    for extra in project["optional-dependencies"].values():
        names |= {_name(r) for r in extra}
    return names


# Packages whose conda-forge name differs from their PyPI name.
CONDA_TO_PYPI = {"pytorch": "torch"}


def conda_dependencies() -> set[str]:
    import yaml

    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    names = set()
    for entry in env["dependencies"]:
        if isinstance(entry, dict):
            names |= {_name(r) for r in entry["pip"] if not r.startswith("-")}
        elif _name(entry) not in {"python", "pip"}:
            names.add(CONDA_TO_PYPI.get(_name(entry), _name(entry)))
    return names


@pytest.mark.needs("yaml")
def test_environment_yml_names_the_same_direct_dependencies():
    assert conda_dependencies() == pyproject_dependencies()


@pytest.mark.needs("yaml")
def test_environment_yml_uses_python_311():
    import yaml

    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    assert "python=3.11" in env["dependencies"]


def test_lock_pins_every_direct_dependency_exactly():
    pins = {}
    for line in (ROOT / "requirements/lock.txt").read_text().splitlines():
        if match := re.match(r"^([A-Za-z0-9_.\-]+)==(\S+)", line):
            pins[match.group(1).lower().replace("_", "-")] = match.group(2)
    missing = {n.replace("_", "-") for n in pyproject_dependencies()} - set(pins)
    assert not missing, f"not pinned in requirements/lock.txt: {sorted(missing)}"
    assert pins["opda"] == "0.8.0"


def project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def test_the_distribution_has_a_name_of_its_own():
    # "evp" on the package index is an unrelated project (a terminal-emulator
    # binding): evp is distributed under a name of its own, imported as evp.
    assert project()["name"] == DISTRIBUTION == "evp-tuning-curves"


# An install line naming the bare "evp" distribution: pip install evp, 'evp[x]'.
BARE_NAME = re.compile(r"""pip install\b[^\n`#]*?(?<![-\w./])evp(?![-\w])(?!\s*[-=])"""
                       r"""|(?<![-\w.])["']evp\[""")


@pytest.mark.parametrize("text", [
    "pip install evp", "pip install numpy matplotlib evp jupyterlab",
    "pip install 'evp[notebooks]'", 'read_results needs mlflow: "evp[mlflow]"'])
def test_a_bare_install_line_is_found(text):
    assert BARE_NAME.search(text)


@pytest.mark.parametrize("text", [
    "pip install evp-tuning-curves", "pip install 'evp-tuning-curves[notebooks]'",
    'pip install -e ".[notebooks]"', "pip install -e .  # evp and nbgrader"])
def test_an_install_line_of_the_distribution_is_not_found(text):
    assert not BARE_NAME.search(text)


def test_no_install_line_names_the_unrelated_evp():
    files = [ROOT / "README.md", ROOT / "environment.yml", *ROOT.glob("docs/*.md"),
             *ROOT.glob("docs/*.py"), *ROOT.glob("notebooks/**/*.md"),
             *(ROOT / "evp").rglob("*.py")]
    found = []
    for path in files:
        for number, line in enumerate(path.read_text().splitlines(), 1):
            # The one warning that names it: never `pip install evp`.
            line = line.replace("`pip install evp`", "")
            if BARE_NAME.search(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not found, "install lines naming the other evp:\n" + "\n".join(found)


def test_the_version_is_written_in_one_place():
    assert "version" not in project() and "version" in project()["dynamic"]
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"][
        "setuptools"]
    assert setuptools["dynamic"]["version"] == {"attr": "evp.__version__"}
    assert re.fullmatch(r"\d+\.\d+\.\d+", evp.__version__)
    changelog = (ROOT / "CHANGELOG.md").read_text()
    assert re.findall(r"^## (\S+)", changelog, re.M)[0] == evp.__version__


def test_the_license_is_bsd_3_clause():
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("BSD 3-Clause License")
    assert "the evp developers" in text
    assert "Neither the name of the copyright holder" in text
    assert project()["license"] == "BSD-3-Clause"
    assert project()["license-files"] == ["LICENSE"]


@pytest.mark.needs("yaml")
def test_the_citation_cites_the_software_and_the_four_documents():
    import yaml

    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    assert cff["cff-version"] == "1.2.0" and cff["type"] == "software"
    assert str(cff["version"]) == evp.__version__
    assert cff["license"] == "BSD-3-Clause"
    assert all(set(a) & {"name", "family-names"} for a in cff["authors"])
    titles = [r["title"] for r in cff["references"]]
    assert len(titles) == 4
    readme = " ".join((ROOT / "README.md").read_text().split())
    for reference in cff["references"]:
        assert reference["type"] and reference["authors"], reference["title"]
        # each document is the one the README names
        assert reference["title"].split(":")[0] in readme, reference["title"]
    years = sorted(r["year"] for r in cff["references"] if "year" in r)
    assert years == [2019, 2021, 2024]


def run(command, **options) -> subprocess.CompletedProcess:
    done = subprocess.run([str(c) for c in command], capture_output=True, text=True,
                          timeout=600, **options)
    assert done.returncode == 0, f"{command}: {done.stderr[-2000:]}"
    return done


def metadata(text: str):
    return email.parser.Parser().parsestr(text)


@pytest.mark.slow
def test_the_built_wheel_installs_in_a_clean_venv_and_runs(tmp_path):
    """The sdist and wheel are built from a copy of the sources (the checkout gets
    no build folder), their metadata checked, and the wheel installed with its
    dependencies pinned by the lock into a new virtual environment, where
    `evp --version` and `evp curve` run."""
    source = tmp_path / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(ROOT / "evp", source / "evp",
                    ignore=shutil.ignore_patterns("__pycache__"))
    dist = tmp_path / "dist"
    run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps",
         "--no-build-isolation", "-w", dist, source])
    run([sys.executable, "-c", "import sys; from setuptools import build_meta; "
         "build_meta.build_sdist(sys.argv[1])", dist], cwd=source)
    version = evp.__version__
    stem = f"evp_tuning_curves-{version}"
    wheel, sdist = dist / f"{stem}-py3-none-any.whl", dist / f"{stem}.tar.gz"
    assert wheel.is_file() and sdist.is_file(), sorted(p.name for p in dist.iterdir())
    modules = {p.relative_to(ROOT).as_posix() for p in (ROOT / "evp").rglob("*.py")
               if "__pycache__" not in p.parts}

    with zipfile.ZipFile(wheel) as built:
        names = set(built.namelist())
        meta = metadata(built.read(f"{stem}.dist-info/METADATA").decode())
        scripts = built.read(f"{stem}.dist-info/entry_points.txt").decode()
    assert meta["Name"] == DISTRIBUTION and meta["Version"] == version
    assert meta["License-Expression"] == "BSD-3-Clause"
    assert f"{stem}.dist-info/licenses/LICENSE" in names
    assert "evp = evp.cli:main" in scripts
    core = [r for r in meta.get_all("Requires-Dist") if "extra ==" not in r]
    assert sorted(core) == sorted(project()["dependencies"])
    assert modules <= names, f"modules left out of the wheel: {modules - names}"

    with tarfile.open(sdist) as built:
        names = {n.removeprefix(f"{stem}/") for n in built.getnames()}
        info = metadata(built.extractfile(f"{stem}/PKG-INFO").read().decode())
    assert info["Name"] == DISTRIBUTION and info["Version"] == version
    assert {"LICENSE", "README.md", "pyproject.toml"} <= names
    assert modules <= names, f"modules left out of the sdist: {modules - names}"

    clean = tmp_path / "venv"
    venv.create(clean, with_pip=True)
    python, command = clean / "bin" / "python", clean / "bin" / "evp"
    installed = subprocess.run(
        [python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
         "-c", ROOT / "requirements" / "lock.txt", wheel],
        capture_output=True, text=True, timeout=600)
    if installed.returncode != 0:
        pytest.skip("the wheel's dependencies could not be installed (offline?): "
                    + (installed.stderr.strip().splitlines() or ["no message"])[-1])

    work = tmp_path / "work"
    work.mkdir()
    assert run([command, "--version"], cwd=work).stdout.strip() == f"evp {version}"
    where = run([python, "-c", "import evp; print(evp.__file__)"], cwd=work).stdout
    assert Path(where.strip()).is_relative_to(clean)
    rows = [f"{m},{0.3 + 0.01 * i + (0.05 if m == 'b' else 0):.2f}"
            for i in range(20) for m in "ab"]
    (work / "r.csv").write_text("model,score\n" + "\n".join(rows) + "\n")
    table = run([command, "curve", "r.csv", "--score", "score", "--group", "model",
                 "--ns", "1,5,20"], cwd=work).stdout
    assert table.split("\n")[0].split()[:3] == ["model", "n", "curve"]
    assert len(table.strip().splitlines()) == 1 + 2 * 3
    # A core install: a figure needs an extra, said in one line under its name.
    drawn = subprocess.run([command, "curve", "r.csv", "--score", "score", "--group",
                            "model", "--out", "x.png"], cwd=work, capture_output=True,
                           text=True, timeout=300)
    assert drawn.returncode == 2
    assert drawn.stderr.strip().splitlines()[-1] == (
        "evp curve: matplotlib is not installed: pip install "
        "'evp-tuning-curves[notebooks]'")
