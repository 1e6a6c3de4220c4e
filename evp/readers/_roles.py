"""Whose column each role is: the user's roles (score, group, task, order)
reconciled with what the reader found, by one table of precedence rules.

A reader's Results say what it found (its score, its model column, its trial
numbers); the user's roles say what they asked. :data:`PRECEDENCE` holds, for
each role and each kind of source, the cases in the order they are tried, and
whose value the first case that holds gives the role; :func:`reconcile` walks
it. The kinds of source (:func:`kind`):

* ``table`` — a table no tool wrote (a DataFrame, a CSV file of one's own): the
  roles are the user's alone.
* ``naming`` — a tool that names the score itself (scikit-learn's scorers,
  MLflow's metrics, W&B's summary): a score it does not hold by the user's
  name is its own name for it (``"accuracy"`` → ``mean_test_accuracy``).
* ``tuner`` — a tuner's record (Optuna, Ray Tune, KerasTuner, SMAC3, a
  plug-in's): its objective unless the user names another, and several
  studies one model each, unless the user reads them as runs or tasks or
  names another column of models.
* ``results`` — Results that say their roles (``evp search``'s folders,
  Results read before): theirs wherever the user gave none.
"""

from __future__ import annotations

from evp.results import Results

__all__ = ["OUTCOMES", "PRECEDENCE", "kind", "reconcile"]

# Whose value a rule gives the role.
USER, READER, NONE, TUNER, REFUSE = "user", "reader", "none", "tuner", "refuse"
#: What each outcome means.
OUTCOMES = {
    USER: "the user's column (None where the user gave none)",
    READER: "the column the reader found (its Results' role)",
    NONE: "no column: the reader's groups are read otherwise (as runs of one "
          "tuner, whose name names the results)",
    TUNER: "the column 'tuner': the runs' names without their seed numbers",
    REFUSE: "an error that says why",
}

# The cases a rule holds in; `u` the user's roles, `b` the reader's Results
# (None for a table), `frame` what was read.
_CASES = {
    "always": lambda u, b, frame, role: True,
    "given": lambda u, b, frame, role: u[role] is not None,
    "given, in the frame": lambda u, b, frame, role: (u[role] is not None
                                                      and u[role] in frame),
    "reader found none": lambda u, b, frame, role: getattr(b, role) is None,
    "the reader's groups are the runs": lambda u, b, frame, role: (
        b.group is not None and u["runs"] == b.group),
    "the reader's groups are the runs, given": lambda u, b, frame, role: (
        b.group is not None and u["runs"] == b.group and u[role] is not None),
    "the reader's groups are the runs, of several tuners": lambda u, b, frame,
    role: (b.group is not None and u["runs"] == b.group
           and frame["tuner"].nunique() > 1),
    "the reader's groups are the tasks": lambda u, b, frame, role: (
        b.group is not None and u["task"] == b.group),
    "the reader's order is another role": lambda u, b, frame, role: (
        b.order in (u["score"], u["group"], u["cost"])),
}

#: (role, kind of source, case, outcome): for each role and kind, the first
#: row whose case holds decides. A role or kind not listed is the user's.
PRECEDENCE = (
    ("score", "table", "given", USER),
    ("score", "table", "always", REFUSE),
    ("score", "naming", "given, in the frame", USER),
    ("score", "naming", "always", READER),
    ("score", "tuner", "given", USER),
    ("score", "tuner", "always", READER),
    ("score", "results", "given", USER),
    ("score", "results", "always", READER),

    ("group", "naming", "given", USER),
    ("group", "naming", "the reader's groups are the tasks", USER),
    ("group", "naming", "always", READER),
    ("group", "tuner", "reader found none", USER),
    ("group", "tuner", "the reader's groups are the runs, given", USER),
    ("group", "tuner", "the reader's groups are the runs, of several tuners",
     TUNER),
    ("group", "tuner", "the reader's groups are the runs", USER),
    ("group", "tuner", "the reader's groups are the tasks", USER),
    # Any column may name the models (a config column over several
    # experiments, one per task and model): the experiment's name stays a
    # column of its own.
    ("group", "tuner", "given", USER),
    ("group", "tuner", "always", READER),
    ("group", "results", "given", USER),
    ("group", "results", "always", READER),

    ("task", "results", "given", USER),
    ("task", "results", "always", READER),

    ("order", "table", "always", USER),
    ("order", "naming", "given", USER),
    ("order", "naming", "the reader's order is another role", USER),
    ("order", "naming", "always", READER),
    ("order", "tuner", "given", USER),
    ("order", "tuner", "the reader's order is another role", USER),
    ("order", "tuner", "always", READER),
    ("order", "results", "given", USER),
    ("order", "results", "the reader's order is another role", USER),
    ("order", "results", "always", READER),
)

# Why a refusal refuses, by role.
_REFUSALS = {
    "score": lambda u, b: "score: name the column of validation scores, e.g. "
                          "score='accuracy'",
}


def kind(base: Results | None, names_score: bool, naming: set) -> str:
    """The kind of source (see the module): ``table`` without Results,
    ``naming`` for a reader that names the score (`names_score`, or Results
    whose tuner is one of `naming`), ``tuner`` for another tuner's Results,
    ``results`` for Results that name no tuner."""
    if base is None:
        return "table"
    if names_score or base.tuner in naming:
        return "naming"
    return "tuner" if base.tuner is not None else "results"


def reconcile(user: dict, base: Results | None, frame, source: str) -> tuple:
    """The roles read with, and the results' name: (roles, name).

    `user` holds the user's score, group, cost, order, runs and task (None
    where not given); `base` the reader's Results (None for a plain table);
    `source` its kind (:func:`kind`). Score, group, task and order follow
    :data:`PRECEDENCE`, in that order (a later role's case may read an earlier
    role's value); cost and runs are the user's. The name is the reader's,
    unless the reader's groups are runs of one tuner, which names the
    results.
    """
    roles = dict(user)
    name = base.name if base is not None else None
    for role in ("score", "group", "task", "order"):
        rules = [(case, outcome) for r, k, case, outcome in PRECEDENCE
                 if r == role and k == source]
        case, outcome = next(((c, o) for c, o in rules
                              if _CASES[c](roles, base, frame, role)),
                             ("always", USER))
        if outcome == REFUSE:
            raise ValueError(_REFUSALS[role](roles, base))
        if outcome == READER:
            roles[role] = getattr(base, role)
        elif outcome == TUNER:
            roles[role] = "tuner"
        if role == "group" and case == "the reader's groups are the runs":
            name = str(frame["tuner"].iloc[0])
    return roles, name
