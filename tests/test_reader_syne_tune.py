"""Syne Tune's experiment folders, read as one row per trial: a real random
search (10 trials started on two workers; trial 6 failed before it reported,
trials 9 and 10 were stopped by the tuner before they reported), written by
Syne Tune 0.16's LocalBackend (results.csv.zip, metadata.json and the trials'
folders, without tuner.dill)."""

from pathlib import Path

import numpy as np
import pytest

import evp
from evp.cli import main
from evp.readers import syne_tune
from evp.readers.testing import reader_checks

EXPERIMENT = Path(__file__).parent / "fixtures" / "syne_tune" / "random-lr"


@pytest.mark.parametrize("check", list(reader_checks(syne_tune.READER, EXPERIMENT,
                                                     failed=1)), ids=str)
def test_the_syne_tune_reader_keeps_the_contract(check):
    check()


def test_each_trial_is_a_row_in_the_order_of_syne_tunes_counter():
    results = evp.read_results(EXPERIMENT, failed="worst")
    assert syne_tune.READER.name == results.tuner == "syne tune"
    assert results.score == "val_loss" and results.minimize
    assert results.direction == "Syne Tune's metric_mode='min'"
    assert results.frame["trial_id"].tolist() == list(range(9))
    assert results.failed == (7,)  # trial 6: no report, its config kept
    assert results.frame["state"].tolist()[6] == "NO_REPORT"
    assert results.frame["config_lr"].iloc[6] > 0.08
    assert results.strategy == "Syne Tune, RandomSearch"
    note = results.notes[0]
    assert note.startswith("Syne Tune experiment 'random-lr': 8 completed trials, "
                           "objective 'val_loss' (minimized), each trial's lowest "
                           "report")
    assert "1 failed (NO_REPORT 1)" in note
    assert "2 not finished, left out (Stopped 2)" in note
    # Each trial reported three epochs, falling: the best is the last.
    best = results.frame["val_loss"].to_numpy()[[0, 1, 2, 3, 4, 5, 7, 8]]
    np.testing.assert_allclose(
        best, evp.read_results(EXPERIMENT, per_trial="last", failed="drop")
        .frame["val_loss"])
    assert (results.frame["epoch"].dropna() == 3).all()


def test_a_failed_trial_is_named_by_its_trial_id():
    with pytest.raises(ValueError, match=r"^1 failed round\(s\) \(Syne Tune's trial "
                                         r"ids\): .* in trials 6; pass"):
        evp.read_results(EXPERIMENT)


def test_the_command_line_reads_the_folder(capsys):
    assert main(["curve", str(EXPERIMENT), "--failed", "drop", "--ns", "1,8",
                 "--method", "none"]) == 0
    out, err = capsys.readouterr()
    assert "random-lr" in out
    assert "note: Syne Tune experiment 'random-lr'" in err


def test_a_damaged_metadata_file_is_one_line(tmp_path):
    import shutil

    copy = tmp_path / "exp"
    shutil.copytree(EXPERIMENT, copy)
    (copy / "metadata.json").write_text('{"metric_names": ["val_loss"], '
                                        '"metric_mode": "lowest"}')
    with pytest.raises(ValueError, match=r"^path_or_frame: exp/metadata.json does "
                                         r"not say min or max for each metric"):
        evp.read_results(copy)
    (copy / "metadata.json").write_text("{")
    with pytest.raises(ValueError, match=r"^path_or_frame: exp/metadata.json is not "
                                         r"valid JSON"):
        evp.read_results(copy)
