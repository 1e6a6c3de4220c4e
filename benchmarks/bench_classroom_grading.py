"""How long grading a class takes with the course's nbgrader set-up (the sandbox).

A class of `--students` (default 30) hands in all four classroom assignments,
written the way ``notebooks/classroom/assignments/grading_run.py``'s students write
them, in a fixed mix of twenty: five right, four with honest mistakes, two honest
in unusual code, two with answers in numpy's types, one with a wrong estimator,
two blank, one whose kernel dies, one whose cell loops until the 30-second limit,
two cheats (``exec`` through ``operator``; links to the key beside the notebook).
The script releases the assignments, autogrades the whole class with
``nbgrader autograde`` per assignment, `--jobs` notebooks at once (each in its
sandbox, with the course's own limits), writes the feedback and the exports, and
checks every grade against what each student deserves. It prints the seconds
per assignment and per notebook, and the machine's cores and load, since the time
depends on both: each notebook runs in a fresh kernel, so the time grows
linearly with the class and falls with the cores given to it. ``--unsafe``
grades without the sandbox, to compare (the mix's cheats then run with the
rights of whoever runs this).

    python benchmarks/bench_classroom_grading.py [--students 30] [--jobs 2]
                                                 [--unsafe]

On the 2-core machine this project is developed on, shared with other work, a
class of 200 took the time written in ``notebooks/classroom/GUIDE.md`` (*How long
grading takes*).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COURSE = ROOT / "notebooks" / "classroom" / "assignments"

MIX = ("right", "mistaken", "honest", "right", "numpy_types", "mistaken", "blank",
       "right", "crash", "mistaken", "flat_curve", "right", "cheat_operator",
       "honest", "mistaken", "numpy_types", "loop", "right", "blank",
       "cheat_side_files")


def _grading_run():
    spec = importlib.util.spec_from_file_location("grading_run",
                                                  COURSE / "grading_run.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load {one:.1f} / {five:.1f} / {fifteen:.1f} (1, 5, 15 min)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=30)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                        help="notebooks graded at once (default: the cores)")
    parser.add_argument("--unsafe", action="store_true",
                        help="grade without the sandbox, to compare the time")
    parser.add_argument("--course", type=Path,
                        help="a new folder for the course (default: a temporary one)")
    args = parser.parse_args(argv)
    run = _grading_run()
    options = ("--SandboxKernelManager.unsafe_no_sandbox=True",) if args.unsafe else ()
    students = [f"s{n:03d}_{MIX[(n - 1) % len(MIX)]}"
                for n in range(1, args.students + 1)]
    with tempfile.TemporaryDirectory(prefix="evp-class-") as scratch:
        course = args.course or Path(scratch) / "course"
        print(f"{os.cpu_count()} cores, {_load()} before grading", flush=True)
        start = time.perf_counter()
        record = run.grade_class(course, students, timeout=None, options=options,
                                 jobs=args.jobs, notebook_timeout=None,
                                 memory_limit=None, progress=True)
        total = time.perf_counter() - start
        found = run.problems(record)
        pages = len(list((course / "feedback").glob("*/*/*.html")))
    kinds = [run.kind_of(s) for s in students]
    mix = ", ".join(f"{kinds.count(k)} {k}" for k in sorted(set(kinds)))
    notebooks = len(students) * len(record["assignments"])
    autograde = sum(record["seconds"].values())
    print(f"class of {len(students)} ({mix}), {notebooks} notebooks, {pages} feedback "
          f"pages, {'without' if args.unsafe else 'with'} the sandbox, "
          f"{args.jobs} at once")
    for assignment, seconds in record["seconds"].items():
        print(f"autograde {assignment:32s} {seconds:7.1f} s  "
              f"({seconds / len(students):.2f} s a notebook)")
    print(f"autograde, all four: {autograde:.0f} s = {autograde / 60:.1f} min "
          f"({autograde / notebooks:.2f} s a notebook); with release, feedback and "
          f"export: {total / 60:.1f} min; {_load()} after")
    for line in found:
        print("PROBLEM:", line)
    print("every grade as deserved" if not found else f"{len(found)} problems")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
