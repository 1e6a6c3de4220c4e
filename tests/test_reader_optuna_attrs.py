"""Optuna's trial attributes as columns and as the score, and failed trials
named by Optuna's own trial numbers."""

import numpy as np
import pytest

from evp import read_results
from evp.cli import main

pytestmark = pytest.mark.needs("optuna")


@pytest.fixture(scope="module")
def storage(tmp_path_factory):
    """A real log-loss study whose trials record their accuracy as a user
    attribute; trials 2 and 5 crash, one trial is pruned."""
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    path = tmp_path_factory.mktemp("optuna") / "study.db"
    study = optuna.create_study(study_name="svm", storage=f"sqlite:///{path}",
                                sampler=optuna.samplers.RandomSampler(seed=0))

    def objective(trial):
        c = trial.suggest_float("C", 1e-3, 1e3, log=True)
        trial.set_user_attr("accuracy", round(0.9 - 0.01 * abs(np.log10(c)), 6))
        if trial.number in (2, 5):
            raise ValueError("this configuration crashes")
        return 0.3 + 0.02 * abs(np.log10(c))

    study.optimize(objective, n_trials=8, catch=(ValueError,))
    pruned = study.ask()
    pruned.suggest_float("C", 1e-3, 1e3, log=True)
    study.tell(pruned, state=optuna.trial.TrialState.PRUNED)
    return path, study


def test_user_attributes_are_columns_named_as_optuna_names_them(storage):
    path, study = storage
    results = read_results(path, failed="drop")
    assert results.score == "value" and results.minimize
    expected = study.trials_dataframe()
    expected = expected[expected["state"] == "COMPLETE"]
    np.testing.assert_allclose(results.frame["user_attrs_accuracy"],
                               expected["user_attrs_accuracy"])
    # Every attribute column Optuna's own table has, read alike.
    attributes = [c for c in study.trials_dataframe().columns
                  if c.startswith(("user_attrs_", "system_attrs_"))]
    assert attributes and set(attributes) <= set(results.frame.columns)


def test_an_attribute_is_the_score_once_its_direction_is_given(storage):
    path, _ = storage
    with pytest.raises(ValueError, match=r"^minimize: 'user_attrs_accuracy' is not "
                                         r"the Optuna study's objective"):
        read_results(path, score="user_attrs_accuracy", failed="drop")
    results = read_results(path, score="user_attrs_accuracy", minimize=False,
                           failed="drop")
    assert results.score == "user_attrs_accuracy" and not results.minimize
    assert results.direction == "given: minimize=False"
    # The study minimizes its log loss; the accuracy is maximized, as asked.
    assert results.frame["user_attrs_accuracy"].max() > 0.85
    with pytest.raises(ValueError, match=r"no objective or trial attribute "
                                         r"'accuracy'; its objectives: value; its "
                                         r"attributes: user_attrs_accuracy"):
        read_results(path, score="accuracy", minimize=False)


def test_the_command_line_asks_for_the_attributes_direction(storage, capsys):
    path, _ = storage
    assert main(["curve", str(path), "--score", "user_attrs_accuracy",
                 "--failed", "drop"]) == 2
    error = capsys.readouterr().err.strip()
    assert len(error.splitlines()) == 1
    assert "pass --minimize if lower is better, --maximize if higher" in error
    assert main(["curve", str(path), "--score", "user_attrs_accuracy",
                 "--failed", "drop", "--maximize"]) == 0


def test_failed_trials_are_named_by_optunas_trial_numbers(storage):
    path, _ = storage
    with pytest.raises(ValueError) as error:
        read_results(path)
    message = str(error.value)
    assert message.startswith("2 failed round(s) (Optuna's trial numbers): ")
    assert "in trials 2, 5" in message
    results = read_results(path, failed="worst")
    assert results.failed == (3, 6)  # the frame's rows, as for every reader
    assert "(trials 2, 5) count as worse than every score" in " ".join(
        results.notes)


def test_pruned_trials_are_left_out_or_read_as_failed_rounds(storage):
    path, _ = storage
    assert len(read_results(path, failed="worst").frame) == 8
    results = read_results(path, failed="worst", pruned="failed")
    frame = results.frame
    assert len(frame) == 9 and frame["state"].iloc[-1] == "PRUNED"
    assert results.failed == (3, 6, 9) and np.isposinf(frame["value"].iloc[-1])
    assert "3 failed (FAIL 2, PRUNED 1)" in results.notes[0]
    with pytest.raises(ValueError, match=r"^pruned must be one of"):
        read_results(path, pruned="worst")
    with pytest.raises(ValueError, match=r"^pruned='failed' is for an Optuna "
                                         r"study, and path_or_frame is a "
                                         r"DataFrame: leave pruned out$"):
        read_results(frame, score="value", pruned="failed")


def test_the_option_is_a_flag_of_the_command_line(storage, capsys):
    path, _ = storage
    assert main(["curve", str(path), "--failed", "worst", "--pruned",
                 "failed"]) == 0
    assert "3 failed round(s) of 9" in capsys.readouterr().err
