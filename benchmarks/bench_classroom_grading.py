"""How long grading a class takes with the course's nbgrader set-up.

A class of `--students` (default 30) hands in all three classroom assignments,
written the way tests/test_assignments.py's students write them, in a fixed mix:
two in five right, two in five with honest mistakes, one in ten blank, one in ten
cheating (``--with-crash`` adds one student whose Monte Carlo function loops
forever and whose budget cell kills the kernel, to show what one such student
costs). The script releases the assignments, autogrades the whole class with one
``nbgrader autograde`` per assignment and writes the feedback, timing each step,
and prints the seconds per step and per notebook. Each notebook runs in a fresh
kernel, one after the other, so the time grows linearly with the class.

    python benchmarks/bench_classroom_grading.py [--students 30] [--with-crash]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

MIX = ("right", "mistaken", "right", "mistaken", "blank",
       "right", "mistaken", "right", "mistaken", "cheat")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=30)
    parser.add_argument("--with-crash", action="store_true")
    args = parser.parse_args(argv)

    import test_assignments as course_tests

    with tempfile.TemporaryDirectory(prefix="evp-class-") as scratch:
        course = Path(scratch)
        shutil.copytree(course_tests.COURSE / "source", course / "source")
        for name in ("nbgrader_config.py", "grading.py"):
            shutil.copy(course_tests.COURSE / name, course)
        kinds = [MIX[i % len(MIX)] for i in range(args.students)]
        if args.with_crash:
            kinds[-1] = "crash"
        timings = {}
        start = time.perf_counter()
        for assignment in course_tests.ASSIGNMENTS:
            course_tests._nbgrader(course, "generate_assignment", assignment)
        timings["generate_assignment"] = time.perf_counter() - start
        for number, kind in enumerate(kinds, 1):
            for assignment in course_tests.ASSIGNMENTS:
                for source in (course / "source" / assignment).glob("*.ipynb"):
                    course_tests._submit(course, kind, assignment, source.name)
                    # _submit writes under the kind's name: one folder per student
                    folder = course / "submitted" / kind / assignment
                    target = course / "submitted" / f"s{number:02d}_{kind}" / assignment
                    target.parent.mkdir(parents=True, exist_ok=True)
                    folder.rename(target)
            shutil.rmtree(course / "submitted" / kind, ignore_errors=True)
        notebooks = len(kinds) * len(course_tests.ASSIGNMENTS)
        for step in ("autograde", "generate_feedback"):
            start = time.perf_counter()
            for assignment in course_tests.ASSIGNMENTS:
                course_tests._nbgrader(course, step, assignment)
            timings[step] = time.perf_counter() - start
        pages = len(list((course / "feedback").glob("*/*/*.html")))
    mix = ", ".join(f"{kinds.count(k)} {k}" for k in sorted(set(kinds)))
    print(f"class of {len(kinds)} ({mix}), {notebooks} notebooks, {pages} feedback "
          "pages")
    for step, seconds in timings.items():
        print(f"{step:20s} {seconds:7.1f} s  ({seconds / notebooks:.2f} s a notebook)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
