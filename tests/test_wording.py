"""The sentences about many models (issue 41): every sentence made from a table is
read back and checked against that table, on random tables with ties, all-equal
scores and open bands; the floor of the tests across tasks is checked by brute
force; and the command line says the same as the report on a benchmark of five
tasks and six models whose mean ranks tie."""

import itertools
import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evp.analyses import Family, describe_best_set, wording
from evp.multiple import _wilcoxon, holm_floor, wilcoxon_floor, wilcoxon_holm
from evp.ranking import (
    BestSet,
    as_verdicts,
    first_alone,
    leaders,
    pair_tasks,
    pairs_across_tasks,
    rank_table,
    wilcoxon_limits,
)

BENCHMARK = Path(__file__).parent / "fixtures" / "ties" / "ties-benchmark.csv"
SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


# ----------------------------------------------------------------- reading back


def budget_changes(ranked):
    return wording.budget_changes(leaders(ranked), first_alone(ranked))


def verdict_sentences(table, open_, confidence, *, adjust="holm"):
    models = len(set(table["a"]) | set(table["b"]))
    family = Family("band", tuple(sorted(set(table["n"]))), confidence,
                    float(table["band confidence"].iloc[0]), models=models)
    return wording.verdicts(as_verdicts(table), open_, family, adjust=adjust)


def across_tasks_sentences(pairs, counted, confidence):
    limits = wilcoxon_limits(pairs, confidence)
    return wording.across_tasks(pairs, counted, confidence, limits["floor"],
                                limits["alone"])


def budgets_of(words: str, budgets: list) -> list:
    """The budgets a span names ("n = 1–3, 10"), among `budgets` (in order)."""
    chosen = []
    for part in words.removeprefix("n = ").split(", "):
        low, _, high = part.partition("–")
        low, high = float(low), float(high or low)
        chosen += [n for n in budgets if low <= n <= high]
    return chosen


def names_of(words: str) -> list[str]:
    """"a, b and c" → [a, b, c]."""
    head, _, last = words.rpartition(" and ")
    return [*(head.split(", ") if head else []), last]


def mean_ranks(cube: np.ndarray) -> np.ndarray:
    """Mean rank (1 the best, ties sharing the mean of their places) of each model
    at each budget, by counting, from a T × M × N cube (higher is better)."""
    tasks, models, budgets = cube.shape
    out = np.zeros((models, budgets))
    for k in range(budgets):
        for t in range(tasks):
            for m in range(models):
                above = np.sum(cube[t, :, k] > cube[t, m, k])
                equal = np.sum(cube[t, :, k] == cube[t, m, k])
                out[m, k] += above + (equal + 1) / 2
    return out / tasks


def curves_frame(median, low=None, high=None) -> pd.DataFrame:
    """task_curves' table from T × M × N cubes (scaled = as given, oriented)."""
    tasks, models, budgets = median.shape
    low = median - 1 if low is None else low
    high = median + 1 if high is None else high
    rows = []
    for t, m, k in itertools.product(range(tasks), range(models), range(budgets)):
        rows.append({"task": f"t{t}", "model": f"m{m}", "n": [1, 2, 3, 5, 8][k],
                     "lower": low[t, m, k], "median": median[t, m, k],
                     "upper": high[t, m, k], "best": True,
                     "scaled lower": low[t, m, k],
                     "scaled median": median[t, m, k],
                     "scaled upper": high[t, m, k]})
    return pd.DataFrame(rows)


@st.composite
def cubes(draw, most_tasks=5):
    """Scores of T tasks × M models × N budgets: few distinct values (ties), at
    times all equal; band edges around them, at times open (infinite)."""
    tasks = draw(st.integers(1, most_tasks))
    models = draw(st.integers(2, 4))
    budgets = draw(st.integers(1, 5))
    shape = (tasks, models, budgets)
    if draw(st.booleans()) and draw(st.booleans()):
        median = np.zeros(shape)  # all equal
    else:
        median = np.array(draw(st.lists(st.integers(0, 2), min_size=int(np.prod(shape)),
                                        max_size=int(np.prod(shape)))),
                          float).reshape(shape)
    cells = int(np.prod(shape))
    width = np.array(draw(st.lists(st.sampled_from([0.2, 0.7, 2.0, np.inf]),
                                   min_size=cells, max_size=cells)),
                     float).reshape(shape)
    return median, median - np.where(np.isinf(width), 0.5, width), median + width


# ------------------------------------------------------------- the test's floor


@pytest.mark.parametrize("k", range(1, 7))
def test_the_smallest_wilcoxon_p_is_two_over_two_to_the_k_by_brute_force(k):
    # Every sign pattern of distinct magnitudes (scipy's exact test) ...
    signs = np.array(list(itertools.product([-1, 1], repeat=k))).T
    exact = _wilcoxon(signs * np.arange(1, k + 1)[:, None])
    # ... and every vector of -1..2 (ties and zeros: the permutation test).
    values = np.array(list(itertools.product(range(-1, 3), repeat=min(k, 5)))).T
    permutation = _wilcoxon(values)  # (up to 5 tasks: seconds, not a minute)
    assert exact.min() == pytest.approx(2 / 2 ** k)
    assert permutation.min() == pytest.approx(2 / 2 ** min(k, 5))
    assert wilcoxon_floor(k) == pytest.approx(2 / 2 ** k)


@pytest.mark.parametrize("k", [14, 20, 50, 51, 60])
def test_no_data_goes_below_the_floor_on_many_tasks(k):
    rng = np.random.default_rng(k)
    distinct = np.arange(1, k + 1, dtype=float)
    columns = [distinct, np.ones(k), np.r_[np.ones(k - 1), 2.0], -distinct,
               *rng.integers(-3, 4, size=(20, k)).astype(float),
               *(rng.normal(0.5, 1, size=(20, k)))]
    for column in columns:  # one at a time: scipy picks a method per call
        assert _wilcoxon(column[:, None])[0] >= wilcoxon_floor(k) * (1 - 1e-9)
    reached = min(_wilcoxon(distinct[:, None])[0], _wilcoxon(np.ones((k, 1)))[0])
    assert reached == pytest.approx(wilcoxon_floor(k))


def test_holm_over_the_pairs_cannot_go_below_pairs_times_the_floor():
    # Four models strictly ordered on five tasks, by distinct margins: every
    # pair at its floor, and Holm's first step at 6 · 2/2^5.
    rng = np.random.default_rng(0)
    curves = np.sort(rng.normal(size=(5, 4, 1)), axis=1) + np.arange(4)[None, :, None]
    _, _, adjusted, tasks = wilcoxon_holm(curves)
    assert adjusted.min() == pytest.approx(6 * 2 / 2 ** 5)
    assert holm_floor(tasks) == pytest.approx(0.375)
    assert holm_floor([5] * 15) == 1.0 * min(1, 15 * 2 / 32)
    for seed in range(50):
        noise = np.random.default_rng(seed).integers(0, 3, size=(5, 4, 2))
        assert wilcoxon_holm(noise.astype(float))[2].min() >= 0.375 - 1e-12


# ------------------------------------------------------------ the mean rank


@SETTINGS
@given(cubes())
def test_budget_changes_reads_back_as_the_ranks(cube):
    median, low, high = cube
    ranked = rank_table(curves_frame(median, low, high))
    budgets = [1, 2, 3, 5, 8][: median.shape[2]]
    expected = mean_ranks(median)
    models = [f"m{m}" for m in range(median.shape[1])]
    sentences = budget_changes(ranked)
    said = {}
    for sentence in sentences[:-1]:
        where, _, what = sentence.partition(": ")
        alone = re.fullmatch(r"(\S+) has the best mean rank", what)
        tie = re.fullmatch(r"(.+) tie for the best mean rank \(([\d.]+)\)", what)
        assert alone or tie, sentence
        for n in budgets_of(where, budgets):
            k = budgets.index(n)
            best = expected[:, k].min()
            first = [m for j, m in enumerate(models)
                     if abs(expected[j, k] - best) < 1e-9]
            if alone:
                assert first == [alone.group(1)], sentence
            else:
                assert sorted(names_of(tie.group(1))) == sorted(first), sentence
                assert len(first) > 1
                assert float(tie.group(2)) == pytest.approx(best, abs=5e-4)
            said[n] = first
    assert sorted(said) == budgets  # every budget said once
    alone = {who[0] for who in said.values() if len(who) == 1}
    last = sentences[-1]
    assert last.startswith("The budget changes the answer") == (len(alone) > 1)
    if last == "The same model ranks first at every budget shown.":
        assert len(alone) == 1 and all(len(w) == 1 for w in said.values())


# ------------------------------------------------------------ the best set


@SETTINGS
@given(st.data())
def test_the_best_set_says_open_only_where_every_band_is_open(data):
    models = data.draw(st.integers(1, 4))
    budgets = [1, 2, 3, 5, 8][: data.draw(st.integers(1, 5))]
    minimize = data.draw(st.booleans())
    shape = (len(budgets), models)

    def draw(strategy):
        return np.array(data.draw(st.lists(strategy, min_size=int(np.prod(shape)),
                                           max_size=int(np.prod(shape))))).reshape(shape)

    estimate = draw(st.integers(0, 3)).astype(float)
    # The best side open at random budgets and models, or everywhere.
    shut = draw(st.booleans()) | data.draw(st.booleans())
    low = np.where(shut & minimize, -np.inf, estimate - 1)
    high = np.where(shut & ~minimize, np.inf, estimate + 1)
    member = draw(st.booleans())
    member[:, 0] = True
    index = pd.Index(budgets, name="n")
    columns = [f"m{m}" for m in range(models)]

    def frame(values):
        return pd.DataFrame(values, index=index, columns=columns)

    found = BestSet(frame=frame(member), lower=frame(low), estimate=frame(estimate),
                    upper=frame(high), confidence=0.8, band_confidence=0.9,
                    method="ld_highest_density", minimize=minimize)
    seen = []
    for sentence in describe_best_set(found):
        where, _, what = sentence.partition(": ")
        ns = budgets_of(where, budgets)
        seen += ns
        claimed = "every band is open there" in what
        who = re.match(r"(?:(\S+) alone|\d+ of \d+ models: (.+)) may still be best",
                       what)
        names = [who.group(1)] if who.group(1) else who.group(2).split(", ")
        for n in ns:
            k = budgets.index(n)
            assert names == [m for j, m in enumerate(columns) if member[k, j]]
            assert claimed == bool(shut[k].all()), sentence
    assert seen == budgets


# ------------------------------------------------------------ one task's verdicts


@SETTINGS
@given(st.data())
def test_the_verdicts_are_counted_where_they_can_be_strong(data):
    models = [f"m{m}" for m in range(data.draw(st.integers(2, 4)))]
    budgets = [1, 2, 3, 5, 8][: data.draw(st.integers(1, 5))]
    open_ = pd.Series([data.draw(st.booleans()) for _ in budgets], index=budgets)
    rows = []
    for a, b in itertools.permutations(models, 2):
        for n in budgets:
            label = data.draw(st.sampled_from(
                ["none", "weak", "fair"] if open_[n] else
                ["none", "weak", "fair", "strong"]))
            rows.append({"a": a, "b": b, "n": n, "evidence": label})
    table = pd.DataFrame(rows)
    # At most one direction of a pair is strong at a budget.
    for (a, b, n), _ in table.groupby(["a", "b", "n"]):
        if a > b:
            mine = (table.a == a) & (table.b == b) & (table.n == n)
            theirs = (table.a == b) & (table.b == a) & (table.n == n)
            if (table.loc[theirs, "evidence"] == "strong").all():
                table.loc[mine, "evidence"] = "none"
    table["band confidence"] = 1 - 0.2 / len(models)
    table["adjust"] = f"Bonferroni over {len(models)} models' bands"
    sentences = verdict_sentences(table, open_, 0.8, adjust="holm")
    shut = [n for n in budgets if open_[n]]
    readable = [n for n in budgets if not open_[n]]
    strong = table[table.evidence == "strong"]
    if shut:
        head = sentences.pop(0)
        assert head.startswith("Every band is open at ")
        where = re.match(r"Every band is open at (n = [^(]+) \(", head).group(1)
        assert budgets_of(where.strip(), budgets) == shut
        if readable:
            rest = re.search(r"not every band is open at (n = .+)\.$", head).group(1)
            assert budgets_of(rest, budgets) == readable
    count = sentences.pop(0)
    if readable:
        found = re.match(r"At (n = [^:]+): (\d+) strong verdicts? over (\d+) "
                         r"ordered pair-budgets, on (\d+) of (\d+) pairs", count)
        assert budgets_of(found.group(1), budgets) == readable
        assert int(found.group(2)) == len(strong)
        assert int(found.group(3)) == len(models) * (len(models) - 1) * len(readable)
        assert int(found.group(4)) == len({frozenset(p) for p in
                                           zip(strong.a, strong.b, strict=True)})
        assert int(found.group(5)) == len(models) * (len(models) - 1) // 2
    else:
        assert count.startswith("No strong verdict can be made at any budget")
    assert "Bonferroni" in count and "Holm's adjustment is the same here" in count
    said = {}
    for sentence in sentences:
        a, b, where = re.fullmatch(r"(\S+) beats (\S+) \(strong\) at (n = .+)\.",
                                   sentence).groups()
        said[(a, b)] = budgets_of(where, budgets)
    assert said == {(a, b): list(part.n) for (a, b), part in
                    strong.groupby(["a", "b"])}


# ------------------------------------------------------------ across tasks


@SETTINGS
@given(cubes(most_tasks=9))
def test_across_tasks_never_says_a_bare_nothing_differs(cube):
    median, low, high = cube
    tasks, models, _ = median.shape
    curves = curves_frame(median, low, high)
    pairs = pairs_across_tasks(curves, 0.8)
    sentences = across_tasks_sentences(pairs, pair_tasks(curves), 0.8)
    text = " ".join(sentences)
    m = models * (models - 1) // 2
    assert ("cannot decide" in text) == (min(1, m * 2 / 2 ** tasks) > 0.2)
    if "cannot decide" in text:
        assert f"below {min(1, m * 2 / 2 ** tasks):.3g}" in text
        assert not pairs["differ"].any()
    assert not re.search(r"\b0 of \d+ pair-budgets differ", text)
    if pairs["differ"].any():
        return
    budgets = sorted(set(curves.n))
    checked = 0
    for sentence in sentences:
        found = re.fullmatch(r"(\S+) vs (\S+) at (n = [^:]+): \S+ ahead on (\d+) of "
                             r"(\d+) tasks, \S+ on (\d+); (.*)\.", sentence)
        if not found:
            continue
        a, b, where, ahead_a, count, ahead_b, verdicts = found.groups()
        i, j = int(a[1:]), int(b[1:])
        strong = re.fullmatch(r"strong within-task verdicts: \S+ on (\d+), \S+ on "
                              r"(\d+)", verdicts)
        for n in budgets_of(where, budgets):
            k = budgets.index(n)
            assert int(count) == tasks
            assert int(ahead_a) == np.sum(median[:, i, k] > median[:, j, k])
            assert int(ahead_b) == np.sum(median[:, j, k] > median[:, i, k])
            wins = (np.sum(low[:, i, k] > high[:, j, k]),
                    np.sum(low[:, j, k] > high[:, i, k]))
            assert (tuple(int(g) for g in strong.groups()) if strong
                    else (0, 0)) == wins
            checked += 1
    assert checked == m * len(budgets)


def test_baseline_tests_only_its_pairs_with_holm_over_them():
    rng = np.random.default_rng(3)
    median = np.sort(rng.normal(size=(12, 4, 2)), axis=1)
    curves = curves_frame(median)
    every = pairs_across_tasks(curves, 0.8)
    mine = pairs_across_tasks(curves, 0.8, baseline="m2")
    tested = set(zip(mine.a, mine.b, strict=True))
    assert tested == {("m0", "m2"), ("m1", "m2"), ("m2", "m3")}
    # Three p-values per budget: Holm's first step multiplies the smallest by 3.
    for n, part in mine.groupby("n"):
        raw = every[(every.n == n) & ((every.a == "m2") | (every.b == "m2"))]
        assert part["p (Holm)"].min() == pytest.approx(min(1, 3 * raw["p"].min()))


# ------------------------------------------------------------ the benchmark


def _run(capsys, *argv):
    from evp.cli import main

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        main([str(a) for a in argv])
    captured = capsys.readouterr()
    return captured.out + captured.err


def test_the_benchmark_reads_true_on_the_command_line_and_in_the_report(
        capsys, tmp_path):
    scores = pd.read_csv(BENCHMARK)
    common = ["--score", "log_loss", "--group", "model", "--minimize"]
    said = _run(capsys, "compare", BENCHMARK, *common, "--task", "task")
    # At n = 1 logreg and mlp share the best mean rank (1.6); mlp leads alone
    # after: the tie is said, and the budget does not change the answer.
    assert "n = 1: logreg and mlp tie for the best mean rank (1.6)" in said
    assert "logreg has the best mean rank" not in said
    assert "The budget changes the answer" not in said
    # 5 tasks, 15 pairs: 15 · 2/2^5 > 20%, so the test cannot decide.
    assert "cannot decide" in said and "0.938" in said
    assert re.search(r"mlp vs rf at n = 5–35: mlp ahead on 5 of 5 tasks", said)

    one = tmp_path / "task1.csv"
    scores[scores.task == "task1"].drop(columns="task").to_csv(one, index=False)
    every = _run(capsys, "compare", one, *common, "--all")
    assert "Every band is open at n = 5–35" in every
    assert "At n = 1–3: 24 strong verdicts" in every
    report = tmp_path / "report.md"
    _run(capsys, "report", one, *common, "--out", report)
    text = report.read_text()
    assert "At n = 1–3: 24 strong verdicts" in text
    assert "At n = 35: 0 strong" not in text
    # The same pairs and budgets, both ways: sentences on the terminal, a
    # compact table in the report.
    for a, b, at in re.findall(r"^note: (\S+) beats (\S+) \(strong\) at n = (.+)\.$",
                               every, re.M):
        assert f"| {a} | {b} | {at} |" in text


def test_tasks_that_all_tie_leave_the_test_nothing_to_use():
    # Every round of every model scores the same on every task: no task has a
    # range of scores, so the test across tasks has none to use, which is said
    # as that, not as a test "with 0 tasks".
    import evp
    from evp import analyses

    frame = pd.DataFrame([(t, m, 0.5) for t in ["t1", "t2", "t3", "t4", "t5"]
                          for m in ["a", "b", "c"] for _ in range(6)],
                         columns=["task", "model", "acc"])
    results = evp.read_results(frame, score="acc", group="model", task="task",
                               minimize=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        found = analyses.many_tasks(results)
    assert found.across[0].startswith("The test has no task to use")
    assert not any("0 tasks" in s or "2^0" in s for s in found.across)


def test_what_the_tasks_show_is_cut_at_most_lines():
    import evp
    from evp import analyses

    rng = np.random.default_rng(3)
    frame = pd.DataFrame([(t, m, rng.normal(i * 0.01, 0.05))
                          for t in ["t1", "t2", "t3"] for i, m in enumerate("abcdef")
                          for _ in range(8)], columns=["task", "model", "acc"])
    results = evp.read_results(frame, score="acc", group="model", task="task",
                               minimize=False)
    whole = analyses.many_tasks(results).across
    cut = analyses.many_tasks(results, most=5).across
    assert len(whole) > 8  # 15 pairs, a line at least each
    assert cut[-1] == (f"{len(whole) - len(cut) + 1} more lines like these; the "
                       "table of the pairs' tasks lists them.")
    assert list(cut[:-1]) == list(whole[:len(cut) - 1])
