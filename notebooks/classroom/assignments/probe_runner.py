"""Run one test's probe in a student's kernel: the grader's side of a test cell.

The grader (``grading.GradeEveryCell``) runs this file's code in the student's
kernel after a test cell, silently and outside the kernel's history, with two
names set: ``USER_NS``, the notebook's namespace, and ``PATHS``, the probe's
files. The probe itself (``answer_key.PROBES``: which of the student's functions
to call on which inputs) is read from ``request.json`` by a *copy* of the kernel
(``os.fork``), which calls the student's code and writes the results as plain
data (JSON: numbers, text, lists, None) to ``reply.json`` for the grader to read
outside the kernel, and ends. So the probe's code and inputs never enter the
notebook's own process (a later cell cannot print them), whatever the student's
code does while it runs stays in the copy (a counter, a changed global, printed
text), and the grader never parses printed text. The grader empties the request
before the next cell runs.

A reply is ``{"results": ...}``, ``{"missing": [names]}`` (what the test calls is
not defined), ``{"raised": "TypeName"}`` (the student's code raised; the
message is not kept, since it may quote the inputs) or ``{"stopped": why}``.
"""

# Imported here, in the kernel, before it forks: the copy only looks them up.
import builtins
import decimal
import fractions
import io
import json
import numbers
import os
import signal
import sys
import time


def plain(value, depth=0):
    """`value` as JSON's data: numpy's scalars and arrays by their values, tuples
    as lists; anything else (a class of the student's) by its type's name only."""
    if depth > 50:
        raise ValueError("nested too deep")
    if value is None or type(value) in (bool, int, float, str):
        return value
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        if isinstance(value, numpy.ndarray):
            return plain(numpy.ndarray.tolist(value), depth + 1)
        if isinstance(value, (numpy.bool_, numpy.integer, numpy.floating)):
            item = numpy.generic.item(value)
            if type(item) in (bool, int, float):
                return item
            return {"unreadable": type(value).__name__[:60]}
    if isinstance(value, (list, tuple)):
        return [plain(v, depth + 1) for v in (list.__iter__(value)
                                              if isinstance(value, list)
                                              else tuple.__iter__(value))]
    # A subclass of a number or of text, from the student's code: only the value
    # it holds counts, not what its methods say.
    if isinstance(value, bool):
        return bool(int.__int__(value))
    if isinstance(value, int):
        return int.__int__(value)
    if isinstance(value, float):
        return float.__float__(value)
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, range):
        return list(value)
    if isinstance(value, (set, frozenset)):  # a set of numbers: its values, in order
        try:
            return [plain(v, depth + 1) for v in sorted(value)]
        except TypeError:
            return {"unreadable": type(value).__name__[:60]}
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, (numbers.Real, decimal.Decimal, fractions.Fraction)):
        return float(value)
    if callable(getattr(type(value), "tolist", None)):  # a pandas Series, say
        return plain(value.tolist(), depth + 1)
    return {"unreadable": type(value).__name__[:60]}


def _reply(data) -> None:
    text = json.dumps(data, allow_nan=True)
    fd = os.open(PATHS["reply.json"], os.O_WRONLY | os.O_TRUNC)  # noqa: F821
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def _child() -> None:
    # Nothing the copy prints is shown, from Python or below it (the kernel
    # forwards its file descriptors 1 and 2 to the notebook).
    sys.stdout = sys.stderr = io.StringIO()
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.dup2(null, 2)
    with open(PATHS["request.json"]) as file:  # noqa: F821
        request = json.load(file)
    namespace = {"__builtins__": builtins, "__name__": "__grader__"}
    missing = [name for name in request["needs"] if name not in USER_NS]  # noqa: F821
    if missing:
        _reply({"missing": missing})
        return
    for name in request["needs"]:
        namespace[name] = USER_NS[name]  # noqa: F821
    try:
        exec(compile(request["code"], "<grader>", "exec"), namespace)
        results = plain(namespace["results"])
    except BaseException as error:  # the student's code raised (or ran out of memory)
        _reply({"raised": type(error).__name__[:60]})
        return
    try:
        _reply({"results": results})
    except ValueError:  # NaN is fine; this is text that is not text
        _reply({"raised": "ValueError"})


def run(limit: float) -> None:
    """Fork; in the copy, run the request and reply; here, wait at most `limit`
    seconds for it."""
    pid = os.fork()
    if pid == 0:
        try:
            os.setpgid(0, 0)
            _child()
        finally:
            os._exit(0)
    deadline = time.monotonic() + limit
    pause = 0.001
    status = None
    try:
        while time.monotonic() < deadline:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            status = None
            time.sleep(pause)
            pause = min(pause * 2, 0.05)
    finally:  # the copy and whatever it started, stopped before the reply is read
        try:
            os.killpg(pid, signal.SIGKILL)
        except OSError:
            pass
        if status is None:
            try:
                os.waitpid(pid, 0)
            except OSError:
                pass
    if status is None:
        _reply({"stopped": "time"})
    elif os.WIFSIGNALED(status):
        _reply({"stopped": f"signal {os.WTERMSIG(status)}"})


if __name__ == "__grader__":  # as the grader runs it (not when imported)
    run(LIMIT)  # noqa: F821
