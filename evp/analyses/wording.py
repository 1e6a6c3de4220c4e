"""Every sentence evp says of an analysis, made here from data.

The layers below return data: verdict codes ("strong", "fair", "weak",
"none"), counts, sets, p-values. The analyses turn them into words with the
functions of this module only, so that one fact has one wording wherever it is
shown (the command line, the report, a notebook) and a test can read each
sentence back against the table it came from.

The rules the sentences keep:

* **A verdict names its family.** Every verdict, band and best set says which
  budgets its bounds hold over together and what read them (:func:`family`):
  "simultaneous over n = 1, 2, 3, … (every budget)" for a band, "simultaneous
  over n = 1, 5, 10" or "at n = 5 alone" for exact intervals at the budgets
  named.
* **Direction is data, never wording.** A sentence says "better", "beats",
  "ahead", "the better side": never "above", "higher" or "lower", so that a
  loss reads as a score does. The direction is said once, where the score is
  named (:func:`score`).
* A tie is said as a tie; "open" only of budgets where every band is open; a
  test that cannot reach its level says so, with the smallest p-value it could
  give, before what the data does show.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd

from evp._display import method_name
from evp._numbers import number

__all__ = [
    "EVERY",
    "OPEN",
    "across_heading",
    "across_tasks",
    "best_set",
    "beyond_rounds",
    "budget_changes",
    "comparison",
    "exchangeability",
    "family",
    "listed",
    "plan",
    "plan_range",
    "plan_today",
    "score",
    "settle_tasks",
    "span",
    "tied_scores",
    "tied_tasks",
    "verdicts",
]

#: Every budget, as a band's family says it.
EVERY = "n = 1, 2, 3, … (every budget)"

#: What an open cell of a band means, said under every table that has one.
OPEN = ("the band is unbounded there: too few rounds to bound the curve at that "
        "budget with the stated confidence")


# ------------------------------------------------------------- small words


def runs(budgets, key) -> list[list]:
    """The budgets, in order, cut into runs of neighbours with equal key[n]."""
    found = []
    for n in budgets:
        if found and key[found[-1][-1]] == key[n]:
            found[-1].append(n)
        else:
            found.append([n])
    return found


def span(chosen, budgets) -> str:
    """Budgets in words, "n = 1–3, 10, 35": a dash joins budgets that are
    neighbours among `budgets` (all the table's budgets, in order)."""
    budgets = list(budgets)
    inside = {n: n in set(chosen) for n in budgets}
    parts = [f"{run[0]:g}" + (f"–{run[-1]:g}" if len(run) > 1 else "")
             for run in runs(budgets, inside) if inside[run[0]]]
    return "n = " + ", ".join(parts)


def listed(names) -> str:
    """"a, b and c"."""
    names = [str(n) for n in names]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _budgets(values) -> str:
    return ", ".join(f"{n:g}" for n in values)


def score(name: str, minimize: bool) -> str:
    """The score and its direction, the one place the direction is worded:
    "log loss (lower is better)"."""
    return f"{name} ({'lower' if minimize else 'higher'} is better)"


# ------------------------------------------------------------- the family

_BOUNDS = {"band": "bands", "budgets": "exact intervals",
           "both": "exact intervals or bands (each model's sharper)"}


def _top_bands(q: float = 0.5, minimize: bool = False) -> str:
    """The top bands in words for the q-quantile curve: at budgets k ≥ 1 that
    curve reads CDF levels q^(1/k) ≥ q (1 − (1 − q)^(1/k) ≤ q for losses), so
    the band is exact over the order statistics from about the q-th fraction to
    the best: the better 1 − q of them for scores, q for losses."""
    share = q if minimize else 1.0 - q
    if abs(q - 0.5) < 1e-12:  # the median, every curve evp's analyses read
        return "top bands (exact over the better half of the order statistics)"
    return (f"top bands (exact over about the better {share:.0%} of the order "
            f"statistics, the ones a {q:g}-quantile curve reads)")


def family(reading) -> str:
    """What a verdict, band or best set was read from, in one short form:
    "80% LD highest-density bands, simultaneous over n = 1, 2, 3, … (every
    budget)", "80% exact intervals at n = 5 alone", or, family-wise, "LD
    highest-density bands at 95% each (80% family-wise over 4 models),
    simultaneous over n = 1, 5, 10".

    `reading` has ``construction`` ("band", "top_band", "budgets", "both"),
    ``budgets`` (the budgets the bounds pay for), ``confidence`` (the promise
    of all the bounds together), ``each`` (each bound's confidence), ``method``,
    ``models`` and ``tasks``."""
    construction = reading.construction
    bounds = (_top_bands(getattr(reading, "q", 0.5),
                         getattr(reading, "minimize", False))
              if construction == "top_band" else _BOUNDS.get(construction, "bounds"))
    if construction in ("band", "top_band"):
        bounds = f"{method_name(reading.method)} {bounds}"
        over = f"simultaneous over {EVERY}"
    else:
        budgets = list(reading.budgets)
        over = (f"at n = {budgets[0]:g} alone" if len(budgets) == 1 else
                f"simultaneous over n = {_budgets(budgets)}")
    if reading.models <= 2 and reading.tasks <= 1:
        return f"{reading.confidence:.0%} {bounds}, {over}"
    counted = f"{reading.models} models" + (
        f" and {reading.tasks} tasks" if reading.tasks > 1 else "")
    return (f"{bounds} at {reading.each * 100:.4g}% each ({reading.confidence:.0%} "
            f"family-wise over {counted}), {over}")


# ------------------------------------------------------------ two models

_MEANING = {  # the labels in words, for a winner w and a loser l
    "strong": "strong evidence that {w} beats {l}: {w}'s band lies wholly on the "
              "better side of {l}'s",
    "fair": "fair evidence that {w} beats {l}: each band excludes the other's "
            "estimate",
    "weak": "weak evidence that {w} beats {l}: one band excludes the other's "
            "estimate, in {w}'s favour",
    "none": "no evidence either way: the bands overlap and each contains the "
            "other's estimate",
}


def _bound_word(construction: str) -> str:
    return {"budgets": "interval", "both": "bound"}.get(construction, "band")


def comparison(found, names, reading) -> list[str]:
    """A comparison's verdicts in words (:func:`evp.compare`'s result, 1-D
    scores): one sentence per run of budgets with the same verdict, each
    naming what it was read from."""
    if found.evidence.ndim != 1:
        raise ValueError("the verdicts in words need a comparison of 1-D scores "
                         "(one sample per model)")
    a, b = (str(name) for name in names)
    winners, strengths = found.winner(names), found.strength()
    key = {i: (winners[i], strengths[i]) for i in range(found.ns.size)}
    word, read = _bound_word(reading.construction), family(reading)
    sentences = []
    for run in runs(range(found.ns.size), key):
        winner, strength = key[run[0]]
        where = f"n = {found.ns[run[0]]:g}" + (
            f"–{found.ns[run[-1]]:g}" if len(run) > 1 else "")
        said = _MEANING[strength].format(w=winner, l=b if winner == a else a)
        said = said.replace("band", word)
        sentences.append(f"{where}: {said}; read from {read}.")
    return sentences


# ------------------------------------------------------------------ a plan


def plan_today(budget, strength: str, names, winner: str, reading) -> str:
    """The verdict a plan starts from, as compare gives it with the same
    family."""
    loser = next((str(n) for n in names if str(n) != winner), "")
    said = (f"{strength} evidence that {winner} beats {loser}" if winner
            else "no evidence either way")
    return f"today, at n = {budget:g}: {said}; read from {family(reading)}"


def plan_range(held: float, width: float, hopeful) -> str:
    """How to read a plan's range, said beside every plan: how far it held on
    HPOBench's grids (`held`, its mean `width`) and how hopeful the simulated
    point ran there (`hopeful`: separated, near-equal pairs), as
    :mod:`evp.planning` measured them."""
    return ("read the range, 'strong, low end' to 'strong, high end', calibrated on "
            "HPOBench's grids: there it held the realised chance in at least "
            f"{held:.1%} of the cases at every budget from 1 to 5, near-equal "
            f"and separated pairs alike, {width:.2f} wide on average with 20 "
            "more rounds of each (wider the further a plan looks ahead); a measured "
            "promise on one family of search spaces, not a bound. The point 'strong "
            "either way' (simulated from the rounds so far) ran too hopeful there, by "
            f"{hopeful[0]:.2f} on average for separated pairs and "
            f"{hopeful[1]:.2f} for near-equal ones; the low end reads both "
            "models' CDF bands at 20%, the high end a posterior quantile of the "
            "chance")


def plan(table: pd.DataFrame, budget: int, reading=None, *,
         unit: str | None = None, likely: float = 0.8,
         hopeless: float = 0.2, held: float | None = None,
         hopeful=None) -> str:
    """The plan in one sentence, read from the range that holds (``strong, low
    end`` to ``strong, high end`` of :func:`evp.tables.plan_table`), never from
    the point alone, which is too hopeful on real searches: the fewest extra
    rounds whose low end reaches `likely`, with their cost; or that the models
    are too close when even the most rounds leave the high end under
    `hopeless`; or the range the most rounds give, and the fewest rounds whose
    high end reaches `likely`. The simulated point comes with its Monte Carlo
    standard error, and how far each held on HPOBench's grids (`held`, the
    range's worst share; `hopeful`, how hopeful the point ran), where given;
    the verdict predicted is compare's with `reading`'s family."""
    chance = table["strong either way"].to_numpy()
    error = table["s.e."].to_numpy()
    low = table["strong, low end"].to_numpy()
    high = table["strong, high end"].to_numpy()
    extra = table["more rounds of each"].to_numpy()
    verdict = "a strong verdict"
    read = "" if reading is None else f"; read from {family(reading)}"

    def cost(row) -> str:
        if "expected cost" not in table:
            return ""
        spent = table["expected cost"].iloc[row]
        return f" (≈ {number(spent)}{' ' + unit if unit else ''})"

    # How far to trust each, as measured on real searches (evp.planning).
    trust = ("" if held is None else
             f"; on HPOBench's grids such a range held the realised chance in at "
             f"least {held:.1%} of cases, and the simulated point ran "
             f"{hopeful[0]:.2f} to {hopeful[1]:.2f} too hopeful")

    def point(row) -> str:
        return f"simulated {chance[row]:.0%} ± {error[row]:.1%} s.e.{trust}"

    def between(row) -> str:
        if low[row] < 0.005:  # would read "between 0% and H%"
            return (f"of at most {high[row]:.0%} (the rounds so far cannot bound "
                    "it from below: it may be near none)")
        return f"between {low[row]:.0%} and {high[row]:.0%}"

    enough = np.flatnonzero(low >= likely)
    if enough.size:
        row = enough[0]
        return (f"about {extra[row]} more rounds of each{cost(row)} give "
                f"{verdict} at n = {budget} with a chance {between(row)} "
                f"({point(row)}){read}")
    most = int(np.argmax(extra))
    if high[most] < hopeless:
        return (f"more rounds will not settle this at n = {budget}: the models are "
                f"too close (a chance of at most {high[most]:.0%} of {verdict} "
                f"even after {extra[most]} more rounds of each{cost(most)}; "
                f"{point(most)}){read}")
    reach = np.flatnonzero(high >= likely)
    fewest = (f"; no fewer than {extra[reach[0]]} more rounds of each can give "
              f"{likely:.0%}" if reach.size else "")
    return (f"after {extra[most]} more rounds of each{cost(most)}, {verdict} "
            f"at n = {budget} has a chance {between(most)} ({point(most)}): "
            f"the rounds so far cannot say more{fewest}{read}")


def beyond_rounds(ns, rounds: dict) -> list[str]:
    """The sentence saying where budgets asked for lie beyond a model's rounds
    (`rounds`: each model's count), none when every budget is within them."""
    short = {m: r for m, r in rounds.items() if max(ns) > r}
    if not short:
        return []
    beyond = [n for n in ns if n > min(short.values())]
    shown = ", ".join(map(str, beyond[:5])) + (", …" if len(beyond) > 5 else "")
    models = ", ".join(f"{m} {r}" for m, r in list(short.items())[:5])
    return [f"n = {shown} beyond the rounds run ({models}"
            f"{', …' if len(short) > 5 else ''}): there V and W extrapolate from "
            "the rounds run, U stops, and the bands widen"]


# ---------------------------------------------------------- many models


def best_set(members: dict, open_: dict, total: int, reading) -> list[str]:
    """The set that may still be best in words (`members`: {n: [models]},
    `open_`: {n: every band open}): one sentence per run of budgets with the
    same set and the same openness, so that "open" is said of no budget where
    a band is bounded."""
    budgets = list(members)
    key = {n: (tuple(members[n]), bool(open_[n])) for n in budgets}
    read = family(reading)
    sentences = []
    for run in runs(budgets, key):
        chosen, shut = key[run[0]]
        who = (chosen[0] + " alone" if len(chosen) == 1
               else f"{len(chosen)} of {total} models: " + ", ".join(chosen))
        sentences.append(
            f"{span(run, budgets)}: {who} may still be best" + (
                " (every band is open there: too few rounds to bound the best "
                "of so many)" if shut else "") + f"; read from {read}.")
    return sentences


def verdicts(pairs, open_: pd.Series, reading, *, adjust: str | None = "holm",
             most: int | None = None) -> list[str]:
    """Every pair's verdicts (:class:`evp.ranking.PairVerdicts`, or
    :func:`evp.compare_all`'s table as :func:`evp.ranking.as_verdicts` reads
    it) in words, read at the budgets where they can be strong: where every
    band is open (`open_`, of the same bands), then how many strong verdicts
    the other budgets have, and each pair's strong verdicts with their budgets
    (the first `most`; the table of every pair lists them all).

    `adjust` is the adjustment asked for; "holm" is said to be Bonferroni here
    (the verdicts read bands, which give no p-values to step down through)."""
    budgets = list(pairs.ns)
    shut = [n for n in budgets if bool(open_.get(n, False))]
    readable = [n for n in budgets if n not in shut]
    bound = _bound_word(reading.construction)
    sentences = []
    if shut:
        sentences.append(
            f"Every {bound} is open at {span(shut, budgets)} (too few rounds to "
            "bound the best of so many), so no verdict there can be strong" + (
                f"; not every {bound} is open at {span(readable, budgets)}."
                if readable else "."))
    every = pairs.pairs // 2
    found, either, chosen, shown = pairs.strong([n in readable for n in budgets],
                                                most)
    read = family(reading)
    if str(pairs.adjust).startswith("none"):
        how = (f"unadjusted, each pair alone, read from {read}: some strong "
               "verdicts are expected by chance with many pairs")
    else:
        how = (f"family-wise: the chance of any wrong strong verdict, at any pair "
               f"and budget, is at most {1 - reading.confidence:.0%}; read from "
               f"{read}, Bonferroni over the {len(pairs.models)} models' {bound}s"
               + (" (Holm's adjustment is the same here: verdicts read from "
                  "bands give no p-values to step down through)"
                  if adjust == "holm" else ""))
    if readable:
        verdict = "verdict" if found == 1 else "verdicts"
        sentences.append(
            f"At {span(readable, budgets)}: {found} strong {verdict} over "
            f"{pairs.pairs * len(readable)} ordered pair-budgets, on {either} of "
            f"{every} pairs; {how}.")
    else:
        sentences.append(f"No strong verdict can be made at any budget; {how}.")
    said = [f"{a} beats {b} (strong) at {span(at, budgets)}." for a, b, at in shown]
    if chosen > len(shown):
        said.append(f"{chosen - len(shown)} more pairs have a strong verdict; "
                    "the table of every pair lists them.")
    return sentences + said


# ----------------------------------------------------------- many tasks


def across_heading(tasks: int, confidence: float) -> str:
    """What the table across tasks shows, said once for the command line and
    the report."""
    return (f"across {tasks} tasks: mean rank (1 the best), the aggregate median "
            "on each task's scale (0: one round's expected best, 1: the best "
            "observed) with its band, simultaneous over the models, tasks and "
            f"{EVERY} at {confidence:.0%}, and on how many tasks each model may "
            "still be best")


def budget_changes(lead: dict, alone: pd.Series) -> list[str]:
    """Where the budget changes the answer, from the leaders at each budget
    (`lead`: {n: ([models of the best mean rank], that rank)}, `alone`: the
    model leading alone at each budget, None where tied): the model of best
    mean rank over each run of budgets, or the models that tie for it, then
    whether the budget changes the answer (only when the models that lead
    alone are not the same at every budget where one does)."""
    budgets = list(lead)
    key = {n: (tuple(who), value if len(who) > 1 else None)
           for n, (who, value) in lead.items()}
    sentences = []
    for run in runs(budgets, key):
        who, value = key[run[0]]
        where = span(run, budgets)
        if len(who) == 1:
            sentences.append(f"{where}: {who[0]} has the best mean rank")
        elif who:
            sentences.append(f"{where}: {listed(who)} tie for the best mean rank "
                             f"({value:.4g})")
        else:
            sentences.append(f"{where}: no model has rounds on any task")
    alone = alone.dropna()
    tied = [n for n in budgets if len(lead[n][0]) > 1]
    if alone.nunique() > 1:
        sentences.append(
            "The budget changes the answer: the model ranked first is not the same "
            "at every budget." if not tied else
            "The budget changes the answer: the model ranked first alone is not the "
            "same at every budget where one leads alone (tied at "
            f"{span(tied, budgets)}).")
    elif alone.nunique() == 1 and not tied:
        sentences.append("The same model ranks first at every budget shown.")
    elif alone.nunique() == 1:
        sentences.append(f"No other model ranks first alone at any budget shown: "
                         f"{alone.iloc[0]} does at {span(alone.index, budgets)}; "
                         f"the first place is tied at {span(tied, budgets)}.")
    else:
        sentences.append("No model ranks first alone at any budget shown: the first "
                         "place is tied at every budget.")
    return sentences


def across_tasks(pairs: pd.DataFrame, counted: pd.DataFrame, confidence: float,
                 floor: float, alone: float, *, most: int | None = None
                 ) -> list[str]:
    """The pairs across tasks in words: which differ
    (:func:`evp.ranking.pairs_across_tasks`); where the test cannot reach its
    level at this number of tasks and pairs, that it cannot, with the smallest
    adjusted p-value it could give (`floor`; `alone`, a pair's own); and where
    no pair differs, what the tasks do show (`counted`,
    :func:`evp.ranking.pair_tasks`): for each pair, on how many tasks each is
    ahead and on how many its within-task verdict is strong. The first `most`
    pairs that differ, or lines of what the tasks show, are listed."""
    alpha = 1 - confidence
    budgets = sorted(set(pairs["n"]))
    if pairs.empty:
        return ["No pair to test: one model only."]
    tested = pairs.groupby(["a", "b"], sort=False)["tasks"].first()
    widest = int(tested.max())
    differ = pairs[pairs["differ"]]
    # The signed-rank test ranks the differences' sizes across tasks, so the
    # scale they are on is part of the answer: say which.
    scale = ("The test ranks the differences between the pair's median curves "
             "across tasks, each task's scores placed on its own 0–1 scale (1 at "
             "the best score seen on the task), not in the scores' units.")
    sentences = []
    if widest == 0:
        sentences.append(
            "The test has no task to use: on every task the pairs' models score "
            "the same in every round (or one of them has no rounds), so no task "
            "has a range of scores to place them on, and no pair can be found to "
            "differ at any budget.")
    elif floor > alpha:
        formula = (f"2/{2 ** widest:,} = " if alone == min(1.0, 2 / 2 ** widest)
                   else "")
        sentences.append(
            f"The test cannot decide here: with {widest} tasks, Wilcoxon's "
            f"signed-rank test gives no p-value below {formula}{alone:.3g}, so "
            f"after Holm over {len(tested)} pairs no adjusted p-value can be below "
            f"{floor:.3g}, above the {alpha:.0%} level: no pair can be found to "
            "differ at any budget, whatever the scores.")
    elif differ.empty:
        low = pairs.loc[pairs["p (Holm)"].idxmin()]
        sentences.append(
            f"No pair differs at {alpha:.0%} at any budget (Wilcoxon signed-rank "
            f"on each task's 0–1 scale, Holm over {len(tested)} pairs): the "
            "smallest adjusted p-value is "
            f"{low['p (Holm)']:.3g} ({low['a']} and {low['b']} at n = {low['n']:g}), "
            f"where the test could give as little as {floor:.3g}. {scale}")
    else:
        sentences.append(
            f"{len(differ)} of {len(pairs)} pair-budgets differ at {alpha:.0%} "
            f"(Wilcoxon signed-rank on each task's 0–1 scale, Holm over "
            f"{len(tested)} pairs at each budget); the tasks are the sample, not "
            f"the search noise within them. {scale}")
        said = [f"n = {n:g}: {a} and {b} differ ({a} ahead on {w:.0%} of {t} "
                f"tasks, Holm p = {p:.3g})." for a, b, n, t, w, p in differ[
                    ["a", "b", "n", "tasks", "a wins", "p (Holm)"]
                ].itertuples(index=False)]
        if most is not None and len(said) > most:
            said = [*said[:most], f"{len(said) - most} more pair-budgets differ; "
                                  "the table of the pairs lists them."]
        return sentences + said
    sentences.append(
        "What the tasks show (ahead: the median curve is better on that task; "
        "strong: the within-task verdict, its bands simultaneous over the tasks, "
        f"models and {EVERY} at {confidence:.0%}):")
    return sentences + tasks_show(counted, budgets, most=most)


def pair_runs(counted: pd.DataFrame):
    """(a, b, run, ns, counts) for each pair of :func:`evp.ranking.pair_tasks`
    and each run of budgets whose counts (tasks, a ahead, b ahead, a strong,
    b strong) are alike: what the sentences and the compact table both show."""
    columns = ["tasks", "a ahead", "b ahead", "a strong", "b strong"]
    for (a, b), part in counted.groupby(["a", "b"], sort=False):
        part = part.set_index("n")
        ns = list(part.index)
        key = {n: tuple(int(v) for v in part.loc[n, columns]) for n in ns}
        for run in runs(ns, key):
            yield a, b, run, ns, key[run[0]]


def tasks_show(counted: pd.DataFrame, budgets, *, most: int | None = None
               ) -> list[str]:
    """What the tasks show of each pair (:func:`evp.ranking.pair_tasks`), a
    line per run of budgets alike, the first `most`."""
    shown = []
    for a, b, run, _ns, counts in pair_runs(counted):
        tasks, ahead_a, ahead_b, strong_a, strong_b = counts
        verdicts_ = ("no strong within-task verdict" if not strong_a + strong_b
                     else f"strong within-task verdicts: {a} on {strong_a}, "
                          f"{b} on {strong_b}")
        shown.append(
            f"{a} vs {b} at {span(run, budgets)}: {a} ahead on {ahead_a} of "
            f"{tasks} tasks, {b} on {ahead_b}; {verdicts_}.")
    if most is not None and len(shown) > most:
        shown = [*shown[:most], f"{len(shown) - most} more lines like these; the "
                                "table of the pairs' tasks lists them."]
    return shown


def settle_tasks(tasks: int, needed: int | None, pairs: int,
                 confidence: float) -> str:
    """What would settle a comparison across tasks: more tasks, when the test
    cannot reach its level with these."""
    if needed is None:
        return (f"No number of tasks lets Wilcoxon's test, after Holm over "
                f"{pairs} pairs, reach the {1 - confidence:.0%} level here.")
    return (f"More tasks: with {tasks} tasks no pair can be found to differ; "
            f"Wilcoxon's signed-rank test after Holm over {pairs} pairs can reach "
            f"the {1 - confidence:.0%} level from {needed} tasks on (if every task "
            "agrees).")


def tied_tasks(tied: list, total: int, values: set) -> list[str]:
    """The tasks on which every round of every model scores the same: the
    models tie there, and the task has no scale for the aggregate curves and
    the tests across tasks."""
    if not tied:
        return []
    if len(tied) == total:
        return ["Every model scores the same on every task ("
                + (f"every round scores {next(iter(values))}" if len(values) == 1
                   else "each task's rounds all score one value")
                + "): the models tie at every budget, and no task has a range of "
                "scores to place them on, so there is no aggregate curve and no "
                "test across tasks can tell them apart."]
    named = ", ".join(str(t) for t in tied[:6]) + (", …" if len(tied) > 6 else "")
    return [f"On {len(tied)} of {total} tasks ({named}) every round of every "
            "model scores the same: the models tie there, and those tasks have no "
            "range of scores to place them on, so the aggregate curves and the "
            "tests across tasks leave them out."]


def tied_scores(models: list) -> str:
    """Some models' scores tie (`models`, by their display names; none named
    where only failed rounds tie): what that does to the bands. The notebooks
    and the report say it alike."""
    where = f" in {', '.join(map(str, models))}" if models else ""
    return (f"tied scores{where}: the bands' coverage is exact for continuous "
            "scores, close with ties")


# ------------------------------------------------------ the trial order


def exchangeability(pvalues: dict, adjusted: dict, tested: int,
                    knows_order: bool) -> str:
    """What the exchangeability test says of one model's trial order
    (`pvalues`, one per search: per task across tasks), `adjusted` by Holm over
    all `tested` searches, as the readers adjust them: one sentence for the
    checklist of the command line and the report."""
    if not pvalues:
        return ("trial order unknown: the random-search assumption is untested"
                if not knows_order else "too few trials to test the order")
    low, high = min(pvalues.values()), max(pvalues.values())
    spread = f"p = {low:.3g}" if low == high else f"p from {low:.3g} to {high:.3g}"
    searches = f"{len(pvalues)} search" + ("es" if len(pvalues) != 1 else "")
    # The raw p-values are shown, and the adjusted ones beside them: the verdict
    # reads the adjusted, so a raw p under 0.05 must not stand alone beside it.
    holm = ""
    if tested > 1 and adjusted:
        fixed = [adjusted[key] for key in pvalues if key in adjusted] or list(
            adjusted.values())
        holm = (f"; Holm-adjusted over {tested} searches: "
                + (f"{min(fixed):.3g}" if min(fixed) == max(fixed) else
                   f"from {min(fixed):.3g} to {max(fixed):.3g}"))
    adaptive = [key for key, p in adjusted.items() if p < 0.05]
    if not adaptive:
        verdict = ("consistent with random search" if len(pvalues) == 1 else
                   "consistent with random search on each")
    else:
        named = ", ".join(str(key[0]) if isinstance(key, tuple) else str(key)
                          for key in adaptive[:4]) + (
            ", …" if len(adaptive) > 4 else "")
        verdict = (f"adjusted p < 0.05 on {len(adaptive)} of {len(pvalues)} "
                   f"({named}): the trials there look adaptive, not like random "
                   "search")
    return (f"exchangeability of the trial order on {searches}: {spread}"
            f" ({holm[2:] + '; ' if holm else ''}{verdict})")


def settle_across(pairs: pd.DataFrame, tasks: int, confidence: float) -> str:
    """What would settle the pairs across tasks that differ at no budget, when
    the test can reach its level with these tasks."""
    tested = pairs.groupby(["a", "b"], sort=False)["differ"].any()
    open_pairs = [f"{a} and {b}" for (a, b), differ in tested.items() if not differ]
    if not open_pairs:
        return "Every pair differs across tasks at some budget: nothing to settle."
    named = f" ({'; '.join(open_pairs)})" if len(open_pairs) <= 6 else ""
    return (f"{len(open_pairs)} of {len(tested)} pairs differ at no budget{named}: "
            f"with {tasks} tasks the test can reach the {1 - confidence:.0%} level, "
            "so their tasks disagree or their curves lie close; more tasks narrow "
            "the test, by no count that can be promised.")


def settled(pairs: int) -> str:
    """No pair lacks a strong verdict: nothing for more rounds to settle."""
    return (f"Every pair of the {pairs} has a strong verdict at the budget its "
            "rounds can bound: nothing to settle.")


#: The report's headings, one wording each (:func:`heading`).
HEADINGS = {
    "ties": "Ties",
    "changes": "Across {tasks} tasks: where the budget changes the answer",
    "ranks": "Mean rank across tasks by budget (1 the best; each task ranks the "
             "models with rounds on it)",
    "aggregate": "At n = {n}: the aggregate median on each task's scale (0: one "
                 "round's expected best, 1: the best observed), with its band, "
                 "simultaneous over the models, tasks and " + EVERY
                 + " at {confidence:.0%}",
    "best_by_task": "May still be best on each task: {family}",
    "by_task": "At n = {n}: each task's median best {score} by model, with its "
               "band: {family}",
    "task_curves": "Median tuning curves on each task",
    "wins": "At n = {n}: the share of tasks on which the row's median curve is "
            "better than the column's",
    "across": "Pairs across tasks (Wilcoxon signed-rank on each task's 0–1 "
              "scale, Holm over the pairs at {alpha:.0%}; the tasks are the "
              "sample)",
    "tasks_table": "What the tasks show, pair by pair (ahead: the median curve is "
                   "better on that task; strong: the within-task verdict; first "
                   "and second: the pair's models in its order)",
    "differ_table": "The pairs that differ across tasks",
    "missing": "Incomplete blocks (said, never dropped)",
    "ranks_figure": "Mean rank by budget",
    "cd": "Mean ranks at the smallest and largest budgets; bars join the models "
          "the test across tasks does not tell apart (Wilcoxon, Holm)",
    "cd_cannot": "Mean ranks at the smallest and largest budgets; with {tasks} "
                 "tasks the test across tasks cannot tell any two models apart, "
                 "so one bar joins them all",
    "aggregate_figure": "Aggregate tuning curves on each task's scale",
    "curves": "Expected best {score} (the V estimator of Dodge et al. 2019) "
              "± 1 std",
    "bands": "Median tuning curves with their bands: {family}",
    "anytime": "Median best {score} so far across the runs, with its bands: "
               "{family}",
    "panels": "Tuning curves",
    "best_set": "May still be best: {family}",
    "best_set_figure": "The set that may still be best, by budget",
    "verdicts_many": "Verdicts on every pair, family-wise",
    "strong_table": "The pairs with a strong verdict, and the budgets",
    "matrix": "Evidence that the row beats the column at n = {n}",
    "matrix_figure": "The verdict matrix",
    "verdicts_pairs": "Verdicts (Lourie, Cho and He 2024, §2)",
    "verdict_table": "Evidence by budget (the model it favours; – beyond the "
                     "pair's rounds)",
    "settle": "What would settle it: more rounds for a strong verdict, for every "
              "pair without one (predicted from the rounds so far, as a range "
              "that holds: the simulated point alone is too hopeful on real "
              "searches)",
    "settle_tasks": "What would settle it: more tasks",
}


def heading(key: str, **values) -> str:
    """A heading of the report, filled in."""
    return HEADINGS[key].format(**values)


def panels(models: int, most: int) -> str:
    """Why a report draws no panel per model beyond `most` models."""
    return (f"{models} models: no panel per model is drawn beyond {most}; the set "
            "that may still be best and the verdict matrix below show them all "
            "(evp curve draws any of them).")


# ---------------------------------------------------------------- titles


def title(results) -> str:
    """The study and the models, e.g. "Hyperparameter search on sentiment:
    bert-base vs roberta-base" (never the score column)."""
    study = results.name
    if results.task is not None:
        return _title_across_tasks(results)
    if not study and results.source:
        source = str(results.source)
        looks_like_path = "/" in source or "\\" in source or re.search(
            r"\.[A-Za-z0-9]{1,8}$", source)
        study = Path(source).stem if looks_like_path else source
    models = list(results.models)
    if len(models) == 1 and models[0] in (results.score_name, study):
        named = ""  # the one model is named after the score or the study
    elif len(models) <= 4:
        named = (" vs ".join(models) if len(models) == 2
                 else ", ".join(models[:-1]) + (f" and {models[-1]}"
                                               if len(models) > 1 else models[0]))
    else:
        named = f"{len(models)} models"
    if results.task is not None:
        named += f" on {len(results.tasks)} tasks"
    head = f"Hyperparameter search on {study}" if study else "Hyperparameter search"
    return f"{head}: {named}" if named else head


def _title_across_tasks(results) -> str:
    """A study across tasks is named by its tasks and models, e.g. "6 models
    tuned on 5 tasks (wine, iris, …)": its source (a file, or one tool's
    record per task, "Optuna studies 'wine', …") names no study."""
    models, tasks = list(results.models), [str(t) for t in results.tasks]
    named = (" and ".join(models) if len(models) <= 2
             else f"{len(models)} models")
    listed = ", ".join(tasks) if len(tasks) <= 5 else ", ".join(tasks[:4]) + ", …"
    study = f" ({results.name})" if results.name else ""
    return (f"Hyperparameter search{study}: {named} tuned on {len(tasks)} "
            f"task{'s' if len(tasks) != 1 else ''} ({listed})")
