"""The report's cost with many models and tasks: 40 models × 500 rounds × 10 tasks
(made up, seeded), from reading the file to the written HTML page, as a user runs
``evp report``; and its parts (the tables alone, the figures), against the number
of pairs they judge.

    python benchmarks/bench_report_many.py [--models 40] [--rounds 500] [--tasks 10]
"""

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd


def made_up(models: int, rounds: int, tasks: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for t in range(tasks):
        for m in range(models):
            centre = 0.6 + 0.2 * rng.uniform() + 0.002 * m
            scores = np.clip(centre - rng.gamma(2.0, 0.03, rounds), 0, 1)
            rows.append(pd.DataFrame({"task": f"task-{t}", "model": f"model-{m:02d}",
                                      "accuracy": scores}))
    return pd.concat(rows, ignore_index=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--models", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=500)
    parser.add_argument("--tasks", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "results.csv"
        made_up(args.models, args.rounds, args.tasks).to_csv(path, index=False)
        command = [sys.executable, "-m", "evp.cli", "report", str(path), "--score",
                   "accuracy", "--group", "model", "--task", "task", "--out",
                   str(Path(folder) / "report.html")]
        start = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True)
        whole = time.perf_counter() - start

        import evp
        from evp.ranking import pairs_across_tasks, rank_table, task_curves

        start = time.perf_counter()
        results = evp.read_results(path, score="accuracy", group="model",
                                   task="task")
        read = time.perf_counter() - start
        start = time.perf_counter()
        curves = task_curves(results)
        rank_table(curves)
        pairs_across_tasks(curves)
        tables = time.perf_counter() - start
    pairs = args.models * (args.models - 1) // 2
    print(f"{args.models} models × {args.rounds} rounds × {args.tasks} tasks "
          f"({pairs} pairs per task): evp report {whole:.1f} s in all "
          f"(reading {read:.2f} s, the tables {tables:.2f} s, the rest the "
          "figures, the page and starting Python)")


if __name__ == "__main__":
    main()
