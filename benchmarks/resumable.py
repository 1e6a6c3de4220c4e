"""What the long benchmarks share: an output of one JSON line per finished
piece of work, so that a run killed half-way resumes where it stopped."""

import json
from pathlib import Path


def finished(out: Path) -> set:
    """The keys of the pieces `out` already holds (a line cut short by an
    interrupted run is skipped, and done again)."""
    done = set()
    if out.exists():
        for line in out.read_text().splitlines():
            try:
                done.add(json.loads(line)["key"])
            except (ValueError, KeyError):
                continue
    return done
