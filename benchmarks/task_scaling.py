"""How the --task path grows with the number of tasks: 6 models x 10 rounds on
each of 500, 1,000 and 4,000 tasks (made up, seeded). Timed: reading the frame
(read_results with task=), splitting it by task (Results.by_task), and
``evp curve --task`` and ``evp compare --task`` from the CSV file to the printed
table, in process. Time that grows with the square of the tasks shows as a
ratio of 4,000 tasks' time to 1,000 tasks' well above 4.

    python benchmarks/task_scaling.py [--tasks 500,1000,4000] [--skip compare]

Run it on another checkout (PYTHONPATH=that/checkout) to compare versions.
"""

import argparse
import contextlib
import io
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

MODELS, ROUNDS = 6, 10


def made_up(tasks: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    size = tasks * MODELS * ROUNDS
    centre = np.repeat(rng.uniform(0.6, 0.8, tasks * MODELS), ROUNDS)
    return pd.DataFrame({
        "task": np.repeat([f"task-{t}" for t in range(tasks)], MODELS * ROUNDS),
        "model": np.tile(np.repeat([f"model-{m}" for m in range(MODELS)], ROUNDS),
                         tasks),
        "accuracy": np.clip(centre - rng.gamma(2.0, 0.03, size), 0, 1).round(5)})


def timed(work) -> float:
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        work()
    return time.perf_counter() - start


def command(*args) -> None:
    from evp.cli import main

    with contextlib.redirect_stdout(io.StringIO()), \
            contextlib.redirect_stderr(io.StringIO()) as err:
        status = main([str(a) for a in args])
    if status != 0:
        raise SystemExit(f"evp {' '.join(map(str, args))}: {err.getvalue()}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tasks", default="500,1000,4000")
    parser.add_argument("--skip", default="", help="steps to leave out, "
                        "comma-separated: read, by_task, curve, compare")
    args = parser.parse_args()
    import evp

    skip = set(args.skip.split(","))
    print(f"evp from {Path(evp.__file__).parent.parent.name}; {MODELS} models x "
          f"{ROUNDS} rounds per task; seconds")
    print(f"{'tasks':>6} {'read':>8} {'by_task':>8} {'curve':>8} {'compare':>8}")
    with tempfile.TemporaryDirectory() as folder:
        for tasks in [int(t) for t in args.tasks.split(",")]:
            frame = made_up(tasks)
            path = Path(folder) / f"tasks-{tasks}.csv"
            frame.to_csv(path, index=False)
            results = evp.read_results(frame, score="accuracy", group="model",
                                       task="task")
            times = {
                "read": lambda f=frame: evp.read_results(
                    f, score="accuracy", group="model", task="task"),
                "by_task": results.by_task,
                "curve": lambda p=path: command(
                    "curve", p, "--score", "accuracy", "--group", "model",
                    "--task", "task", "--ns", "1,5", "--method", "none"),
                "compare": lambda p=path: command(
                    "compare", p, "--score", "accuracy", "--group", "model",
                    "--task", "task", "--all", "--ns", "1,5"),
            }
            shown = {name: ("-" if name in skip else f"{timed(work):.2f}")
                     for name, work in times.items()}
            print(f"{tasks:>6} " + " ".join(f"{v:>8}" for v in shown.values()),
                  flush=True)


if __name__ == "__main__":
    main()
