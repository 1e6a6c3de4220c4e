"""The layers of ARCHITECTURE.md, checked over every module's imports (those inside
functions too): readers → Results, statistics on plain arrays, tables, presentation.
"""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "evp"

LAYERS = {
    "foundation": {"_validation", "_workspace", "_display", "_output",
                   "_escape", "_numbers", "_optional", "_columns"},
    "statistics": {"estimators", "bands", "comparison", "parametric",
                   "significance", "simulate",
                   "anytime", "planning", "multiple", "sequential", "_step_cdf",
                   "_order_statistics"},
    "results": {"results"},
    "readers": {"readers", "readers.files", "readers.tuners", "readers.sklearn",
                "readers.mlflow", "readers.wandb", "readers.registry",
                "readers.kerastuner", "readers.smac", "readers._options",
                "readers._policy", "readers._roles", "readers._trials",
                "readers.testing", "datasets", "tuners"},
    "tables": {"tables", "ranking"},
    "analyses": {"analyses", "analyses.wording", "watching"},
    "monitoring": {"monitoring"},
    "presentation": {"plot", "latex", "report", "cli", "notebook", "runner"},
    "search": {"search", "search.runner", "search.sst5", "search.tabular"},
}
BELOW = {
    "foundation": set(),
    "statistics": {"foundation"},
    "results": {"foundation"},
    "readers": {"foundation", "results", "statistics"},
    "tables": {"foundation", "statistics", "results"},
    "analyses": {"foundation", "statistics", "results", "tables"},
    "monitoring": {"foundation", "statistics", "results", "readers", "tables",
                   "analyses"},
    "presentation": {"foundation", "statistics", "results", "readers", "tables",
                     "analyses", "monitoring", "search"},
    "search": {"foundation", "readers"},
}
# Presentation modules a presentation module must not import.
APART = {
    "plot": {"latex", "report", "cli", "notebook", "runner"},
    "latex": {"plot", "report", "cli", "notebook", "runner"},
    "report": {"cli", "notebook", "runner"},
    "notebook": {"cli", "runner"},
    "runner": {"cli", "notebook"},
}
# The one climb allowed: an analysis' .plot() draws its tables with evp.plot
# (scikit-learn's Display pattern), imported inside the method.
DRAWS = {"analyses": {"plot"}, "watching": {"plot"}}
PRIVATE = {"_order_statistics": {"bands", "comparison"},
           "_step_cdf": {"bands", "comparison", "estimators"}}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts) or "__init__"


def evp_imports(path: Path) -> set[str]:
    """The evp modules `path` imports, as names relative to the package
    (``from evp import tables`` → ``tables``)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module == "evp":
                found |= {alias.name for alias in node.names}
            elif node.module.startswith("evp."):
                found.add(node.module.removeprefix("evp."))
        elif isinstance(node, ast.Import):
            found |= {alias.name.removeprefix("evp.") for alias in node.names
                      if alias.name.startswith("evp.")}
    return found


def layer_of(name: str) -> str:
    for layer, members in LAYERS.items():
        if name in members:
            return layer
    # The readers are a package: a new reader's module is of their layer (a
    # new reader is its module, one registry line and its test).
    if name.startswith("readers."):
        return "readers"
    raise AssertionError(f"evp.{name} belongs to no layer: add it to "
                         "ARCHITECTURE.md and to LAYERS here")


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def test_every_module_has_a_layer():
    for name in MODULES:
        if name != "__init__":
            layer_of(name)


@pytest.mark.parametrize("name", sorted(set(MODULES) - {"__init__"}))
def test_no_module_imports_a_layer_above_it(name):
    layer = layer_of(name)
    for imported in evp_imports(MODULES[name]):
        target = layer_of(imported)
        if imported in DRAWS.get(name, set()):
            continue
        assert target == layer or target in BELOW[layer], (
            f"evp.{name} ({layer}) imports evp.{imported} ({target}), a layer above "
            "or beside it")
        assert imported not in APART.get(name, set()), (
            f"evp.{name} imports evp.{imported}: they are kept apart")


def test_the_package_imports_no_presentation():
    for imported in evp_imports(MODULES["__init__"]):
        assert layer_of(imported) != "presentation", imported


def test_the_exact_cores_are_imported_only_by_their_users():
    for name, path in MODULES.items():
        for core, users in PRIVATE.items():
            if core in evp_imports(path):
                assert name in users, f"evp.{name} imports evp.{core}"


def test_plot_draws_tables_and_computes_no_statistics():
    tree = ast.parse(MODULES["plot"].read_text())
    defined = [node.name for node in tree.body if isinstance(node, ast.FunctionDef)]
    assert not [name for name in defined if "table" in name]
    statistics = LAYERS["statistics"]
    assert not evp_imports(MODULES["plot"]) & statistics


def test_no_metadata_rides_in_dataframe_attrs():
    for name, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text())):
            assert not (isinstance(node, ast.Attribute) and node.attr == "attrs"), (
                f"evp.{name}, line {node.lineno}: .attrs")


def test_the_checker_sees_a_violation(tmp_path):
    """The import reader finds imports at the top, inside functions, and of the
    package itself: what the layer test relies on."""
    path = tmp_path / "m.py"
    path.write_text("from evp import tables\n"
                    "def f():\n    from evp.plot import theme\n    import evp.cli\n")
    assert evp_imports(path) == {"tables", "plot", "cli"}
    assert layer_of("plot") not in BELOW["tables"]


@pytest.mark.parametrize("name", ["cli", "report"])
def test_the_command_line_and_the_report_reach_statistics_only_through_analyses(
        name):
    """What the command line prints and the report lays out is computed and
    worded once, in evp.analyses: neither imports a statistics or table module."""
    below = LAYERS["statistics"] | LAYERS["tables"]
    assert not evp_imports(MODULES[name]) & below, sorted(
        evp_imports(MODULES[name]) & below)
