"""compare_all's cost against the number of models: M models × 20 rounds (made
up, seeded, scores on a grid of 0.01 so that there are ties), every ordered pair
at the default budgets; the library call, and ``evp compare --all`` as a user
runs it (reading the file, the best set, the printed summary).

The code before the verdicts were vectorised (a DataFrame per pair) is timed
too, from git (``--before REV``, a commit whose evp/ranking.py builds a frame
per pair), where its time is bearable (``--before-up-to``): it grew with the
square of the models, about 100 s at 300.

    python benchmarks/compare_all_scaling.py [--models 100,300,1000]
        [--before REV] [--before-up-to 300]

Measured on a 2-core machine (seconds; "before" from the commit before the
verdicts were vectorised):

    models  rows       before  library  evp compare --all
    100     59,400     8.0     0.3      0.9
    300     538,200    53.5    0.3      1.4
    1,000   5,994,000  -       3.4      7.4

The command line at 1,000 models took 31-90 s until the verdicts' sentences
(now evp.analyses.wording.verdicts) counted pairs on integer codes and worded
only the pairs they show; the old code was not run there (it grew with the square of the
models: about 30 minutes).
"""

import argparse
import importlib.util
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

import evp

ROOT = Path(__file__).resolve().parent.parent


def made_up(models: int, rounds: int = 20, seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    centres = rng.normal(0.7, 0.05, models)
    return {f"model-{m:04d}": np.round(np.clip(rng.normal(c, 0.05, rounds), 0, 1), 2)
            for m, c in enumerate(centres)}


def before(revision: str):
    """evp/ranking.py at `revision`, imported as a module beside today's evp."""
    source = subprocess.run(["git", "show", f"{revision}:evp/ranking.py"], cwd=ROOT,
                            check=True, capture_output=True, text=True).stdout
    spec = importlib.util.spec_from_loader("evp_ranking_before", loader=None)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look themselves up there
    exec(compile(source, f"{revision}:evp/ranking.py", "exec"), module.__dict__)
    return module


def timed(function):
    start = time.perf_counter()
    result = function()
    return time.perf_counter() - start, result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--models", default="100,300,1000")
    parser.add_argument("--before", default="54e2bdc",
                        help="a commit with the per-pair compare_all")
    parser.add_argument("--before-up-to", type=int, default=300,
                        help="time the old code up to this many models")
    args = parser.parse_args()
    old = before(args.before)
    print(f"{'models':>6} {'rows':>10} {'before (s)':>11} {'library (s)':>12} "
          f"{'evp compare --all (s)':>22}")
    for models in (int(m) for m in args.models.split(",")):
        scores = made_up(models)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # ties: said
            seconds, table = timed(lambda s=scores: evp.compare_all(s))
            then = "not run"
            if models <= args.before_up_to:
                took, reference = timed(lambda s=scores: old.compare_all(s))
                pd.testing.assert_frame_equal(table, reference)  # the same table
                then = f"{took:.1f}"
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "results.csv"
            pd.DataFrame([(m, s) for m, values in scores.items() for s in values],
                         columns=["model", "acc"]).to_csv(path, index=False)
            command = [sys.executable, "-m", "evp.cli", "compare", str(path),
                       "--score", "acc", "--group", "model", "--all"]
            took, done = timed(lambda c=command: subprocess.run(
                c, capture_output=True, text=True, cwd=ROOT))
            if done.returncode:
                raise SystemExit(done.stderr)
            lines = len(done.stdout.splitlines())
        print(f"{models:>6} {len(table):>10} {then:>11} {seconds:>12.1f} "
              f"{took:>15.1f} ({lines} lines)", flush=True)


if __name__ == "__main__":
    main()
