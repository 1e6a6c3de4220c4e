"""Calibration of evp.verdict_power: the predicted chance of a strong verdict
against the realised one, over simulated worlds.

Each world draws a gap between model a and model b (uniform, up to two standard
deviations of the family's scores), then N observed rounds of each.
verdict_power predicts, from those rounds alone, the chance of a strong verdict
at budget 4 after 10, 30 and 100 more rounds, in both its readings: with
exponential tails beyond the observed extremes (``strong``) and with none
(``strong_light``). The truth then draws the rounds and evp.compare gives the
realised verdict. Over many worlds, the predictions are binned (0-0.2, ...,
0.8-1) and each bin's mean prediction is set against its realised share; the
worst bin is printed, and whether the range (``strong_low`` to ``strong_high``)
holds. Real search distributions: benchmarks/verdict_power_real_calibration.py.
Run: python benchmarks/verdict_power_calibration.py [worlds]
"""

import sys
import time

from evp.parametric import NoisyQuadraticDistribution
from evp.planning import calibration, reliability


def _with_failures(rng, size, gap):
    scores = rng.normal(0.75 + gap, 0.05, size)
    scores[rng.random(size) < 0.2] = 0.1  # a fifth of the rounds fail
    return scores


def _quadratic(c):
    # The noisy quadratic tail of Lourie, He and Cho (2025): a ceiling at 0.9.
    tail = NoisyQuadraticDistribution(0.3, 0.9, c, 0.01)
    return lambda rng, size, gap: tail.sample(size, rng=rng) + gap


# name: (draw(rng, size, gap), largest gap (two standard deviations), rounds)
FAMILIES = {
    "normal": (lambda rng, size, gap: rng.normal(gap, 1, size), 2.0, 12),
    "uniform (a ceiling)": (lambda rng, size, gap: rng.uniform(gap, gap + 1, size),
                            0.58, 12),
    "20% failed rounds": (_with_failures, 0.1, 12),
    "noisy quadratic, c = 1": (_quadratic(1), 0.36, 12),
    "noisy quadratic, c = 4": (_quadratic(4), 0.28, 12),
    "long bad tail (-gamma)": (lambda rng, size, gap: gap - rng.gamma(2, 1, size),
                               2.8, 12),
    "long best tail (gamma)": (lambda rng, size, gap: gap + rng.gamma(2, 1, size),
                               2.8, 12),
    "long best tail, 48 rounds": (lambda rng, size, gap: gap + rng.gamma(2, 1, size),
                                  2.8, 48),
}


def _worst(predicted, realised):
    return max(((row[3], row[4]) for row in reliability(predicted, realised)),
               key=lambda pair: abs(pair[0] - pair[1]))


def _range_holds(low, high, realised, tolerance=0.05, least=100):
    """Whether the realised share is at least the low end in every bin of the
    low end and at most the high end in every bin of the high end, within
    `tolerance`, over bins of at least `least` predictions (as on the real
    grids: a bin of 20 has a standard error near 0.1); and the worst such
    shortfall."""
    short = [row[3] - row[4] for row in reliability(low, realised, least=least)]
    over = [row[4] - row[3] for row in reliability(high, realised, least=least)]
    worst = max(short + over)
    return worst <= tolerance, worst


def main(worlds=400):
    print(f"{worlds} worlds per family; budget 4; 10, 30 and 100 more rounds pooled;")
    print("worst bin: mean prediction -> realised share, with tails | without")
    print("range: low end to high end; 'holds' when no bin (of 100 or more) of the low")
    print("end lies above, and none of the high end below, the realised share by more")
    print("than 0.05")
    print(f"{'family':27s} {'realised':>8s} {'with tails':>10s} {'worst bin':>13s} "
          f"{'without':>8s} {'worst bin':>13s} {'range':>12s} {'time':>6s}")
    for name, (draw, largest_gap, observed) in FAMILIES.items():
        start = time.perf_counter()
        predicted, light, realised, low, high = calibration(
            draw, largest_gap, observed, worlds=worlds, rng=0, ranges=True)
        elapsed = time.perf_counter() - start
        tailed, cut = _worst(predicted, realised), _worst(light, realised)
        holds, worst = _range_holds(low, high, realised)
        print(f"{name:27s} {realised.mean():8.3f} {predicted.mean():10.3f} "
              f"{tailed[0]:6.2f}->{tailed[1]:.2f} {light.mean():8.3f} "
              f"{cut[0]:6.2f}->{cut[1]:.2f} {'holds' if holds else 'fails'} "
              f"{worst:+.2f} {elapsed:5.1f}s")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 400)
