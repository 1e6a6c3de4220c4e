"""The claims index, figures/claims.csv: every notebook's claims, as each notebook's
own computation judged them, with whose claim each is (``kind``) and what it was
judged on (``data``), and the counts the README quotes."""

import re
from pathlib import Path

import pandas as pd
import pytest

from evp import notebook as nb
from evp.runner import (
    DATA,
    KINDS,
    STATUSES,
    STATUSES_BY_KIND,
    claim_status,
    claims_index,
    notebooks,
)

ROOT = Path(__file__).resolve().parents[1]
FIGURES = ROOT / "figures"
#: Notebooks whose claims tables do not say their rows' credit and data yet: their
#: rows are left unclassified (no kind, data or status) until they do, and then
#: are checked like every other. A notebook leaves this set by carrying them.
PENDING: set[str] = set()


def committed():
    return pd.read_csv(FIGURES / "claims.csv", keep_default_na=False, dtype=str)


def test_the_index_is_the_notebooks_own_tables():
    rebuilt = claims_index(FIGURES).astype(str)
    pd.testing.assert_frame_equal(committed(), rebuilt, check_dtype=False)


def test_every_notebook_has_its_claims_in_the_index():
    index = committed()
    for notebook in notebooks(ROOT / "notebooks"):
        own = pd.read_csv(FIGURES / f"{notebook.stem}-claims.csv",
                          keep_default_na=False, dtype=str)
        mine = index[index["notebook"] == notebook.stem]
        assert mine["claim"].tolist() == own["claim"].tolist(), notebook.stem
        assert (mine["source"] != "").all(), f"{notebook.stem}: a claim without source"


def test_the_vocabularies_agree():
    assert nb.CLAIM_CREDITS == KINDS and nb.CLAIM_DATA == DATA
    assert set(STATUSES) == {s for k in KINDS for s in STATUSES_BY_KIND[k]}


def test_every_row_says_whose_claim_and_on_what_data():
    index = committed()
    pending = index[index["notebook"].isin(PENDING)]
    # A pending notebook's rows are all unclassified, or all classified.
    for name, rows in pending.groupby("notebook"):
        if (rows["kind"] == "").all():
            assert (rows[["data", "status"]] == "").all().all(), name
        else:
            pytest.fail(f"{name} carries credit and data now: take it out of "
                        "PENDING, so that its rows are checked")
    rest = index[~index["notebook"].isin(PENDING)]
    unsaid = rest[~rest["kind"].isin(KINDS) | ~rest["data"].isin(DATA)]
    assert unsaid.empty, unsaid[["notebook", "claim"]].to_string()
    wrong = rest[[s not in STATUSES_BY_KIND[k] for k, s in
                  zip(rest["kind"], rest["status"], strict=True)]]
    assert wrong.empty, wrong[["notebook", "kind", "status"]].to_string()


def test_statuses_and_their_reasons():
    index = committed()
    assert set(index["status"]) <= set(STATUSES) | {""}
    done = index["status"].isin(["reproduced", "holds", "passes", ""])
    unexplained = index[~done & (index["why"] == "")]
    assert unexplained.empty, unexplained["claim"].tolist()


def test_no_paper_claim_is_refuted_on_a_substitute():
    index = committed()
    refuted = index[index["status"] == "refuted"]
    assert (refuted["kind"] == "paper").all()
    assert not (refuted["data"] == "substitute").any(), \
        refuted[refuted["data"] == "substitute"]["claim"].tolist()
    # ... and only a paper's claim is reproduced.
    assert set(index[index["status"] == "reproduced"]["kind"]) <= {"paper"}
    # The code's properties all pass: the notebooks assert them.
    assert set(index[index["kind"] == "code"]["status"]) <= {"passes"}


@pytest.mark.parametrize("kind, data, holds, check, status", [
    ("paper", "paper", True, "paper", "reproduced"),
    ("paper", "substitute", True, "empirical", "reproduced"),
    ("paper", "substitute", False, "as written", "not reproduced on the substitute"),
    ("paper", "paper", False, "as written", "refuted"),
    ("paper", "synthetic", False, "empirical", "refuted"),
    ("paper", "paper", False, "not covered", "not covered"),
    ("extension", "substitute", True, "empirical", "holds"),
    ("extension", "synthetic", False, "empirical", "does not hold"),
    ("code", "synthetic", True, "must hold", "passes"),
    ("", "", True, "must hold", ""),
    ("paper", "", True, "must hold", ""),
])
def test_a_status_follows_kind_data_and_the_check(kind, data, holds, check, status):
    assert claim_status(kind, data, holds, check) == status


def test_the_index_reads_each_notebooks_table(tmp_path):
    pd.DataFrame({
        "claim": ["a", "b", "c", "d", "e"],
        "this run": ["held", "found", "failed", "no data", "failed too"],
        "holds": [True, True, False, False, False],
        "kind": ["paper", "empirical", "as written", "not covered", "empirical"],
        "source": ["§1"] * 5,
        "credit": ["paper", "extension", "paper", "paper", "paper"],
        "data": ["paper", "synthetic", "substitute", "paper", "synthetic"],
    }).to_csv(tmp_path / "x-claims.csv", index=False)
    # A table without credit and data: unclassified rows.
    pd.DataFrame({"claim": ["f"], "this run": ["held"], "holds": [True],
                  "source": ["§2"]}).to_csv(tmp_path / "y-claims.csv", index=False)
    table = claims_index(tmp_path)
    assert table["status"].tolist() == ["reproduced", "holds",
                                        "not reproduced on the substitute",
                                        "not covered", "refuted", ""]
    assert table["why"].tolist() == ["", "", "failed", "no data", "failed too",
                                     "held"]
    assert table["kind"].tolist() == ["paper", "extension", "paper", "paper",
                                      "paper", ""]
    assert table["notebook"].tolist() == ["x"] * 5 + ["y"]


def counts_sentence(index: pd.DataFrame) -> str:
    """The README's sentence for `index`, written out here from its rows."""
    labels = {"paper": "the papers' claims", "extension": "the project's extensions",
              "code": "properties of evp's own code (tests, not reproductions)"}
    parts = []
    for kind in ("paper", "extension", "code"):
        mine = index[index["kind"] == kind]
        counts = ", ".join(f"{int((mine['status'] == s).sum())} {s}"
                           for s in STATUSES_BY_KIND[kind])
        parts.append(f"{len(mine)} {labels[kind]}: {counts}")
    sentence = f"{len(index)} claims: " + "; ".join(parts)
    unclassified = int((index["status"] == "").sum())
    if unclassified:
        sentence += f"; {unclassified} not yet classified"
    return sentence + "."


def test_the_readme_quotes_the_index():
    text = " ".join((ROOT / "README.md").read_text().split())
    expected = counts_sentence(committed())
    assert expected in text, f"the README should say: {expected}"
    # The sentence counts every row once.
    numbers = [int(n) for n in re.findall(r"(\d+) the papers'|(\d+) the project's|"
                                          r"(\d+) properties", expected) for n in n
               if n]
    assert sum(numbers) + int((committed()["status"] == "").sum()) == \
        len(committed())


def test_report_claims_writes_credit_and_data(tmp_path):
    rows = [("a paper's claim", "held", True, "paper"),
            {"claim": "our own", "found": "held", "holds": True, "kind": "empirical",
             "credit": "extension", "data": "synthetic"},
            ("a property", "held", True, "must hold", "Own (2025)", "code")]
    nb.report_claims(rows, name="t", folder=tmp_path, check=True, source="P (2024)",
                     credit="paper", data="paper")
    written = pd.read_csv(tmp_path / "t-claims.csv", keep_default_na=False)
    assert written["credit"].tolist() == ["paper", "extension", "code"]
    assert written["data"].tolist() == ["paper", "synthetic", "paper"]
    assert written["source"].tolist() == ["P (2024)", "P (2024)", "Own (2025)"]
    table = claims_index(tmp_path)
    assert table["status"].tolist() == ["reproduced", "holds", "passes"]
    # A table without credit or data keeps its old columns.
    nb.report_claims([("x", "y", True)], name="u", folder=tmp_path, check=True,
                     source="P")
    assert pd.read_csv(tmp_path / "u-claims.csv").columns.tolist() == [
        "claim", "this run", "holds", "source"]


@pytest.mark.parametrize("call, message", [
    (dict(credit="papers"), "credit='papers'"),
    (dict(data="real"), "data='real'"),
    (dict(rows=[{"claim": "c", "found": "f", "holds": True, "credit": "mine"}]),
     "credit 'mine' of 'c'"),
    (dict(rows=[{"claim": "c", "holds": True}]), "without 'this run'"),
    (dict(rows=[{"claim": "c", "found": "f", "holds": True, "whose": "x"}]),
     "unknown field 'whose'"),
])
def test_report_claims_refuses_unknown_credit_or_data(tmp_path, call, message):
    arguments = dict(rows=[("c", "f", True)], name="t", folder=tmp_path, check=False)
    with pytest.raises(ValueError, match=re.escape(message)):
        nb.report_claims(**{**arguments, **call})
