"""Shared by the benchmark scripts: how a timing is taken."""

import time


def best_of(repeats, function):
    """Fastest of `repeats` runs (seconds) and the last result."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return min(times), result
