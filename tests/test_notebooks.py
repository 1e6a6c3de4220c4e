"""Notebooks run on a user's own results through papermill parameters."""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from evp.runner import notebooks

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"


def outputs(notebook_path):
    """All printed text of an executed notebook."""
    cells = json.loads(notebook_path.read_text())["cells"]
    return "".join(
        "".join(o.get("text", ""))
        for c in cells if c["cell_type"] == "code" for o in c.get("outputs", [])
    )


@pytest.mark.needs("papermill")
def test_synthetic_mse_on_a_users_scores(tmp_path):
    import papermill

    scores = np.random.default_rng(5).beta(20, 8, size=300).round(4)
    results = tmp_path / "my.csv"
    pd.DataFrame({"acc": scores, "lr": np.linspace(1e-4, 1e-2, 300)}).to_csv(
        results, index=False)
    executed = tmp_path / "out.ipynb"
    papermill.execute_notebook(
        str(NOTEBOOKS / "synthetic_mse.ipynb"), str(executed),
        parameters={"results_path": str(results), "score_column": "acc",
                    "n_samples": 500, "sample_size": 10, "max_n": 10,
                    "monte_carlo_draws": 2_000, "check_claims": False,
                    "figures_dir": str(tmp_path / "figures")},
        cwd=str(tmp_path), progress_bar=False, kernel_name="python3",
    )
    text = outputs(executed)
    # The bag is the user's file, as the notebook reports it.
    assert f"bag of 300 scores from {results}, column 'acc'" in text
    assert f"distinct values: {np.unique(scores).size}" in text
    assert f"maximum: {scores.max():.3f}" in text
    # The theorem W <= V <= U holds on any data.
    claims = pd.read_csv(tmp_path / "figures" / "synthetic_mse-claims.csv")
    theorem = claims[claims["claim"].str.contains("in every sample")]
    assert len(theorem) == 1 and bool(theorem["holds"].iloc[0])
    assert (tmp_path / "figures" / "synthetic_mse-bias-variance-mse.png").exists()


ANALYSES = notebooks(NOTEBOOKS, None)


def test_the_classroom_notebooks_are_among_the_analyses():
    names = {p.relative_to(NOTEBOOKS).as_posix() for p in ANALYSES}
    assert {"classroom/tuning_and_cross_validation.ipynb",
            "classroom/significance_tests.ipynb"} <= names
    assert not any("assignments" in name for name in names)


@pytest.mark.parametrize("path", ANALYSES, ids=lambda p: p.stem)
def test_notebook_follows_the_conventions(path):
    text = path.read_text()
    cells = json.loads(text)["cells"]
    code = [c for c in cells if c["cell_type"] == "code"]
    parameters = "".join(code[0]["source"])
    assert "parameters" in code[0]["metadata"].get("tags", []), "first code cell"
    assert "check_claims" in parameters and "figures_dir" in parameters
    assert all(c["execution_count"] is not None for c in code), "committed unexecuted"
    assert not [o for c in code for o in c.get("outputs", [])
                if o["output_type"] == "error"]
    assert any("## Claims" in "".join(c["source"]) for c in cells)
    # Figures are named <notebook>-<figure>.
    assert list((NOTEBOOKS.parent / "figures").glob(f"{path.stem}-*.png")), \
        "no figures written"
    for marker in ("/work/", "/tmp/", ".venv", "/home/", "/root/", "PosixPath"):
        assert marker not in text, f"machine path {marker!r} in {path.name}"
    # Committed as `evp reproduce` writes them: no timestamps, no progress bars.
    for churn in ('"start_time"', '"iopub.execute_input"', "widget-view+json",
                  "it/s]"):
        assert churn not in text, f"{churn} in {path.name}"


# The parameters every analysis of users' results takes, under the same names.
SHARED_PARAMETERS = ("results_path", "score_column", "group_column", "models",
                     "minimize", "check_claims", "figures_dir")


@pytest.mark.parametrize(
    "path", [p for p in ANALYSES if p.stem != "tuning_and_cross_validation"],
    ids=lambda p: p.stem)
@pytest.mark.needs("papermill")
def test_analyses_take_users_results_under_the_same_names(path):
    import papermill

    declared = papermill.inspect_notebook(str(path))
    missing = [name for name in SHARED_PARAMETERS if name not in declared]
    assert not missing, f"{path.name} lacks {missing}"
    # None means the paper's data, and outputs beside the paper's figures.
    assert declared["results_path"]["default"] == "None"
    assert declared["figures_dir"]["default"] == "None"
