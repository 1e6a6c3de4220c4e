"""The precedence table that reconciles the user's roles with what a reader
found (evp.readers._roles): each row's case and outcome, written out by hand
here, and the table's shape."""

import pandas as pd
import pytest

from evp import Results
from evp.readers import _roles
from evp.readers._roles import OUTCOMES, PRECEDENCE, kind, reconcile

ROLES = ("score", "group", "cost", "order", "runs", "task")


def user(**given):
    return {role: given.get(role) for role in ROLES}


def studies(tuners=("tpe", "tpe"), **kw):
    frame = pd.DataFrame({"value": [0.1, 0.2, 0.3, 0.4],
                          "study": ["tpe-1", "tpe-1", "tpe-2", "tpe-2"],
                          "tuner": [tuners[0], tuners[0], tuners[1], tuners[1]],
                          "number": [0, 1, 0, 1],
                          "params_model": ["a", "b", "a", "b"],
                          "user_attrs_acc": [0.5, 0.6, 0.7, 0.8]})
    return Results(frame, score="value", group="study", order="number",
                   minimize=True, direction="the study's", tuner="optuna",
                   name=None, **kw)


def test_every_row_names_a_known_case_and_outcome_and_each_kind_ends_in_always():
    cases = set(_roles._CASES)
    for role, source, case, outcome in PRECEDENCE:
        assert role in ROLES and source in ("table", "naming", "tuner", "results")
        assert case in cases and outcome in OUTCOMES
    # Each (role, kind) listed ends with a rule that always holds, so that the
    # first match is never missing; and no rule follows one that always holds.
    blocks = {}
    for role, source, case, _ in PRECEDENCE:
        blocks.setdefault((role, source), []).append(case)
    for key, listed in blocks.items():
        assert listed[-1] == "always", key
        assert "always" not in listed[:-1], key


def test_the_kind_of_source():
    frame = pd.DataFrame({"acc": [0.1]})
    assert kind(None, False, set()) == "table"
    assert kind(Results(frame, score="acc", tuner="wandb"), False,
                {"wandb"}) == "naming"
    assert kind(Results(frame, score="acc", tuner="optuna"), True, set()) == "naming"
    assert kind(Results(frame, score="acc", tuner="optuna"), False, set()) == "tuner"
    assert kind(Results(frame, score="acc"), False, {"wandb"}) == "results"


def test_a_table_needs_the_users_score_and_keeps_every_role_as_given():
    frame = pd.DataFrame({"acc": [0.1], "m": ["a"]})
    with pytest.raises(ValueError, match=r"^score: name the column"):
        reconcile(user(group="m"), None, frame, "table")
    roles, name = reconcile(user(score="acc", group="m"), None, frame, "table")
    assert roles == user(score="acc", group="m") and name is None


def test_a_naming_reader_keeps_its_score_unless_the_users_is_a_column():
    frame = pd.DataFrame({"mean_test_accuracy": [0.1], "rank": [1],
                          "experiment": ["x"]})
    base = Results(frame, score="mean_test_accuracy", group="experiment",
                   tuner="mlflow", name="exp")
    # "accuracy" is no column: the reader's own name for it wins.
    roles, name = reconcile(user(score="accuracy"), base, frame, "naming")
    assert roles["score"] == "mean_test_accuracy" and name == "exp"
    assert roles["group"] == "experiment"
    roles, _ = reconcile(user(score="rank"), base, frame, "naming")
    assert roles["score"] == "rank"
    # The reader's groups read as tasks: no model column from the reader.
    roles, _ = reconcile(user(task="experiment"), base, frame, "naming")
    assert roles["group"] is None and roles["task"] == "experiment"


def test_a_tuners_studies_are_models_runs_or_tasks_as_the_user_reads_them():
    base = studies()
    frame = base.frame
    # One model each (the reader's group), the objective, the trial numbers.
    roles, name = reconcile(user(), base, frame, "tuner")
    assert (roles["score"], roles["group"], roles["order"]) == ("value", "study",
                                                               "number")
    # Runs of one tuner: no model column, the tuner names the results.
    roles, name = reconcile(user(runs="study"), base, frame, "tuner")
    assert roles["group"] is None and name == "tpe"
    # Runs of several tuners: the tuner column is the model.
    several = studies(tuners=("tpe", "random"))
    roles, name = reconcile(user(runs="study"), several, several.frame, "tuner")
    assert roles["group"] == "tuner" and name is None
    # Runs, and the user's own model column.
    roles, _ = reconcile(user(runs="study", group="params_model"), several,
                         several.frame, "tuner")
    assert roles["group"] == "params_model"
    # Tasks: the models are the user's column.
    roles, _ = reconcile(user(task="study", group="params_model"), base, frame,
                         "tuner")
    assert roles["group"] == "params_model" and roles["task"] == "study"
    # Another model column over several studies (one per task and model, say):
    # the user's; the study stays a column.
    roles, _ = reconcile(user(group="params_model"), base, frame, "tuner")
    assert roles["group"] == "params_model" and "study" in frame
    # A trial attribute as the score.
    roles, _ = reconcile(user(score="user_attrs_acc"), base, frame, "tuner")
    assert roles["score"] == "user_attrs_acc"


def test_the_readers_order_gives_way_to_a_role_that_uses_its_column():
    base = studies()
    roles, _ = reconcile(user(score="number"), base, base.frame, "tuner")
    assert roles["order"] is None
    roles, _ = reconcile(user(order="user_attrs_acc"), base, base.frame, "tuner")
    assert roles["order"] == "user_attrs_acc"


def test_results_that_say_their_roles_fill_what_the_user_left_out():
    frame = pd.DataFrame({"acc": [0.1, 0.2], "model": ["a", "b"],
                          "task": ["x", "y"], "trial": [0, 1], "other": ["p", "q"]})
    base = Results(frame, score="acc", group="model", task="task", order="trial")
    roles, _ = reconcile(user(), base, frame, "results")
    assert (roles["score"], roles["group"], roles["task"], roles["order"]) == (
        "acc", "model", "task", "trial")
    roles, _ = reconcile(user(group="other", task="other"), base, frame, "results")
    assert roles["group"] == roles["task"] == "other"
