"""How long `import evp` takes, beside `import pandas` (which evp needs), in fresh
interpreters: best of 9 runs each. The aim is evp at most pandas + 0.2 s.

    python benchmarks/bench_import.py
"""

import subprocess
import sys

STATEMENT = "import time; t = time.perf_counter(); import {}; " \
            "print(time.perf_counter() - t)"


def import_seconds(module: str) -> float:
    done = subprocess.run([sys.executable, "-c", STATEMENT.format(module)],
                          capture_output=True, text=True, check=True)
    return float(done.stdout)


if __name__ == "__main__":
    # Interleaved, so that both see the same state of the disk cache.
    runs = [(import_seconds("pandas"), import_seconds("evp")) for _ in range(9)]
    pandas, evp = (min(times) for times in zip(*runs, strict=True))
    print(f"import pandas: {pandas:.3f} s")
    print(f"import evp:    {evp:.3f} s  (pandas + {evp - pandas:.3f} s)")
