"""Calibration of evp.verdict_power: the predicted chance of a strong verdict
against the realised one, over simulated worlds.

Each world draws a gap between model a and model b, then N observed rounds of
each. verdict_power predicts, from those rounds alone, the chance of a strong
verdict at budget n after m more rounds; the truth then draws the m rounds and
evp.compare gives the realised verdict. Over many worlds, the predictions are
binned (0-0.2, ..., 0.8-1) and each bin's mean prediction is set against its
realised share. Run: python benchmarks/verdict_power_calibration.py [worlds]
"""

import sys
import time

from evp.planning import calibration, reliability


def _with_failures(rng, size, gap):
    scores = rng.normal(0.75 + gap, 0.05, size)
    scores[rng.random(size) < 0.2] = 0.1  # a fifth of the rounds fail
    return scores


# name: (draw(rng, size, gap), largest gap, observed rounds)
FAMILIES = {
    "normal": (lambda rng, size, gap: rng.normal(gap, 1, size), 2.0, 12),
    "uniform (a ceiling)": (lambda rng, size, gap: rng.uniform(gap, gap + 1, size),
                            0.4, 12),
    "20% failed rounds": (_with_failures, 0.1, 12),
    "long bad tail (-gamma)": (lambda rng, size, gap: gap - rng.gamma(2, 1, size),
                               2.0, 12),
    "long best tail (gamma)": (lambda rng, size, gap: gap + rng.gamma(2, 1, size),
                               2.0, 12),
    "long best tail, 48 rounds": (lambda rng, size, gap: gap + rng.gamma(2, 1, size),
                                  2.0, 48),
}


def main(worlds=400):
    print(f"{worlds} worlds per family; budget 4; 10, 30 and 100 more rounds pooled")
    print(f"{'family':28s} {'mean pred':>9s} {'realised':>8s} "
          f"{'worst bin (pred → real)':>26s} {'time':>6s}")
    for name, (draw, largest_gap, observed) in FAMILIES.items():
        start = time.perf_counter()
        predicted, realised = calibration(draw, largest_gap, observed,
                                          worlds=worlds, rng=0)
        elapsed = time.perf_counter() - start
        p, r = predicted.ravel(), realised.ravel()
        worst = max(((row[3], row[4]) for row in reliability(predicted, realised)),
                    key=lambda pair: abs(pair[0] - pair[1]))
        print(f"{name:28s} {p.mean():9.3f} {r.mean():8.3f} "
              f"{worst[0]:12.2f} → {worst[1]:.2f} ({worst[1] - worst[0]:+.2f}) "
              f"{elapsed:5.1f}s")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 400)
