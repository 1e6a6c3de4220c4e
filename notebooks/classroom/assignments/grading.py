"""What nbgrader does with the classroom assignments beyond its defaults.

``nbgrader_config.py`` (next to this file) plugs these preprocessors into
nbgrader's ``autograde`` and ``generate_feedback``:

``RestoreHiddenTests``
    nbgrader restores every locked cell from its gradebook copy. A test cell
    with hidden tests reaches the student without them, so nbgrader used to warn
    ``Attribute 'checksum' ... has changed!`` for every such cell of every
    submission, untouched or not. This restores a cell that differs only by its
    hidden tests silently; a cell the student edited is still restored with the
    warning.
``GradeEveryCell``
    nbgrader's ``Execute``, which records a grade when the kernel dies (the
    cell that killed it gets the error, every later cell "not run", so their
    tests score zero with the reason) instead of dropping the submission, and
    says a timed-out cell ran past the time limit.
``EnforceRules``
    Reads what the student wrote (outside the kernel, so nothing the notebook
    does can change it) and takes the points of the tests it concerns, with a
    message, where the student imports a module the assignment does not allow
    (``RULES``), calls a forbidden helper, or changes what the tests rely on:
    assigns to a module's attribute (``np.isclose = ...``), rebinds a name the
    assignment's set-up cells define as a module, or reaches Python's internals
    (``exec``, ``globals()``, ``setattr``, dunder attributes, ``get_ipython``),
    or assigns to any attribute (the assignments need none).
``StripAnswerKey``
    For ``generate_feedback``: removes the hidden tests from the feedback and
    shortens the error of a test cell that had any to its message, since the
    traceback quotes the failing line.

Where a rule concerns one solution cell, only its tests lose their points (those
that use the names it defines, and those between it and the next solution cell);
a rule broken in a cell the student added, or a change to what the tests rely on,
costs every test of the notebook.
"""

from __future__ import annotations

import ast
import builtins
import re

from nbformat.notebooknode import NotebookNode
from nbgrader import utils
from nbgrader.api import MissingEntry
from nbgrader.preprocessors import Execute, NbGraderPreprocessor, OverwriteCells
from traitlets import Dict

# Modules a student may import in each assignment (and its submodules); any
# other import costs the tests of the cell it is in. An assignment not listed
# here may import anything.
SCIENTIFIC = {"numpy", "math", "itertools", "functools", "collections", "fractions",
              "statistics", "random", "operator"}
RULES = {
    "expected_max_estimator": {
        "allowed": SCIENTIFIC,
        "why": "this assignment asks you to write the estimator yourself, with numpy "
               "and the standard library",
        "forbidden_names": set(),
    },
    "randomization_test": {
        "allowed": SCIENTIFIC,
        "why": "this assignment asks you to write the test yourself, with numpy and "
               "the standard library (no evp, no scipy.stats)",
        "forbidden_names": {"paired_permutation_test"},
    },
    "reading_tuning_curves": {
        "allowed": SCIENTIFIC | {"evp", "matplotlib"},
        "why": "this assignment needs numpy, matplotlib and evp only",
        "forbidden_names": set(),
    },
}

# Reaching these lets a notebook change what the tests see, or read the answers
# from the teacher's files.
INTERNALS = {"exec", "eval", "compile", "globals", "locals", "vars", "setattr",
             "delattr", "getattr", "__import__", "get_ipython", "breakpoint", "open"}

HIDDEN = re.compile(r"^[ \t]*#+ *BEGIN HIDDEN TESTS.*?"
                    r"^[ \t]*#+ *END HIDDEN TESTS[^\n]*\n?", re.S | re.M)


def strip_hidden_tests(source: str) -> str:
    """`source` without its hidden-test regions, as nbgrader releases it."""
    return HIDDEN.sub("", source)


def _error(ename: str, message: str) -> NotebookNode:
    return NotebookNode(output_type="error", ename=ename, evalue=message,
                        traceback=[f"{ename}: {message}"])


# ------------------------------------------------------------------ autograde


class RestoreHiddenTests(OverwriteCells):
    """nbgrader's ``OverwriteCells``, silent on a cell that lacks only its hidden
    tests (how every student receives it)."""

    def preprocess_cell(self, cell, resources, cell_index):
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id is not None and cell.cell_type == "code":
            try:
                source = self.gradebook.find_source_cell(
                    grade_id, self.notebook_id, self.assignment_id)
            except MissingEntry:
                source = None
            if (source is not None and source.locked
                    and source.source != cell.source
                    and strip_hidden_tests(source.source).strip()
                    == cell.source.strip()):
                cell.source = source.source
        return super().preprocess_cell(cell, resources, cell_index)


class GradeEveryCell(Execute):
    """nbgrader's ``Execute``, which grades the cells it could not run as errors
    with the reason, so that every submission gets a grade."""

    error_on_timeout = Dict(default_value={
        "ename": "TimeLimit",
        "evalue": "this cell ran past the time limit and was stopped "
                  "(an endless loop?)",
        "traceback": ["TimeLimit: this cell ran past the time limit and was stopped "
                      "(an endless loop?)"],
    }).tag(config=True)

    def preprocess(self, nb, resources=None, km=None):
        self._stopped = None
        try:
            return super().preprocess(nb, resources, km)
        except Exception as error:  # the kernel could not be shut down cleanly
            if self._stopped is None:
                raise
            self.log.warning("After the kernel died: %s", error)
            return nb, resources

    def preprocess_cell(self, cell, resources, index):
        if self._stopped is not None:
            if cell.cell_type == "code":
                cell.outputs = [_error("NotRun", f"not run: {self._stopped}")]
            return cell, resources
        try:
            return super().preprocess_cell(cell, resources, index)
        except Exception as error:
            from nbclient.exceptions import CellTimeoutError, DeadKernelError

            if isinstance(error, DeadKernelError):
                reason = ("the kernel died while running this cell (it ran out of "
                          "memory, or the code ended Python)")
            elif isinstance(error, CellTimeoutError):
                reason = "this cell ran past the time limit and could not be stopped"
            else:
                raise
            self.log.warning("%s: cell %d of %s", reason, index,
                             resources.get("nbgrader", {}).get("student"))
            self._stopped = reason.replace("this cell", f"cell {index + 1}")
            cell.outputs = [*cell.get("outputs", []), _error("KernelStopped", reason)]
            return cell, resources


def _is_student_cell(cell) -> bool:
    meta = cell.metadata.get("nbgrader", {})
    return cell.cell_type == "code" and (meta.get("solution") or not meta.get("locked"))


def _bound_names(tree: ast.AST) -> set[str]:
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return names


def _module_aliases(tree: ast.AST) -> dict[str, str]:
    """{name: module} for every ``import x [as y]`` in `tree`."""
    aliases = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                aliases[a.asname or a.name.split(".")[0]] = (
                    a.name if a.asname else a.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom) and node.module:
            for a in node.names:  # `from numpy import random` binds a module too
                aliases.setdefault(a.asname or a.name, f"{node.module}.{a.name}")
    return aliases


def _root(node: ast.AST) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def find_problems(source: str, rules: dict, setup_modules: dict[str, str],
                  modules: set[str]) -> tuple[list[str], list[str]]:
    """What one student cell does that the rules forbid.

    Returns (forbidden, tampering): one-line reasons each. `setup_modules` maps
    the names the set-up cells bind to modules; `modules` is every name bound to
    a module anywhere in the notebook.
    """
    try:
        tree = ast.parse(_drop_magics(source))
    except SyntaxError:
        return [], []  # the kernel reports it, and the tests that need the cell fail
    forbidden, tampering = [], []
    allowed = rules.get("allowed")
    for statement in tree.body:  # top level: a name rebound here is what the tests see
        for name in sorted(_bound_names_shallow(statement) & BUILTINS):
            tampering.append(f"line {statement.lineno} rebinds Python's built-in "
                             f"{name}, which the tests use: give yours another name")
    for node in ast.walk(tree):
        line = getattr(node, "lineno", "?")
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""])
            for name in names:
                top = name.split(".")[0]
                if allowed is not None and top not in allowed:
                    forbidden.append(f"line {line} imports {name}: {rules['why']}")
        if isinstance(node, ast.Name) and node.id in rules.get("forbidden_names", ()):
            forbidden.append(f"line {line} uses {node.id}: {rules['why']}")
        if isinstance(node, ast.Attribute):
            if node.attr in rules.get("forbidden_names", ()):
                forbidden.append(f"line {line} uses {node.attr}: {rules['why']}")
            if node.attr.startswith("__") and node.attr.endswith("__"):
                tampering.append(f"line {line} reaches Python's internals "
                                 f"({node.attr})")
            if isinstance(node.ctx, (ast.Store, ast.Del)):
                # A module's function, or an object passed around: the assignments
                # need no attribute assignment, so none is trusted.
                what = ("part of a module the tests use" if _root(node) in modules
                        else "an attribute of an object")
                tampering.append(f"line {line} changes {ast.unparse(node)}, {what}")
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            for name in sorted(set(node.names) & (BUILTINS | set(setup_modules))):
                tampering.append(f"line {line} declares {name} global, to rebind a "
                                 "name the tests use")
        helpers = set(rules.get("forbidden_names", ()))
        if (isinstance(node, (ast.Import, ast.ImportFrom))
                and {a.name for a in node.names} & helpers):
            forbidden.append(f"line {line} imports a helper the assignment forbids: "
                             f"{rules['why']}")
        if isinstance(node, ast.Name) and node.id in INTERNALS:
            tampering.append(f"line {line} uses {node.id}, which can change what the "
                             "tests see")
        if (isinstance(node, ast.Name) and node.id.startswith("__")
                and node.id != "__name__"):
            tampering.append(f"line {line} reaches Python's internals ({node.id})")
        if (isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del))
                and node.id in setup_modules):
            tampering.append(f"line {line} rebinds {node.id}, which the assignment "
                             f"imports as {setup_modules[node.id]}")
        if (isinstance(node, (ast.FunctionDef, ast.ClassDef))
                and node.name in setup_modules):
            tampering.append(f"line {line} rebinds {node.name}, which the assignment "
                             f"imports as {setup_modules[node.name]}")
        if isinstance(node, ast.Import):
            for a in node.names:
                bound = a.asname or a.name.split(".")[0]
                target = a.name if a.asname else a.name.split(".")[0]
                if bound in setup_modules and setup_modules[bound] != target:
                    tampering.append(f"line {line} rebinds {bound}, which the "
                                     f"assignment imports as {setup_modules[bound]}")
        if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names):
            tampering.append(f"line {line} imports everything from {node.module}, "
                             "which can rebind built-ins the tests use (all, max, "
                             "sum): import the names you need")
        if isinstance(node, ast.ImportFrom):
            for a in node.names:
                bound = a.asname or a.name
                if (bound in setup_modules
                        and setup_modules[bound] != f"{node.module}.{a.name}"):
                    tampering.append(f"line {line} rebinds {bound}, which the "
                                     f"assignment imports as {setup_modules[bound]}")
    return sorted(set(forbidden)), sorted(set(tampering))


BUILTINS = {name for name in dir(builtins) if not name.startswith("_")}


def _bound_names_shallow(statement: ast.stmt) -> set[str]:
    """Names one top-level statement binds in the notebook's namespace (not
    those bound inside the functions or classes it defines)."""
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {statement.name}
    names = set()
    for node in ast.walk(statement):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda,
                             ast.ClassDef)):
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return names


def _drop_magics(source: str) -> str:
    """The cell's Python, with IPython's ``%magic`` and ``!shell`` lines blanked."""
    return "\n".join("" if line.lstrip().startswith(("%", "!")) else line
                     for line in source.splitlines())


class EnforceRules(NbGraderPreprocessor):
    """Take the points of the tests a broken rule concerns, with the reason."""

    def preprocess(self, nb, resources):
        assignment = resources.get("nbgrader", {}).get("assignment")
        rules = RULES.get(assignment, {})
        setup_modules, modules = {}, set()
        for cell in nb.cells:
            if cell.cell_type != "code":
                continue
            try:
                tree = ast.parse(_drop_magics(cell.source))
            except SyntaxError:
                continue
            aliases = _module_aliases(tree)
            modules.update(aliases)
            if not _is_student_cell(cell) and not utils.is_grade(cell):
                setup_modules.update(aliases)
        tests = [c for c in nb.cells if c.cell_type == "code" and utils.is_grade(c)
                 and not utils.is_solution(c)]
        penalties: dict[int, list[str]] = {}
        for number, cell in enumerate(nb.cells, 1):
            if not _is_student_cell(cell):
                continue
            forbidden, tampering = find_problems(cell.source, rules, setup_modules,
                                                 modules)
            if not (forbidden or tampering):
                continue
            grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
            where = (f"your cell '{grade_id}'" if grade_id
                     else f"the cell you added ({number})")
            if tampering or not grade_id:
                concerned = tests
            else:
                try:
                    defined = _bound_names(ast.parse(_drop_magics(cell.source)))
                except SyntaxError:
                    defined = set()
                following = _tests_after(nb.cells, number - 1)
                concerned = [t for t in tests if defined & _used_names(t.source)
                             or any(t is f for f in following)] or tests
            for reason in forbidden + tampering:
                message = f"no points: {where}, {reason}"
                self.log.warning("%s: %s", resources.get("nbgrader", {}).get("student"),
                                 message)
                for test in concerned:
                    penalties.setdefault(id(test), []).append(message)
        for test in tests:
            for message in penalties.get(id(test), []):
                test.outputs.append(_error("GradingRule", message))
        return nb, resources


def _tests_after(cells, index: int) -> list:
    """The test cells that follow cell `index`, up to the next solution cell."""
    found = []
    for cell in cells[index + 1:]:
        if utils.is_solution(cell):
            break
        if cell.cell_type == "code" and utils.is_grade(cell):
            found.append(cell)
    return found


def _used_names(source: str) -> set[str]:
    try:
        tree = ast.parse(_drop_magics(source))
    except SyntaxError:
        return set()
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}


# ------------------------------------------------------------------ feedback


class StripAnswerKey(NbGraderPreprocessor):
    """Remove hidden tests from what goes back to students, and the tracebacks
    that would quote them."""

    def preprocess_cell(self, cell, resources, index):
        if cell.cell_type != "code":
            return cell, resources
        stripped = strip_hidden_tests(cell.source)
        if stripped != cell.source or "HIDDEN TESTS" in cell.source:
            cell.source = stripped.replace("### BEGIN HIDDEN TESTS", "").replace(
                "### END HIDDEN TESTS", "")
            for output in cell.get("outputs", []):
                if output.output_type == "error":
                    output.traceback = [f"{output.ename}: {output.evalue}"]
        return cell, resources
