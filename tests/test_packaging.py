"""The three descriptions of the environment agree: pyproject, environment.yml, lock."""

import re
import tomllib
from pathlib import Path

import pytest

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
