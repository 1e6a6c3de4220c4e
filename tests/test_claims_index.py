"""The claims index, figures/claims.csv: every notebook's claims, as each notebook's
own computation judged them, and the counts the README quotes."""

import re
from pathlib import Path

import pandas as pd

from evp.runner import STATUSES, claims_index, notebooks

ROOT = Path(__file__).resolve().parents[1]
FIGURES = ROOT / "figures"


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


def test_statuses_and_their_reasons():
    index = committed()
    assert set(index["status"]) <= set(STATUSES)
    unexplained = index[(index["status"] != "reproduced") & (index["why"] == "")]
    assert unexplained.empty, unexplained["claim"].tolist()


def test_a_status_follows_the_notebooks_check(tmp_path):
    pd.DataFrame({
        "claim": ["a", "b", "c", "d", "e"],
        "this run": ["held", "found", "failed", "no data", "failed too"],
        "holds": [True, True, False, False, False],
        "kind": ["paper", "empirical", "as written", "not covered", "must hold"],
        "source": ["§1"] * 5,
    }).to_csv(tmp_path / "x-claims.csv", index=False)
    table = claims_index(tmp_path)
    assert table["status"].tolist() == ["reproduced", "qualitative", "does not hold",
                                        "not covered", "does not hold"]
    assert table["why"].tolist() == ["", "found", "failed", "no data", "failed too"]
    assert set(table["notebook"]) == {"x"}


def test_the_readme_quotes_the_index():
    counts = committed()["status"].value_counts()
    text = (ROOT / "README.md").read_text()
    pattern = (r"(\d+) claims: (\d+) reproduced, (\d+) qualitative, (\d+) that do "
               r"not hold \(with why\), (\d+) not covered").replace(" ", r"\s+")
    said = re.search(pattern, text)
    assert said, "the README does not quote the claims index"
    total, *numbers = (int(v) for v in said.groups())
    assert total == int(counts.sum())
    assert numbers == [int(counts.get(s, 0)) for s in STATUSES]
