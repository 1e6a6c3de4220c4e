"""The ``watch`` analysis: a search read as it runs, worded once.

:func:`watch` answers "is the comparison settled yet?" for the rounds so far:
each model's sequential band (:func:`evp.sequential_band`, valid at every
number of rounds), the verdict between every pair in :func:`evp.compare`'s
words, family-wise over the pairs, the budgets and every look, whether the
budgets named are settled, and, on request, an estimate of the further rounds
that would settle them. The command line (``evp watch``), the notebooks and
:class:`evp.Monitor` show this one object, so they cannot word it apart.
"""

from __future__ import annotations

import itertools
import math
import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from evp._validation import ParameterError, TiesWarning, as_ns, as_probability
from evp.analyses import Analysis
from evp.results import Results
from evp.sequential import (
    BOUNDARIES,
    evidence,
    family_confidence,
    next_epoch,
    rounds_to_settle,
    sequential_band,
    settled_budgets,
)

__all__ = ["Watch", "watch"]

def _score(name: str, minimize: bool) -> str:
    """The score and its direction, the one place the direction is worded."""
    return f"{name} ({'lower' if minimize else 'higher'} is better)"


def _family(confidence: float, each: float, models: int, budgets,
            boundary: str = "stitched") -> str:
    """What the verdicts were read from, and what holds together: the
    sequential bounds, simultaneous over the budgets named and every look."""
    over = (f"simultaneous over n = {', '.join(f'{n:g}' for n in budgets)} and "
            "every number of rounds: read as often as you like, stop when you "
            "like")
    what = ("sequential exact intervals" if boundary == "exact"
            else "sequential bands")
    if models <= 1:
        return f"{confidence:.0%} {what}, {over}"
    return (f"{what} at {each * 100:.4g}% each ({confidence:.0%} "
            f"family-wise over {models} models), {over}")


@dataclass(frozen=True)
class Watch(Analysis):
    """A running search at one look (:func:`watch`).

    ``table`` holds one row per model and budget (the sequential band);
    ``verdicts`` one row per pair of models and budget; ``settled`` whether
    one model has strong evidence against every other at every budget named;
    ``exhausted`` whether every model has reached ``max_rounds`` unsettled;
    ``sentence`` the one sentence that says so.
    """

    ns: tuple = ()
    bands: dict = field(default_factory=dict)
    verdicts: pd.DataFrame | None = None
    settled: bool = False
    settled_at: tuple = ()
    exhausted: bool = False
    max_rounds: int | None = None
    rounds: dict = field(default_factory=dict)
    sentence: str = ""
    plan: object = None
    boundary: str = "stitched"

    def rounds_to_next_epoch(self, models=()) -> float:
        """The fewest further rounds, in all, after which some model's band
        can move (so a verdict can change): before then a new look says the
        same. `models` are models still to come (no rounds yet)."""
        horizon = None if self.boundary == "howard_ramdas" else self.max_rounds
        waits = [next_epoch(n, boundary=self.boundary, horizon=horizon) - n
                 for n in self.rounds.values()]
        waits += [next_epoch(0, boundary=self.boundary, horizon=horizon)
                  for m in models if m not in self.rounds]
        return min(waits) if waits else 1.0

    @property
    def status(self) -> str:
        """"settled", "exhausted" (the maximum reached unsettled) or "open"."""
        return ("settled" if self.settled else "exhausted" if self.exhausted
                else "open")

    def lines(self) -> list[str]:
        """What a terminal prints: the sentence, each pair's verdicts, the
        notes."""
        return [self.sentence, *self.pair_sentences(), *self.notes]

    def pair_sentences(self) -> list[str]:
        """Per pair of models, the verdict at each run of budgets with the same
        verdict, in :func:`evp.compare`'s words."""
        out = []
        if self.verdicts is None or self.verdicts.empty:
            return out
        for (a, b), rows in self.verdicts.groupby(["a", "b"], sort=False):
            said = []
            for (winner, strength), run in itertools.groupby(
                    zip(rows["better"], rows["evidence"], strict=True)):
                count = len(list(run))
                said.append((winner, strength, count))
            start, parts = 0, []
            budgets = rows["n"].tolist()
            for winner, strength, count in said:
                span = budgets[start:start + count]
                shown = f"n = {_span(span)}"
                loser = b if winner == a else a
                parts.append(f"{shown}: " + (
                    f"{strength} evidence that {winner} beats {loser}"
                    if winner else "no evidence either way"))
                start += count
            out.append(f"{a} against {b}: " + "; ".join(parts))
        return out

    def plot(self, **options):
        """Every model's sequential band at the budgets named."""
        from evp.plot import plot_sequential_bands

        return plot_sequential_bands(self.table, y=self.results.score_name,
                                     minimize=self.results.minimize, **options)

    def _repr_html_(self) -> str:
        from evp import _display

        figure = _display.band_figure(
            np.asarray(self.ns, dtype=float),
            [(str(m), band.lower, band.estimate, band.upper)
             for m, band in self.bands.items()]) if self.bands else ""
        shown = (self.verdicts if self.verdicts is not None
                 and not self.verdicts.empty else self.table)
        table = _display.table({c: shown[c].to_numpy() for c in shown.columns})
        return _display.page(self.what, [self.sentence, *self.pair_sentences(),
                                         *self.notes], [table, figure])


def _trial_order(results: Results) -> dict[str, np.ndarray]:
    """Each model's scores as read, in the order its trials ran (file order
    where the order is unknown), failed rounds (±inf) left as they are."""
    ordered = results.in_trial_order()
    if results.minimize:
        return {m: -s for m, s in ordered.items()}
    return {m: np.asarray(s, dtype=float) for m, s in ordered.items()}


def _stand_in(scores: dict, minimize: bool):
    """Failed rounds (kept as the worst, ±inf) as one finite value worse than
    every score: the median curves and their bands depend on the order of the
    scores only, so it is mapped back to ±inf afterwards."""
    finite = [s[np.isfinite(s)] for s in scores.values()]
    finite = np.concatenate(finite) if finite else np.empty(0)
    if finite.size == 0 or all(np.isfinite(s).all() for s in scores.values()):
        return scores, lambda values: values
    sign = 1.0 if minimize else -1.0
    edge = finite.max() if minimize else finite.min()
    stand_in = float(edge + sign * (1.0 + abs(edge)))
    worst = sign * math.inf

    def back(values):
        return np.where(values == stand_in, worst, values)

    return ({m: np.where(np.isfinite(s), s, stand_in) for m, s in scores.items()},
            back)


def watch(results: Results, ns=(1,), confidence: float = 0.8, *,
          max_rounds: int | None = None, boundary: str = "auto",
          plan: bool = False, replications: int = 200, seed=0) -> Watch:
    """Is the comparison of the models at the budgets `ns` settled, after the
    rounds seen so far, with verdicts that hold however often it is asked?

    Each model's sequential median band (:func:`evp.sequential_band`, at
    ``1 − (1 − confidence)/M`` for M models, so that every band holds at once
    with probability at least `confidence`), read in each model's trial order;
    each pair's evidence at each budget in :func:`evp.compare`'s words (with
    `max_rounds`, ``boundary="auto"`` reads the exact intervals at the budgets
    named, whose crossing over every epoch up to the maximum is computed
    exactly: the sharpest here; without, the stitched band);
    settled where, at every budget named, one model's bounds lie wholly beyond
    every other's. `max_rounds` is the most rounds of each model the search
    will run (it narrows the bands, and reaching it unsettled is
    ``exhausted``); with `plan`, an estimate of the further rounds to settle
    (:func:`evp.sequential.rounds_to_settle`, `replications` simulated
    futures, seeded by `seed`).
    """
    if results.task is not None:
        raise ParameterError("task", "task: a watch reads one task's search; "
                             "select one task's rows")
    if results.runs is not None:
        raise ParameterError("runs", "runs: a watch reads one random search per "
                             "model, not repeated runs of a tuner")
    budgets, _ = as_ns(ns, integer=False)
    confidence = as_probability(confidence, "confidence")
    if max_rounds is not None and not (isinstance(max_rounds, (int, np.integer))
                                       and max_rounds >= 1):
        raise ParameterError("max_rounds", f"max_rounds must be a whole number of "
                             f"rounds ≥ 1 or None, got {max_rounds!r}")
    if boundary == "auto":  # exact at the budgets named when a maximum is set
        boundary = "exact" if max_rounds is not None else "stitched"
    if boundary not in BOUNDARIES:
        raise ParameterError("boundary", f"boundary must be auto or one of "
                             f"{', '.join(BOUNDARIES)}, got {boundary!r}")
    if boundary == "exact" and max_rounds is None:
        raise ParameterError("max_rounds", "boundary='exact' needs max_rounds (the "
                             "most rounds of each model): give it, or "
                             "boundary='stitched'")
    minimize = results.minimize
    scores, back = _stand_in(_trial_order(results), minimize)
    models = list(scores)
    each = family_confidence(confidence, len(models))
    horizon = None if boundary == "howard_ramdas" else max_rounds
    bands, rows = {}, []
    tied = []
    for model, x in scores.items():
        with warnings.catch_warnings():
            # Said once in the notes, not as a warning at every look.
            warnings.simplefilter("ignore", TiesWarning)
            band = sequential_band(x, budgets, each, boundary=boundary,
                                   horizon=horizon, minimize=minimize)
        if np.unique(x).size < x.size:
            tied.append(model)
        bands[model] = band
        for j, n in enumerate(band.ns):
            rows.append({"model": model, "n": float(n), "rounds": band.rounds,
                         "read": band.read, "lower": float(back(band.lower[j])),
                         "estimate": float(back(band.estimate[j])),
                         "upper": float(back(band.upper[j]))})
    table = pd.DataFrame(rows)
    verdicts = []
    for a, b in itertools.combinations(models, 2):
        forward, reverse = evidence(bands[a], bands[b])
        for j, n in enumerate(budgets):
            winner = a if forward[j] != "none" else b if reverse[j] != "none" else ""
            verdicts.append({"a": a, "b": b, "n": n,
                             "evidence": forward[j] if winner == a else reverse[j],
                             "better": winner})
    verdicts = pd.DataFrame(verdicts, columns=["a", "b", "n", "evidence", "better"])
    per_budget = settled_budgets(np.stack([bands[m].lower for m in models]),
                                 np.stack([bands[m].upper for m in models]),
                                 minimize)
    settled = bool(per_budget.all())
    rounds = {m: bands[m].rounds for m in models}
    exhausted = (not settled and max_rounds is not None
                 and min(rounds.values()) >= max_rounds)
    read = _family(confidence, each, len(models), budgets, boundary)
    scored = _score(results.score_name, minimize)
    seen = " and ".join(f"{n} of {m}" for m, n in rounds.items())
    shown = ", ".join(f"{n:g}" for n in budgets)
    if len(models) < 2:
        sentence = (f"One model so far ({seen} rounds): nothing to compare; its "
                    f"band holds at every look ({confidence:.0%}).")
    elif settled:
        leaders = [_leader(bands, models, j, minimize) for j in range(budgets.size)]

        def beaten(leader):
            others = [m for m in models if m != leader]
            return ((others[0], f"{others[0]}'s") if len(others) == 1
                    else ("every other model", "every other's"))

        said = "; ".join(f"at n = {span}, strong evidence that {leader} beats "
                         f"{beaten(leader)[0]}: {leader}'s bounds lie wholly on "
                         f"the better side of {beaten(leader)[1]}"
                         for leader, span in _runs(leaders, budgets))
        sentence = (f"Settled after {seen} rounds of {scored}: {said}; read "
                    f"from {read}.")
    else:
        open_ = ", ".join(f"{n:g}" for n, done in zip(budgets, per_budget,
                                                       strict=True) if not done)
        if exhausted:
            sentence = (f"Not settled within the maximum of {max_rounds} rounds "
                        f"({seen}) of {scored}: at n = {open_} no model has "
                        "strong evidence against every other; stop, or raise "
                        "the maximum.")
        else:
            sentence = (f"Not settled after {seen} rounds of {scored}: at n = "
                        f"{open_} no model has strong evidence against every "
                        f"other yet; read from {read}.")
    notes = ["each model's bounds move at epochs only: they read the first "
             + ", ".join(f"{bands[m].read} rounds of {m}" for m in models)]
    if tied:
        notes.append(f"scores tie ({', '.join(tied)}): the bands hold with at "
                     "least the stated confidence (exactly only for continuous "
                     "scores)")
    if not results.knows_order:
        notes.append("the order the trials ran in is not known: the rows' order "
                     "is read as the order they arrived (give an order column)")
    notes += list(results.warnings)
    planned = None
    if plan and not settled and not exhausted and len(models) >= 2:
        horizon_plan = max_rounds if max_rounds is not None else 4 * max(
            rounds.values())
        try:
            planned = rounds_to_settle(
                [scores[m] for m in models], budgets, confidence,
                horizon=max(horizon_plan, max(rounds.values())),
                boundary=boundary, minimize=minimize,
                replications=replications, rng=seed)
        except ValueError as error:
            notes.append(f"no plan: {error}")
        else:
            sentence += f" Plan: {planned.describe()}."
    return Watch(results, table,
                 f"Watching {', '.join(models)} at n = {shown}: sequential bands",
                 confidence, "ld_highest_density", tuple(notes),
                 ns=tuple(float(n) for n in budgets), bands=bands,
                 verdicts=verdicts, settled=settled,
                 settled_at=tuple(bool(d) for d in per_budget),
                 exhausted=exhausted, max_rounds=max_rounds, rounds=rounds,
                 sentence=sentence, plan=planned, boundary=boundary)


def _leader(bands: dict, models: list, j: int, minimize: bool) -> str:
    """The model whose band lies beyond every other's at budget index j."""
    lows = [(-bands[m].upper[j] if minimize else bands[m].lower[j]) for m in models]
    return models[int(np.argmax(lows))]


def _runs(labels: list, budgets) -> list[tuple[str, str]]:
    """(label, span of budgets) for each run of equal labels."""
    out, start = [], 0
    for label, run in itertools.groupby(labels):
        count = len(list(run))
        span = budgets[start:start + count]
        out.append((label, _span(span)))
        start += count
    return out


def _span(budgets) -> str:
    """Budgets in words: each of a few, else the first and last of a run."""
    budgets = [float(n) for n in budgets]
    if len(budgets) <= 3:
        return ", ".join(f"{n:g}" for n in budgets)
    return f"{budgets[0]:g}–{budgets[-1]:g}"
