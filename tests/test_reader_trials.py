"""The one trial-record builder (evp.readers._trials.trial_table) and what
read_results says of a column that names models, pooled into one curve."""

import math

import numpy as np
import pandas as pd
import pytest

import evp
from evp.readers._trials import (
    COMPLETED,
    FAILED,
    UNFINISHED,
    Objective,
    Trial,
    trial_table,
)


def test_the_tally_order_layout_and_note():
    trials = [
        Trial({"n": 2, "lr": 0.1, "acc": 0.7}, COMPLETED, "OK", 2),
        Trial({"n": 0, "lr": 0.2, "acc": 0.9}, FAILED, "FAIL", 0),  # logged 0.9
        Trial({"n": 5, "lr": 0.3}, UNFINISHED, "RUNNING", 5),
        Trial({"n": 1, "acc": 0.6, "lr": 0.4}, COMPLETED, "OK", 1),
        Trial({"n": 3, "lr": 0.5}, FAILED, None, 3),
        Trial({"n": 4, "lr": 0.6}, UNFINISHED, "PRUNED", 4),
    ]
    frame, note = trial_table(trials, Objective("acc", False), what="Toy 'x'",
                              order="n", failed_means=": failed rounds",
                              details=("", "trials in order"))
    assert frame.columns.tolist() == ["acc", "n", "lr"]
    assert frame["n"].tolist() == [0, 1, 2, 3]  # by place; unfinished left out
    assert frame["lr"].tolist() == [0.2, 0.4, 0.1, 0.5]
    # A failed trial's score is missing, whatever it logged.
    np.testing.assert_array_equal(frame["acc"], [np.nan, 0.6, 0.7, np.nan])
    assert note == ("Toy 'x': 2 completed trials, objective 'acc' (maximized); "
                    "2 failed (FAIL 1, no status 1): failed rounds; 2 not "
                    "finished, left out (RUNNING 1, PRUNED 1); trials in order")


def test_without_places_the_order_read_is_kept_and_the_direction_said():
    trials = [Trial({"loss": 0.3}, COMPLETED), Trial({"loss": 0.1}, COMPLETED)]
    frame, note = trial_table(trials, Objective("loss", True), what="T")
    assert frame["loss"].tolist() == [0.3, 0.1]
    assert note == "T: 2 completed trials, objective 'loss' (minimized)"
    _, note = trial_table(trials, Objective("loss", None, name="val",
                                            more=", at the best step"), what="T")
    assert note == ("T: 2 completed trials, objective 'val' (its direction not "
                    "recorded), at the best step")


def test_no_completed_trial_is_refused_with_the_tally():
    trials = [Trial({"acc": math.nan}, FAILED, "FAIL"),
              Trial({}, UNFINISHED, "RUNNING")]
    with pytest.raises(ValueError, match=r"^path_or_frame: T has no completed "
                                         r"trials \(2 in all: FAIL 1, RUNNING 1\)"):
        trial_table(trials, Objective("acc"), what="T")


def test_a_column_that_names_models_is_a_warning_of_the_library_too():
    frame = pd.DataFrame({"model": ["a", "b"] * 5, "acc": np.linspace(0.5, 0.9, 10)})
    results = evp.read_results(frame, score="acc")
    (warning,) = [w for w in results.warnings if "names models" in w]
    assert warning == ("column 'model' looks like it names models (2 values: a, b): "
                       "give group='model' for one curve per model, or --pool to "
                       "treat all 10 rows as one model")
    assert not evp.read_results(frame, score="acc", group="model").warnings
