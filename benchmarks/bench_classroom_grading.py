"""How long grading a class takes with the course's nbgrader set-up (the sandbox).

A class of `--students` (default 30) hands in all four classroom assignments,
written the way ``notebooks/classroom/assignments/grading_run.py``'s students write
them, in a fixed mix: two in five right, two in five with honest mistakes, one in
ten blank, one in ten cheating (``--with-crash`` adds one student whose cell kills
the kernel and one whose cell loops until the 30-second limit, to show what such
students cost). The script releases the assignments, autogrades the whole class
with one ``nbgrader autograde`` per assignment (each notebook in its sandbox) and
writes the feedback, timing each step, and prints the seconds per step and per
notebook. ``--unsafe`` grades without the sandbox, to compare (the mix's cheats
then run with the rights of whoever runs this). Each notebook runs in a fresh
kernel, one after the other, so the time grows linearly with the class.

    python benchmarks/bench_classroom_grading.py [--students 30] [--with-crash]
                                                 [--unsafe]
"""

from __future__ import annotations

import argparse
import importlib.util
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COURSE = ROOT / "notebooks" / "classroom" / "assignments"

MIX = ("right", "mistaken", "right", "mistaken", "blank",
       "right", "mistaken", "right", "mistaken", "cheat_operator")


def _grading_run():
    spec = importlib.util.spec_from_file_location("grading_run",
                                                  COURSE / "grading_run.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=30)
    parser.add_argument("--with-crash", action="store_true")
    parser.add_argument("--unsafe", action="store_true",
                        help="grade without the sandbox, to compare the time")
    args = parser.parse_args(argv)
    run = _grading_run()
    options = ["--SandboxKernelManager.unsafe_no_sandbox=True"] if args.unsafe else []

    with tempfile.TemporaryDirectory(prefix="evp-class-") as scratch:
        course = Path(scratch) / "course"
        run.new_course(course)
        assignments = sorted(run.FULL)
        kinds = [MIX[i % len(MIX)] for i in range(args.students)]
        if args.with_crash:
            kinds[-2:] = ["crash", "loop"]
        timings = {}
        start = time.perf_counter()
        for assignment in assignments:
            run.nbgrader(course, "generate_assignment", assignment)
        timings["generate_assignment"] = time.perf_counter() - start
        for number, kind in enumerate(kinds, 1):
            for assignment in assignments:
                run.submit(course, kind, assignment)  # under the kind's name
                target = course / "submitted" / f"s{number:02d}_{kind}" / assignment
                target.parent.mkdir(parents=True, exist_ok=True)
                (course / "submitted" / kind / assignment).rename(target)
            shutil.rmtree(course / "submitted" / kind, ignore_errors=True)
        notebooks = len(kinds) * len(assignments)
        for step in ("autograde", "generate_feedback"):
            start = time.perf_counter()
            for assignment in assignments:
                run.nbgrader(course, step, assignment,
                             *(options if step == "autograde" else []))
            timings[step] = time.perf_counter() - start
        pages = len(list((course / "feedback").glob("*/*/*.html")))
    mix = ", ".join(f"{kinds.count(k)} {k}" for k in sorted(set(kinds)))
    print(f"class of {len(kinds)} ({mix}), {notebooks} notebooks, {pages} feedback "
          f"pages, {'without' if args.unsafe else 'with'} the sandbox")
    for step, seconds in timings.items():
        print(f"{step:20s} {seconds:7.1f} s  ({seconds / notebooks:.2f} s a notebook)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
