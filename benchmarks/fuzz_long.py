"""The long fuzz run: tests/test_fuzz.py (every reader, hostile names and
plug-ins) and tests/test_fuzz_outputs.py (a user's files beside evp's
outputs; runs whose output folder changes while they run, nested runs, and
writes into their folders) with many random examples per test (the CI run
draws a few tens each, the same every time), and how long it took.

    python benchmarks/fuzz_long.py [EXAMPLES] [PYTEST OPTIONS]   # default 2000

e.g. the run and output surfaces alone, 1,000 examples:

    python benchmarks/fuzz_long.py 1000 tests/test_fuzz_outputs.py -k runs_whose

Any example that gives a traceback, an exit status other than 0 or 2, an error
of more than one line, a changed input or a lost file of the user's fails, and
hypothesis prints the smallest input it found.
"""

import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

if __name__ == "__main__":
    examples = sys.argv[1] if len(sys.argv) > 1 else "2000"
    chosen = sys.argv[2:] or ["tests/test_fuzz.py", "tests/test_fuzz_outputs.py"]
    env = dict(os.environ, EVP_FUZZ_EXAMPLES=examples, EVP_FUZZ_RANDOM="1")
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "pytest", *chosen, "-q", "-p",
                           "no:cacheprovider", "--hypothesis-show-statistics"],
                          cwd=ROOT, env=env, capture_output=True, text=True)
    print(done.stdout[-4000:], done.stderr[-2000:])
    seconds = time.perf_counter() - start
    counted = re.findall(r"(\d+) (passed|failed)", done.stdout)
    tests = ", ".join(f"{n} {what}" for n, what in counted) or "no test"
    print(f"fuzz: {examples} examples per test, {tests}, {seconds:.0f} s, "
          f"{'passed' if done.returncode == 0 else 'FAILED'}")
    sys.exit(done.returncode)
