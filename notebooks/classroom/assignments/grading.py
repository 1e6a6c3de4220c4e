"""What nbgrader does with the classroom assignments beyond its defaults.

``nbgrader_config.py`` (next to this file) plugs these into nbgrader's
``autograde``, ``generate_feedback`` and ``export``:

``GradeEverySubmission``
    nbgrader's ``Autograde``, which gives every notebook a grade: a notebook
    that cannot be graded (a link or a special file handed in as the notebook, a
    file that is not a notebook, grading settings of its cells changed, or an
    error of the grader itself on it) scores 0 on every test, with the reason at
    the top of its feedback, and grading goes on with the next one; ``autograde``
    exits 0 when every notebook got a grade. Only the notebooks are taken from
    the student's folder: other files (symbolic links, hard links, special files,
    anything else) are left out of grading, of ``autograded/`` and of the
    feedback, and the feedback says so.
``RestoreLockedCells``
    nbgrader's ``OverwriteCells``, which restores every locked cell from the
    gradebook, and every cell's grading settings; a cell whose settings the
    student changed (a test made into an answer, points edited, a graded cell
    added) makes the notebook ungraded (0, with the reason), since its grade
    would be the student's own. A graded cell the student deleted is put back
    at the end, with a note.
``GradeEveryCell``
    nbgrader's ``Execute``, which starts each kernel in the sandbox
    (``sandbox.py``), runs each test's *probe* (``answer_key.PROBES``) after the
    test cell and checks the results against ``answer_key.KEYS`` outside the
    kernel, records a grade when the kernel dies or a cell runs too long (the
    cell that stopped it gets the error, every later cell "not run", so their
    tests score zero with the reason), and stops a notebook that runs past its
    total time or prints more than its output limit, keeping the marks earned
    before.
``EnforceRules``
    Reads what the student wrote (outside the kernel, so nothing the notebook
    does can change it) and takes the points of the tests it concerns, with a
    message, where the student imports a module the assignment does not allow
    (``RULES``), calls a forbidden helper, or changes what the tests rely on:
    assigns to a module's attribute (``np.isclose = ...``), rebinds a name the
    assignment's set-up cells define as a module, reaches Python's internals
    (``exec``, ``globals()``, ``setattr``, dunder attributes, ``get_ipython``),
    or goes around the rules through ``importlib``, ``pkgutil``, ``pickle`` (and
    numpy's ``allow_pickle``).
``EscapeStudentHTML``
    For ``autograde`` and ``generate_feedback``: what a student's code displays
    as HTML, JavaScript, SVG or Markdown is shown as text, and the student's
    Markdown answers with their HTML escaped, so that a ``<script>`` reaches
    neither the teacher's formgrader nor the feedback page as code.
``StripAnswerKey``
    For ``generate_feedback``: shortens the error of a test cell to its message
    (the traceback quotes the test's lines), and removes any hidden-test region.
``LmsExport``
    ``nbgrader export --exporter=grading.LmsExport``: one row per student and
    assignment (student, assignment, score, max), for a learning-management
    system's import.

Where a rule concerns one solution cell, only its tests lose their points (those
that use the names it defines, and those between it and the next solution cell);
a rule broken in a cell the student added, or a change to what the tests rely on,
costs every test of the notebook.
"""

from __future__ import annotations

import ast
import builtins
import html
import json
import os
import re
import stat
import sys
import time

from nbformat.notebooknode import NotebookNode
from nbgrader import utils
from nbgrader.api import MissingEntry
from nbgrader.preprocessors import Execute, NbGraderPreprocessor, OverwriteCells
from traitlets import Dict, Float, Integer

# Modules a student may import in each assignment (and its submodules); any
# other import costs the tests of the cell it is in. An assignment not listed
# here may import anything.
# Python's standard library, less the modules that reach its internals.
INTERNAL_MODULES = {"builtins", "ctypes", "gc", "inspect", "code", "codeop", "_thread",
                    "sys"}
# Modules that import or run code by name, out of the rules' sight: importing one
# is a way around the rules (evp by importlib.import_module("e" + "vp"), exec by
# pickle.loads), which costs the notebook.
ROUTES = {"importlib", "pkgutil", "pickle", "_pickle", "marshal", "copyreg", "shelve",
          "runpy", "zipimport", "site", "dill", "cloudpickle"}
STANDARD = set(getattr(sys, "stdlib_module_names", ())) - INTERNAL_MODULES - ROUTES
SCIENTIFIC = {"numpy", "math", "itertools", "functools", "collections", "fractions",
              "statistics", "random", "operator"} | STANDARD
# Packages the grading kernel cannot import at all (the sandbox leaves them out of
# its import path and says why): evp's expected_max and paired_permutation_test
# answer the coding assignments, scipy's permutation_test and ttest_rel too;
# nbgrader is the grader's.
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


def _note_cell(text: str) -> NotebookNode:
    """A Markdown cell the grader adds at the top of a notebook: `text` escaped
    (it may quote file names the student chose)."""
    import nbformat

    safe = html.escape(text).replace("`", "'").replace("*", "&#42;").replace(
        "_", "&#95;")
    return nbformat.v4.new_markdown_cell(f"**Grading note.** {safe}",
                                         metadata={"evp_grading_note": True})


# ------------------------------------------------------------------ the submission

# The most a notebook handed in may weigh (a notebook of this course weighs
# tens of kB): a larger file is not read.
MAX_NOTEBOOK_BYTES = 16 << 20
# What nbgrader itself writes or ignores in a student's folder: not reported.
NOT_REPORTED = {"timestamp.txt", ".ipynb_checkpoints", "__pycache__", ".DS_Store"}


def _kind(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "a file"


def refuse_notebook(path: str) -> str | None:
    """Why the file handed in as a notebook at `path` is not graded, or None:
    a link (symbolic or hard: it would be someone else's file), a special file
    (reading a pipe never ends), a file too large to be this course's notebook,
    or a folder of the student's that is itself a link."""
    folder = os.path.dirname(os.path.abspath(path))
    for parent in (folder, os.path.dirname(folder)):  # <student>/<assignment>/
        if os.path.islink(parent):
            return (f"the folder handed in ({os.path.basename(parent)}) is a symbolic "
                    "link, not the student's own folder")
    try:
        info = os.lstat(path)
    except OSError as error:
        return f"the notebook could not be read ({error.strerror})"
    name = os.path.basename(path)
    if not stat.S_ISREG(info.st_mode):
        return (f"{name} is {_kind(info.st_mode)}, not a notebook: only a notebook "
                "file of the student's own is graded")
    if info.st_nlink > 1:
        return (f"{name} is a hard link to another file, not a notebook of the "
                "student's own")
    if info.st_size > MAX_NOTEBOOK_BYTES:
        return (f"{name} weighs {info.st_size / 2**20:.0f} MiB, more than the "
                f"{MAX_NOTEBOOK_BYTES >> 20} MiB a notebook of this course may")
    return None


def left_out(folder: str, notebooks: set[str]) -> list[str]:
    """What the student's `folder` holds besides the assignment's notebooks
    (`notebooks`, file names): each a phrase (name and kind), sorted."""
    found = []
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = [d for d in dirnames if d not in NOT_REPORTED]
        for name in sorted(dirnames + filenames):
            path = os.path.join(dirpath, name)
            relative = os.path.relpath(path, folder)
            if name in NOT_REPORTED or (relative in notebooks and dirpath == folder):
                continue
            try:
                mode = os.lstat(path).st_mode
            except OSError:
                continue
            if stat.S_ISDIR(mode):
                continue  # its files are listed one by one
            found.append(f"{relative} ({_kind(mode)})")
    return sorted(found)


# ------------------------------------------------------------------ autograde


try:
    from nbgrader.converters import Autograde
except ImportError:  # an nbgrader without converters: the tests of the rules only
    Autograde = object


class GradeEverySubmission(Autograde):
    """nbgrader's ``Autograde``: every notebook gets a grade (this module's
    docstring), and only the notebooks are taken from the student's folder."""

    def init_assignment(self, assignment_id: str, student_id: str) -> None:
        import nbgrader.converters.base as base

        submission = os.path.normpath(self._format_source(assignment_id, student_id))
        original = base.find_all_files

        def notebooks_only(path, exclude=None):
            if os.path.normpath(path) == submission:
                return []  # the student's other files are not graded, nor copied
            return original(path, exclude)

        base.find_all_files = notebooks_only
        try:
            super().init_assignment(assignment_id, student_id)
        finally:
            base.find_all_files = original
        names = {os.path.basename(n) for n in self.notebooks}
        self._left_out = left_out(submission, names) if os.path.isdir(submission) else []
        if self._left_out:
            self.log.warning("%s %s: left out of grading: %s", student_id,
                             assignment_id, ", ".join(self._left_out))

    def convert_single_notebook(self, notebook_filename: str) -> None:
        import sqlalchemy

        self._notes = []
        if getattr(self, "_left_out", None):
            self._notes.append(
                "Only the notebook was graded. Left out (not graded, not returned): "
                + ", ".join(self._left_out) + ".")
        reason = refuse_notebook(notebook_filename)
        if reason is None:
            try:
                return super().convert_single_notebook(notebook_filename)
            except (KeyboardInterrupt, sqlalchemy.exc.OperationalError):
                raise
            except Exception as error:
                self.log.exception("Grading %s failed", notebook_filename)
                reason = self._reason(error)
        self.log.warning("Not graded, 0 points: %s: %s", notebook_filename, reason)
        self._sanitizing = True
        self._grade_zero(notebook_filename, reason)

    @staticmethod
    def _reason(error: Exception) -> str:
        from nbformat.reader import NotJSONError

        if isinstance(error, NotJSONError | UnicodeDecodeError | json.JSONDecodeError):
            return "the file handed in is not a notebook (it is not valid notebook JSON)"
        if "Inconsistent checksums" in str(error):
            return ("the grading settings of the notebook's locked cells were changed "
                    "and could not be restored")
        text = str(error).splitlines()[0][:200] if str(error) else ""
        return (f"the notebook could not be graded ({type(error).__name__}"
                f"{': ' + text if text else ''})")

    def _grade_zero(self, notebook_filename: str, reason: str) -> None:
        """Record 0 on every test of the notebook, with `reason`: the released
        notebook (or an empty one) goes through the grading steps without
        running anything."""
        import nbformat

        resources = self.init_single_notebook_resources(notebook_filename)
        resources["evp_not_graded"] = reason
        resources["evp_notes"] = list(self._notes)
        release = self.coursedir.format_path(
            self.coursedir.release_directory, ".", resources["nbgrader"]["assignment"])
        path = os.path.join(release, os.path.basename(notebook_filename))
        if os.path.isfile(path) and not os.path.islink(path):
            nb = nbformat.read(path, as_version=4)
        else:
            nb = nbformat.v4.new_notebook()
        dest = self._format_dest(resources["nbgrader"]["assignment"],
                                 resources["nbgrader"]["student"])
        os.makedirs(dest, exist_ok=True)
        self._sanitizing = False
        self._init_preprocessors()
        try:
            output, resources = self.exporter.from_notebook_node(nb, resources=resources)
            self.write_single_notebook(output, resources)
        finally:
            self._sanitizing = True

    def init_single_notebook_resources(self, notebook_filename: str) -> dict:
        resources = super().init_single_notebook_resources(notebook_filename)
        resources["evp_notes"] = list(getattr(self, "_notes", []))
        return resources


class RestoreLockedCells(OverwriteCells):
    """nbgrader's ``OverwriteCells``: locked cells and every cell's grading
    settings restored from the gradebook; a change to the settings (not only
    to a locked cell's text) leaves the notebook ungraded, with the reason."""

    def preprocess(self, nb, resources):
        from nbgrader.api import Gradebook

        self.notebook_id = resources["nbgrader"]["notebook"]
        self.assignment_id = resources["nbgrader"]["assignment"]
        self.db_url = resources["nbgrader"]["db_url"]
        self.gradebook = Gradebook(self.db_url)
        self._changed = []
        with self.gradebook:
            source = self.gradebook.find_notebook(self.notebook_id, self.assignment_id)
            for index, cell in enumerate(nb.cells):
                nb.cells[index], resources = self.preprocess_cell(cell, resources, index)
            present = {c.metadata.nbgrader["grade_id"] for c in nb.cells
                       if "grade_id" in c.metadata.get("nbgrader", {})}
            # A graded cell the student deleted comes back, at the end: a test
            # runs there on what the notebook defined; an answer in words is
            # empty. A deleted answer cell needs nothing: its tests fail alone.
            graded = {c.name: c for c in source.grade_cells}
            for name in sorted(set(graded) - present):
                cell = self._put_back(name, graded[name])
                nb.cells.append(cell)
                nb.cells.insert(0, _note_cell(
                    f"The cell '{name}' was missing from the notebook and was put "
                    "back at its end."))
        if self._changed:
            more = f" (and {len(self._changed) - 1} more)" if len(self._changed) > 1 else ""
            # In the notebook: autograde reads it back from autograded/ to grade it.
            nb.metadata["evp_not_graded"] = (
                "the grading settings of the notebook's cells were changed "
                f"({self._changed[0]}{more}), so its grade would not be the "
                "assignment's; ask your teacher")
        return nb, resources

    def _put_back(self, name: str, graded) -> NotebookNode:
        import nbformat

        source = self.gradebook.find_source_cell(name, self.notebook_id,
                                                 self.assignment_id)
        try:
            self.gradebook.find_solution_cell(name, self.notebook_id,
                                              self.assignment_id)
            solution = True
        except MissingEntry:
            solution = False
        maker = (nbformat.v4.new_code_cell if source.cell_type == "code"
                 else nbformat.v4.new_markdown_cell)
        cell = maker("" if solution else source.source)
        cell.metadata["nbgrader"] = {
            "grade": True, "solution": solution, "locked": bool(source.locked),
            "grade_id": name, "points": float(graded.max_score),
            "schema_version": 3, "task": False, "checksum": source.checksum}
        return cell

    def preprocess_cell(self, cell, resources, cell_index):
        meta = cell.metadata.get("nbgrader")
        if meta is None:
            return cell, resources
        grade_id = meta.get("grade_id")
        if grade_id is None:
            if meta.get("grade") or meta.get("solution") or meta.get("locked"):
                self._changed.append(f"cell {cell_index + 1} is marked for grading "
                                     "but is not one of the assignment's")
            del cell.metadata["nbgrader"]
            return cell, resources
        try:
            source = self.gradebook.find_source_cell(grade_id, self.notebook_id,
                                                     self.assignment_id)
        except MissingEntry:
            self._changed.append(f"cell '{grade_id}' is not one of the assignment's")
            del cell.metadata["nbgrader"]
            return cell, resources
        try:
            points = self.gradebook.find_graded_cell(
                grade_id, self.notebook_id, self.assignment_id).max_score
        except MissingEntry:
            points = None
        try:
            self.gradebook.find_solution_cell(grade_id, self.notebook_id,
                                              self.assignment_id)
            solution = True
        except MissingEntry:
            solution = False
        want = {"grade": points is not None, "solution": solution,
                "locked": bool(source.locked)}
        got = {key: bool(meta.get(key)) for key in want}
        if (got != want or cell.cell_type != source.cell_type
                or (points is not None and _points(meta) != float(points))):
            self._changed.append(f"cell '{grade_id}' had its grading settings changed")
        if cell.cell_type != source.cell_type:
            self.update_cell_type(cell, source.cell_type)
        meta.update(want)
        meta["checksum"] = source.checksum
        if points is not None:
            meta["points"] = float(points)
        else:
            meta.pop("points", None)
        if source.locked and utils.compute_checksum(cell) != source.checksum:
            self.report_change(grade_id, "checksum", source.checksum,
                               utils.compute_checksum(cell))
            cell.source = source.source
            if utils.compute_checksum(cell) != source.checksum:
                self._changed.append(f"cell '{grade_id}' could not be restored")
        return cell, resources


def _points(meta: dict) -> float | None:
    try:
        return float(meta.get("points"))
    except (TypeError, ValueError):
        return None


def _load_key():
    """The course's answer_key.py (beside this file), or None."""
    import importlib.util

    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "answer_key.py")
    if not os.path.exists(path):
        return None
    spec = importlib.util.spec_from_file_location("evp_answer_key", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# The code sent to the kernel after a test cell: it runs the probe runner
# (sandbox's /evp-probe/runner.py) in a namespace of its own, outside the
# kernel's history, binding no name of the notebook's.
PROBE_STUB = ('__import__("builtins").exec(__import__("io").open({runner!r}).read(), '
              '{{"__name__": "__grader__", "USER_NS": __import__("builtins").globals(), '
              '"PATHS": {paths!r}, "LIMIT": {limit!r}}})')
MAX_REPLY_BYTES = 8 << 20


class GradeEveryCell(Execute):
    """nbgrader's ``Execute`` in the sandbox, with the probes and the limits of
    this module's docstring."""

    error_on_timeout = Dict(default_value={
        "ename": "TimeLimit",
        "evalue": "this cell ran past the time limit and was stopped "
                  "(an endless loop?)",
        "traceback": ["TimeLimit: this cell ran past the time limit and was stopped "
                      "(an endless loop?)"],
    }).tag(config=True)
    notebook_timeout = Float(300, help=(
        "Seconds a whole notebook may run (its cells and its tests' probes); "
        "the rest is not run and scores zero, with the reason.")).tag(config=True)
    max_output_bytes = Integer(4 << 20, help=(
        "Bytes of output a notebook may show in all; the rest is dropped and the "
        "notebook is stopped there, with the reason.")).tag(config=True)

    def __init__(self, *args, **kwargs):
        # Every kernel in the sandbox (sandbox.py), unless the teacher names another
        # manager; nbgrader's Execute would set jupyter's plain one here.
        if "kernel_manager_class" not in kwargs:
            from sandbox import SandboxKernelManager

            kwargs["kernel_manager_class"] = SandboxKernelManager
        super().__init__(*args, **kwargs)

    def create_kernel_manager(self):
        """The sandbox's kernel manager (nbgrader_config.py), told what this
        assignment's kernel may import."""
        km = super().create_kernel_manager()
        if hasattr(km, "hidden"):
            rules = RULES.get(self._assignment, {})
            km.hidden = set(rules.get("hidden", km.hidden))
            allowed = set(rules.get("allowed") or ()) | {"numpy"}
            km.allowed = allowed - set(sys.stdlib_module_names) - km.hidden
        return km

    def preprocess(self, nb, resources=None, km=None):
        resources = resources if resources is not None else {}
        self._assignment = resources.get("nbgrader", {}).get("assignment")
        self._stopped = None
        self._started = None  # when the first cell runs: the kernel's start is free
        self._output_bytes = 0
        self._output_over = False
        key = _load_key()
        self._checks = key.KEYS.get(self._assignment, {}) if key else {}
        self._probes = key.PROBES.get(self._assignment, {}) if key else {}
        notes = resources.get("evp_notes") or []
        reason = (resources.get("evp_not_graded")
                  or nb.metadata.pop("evp_not_graded", None))
        if reason:  # nothing of the student's runs
            for cell in nb.cells:
                if cell.cell_type == "code":
                    cell.outputs = ([_error("NotGraded", f"not graded: {reason}")]
                                    if utils.is_grade(cell) else [])
            nb.cells.insert(0, _note_cell(
                f"This notebook was not graded: {reason}. Every test scores 0."))
            for note in reversed(notes):
                nb.cells.insert(1, _note_cell(note))
            return nb, resources
        try:
            nb, resources = super().preprocess(nb, resources, km)
        except Exception as error:  # the kernel could not be shut down cleanly
            if self._stopped is None:
                raise
            self.log.warning("After the kernel stopped: %s", error)
        finally:  # the sandbox's files, whatever happened
            remove = getattr(getattr(self, "km", None), "remove_workdir", None)
            if remove is not None:
                remove()
        for note in reversed(notes):
            nb.cells.insert(0, _note_cell(note))
        return nb, resources

    def _left(self) -> float:
        """Seconds the notebook may still run."""
        if self._started is None:
            return self.notebook_timeout
        return self.notebook_timeout - (time.monotonic() - self._started)

    def _get_timeout(self, cell):
        timeout = super()._get_timeout(cell)
        left = self._left()
        return max(1, int(min(timeout or left, left)))

    def preprocess_cell(self, cell, resources, index):
        if self._started is None:
            self._started = time.monotonic()
        if self._stopped is None and cell.cell_type == "code":
            if self._left() <= 0:
                self._stop(f"the notebook ran past its total time limit of "
                           f"{self.notebook_timeout:g} s", index, resources)
            elif self._output_over:
                self._stop(f"the notebook's output passed its limit of "
                           f"{self.max_output_bytes >> 20} MiB", index, resources)
        if self._stopped is not None:
            if cell.cell_type == "code":
                cell.outputs = [_error("NotRun", f"not run: {self._stopped}")]
            return cell, resources
        try:
            cell, resources = super().preprocess_cell(cell, resources, index)
        except Exception as error:
            from nbclient.exceptions import CellTimeoutError, DeadKernelError

            if isinstance(error, DeadKernelError):
                reason = self._why_stopped() or (
                    "the kernel died while running this cell (it ran out of memory, "
                    "or the code ended Python)")
            elif isinstance(error, CellTimeoutError) and self._output_over:
                reason = (f"this cell's output passed the notebook's limit of "
                          f"{self.max_output_bytes >> 20} MiB and was cut")
            elif isinstance(error, CellTimeoutError):
                reason = "this cell ran past the time limit and could not be stopped"
            else:
                raise
            if self._output_over:
                reason = (f"the notebook's output passed its limit of "
                          f"{self.max_output_bytes >> 20} MiB")
            self._stop(reason, index, resources)
            cell.outputs = [*cell.get("outputs", []), _error("KernelStopped", reason)]
            return cell, resources
        if self._output_over:
            cell.outputs.append(_error(
                "OutputLimit", f"this cell's output passed the notebook's limit of "
                f"{self.max_output_bytes >> 20} MiB and was cut; the notebook stops "
                "here"))
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if (cell.cell_type == "code" and utils.is_grade(cell)
                and grade_id in self._probes and grade_id in self._checks
                and not any(o.output_type == "error" for o in cell.outputs)):
            message = self._probe_and_check(grade_id, index, resources)
            if message:
                cell.outputs.append(_error("WrongResult", message))
        return cell, resources

    def _stop(self, reason: str, index: int, resources) -> None:
        self.log.warning("%s: cell %d of %s", reason, index,
                         resources.get("nbgrader", {}).get("student"))
        self._stopped = reason.replace("this cell", f"cell {index + 1}")

    def _why_stopped(self) -> str | None:
        reason = getattr(self.km, "stop_reason", lambda: None)()
        return f"the sandbox stopped the notebook: {reason}" if reason else None

    # -------------------------------------------------------------- output limit

    def process_message(self, msg, cell, cell_index):
        if msg["msg_type"] in ("stream", "display_data", "execute_result", "error",
                               "update_display_data"):
            content = msg.get("content", {})
            size = len(content.get("text", "")) + sum(
                len(v) if isinstance(v, str) else len(json.dumps(v))
                for v in (content.get("data") or {}).values()) + sum(
                len(line) for line in content.get("traceback") or [])
            self._output_bytes += size
            if self._output_bytes > self.max_output_bytes:
                if not self._output_over:
                    self._output_over = True
                    self._interrupt_soon()
                return None  # dropped
        return super().process_message(msg, cell, cell_index)

    def _interrupt_soon(self) -> None:
        import asyncio

        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        result = self.km.interrupt_kernel()
        if asyncio.iscoroutine(result):
            loop.create_task(result)

    # -------------------------------------------------------------- probes

    def _probe_and_check(self, grade_id: str, index: int, resources) -> str | None:
        """Run the test's probe in (a copy of) the kernel; compare its results
        with the answer key here; the message for a wrong result, or None."""
        from nbclient.exceptions import DeadKernelError

        limit = max(1.0, min(float(self.timeout or 30), self._left()))
        try:
            reply = self._run_probe(self._probes[grade_id], limit)
        except DeadKernelError:
            reason = self._why_stopped() or (
                "the kernel died while the grader ran this test")
            self._stop(reason, index, resources)
            return f"the test could not run: {reason}"
        return judge(self._checks[grade_id], reply, self._probes[grade_id]["needs"])

    def _run_probe(self, probe: dict, limit: float) -> dict | None:
        from nbclient.util import run_sync

        return run_sync(self._async_run_probe)(probe, limit)

    async def _async_run_probe(self, probe: dict, limit: float) -> dict | None:
        from queue import Empty

        folder = self.km.probe_folder
        paths = self.km.probe_paths
        request, reply = folder / "request.json", folder / "reply.json"
        _overwrite(reply, b"")
        _overwrite(request, json.dumps(probe).encode())
        code = PROBE_STUB.format(runner=paths["runner.py"], limit=limit,
                                 paths={k: v for k, v in paths.items()
                                        if k != "runner.py"})
        try:
            msg_id = self.kc.execute(code, silent=True, store_history=False,
                                     allow_stdin=False, stop_on_error=False)
            deadline = time.monotonic() + limit + 15
            interrupted = False
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    if interrupted:
                        from nbclient.exceptions import DeadKernelError

                        raise DeadKernelError("the kernel did not answer the grader")
                    await _maybe_await(self.km.interrupt_kernel())
                    interrupted, deadline = True, time.monotonic() + 10
                    continue
                try:
                    msg = await _maybe_await(
                        self.kc.shell_channel.get_msg(timeout=min(1.0, left)))
                except Empty:
                    await self._async_check_alive()
                    continue
                if msg["parent_header"].get("msg_id") == msg_id:
                    break
            # What the probe sent on IOPub (nothing of it is shown): drained.
            stop = time.monotonic() + 5
            while time.monotonic() < stop:
                try:
                    msg = await _maybe_await(self.kc.iopub_channel.get_msg(timeout=0.5))
                except Empty:
                    break
                if (msg["parent_header"].get("msg_id") == msg_id
                        and msg["msg_type"] == "status"
                        and msg["content"].get("execution_state") == "idle"):
                    break
        finally:
            _overwrite(request, b"")  # no later cell can read the probe
        return _read_reply(reply)


async def _maybe_await(value):
    import inspect

    return await value if inspect.isawaitable(value) else value


def _overwrite(path, data: bytes) -> None:
    """Write `data` into the existing file `path` (the sandbox sees this very
    file), never through a link."""
    fd = os.open(path, os.O_WRONLY | os.O_TRUNC | os.O_NOFOLLOW)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)


def _read_reply(path) -> dict | None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        data = os.read(fd, MAX_REPLY_BYTES + 1)
    finally:
        os.close(fd)
    if not data or len(data) > MAX_REPLY_BYTES:
        return None
    try:
        reply = json.loads(data)
    except ValueError:
        return None
    return reply if isinstance(reply, dict) else None


def judge(check, reply: dict | None, needs: list[str]) -> str | None:
    """The sentence for the student's feedback when the probe's `reply` is not
    right (None when it is): `check` (the answer key's) decides on results."""
    names = " and ".join(needs)
    if reply is None:
        return ("the test could not report its results (did your code end Python, "
                "or change how files are written?)")
    if "missing" in reply:
        missing = ", ".join(str(n)[:60] for n in reply["missing"])
        return (f"the test could not use {missing}: it is not defined (run the cell "
                "that defines it, and fix its error first)")
    if "raised" in reply:
        return (f"{names} raised {str(reply['raised'])[:60]} on some of the inputs "
                "this test checks (the visible asserts passed; try other inputs)")
    if "stopped" in reply:
        if reply["stopped"] == "time":
            return (f"{names} ran past the time limit on the inputs this test checks "
                    "(an endless loop, or a very slow one?)")
        return (f"{names} was stopped on the inputs this test checks (it ran out of "
                "memory, or ended Python)")
    if "results" not in reply:
        return "the test could not report its results"
    try:
        return check(reply["results"])
    except Exception:  # results of the wrong shape
        return "the results are not of the kind the test asks for"


def _is_student_cell(cell) -> bool:
    meta = cell.metadata.get("nbgrader", {})
    return cell.cell_type == "code" and (meta.get("solution") or not meta.get("locked"))


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda,
           ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _bound_names(tree: ast.AST) -> set[str]:
    """The names a cell binds in the notebook's namespace: not those bound inside
    the functions, classes and comprehensions it defines (a loop variable of a
    comprehension is the comprehension's own)."""
    names = set()
    todo = list(ast.iter_child_nodes(tree))
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, ast.NamedExpr) and isinstance(node.target, ast.Name):
            names.add(node.target.id)  # a walrus binds in the enclosing scope
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.Global):
            names.update(node.names)
        if not isinstance(node, _SCOPES):
            todo.extend(ast.iter_child_nodes(node))
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
      (``"exec"``, ``"__builtins__"``), an ``__eq__`` that is always true, an
      import of a module that imports or runs code by name (``importlib``,
      ``pkgutil``, ``pickle``: ``ROUTES``), numpy's ``allow_pickle``;
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
                if name.split(".")[0] in ROUTES:
                    cheats.append(f"line {line} imports {name}, which imports or runs "
                                  "code by name, around the rules")
                elif allowed is not None and name.split(".")[0] not in allowed:
                    forbidden.append(f"line {line} imports {name}: {rules['why']}")
            if {a.name for a in node.names} & helpers:
                forbidden.append(f"line {line} imports a helper the assignment "
                                 f"forbids: {rules['why']}")
            if isinstance(node, ast.ImportFrom) and any(a.name == "*"
                                                        for a in node.names):
                notes.append(f"line {line} imports everything from {node.module}, "
                             "which shadows built-ins such as max and sum (no points "
                             "lost): import the names you need")
        if (isinstance(node, ast.keyword) and node.arg == "allow_pickle"
                and not (isinstance(node.value, ast.Constant)
                         and node.value.value is False)):
            cheats.append(f"line {getattr(node.value, 'lineno', '?')} loads pickled "
                          "objects (allow_pickle), which can run any code")
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
                "autograded", "submitted/", "answer_key", "grading.py", "../",
                "evp-probe", "probe_runner")
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
    module = ast.Module(body=[statement], type_ignores=[])
    return _bound_names(module) - _global_names(statement)


def _global_names(statement: ast.stmt) -> set[str]:
    return {name for node in ast.walk(statement) if isinstance(node, ast.Global)
            for name in node.names}


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

# What a student's code may display that a browser would run or render as
# markup: shown as text instead (text/plain is kept beside it).
ACTIVE_OUTPUTS = ("text/html", "application/javascript", "text/javascript",
                  "image/svg+xml", "text/markdown", "text/latex")


class EscapeStudentHTML(NbGraderPreprocessor):
    """Show as text what a student's code or Markdown would make a browser run:
    HTML, JavaScript, SVG and Markdown outputs are dropped where a plain-text
    version exists (else replaced by one), and the HTML in the student's own
    Markdown cells is escaped. Locked cells are the teacher's, restored from
    the gradebook, and kept as they are."""

    def preprocess_cell(self, cell, resources, index):
        meta = cell.metadata.get("nbgrader", {})
        student = meta.get("solution") or not meta.get("locked")
        if cell.cell_type == "markdown" and student and not cell.metadata.get(
                "evp_grading_note"):
            cell.source = html.escape(cell.source, quote=False)
            cell.pop("attachments", None)
        for output in cell.get("outputs", []):
            data = output.get("data")
            if not data:
                continue
            for mime in list(data):
                if mime in ACTIVE_OUTPUTS or mime.startswith("application/vnd"):
                    text = data.pop(mime)
                    if "text/plain" not in data:
                        data["text/plain"] = (text if isinstance(text, str)
                                              else json.dumps(text))[:10_000]
        return cell, resources


class StripAnswerKey(NbGraderPreprocessor):
    """Remove any hidden-test region from what goes back to students (the
    course's notebooks have none: the tests' probes live in answer_key.py), and
    shorten a test cell's error to its message, since a traceback quotes the
    test's code."""

    def preprocess_cell(self, cell, resources, index):
        if cell.cell_type != "code":
            return cell, resources
        stripped = strip_hidden_tests(cell.source)
        if stripped != cell.source or "HIDDEN TESTS" in cell.source:
            cell.source = stripped.replace("### BEGIN HIDDEN TESTS", "").replace(
                "### END HIDDEN TESTS", "")
        if stripped != cell.source or utils.is_grade(cell):
            for output in cell.get("outputs", []):
                if output.output_type == "error":
                    output.traceback = [f"{output.ename}: {output.evalue}"]
        return cell, resources


# ------------------------------------------------------------------ export

try:
    from nbgrader.plugins import ExportPlugin
except ImportError:
    ExportPlugin = object


class LmsExport(ExportPlugin):
    """Grades for a learning-management system: one row per student and
    assignment, ``student,assignment,score,max`` (the score after nbgrader's
    late penalty; 0 for an assignment not handed in), written to ``--to``
    (default ``lms_grades.csv``).

        nbgrader export --exporter=grading.LmsExport --to lms_grades.csv
    """

    def export(self, gradebook) -> None:
        import csv

        dest = self.to or "lms_grades.csv"
        students = {str(s) for s in self.student}
        assignments = {str(a) for a in self.assignment}
        rows = []
        for assignment in gradebook.assignments:
            if assignments and assignment.name not in assignments:
                continue
            for student in gradebook.students:
                if students and student.id not in students:
                    continue
                try:
                    submission = gradebook.find_submission(assignment.name, student.id)
                except MissingEntry:
                    score = 0.0
                else:
                    penalty = submission.late_submission_penalty or 0.0
                    score = max(0.0, (submission.score or 0.0) - penalty)
                rows.append((student.id, assignment.name, f"{score:g}",
                             f"{assignment.max_score:g}"))
        self.log.info("Exporting %d grades to %s", len(rows), dest)
        tmp = f"{dest}.tmp-{os.getpid()}"
        with open(tmp, "w", newline="") as file:
            writer = csv.writer(file)
            writer.writerow(("student", "assignment", "score", "max"))
            writer.writerows(sorted(rows))
        os.replace(tmp, dest)


# ------------------------------------------------------------------ late work

try:
    from nbgrader.plugins import LateSubmissionPlugin
except ImportError:
    LateSubmissionPlugin = object


class HalfUpToADay(LateSubmissionPlugin):
    """A late-submission policy: up to 24 hours late costs half the points,
    later costs all of them (``c.AssignLatePenalties.plugin_class =
    "grading.HalfUpToADay"`` in ``nbgrader_config.py``)."""

    def late_submission_penalty(self, student_id, score, total_seconds_late):
        if total_seconds_late <= 0:
            return None
        return score / 2 if total_seconds_late <= 24 * 3600 else score
