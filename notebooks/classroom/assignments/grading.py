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
import sys

from nbformat.notebooknode import NotebookNode
from nbgrader import utils
from nbgrader.api import MissingEntry
from nbgrader.preprocessors import Execute, NbGraderPreprocessor, OverwriteCells
from traitlets import Dict

# Modules a student may import in each assignment (and its submodules); any
# other import costs the tests of the cell it is in. An assignment not listed
# here may import anything.
# Python's standard library, less the modules that reach its internals.
INTERNAL_MODULES = {"builtins", "ctypes", "importlib", "gc", "inspect", "code", "codeop",
                    "runpy", "_thread", "sys"}
STANDARD = set(getattr(sys, "stdlib_module_names", ())) - INTERNAL_MODULES
SCIENTIFIC = {"numpy", "math", "itertools", "functools", "collections", "fractions",
              "statistics", "random", "operator"} | STANDARD
# Packages the grading kernel cannot import at all (the sandbox hides them): evp's
# expected_max and paired_permutation_test answer the coding assignments, scipy's
# permutation_test and ttest_rel too; nbgrader is the grader's.
ANSWERS = {"evp", "scipy", "sklearn", "statsmodels", "nbgrader"}
RULES = {
    "expected_max_estimator": {
        "allowed": SCIENTIFIC,
        "why": "this assignment asks you to write the estimator yourself, with numpy "
               "and the standard library",
        "forbidden_names": set(),
        "hidden": ANSWERS,
    },
    "randomization_test": {
        "allowed": SCIENTIFIC,
        "why": "this assignment asks you to write the test yourself, with numpy and "
               "the standard library (no evp, no scipy.stats)",
        "forbidden_names": {"paired_permutation_test"},
        "hidden": ANSWERS,
    },
    "reading_tuning_curves": {
        "allowed": SCIENTIFIC | {"evp", "matplotlib"},
        "why": "this assignment needs numpy, matplotlib and evp only",
        "forbidden_names": set(),
        "hidden": {"nbgrader"},
    },
    "bootstrap_and_cross_validation": {
        "allowed": SCIENTIFIC,
        "why": "this assignment asks you to write cross-validation, the bootstrap "
               "and the t statistic yourself, with numpy and the standard library",
        "forbidden_names": set(),
        "hidden": ANSWERS,
    },
}

# Reaching these lets a notebook change what the tests see, or read the answers
# from the teacher's files.
INTERNALS = {"exec", "eval", "compile", "globals", "locals", "vars", "setattr",
             "delattr", "getattr", "__import__", "get_ipython", "breakpoint",
             "__builtins__", "builtins"}

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

    def __init__(self, *args, **kwargs):
        # Every kernel in the sandbox (sandbox.py), unless the teacher names another
        # manager; nbgrader's Execute would set jupyter's plain one here.
        if "kernel_manager_class" not in kwargs:
            from sandbox import SandboxKernelManager

            kwargs["kernel_manager_class"] = SandboxKernelManager
        super().__init__(*args, **kwargs)

    def create_kernel_manager(self):
        """The sandbox's kernel manager (nbgrader_config.py), told which packages
        this assignment's kernel must not import."""
        km = super().create_kernel_manager()
        if hasattr(km, "hidden"):
            rules = RULES.get(self._assignment, {})
            km.hidden = set(rules.get("hidden", km.hidden))
            km.shown = set(rules.get("allowed") or ()) - km.hidden
        return km

    def preprocess(self, nb, resources=None, km=None):
        self._assignment = (resources or {}).get("nbgrader", {}).get("assignment")
        self._stopped = None
        try:
            return super().preprocess(nb, resources, km)
        except Exception as error:  # the kernel could not be shut down cleanly
            if self._stopped is None:
                raise
            self.log.warning("After the kernel died: %s", error)
            return nb, resources
        finally:  # the sandbox's scratch folder, whatever happened
            remove = getattr(getattr(self, "km", None), "remove_workdir", None)
            if remove is not None:
                remove()

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
                  modules: set[str]) -> tuple[list[str], list[str], list[str]]:
    """What one student cell does that the rules concern.

    Returns (cheats, forbidden, notes), one-line reasons each:

    - cheats: reaching for what decides the grade, which zeroes the notebook:
      Python's internals (``exec``, ``getattr``, dunder attributes), a change to a
      module the tests use (``np.isclose = ...``), a string naming the course's
      files (``gradebook``, ``source/``, ``nbgrader_config``) or an internal
      (``"exec"``, ``"__builtins__"``), an ``__eq__`` that is always true;
    - forbidden: an import or a helper the assignment does not allow, which costs
      the tests of the cell;
    - notes: harmless code that shadows a name (``for round in ...``, ``from numpy
      import *``): said in the feedback, costs nothing, since the tests run on
      their own names and the grader compares their results outside the kernel.

    `setup_modules` maps the names the set-up cells bind to modules; `modules` is
    every name bound to a module anywhere in the notebook.
    """
    try:
        tree = ast.parse(_drop_magics(source))
    except SyntaxError:
        return [], [], []  # the kernel reports it; the tests that need the cell fail
    cheats, forbidden, notes = [], [], []
    allowed = rules.get("allowed")
    modules = set(modules) | _module_copies(tree, set(modules))
    for statement in tree.body:  # top level: a name rebound here shadows Python's
        for name in sorted(_bound_names_shallow(statement) & BUILTINS):
            notes.append(f"line {statement.lineno} rebinds Python's built-in {name} "
                         "(no points lost: the tests do not rely on it, but later "
                         "cells see yours; another name is safer)")
    helpers = set(rules.get("forbidden_names", ()))
    for node in ast.walk(tree):
        line = getattr(node, "lineno", "?")
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""])
            for name in names:
                if allowed is not None and name.split(".")[0] not in allowed:
                    forbidden.append(f"line {line} imports {name}: {rules['why']}")
            if {a.name for a in node.names} & helpers:
                forbidden.append(f"line {line} imports a helper the assignment "
                                 f"forbids: {rules['why']}")
            if isinstance(node, ast.ImportFrom) and any(a.name == "*"
                                                        for a in node.names):
                notes.append(f"line {line} imports everything from {node.module}, "
                             "which shadows built-ins such as max and sum (no points "
                             "lost): import the names you need")
        if isinstance(node, ast.Name) and node.id in helpers:
            forbidden.append(f"line {line} uses {node.id}: {rules['why']}")
        if isinstance(node, ast.Attribute):
            if node.attr in helpers:
                forbidden.append(f"line {line} uses {node.attr}: {rules['why']}")
            if _dunder(node.attr) and node.attr not in HARMLESS_DUNDERS:
                cheats.append(f"line {line} reaches Python's internals ({node.attr})")
            if (isinstance(node.ctx, (ast.Store, ast.Del))
                    and _root(node) in modules | set(setup_modules)):
                cheats.append(f"line {line} changes {ast.unparse(node)}, part of a "
                              "module the tests use")
        if isinstance(node, ast.Name) and node.id in INTERNALS:
            cheats.append(f"line {line} uses {node.id}, which can change what the "
                          "tests see")
        if (isinstance(node, ast.Name) and _dunder(node.id)
                and node.id not in HARMLESS_DUNDERS):
            cheats.append(f"line {line} reaches Python's internals ({node.id})")
        if isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes)):
            text = (node.value.decode("latin-1") if isinstance(node.value, bytes)
                    else node.value)
            found = [w for w in COURSE_FILES if w in text]
            if found:
                cheats.append(f"line {line} names the course's files ({found[0]!r}): "
                              "the grader's files are not the student's to read")
            elif text.strip() in INTERNALS or _dunder(text.strip()):
                cheats.append(f"line {line} names {text.strip()!r}, one of Python's "
                              "internals, to reach it indirectly")
        if (isinstance(node, ast.FunctionDef) and node.name in ("__eq__", "__ne__")
                and _always_constant(node)):
            cheats.append(f"line {line} defines an {node.name} that ignores what it "
                          "compares, to pass any test of equality")
        if isinstance(node, ast.Global):
            for name in sorted(set(node.names) & (BUILTINS | set(setup_modules))):
                notes.append(f"line {line} declares {name} global to rebind it (no "
                             "points lost; another name is safer)")
        bound = _rebound_setup_module(node, setup_modules)
        if bound:
            notes.append(f"line {line} rebinds {bound}, which the assignment imports "
                         f"as {setup_modules[bound]} (no points lost; later cells see "
                         "yours)")
    return sorted(set(cheats)), sorted(set(forbidden)), sorted(set(notes))


# The course's files and folders: a string naming one is an attempt to read or
# change what grades (the sandbox stops it; the rule names it).
COURSE_FILES = ("gradebook", "nbgrader_config", "source/", "release/",
                "autograded", "submitted/", "answer_key", "grading.py", "../")
HARMLESS_DUNDERS = {"__init__", "__name__", "__doc__", "__main__", "__repr__",
                    "__str__", "__len__", "__iter__", "__next__", "__post_init__",
                    "__hash__", "__lt__", "__le__", "__gt__", "__ge__", "__enter__",
                    "__exit__", "__call__", "__getitem__", "__contains__"}


def _dunder(name: str) -> bool:
    return len(name) > 4 and name.startswith("__") and name.endswith("__")


def _always_constant(function: ast.FunctionDef) -> bool:
    """Whether every return of `function` is a constant (``return True``)."""
    returns = [n for n in ast.walk(function) if isinstance(n, ast.Return)]
    return bool(returns) and all(isinstance(r.value, ast.Constant) for r in returns)


def _module_copies(tree: ast.AST, modules: set[str]) -> set[str]:
    """Names bound to a module by plain assignment (``m = np``)."""
    copies = set()
    for node in ast.walk(tree):
        if (isinstance(node, ast.Assign) and isinstance(node.value, ast.Name)
                and node.value.id in modules | copies):
            copies.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return copies


def _rebound_setup_module(node: ast.AST, setup_modules: dict[str, str]) -> str | None:
    if (isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del))
            and node.id in setup_modules):
        return node.id
    if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name in setup_modules:
        return node.name
    if isinstance(node, ast.Import):
        for a in node.names:
            bound = a.asname or a.name.split(".")[0]
            target = a.name if a.asname else a.name.split(".")[0]
            if bound in setup_modules and setup_modules[bound] != target:
                return bound
    if isinstance(node, ast.ImportFrom):
        for a in node.names:
            bound = a.asname or a.name
            if bound in setup_modules and setup_modules[bound] != f"{node.module}.{a.name}":
                return bound
    return None


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
    """Take the points a broken rule concerns, with the reason; say what is
    harmless in a note that costs nothing."""

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
        student = resources.get("nbgrader", {}).get("student")
        penalties: dict[int, list[str]] = {}
        for number, cell in enumerate(nb.cells, 1):
            if not _is_student_cell(cell):
                continue
            cheats, forbidden, notes = find_problems(cell.source, rules,
                                                     setup_modules, modules)
            grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
            where = (f"your cell '{grade_id}'" if grade_id
                     else f"the cell you added ({number})")
            for note in notes:
                self.log.info("%s: note on %s: %s", student, where, note)
                cell.setdefault("outputs", []).append(NotebookNode(
                    output_type="stream", name="stderr",
                    text=f"Grading note: {where}, {note}\n"))
            if not (cheats or forbidden):
                continue
            if cheats:  # a real cheat: the whole notebook
                more = (f" (and {len(cheats) - 1} more such lines)"
                        if len(cheats) > 1 else "")
                message = f"no points for this notebook: {where}, {cheats[0]}{more}"
                self.log.warning("%s: %s", student, message)
                for test in tests:
                    penalties.setdefault(id(test), []).append(message)
            if forbidden:  # the tests that use what this cell defines
                try:
                    defined = _bound_names(ast.parse(_drop_magics(cell.source)))
                except SyntaxError:
                    defined = set()
                concerned = [t for t in tests if defined & _used_names(t.source)]
                if grade_id:
                    concerned += [t for t in _tests_after(nb.cells, number - 1)
                                  if all(t is not c for c in concerned)]
                for reason in forbidden:
                    message = f"no points: {where}, {reason}"
                    self.log.warning("%s: %s", student, message)
                    for test in concerned:
                        penalties.setdefault(id(test), []).append(message)
                    if not concerned:
                        cell.setdefault("outputs", []).append(NotebookNode(
                            output_type="stream", name="stderr",
                            text=f"Grading note: {where}, {reason} (no test uses "
                                 "this cell, so no points lost)\n"))
        for test in tests:
            for message in dict.fromkeys(penalties.get(id(test), [])):
                test.outputs.append(_error("GradingRule", message))
        return nb, resources


RESULT = "[evp-grading]"


def _load_key():
    """The course's answer_key.py (beside this file), or None."""
    import importlib.util
    import os

    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "answer_key.py")
    if not os.path.exists(path):
        return None
    spec = importlib.util.spec_from_file_location("evp_answer_key", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class CheckResults(NbGraderPreprocessor):
    """Compare each test cell's results with the answer key, in this process.

    A test cell's hidden part prints the student's results as JSON after
    ``[evp-grading]``; the results leave the sandbox as text, so nothing the
    student's kernel does (patched functions, objects that equal anything) can
    change the comparison, and the expected values never enter the kernel. A test
    cell whose results are missing, unreadable or wrong gets an error that says
    what was checked, and scores zero."""

    def preprocess(self, nb, resources):
        assignment = resources.get("nbgrader", {}).get("assignment")
        key = _load_key()
        checks = (key.KEYS.get(assignment, {}) if key is not None else {})
        for cell in nb.cells:
            grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
            if cell.cell_type != "code" or not utils.is_grade(cell):
                continue
            found, outputs = [], []
            for output in cell.get("outputs", []):
                if output.output_type == "stream" and RESULT in output.text:
                    kept = []
                    for line in output.text.splitlines(keepends=True):
                        if line.startswith(RESULT):
                            found.append(line[len(RESULT):].strip())
                        else:
                            kept.append(line)
                    output.text = "".join(kept)
                    if not output.text:
                        continue
                outputs.append(output)
            cell.outputs = outputs
            if grade_id not in checks:
                continue
            if any(o.output_type == "error" for o in outputs):
                continue  # a visible test failed, or the cell could not run
            message = self._judge(checks[grade_id], found)
            if message:
                cell.outputs.append(_error("WrongResult", message))
        return nb, resources

    @staticmethod
    def _judge(check, found: list[str]) -> str | None:
        import json

        if len(found) != 1:
            return ("the test could not report its results (did the cell run to the "
                    "end, and did your code leave print and json as they are?)")
        try:
            results = json.loads(found[0])
        except ValueError:
            return "the test's results could not be read as plain numbers and text"
        try:
            return check(results)
        except Exception:  # results of the wrong shape
            return "the results are not of the kind the test asks for"


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
