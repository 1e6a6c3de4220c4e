"""The claims of Dodge et al. (2019, 2021) that the SST-5 notebooks judge: each
committed row's status must be what the project's SST-5 searches (a substitute for
the papers' models), the project's simulation (a substitute for the paper's
experiment), or SST-5 itself say."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import evp
from evp.notebook import SST5_SEARCHES, load_results

ROOT = Path(__file__).resolve().parents[1]
FIGURES = ROOT / "figures"


@pytest.fixture(scope="module")
def sst5():
    return load_results(None, paper=SST5_SEARCHES, need=2).scores


def claims(notebook):
    return pd.read_csv(FIGURES / f"{notebook}-claims.csv", keep_default_na=False)


def row(table, start):
    found = table[table["claim"].str.startswith(start)]
    assert len(found) == 1, f"no single claim starting {start!r}"
    return found.iloc[0]


def holds(value) -> bool:
    return str(value).strip().lower() == "true"


def test_lr_is_not_steadier_than_the_cnn_at_every_budget(sst5):
    ns = np.arange(1, 101)
    lr, cnn = (evp.expected_max_std(sst5[m], ns) for m in ("lr", "cnn"))
    not_lower = ns[lr >= cnn]
    # What the notebook reports: the CNN's spread is the smaller at n = 1-2 only...
    assert not_lower.tolist() == [1, 2]
    # ... and with the stated tolerance (0.001 in the std), n = 2 is a tie
    # (0.0288 against 0.0287) and only n = 1 is higher.
    higher, tied = ns[lr > cnn + 0.001], ns[np.abs(lr - cnn) <= 0.001]
    assert higher.tolist() == [1] and 2 in tied
    claim = row(claims("sst_case_studies"), "Dodge et al. 2019: lr has lower variance")
    assert holds(claim["holds"]) == (higher.size == 0)
    assert claim["kind"] == "as written"
    assert "n = 1–2" in claim["this run"]
    assert "tolerance of ±0.001 in the std: higher at n = 1, a tie at n = " in \
        claim["this run"]
    # On the substitute CNN: not reproduced there, never refuted.
    assert (claim["credit"], claim["data"]) == ("paper", "substitute")


@pytest.mark.filterwarnings("ignore:scores contain ties")
def test_the_budget_a_score_implies_lies_in_its_band(sst5):
    ns = np.arange(1, 101)
    for model, scores in sst5.items():
        point = evp.budget_to_reach(scores, 0.40)
        band = evp.tuning_curve_band(scores, ns, 0.8, statistic="mean",
                                     bounds=(0, 1))
        upper, lower = (ns[edge >= 0.40] for edge in (band.upper, band.lower))
        fewest = upper[0] if upper.size else np.inf
        most = lower[0] if lower.size else np.inf
        assert fewest <= (np.inf if point is None else point) <= most, model
    table = claims("sst_case_studies")
    assert holds(row(table, "The band's budgets for the target bracket")["holds"])
    implied = row(table, "This project's use of §4.4's method")
    assert "lr: n = 24" in implied["this run"]
    assert "cnn: not reached" in implied["this run"]
    # A budget computed on the project's own models: its extension, not §4.4's
    # results (which are the not-covered rows).
    assert (implied["credit"], implied["data"]) == ("extension", "substitute")


def test_figure_1_budget_and_crossing_follow_our_cnn(sst5):
    """Fig. 1: the CNN reaches 0.395 at a budget of 16 and LR leads up to 10
    assignments. Our CNN's expected best, V, is computed here from its order
    statistics directly."""
    cnn = np.sort(sst5["cnn"])
    size = cnn.size
    share = np.arange(size + 1) / size  # i / N: the chance a draw is at most X_(i)

    def weights(n):
        return share[1:] ** n - share[:-1] ** n

    best_of = {n: float(cnn @ weights(n)) for n in (16, size)}
    # V never decreases with n, so V at n = 100 below 0.395 means never reached.
    assert best_of[size] < 0.395 and best_of[16] < 0.395
    claim = row(claims("sst_case_studies"), "Dodge et al. 2019, Fig. 1: the CNN needs")
    assert not holds(claim["holds"]) and claim["kind"] == "as written"
    assert (claim["credit"], claim["data"]) == ("paper", "substitute")
    assert "never reaches 0.395" in claim["this run"]
    assert f"V at n = 16: {best_of[16]:.4f}" in claim["this run"]
    assert "ahead of cnn at every budget" in claim["this run"]


def test_lr_against_the_cnn_is_counted_once():
    table = claims("sst_case_studies")
    assert not table["claim"].str.startswith("lr vs cnn").any()
    assert table["claim"].str.startswith("lr vs lboe").sum() == 1


def test_the_case_studies_without_data_are_marked_not_covered():
    table = claims("sst_case_studies")
    for start in ("Dodge et al. 2019, §4.3 and Fig. 2", "Dodge et al. 2019, §4.4 and "
                  "Fig. 3", "Dodge et al. 2019, §4.4 and Fig. 4"):
        found = row(table, start)
        assert found["kind"] == "not covered"
        assert "no public search results" in found["this run"]
    survey = row(table, "Dodge et al. 2019, §5: of fifty random EMNLP 2018 papers")
    assert survey["kind"] == "not covered" and survey["credit"] == "paper"
    assert "annotated by hand" in survey["this run"]


def clopper_pearson(hits, total, level=0.95):
    tail = (1 - level) / 2
    low = stats.beta.ppf(tail, hits, total - hits + 1) if hits else 0.0
    high = stats.beta.ppf(1 - tail, hits + 1, total - hits) if hits < total else 1.0
    return low, high


def test_the_rate_of_incorrect_conclusions_jumps_at_the_crossing(sst5):
    """LR vs LBoE: the truth (U on all trials) changes leader between B = 9 and 10,
    and V's rate of incorrect conclusions jumps there, whatever the draws."""
    rng = np.random.default_rng(1)
    draws = 5_000
    lr, lboe = sst5["lr"], sst5["lboe"]
    assert evp.expected_max(lr, 9, estimator="u") > evp.expected_max(lboe, 9,
                                                                     estimator="u")
    assert evp.expected_max(lr, 10, estimator="u") < evp.expected_max(lboe, 10,
                                                                      estimator="u")
    intervals = {}
    for size, lboe_leads in ((9, False), (10, True)):
        a = lr[rng.random((draws, lr.size)).argsort(axis=1)[:, :size]]
        b = lboe[rng.random((draws, lboe.size)).argsort(axis=1)[:, :size]]
        difference = evp.expected_max(a, size) - evp.expected_max(b, size)
        wrong = int(np.sum(difference > 0 if lboe_leads else difference < 0))
        intervals[size] = clopper_pearson(wrong, draws)
    assert intervals[10][0] > intervals[9][1]
    claim = row(claims("incorrect_conclusions"),
                "The rate of incorrect conclusions shrinks as B grows")
    assert not holds(claim["holds"])
    assert "9 → 10" in claim["this run"]
    # The paper never says it: the project's own check.
    assert claim["credit"] == "extension"
    assert "does not say it" in claim["source"]


def test_both_truths_are_reported():
    table = claims("incorrect_conclusions")
    u_truth = row(table, "Dodge et al. 2021, §4.2, on our SST-5 models")
    v_truth = row(table, "The same finding with V on all trials as the truth")
    for found in (u_truth, v_truth):
        assert found["kind"] == "empirical"
        # On LR vs LBoE, U errs least at every budget of the paper's range.
        assert "lr vs lboe: U errs most at 0, least at 16 of 16" in found["this run"]
        assert not holds(found["holds"])
    # The paper's claim on the substitute; the V truth is the project's own.
    assert (u_truth["credit"], u_truth["data"]) == ("paper", "substitute")
    assert v_truth["credit"] == "extension"


def test_the_substitute_pairs_cannot_test_section_4_2(sst5):
    """LR/CNN and CNN/LBoE are never confused at B = 15 (every rate about 0), and
    LR/LBoE is a near-tie where every estimator is near a coin flip: the row says
    so."""
    rng = np.random.default_rng(2)
    draws, size = 4_000, 15
    rates = {}
    for first, second in (("lr", "cnn"), ("lr", "lboe"), ("cnn", "lboe")):
        a, b = (sst5[m][rng.random((draws, sst5[m].size)).argsort(axis=1)[:, :size]]
                for m in (first, second))
        truth = np.sign(evp.expected_max(sst5[first], size, estimator="u")
                        - evp.expected_max(sst5[second], size, estimator="u"))
        rates[first, second] = [float(np.mean(
            np.sign(evp.expected_max(a, size, estimator=e)
                    - evp.expected_max(b, size, estimator=e)) == -truth))
            for e in "uvw"]
    assert max(rates["lr", "cnn"] + rates["cnn", "lboe"]) < 0.01
    assert all(0.4 < r < 0.6 for r in rates["lr", "lboe"])
    claim = row(claims("incorrect_conclusions"),
                "Dodge et al. 2021, §4.2, on our SST-5")
    assert "a near-tie" in claim["this run"] and "near a coin flip" in claim["this run"]


def simulated_rates(size, gap_in_stds, draws, rng):
    """Two normal models of the same shape (the project's simulation, no failed runs),
    the better one ahead by `gap_in_stds` standard deviations in expected best: how
    often each estimator at n = B puts the worse one ahead."""
    std = 0.01
    better = rng.normal(0.40 + gap_in_stds * std, std, (draws, size))
    worse = rng.normal(0.40, std, (draws, size))
    return {e: float(np.mean(evp.expected_max(better, size, estimator=e.lower())
                             < evp.expected_max(worse, size, estimator=e.lower())))
            for e in "UVW"}


def test_section_4_2_holds_in_the_projects_simulation_and_w_errs_least_there():
    rates = simulated_rates(15, 0.2, 60_000, np.random.default_rng(3))
    se = np.sqrt(0.25 / 60_000)
    # U errs most (the paper's §4.2), and W, not V, errs least (against its
    # Conclusion), each beyond 3 standard errors of the difference.
    assert rates["U"] - rates["V"] > 3 * np.sqrt(2) * se
    assert rates["V"] - rates["W"] > 3 * np.sqrt(2) * se
    table = claims("incorrect_conclusions")
    section = row(table, "Dodge et al. 2021, §4.2: U leads to incorrect conclusions")
    assert holds(section["holds"]) and section["data"] == "synthetic"
    # The simulation is the project's design, synthetic data standing in for the
    # paper's own CNN/LBoE experiment (whose searches are not public): the rows say
    # synthetic, as the third row on the same simulation does.
    conclusion = row(table, "Dodge et al. 2021, Conclusion: V has the lowest rate")
    assert not holds(conclusion["holds"]) and conclusion["data"] == "synthetic"
    assert "says nothing about its experiment" in conclusion["this run"]
    assert conclusion["credit"] == "paper"
    for found in (section, conclusion):
        assert "the paper's setting" not in found["claim"] + found["this run"]


def test_appendix_c_tables_beside_our_searches(sst5):
    """Appendix C, Tables 2-3: best validation accuracy 41.3 (CNN), 42.7 (LBoE)."""
    best = {m: 100 * float(sst5[m].max()) for m in ("cnn", "lboe")}
    claim = row(claims("incorrect_conclusions"), "Dodge et al. 2021, Appendix C")
    assert holds(claim["holds"]) == (abs(best["cnn"] - 41.3) <= 1
                                     and abs(best["lboe"] - 42.7) <= 1)
    assert not holds(claim["holds"])
    assert (claim["credit"], claim["data"]) == ("paper", "substitute")
    assert f"cnn {best['cnn']:.1f}, lboe {best['lboe']:.1f}" in claim["this run"]
    assert f"cnn {best['cnn'] - 41.3:+.1f}" in claim["this run"]


def test_table_1_label_counts():
    """Dodge et al. (2021), Table 1, typed from the paper."""
    row_ = row(claims("incorrect_conclusions"), "Dodge et al. 2021, Table 1")
    assert holds(row_["holds"]) and row_["data"] == "paper"
    for said in ("train: 1092/2218/1624/2322/1288 (8,544)",
                 "dev: 139/289/229/279/165 (1,101)",
                 "test: 279/633/389/510/399 (2,210)"):
        assert said in row_["this run"]


def test_the_estimators_are_very_similar_at_b_100(sst5):
    row_ = row(claims("incorrect_conclusions"), "Dodge et al. 2021, Fig. 3 (caption)")
    gaps = {m: float(np.max(evp.expected_max(s, np.arange(1, s.size + 1))
                            - evp.expected_max(s, np.arange(1, s.size + 1),
                                               estimator="w")))
            for m, s in sst5.items()}
    assert holds(row_["holds"]) == all(g <= 0.01 for g in gaps.values())
    assert row_["data"] == "substitute"


def test_the_appendix_row_follows_our_data(sst5):
    ns = np.arange(1, 101)
    cnn_ahead = all(
        np.all(evp.expected_max(sst5["cnn"], ns, estimator=e)
               > evp.expected_max(sst5["lboe"], ns, estimator=e)) for e in "uvw")
    claim = row(claims("incorrect_conclusions"), "Dodge et al. 2021, §4.1 and Fig. 3:")
    assert holds(claim["holds"]) == cnn_ahead
    assert claim["kind"] == "as written"
    assert "41.3 < 42.7" in claim["this run"]
    assert f"best trial cnn {sst5['cnn'].max():.4f}" in claim["this run"]
    assert claim["data"] == "substitute"
    # On the paper's own numbers (Appendix C: best of the 100 trials, CNN 41.3 and
    # LBoE 42.7), U at n = 100 puts the LBoE ahead: the text's claim is refuted there.
    own = row(claims("incorrect_conclusions"),
              "Dodge et al. 2021, §4.1 and Fig. 3, on the paper's own numbers")
    assert not holds(own["holds"]) and own["data"] == "paper"
    assert "41.3 < LBoE 42.7" in own["this run"]
