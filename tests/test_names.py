"""Model and task names as users write them: read as written (None, NA, 1 and
"1", spaces), never pooled or confused, and shown without harm (no formula in a
spreadsheet, no reordering or broken line on a terminal, in a report or in a
LaTeX table)."""

import numpy as np
import pandas as pd
import pytest

from evp import cli


def main(capsys, *args):
    """cli.main in process: (exit status, stdout, stderr)."""
    status = cli.main([str(a) for a in args])
    out, err = capsys.readouterr()
    return status, out, err


def three_models(tmp_path, names=("alpha", "beta", "gamma")):
    rng = np.random.default_rng(5)
    frame = pd.DataFrame({"model": np.repeat(list(names), 12),
                          "acc": rng.uniform(0.5, 0.9, 12 * len(names)).round(4)})
    path = tmp_path / "runs.csv"
    frame.to_csv(path, index=False)
    return path


# ------------------------------------------------------------------ --highlight

@pytest.mark.parametrize("models", [["--all"], ["alpha", "beta"]])
def test_an_unknown_highlight_is_refused_naming_the_models(tmp_path, capsys,
                                                           models):
    path = three_models(tmp_path)
    status, out, err = main(capsys, "compare", path, "--score", "acc", "--group",
                            "model", *models,
                            "--highlight", "gama")
    assert status == 2 and out == ""
    assert err.count("\n") == 1, err
    assert err.startswith("evp compare: --highlight: no model 'gama'"), err
    if "--all" in models:
        assert "did you mean 'gamma'?" in err and "'alpha', 'beta', 'gamma'" in err
    else:  # the two models compared are the ones a figure draws
        assert "'alpha', 'beta'" in err and "'gamma'" not in err
    status, _, err = main(capsys, "compare", path, "--score", "acc", "--group",
                          "model", "--all",
                          "--highlight", "gamma")
    assert status == 0, err


def test_report_refuses_an_unknown_highlight_before_the_work(tmp_path, capsys):
    path = three_models(tmp_path)
    out = tmp_path / "report.md"
    status, _, err = main(capsys, "report", path, "--score", "acc", "--group",
                          "model", "--out", out,
                          "--highlight", "alpha,delta")
    assert status == 2 and not out.exists()
    assert err.startswith("evp report: --highlight: no model 'delta'"), err
    assert err.count("\n") == 1
