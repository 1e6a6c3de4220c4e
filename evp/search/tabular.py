"""Random searches of six scikit-learn model families on eight small tabular tasks.

The benchmark study (``notebooks/benchmark_study.ipynb``) asks which family is best
at each budget across tasks. Its searches are produced here, seeded and resumable
through :func:`evp.search.runner.run_search`, one JSON line per trial::

    python -m evp.search.tabular --out data/benchmark_study --trials 50

The tasks are data sets that install with scikit-learn or statsmodels, so they need
no network: ``iris``, ``wine``, ``breast_cancer``, ``digits`` (scikit-learn's
classification sets), ``diabetes`` (scikit-learn's regression set, the target cut at
its median), ``affairs`` (statsmodels' ``fair``: any affair or none, 2,000 rows drawn
once), ``vote`` (statsmodels' ``anes96``: the 1996 vote) and ``schools``
(statsmodels' ``star98``: a district above the median share of pupils above the
national median in maths). Each task has one stratified split, 70% to train and
30% to validate, drawn once with seed 0; the score is validation accuracy.

The families and their search distributions (log-uniform where a scale spans
decades) are in :data:`SPACES`; every family but the forests sees standardised
features.
"""

from __future__ import annotations

import argparse
import math
import os
import time
import warnings
from functools import cache
from pathlib import Path

import numpy as np

TASKS = ("iris", "wine", "breast_cancer", "digits", "diabetes", "affairs", "vote",
         "schools")
MODELS = ("logistic_regression", "svm", "random_forest", "gradient_boosting", "knn",
          "mlp")
#: The split's seed and the share held out for validation.
SPLIT_SEED, VALIDATION = 0, 0.3


def _log_uniform(rng, low, high):
    return float(math.exp(rng.uniform(math.log(low), math.log(high))))


def _log_int(rng, low, high):
    return round(_log_uniform(rng, low, high + 0.499))


SPACES = {
    "logistic_regression": lambda rng: {
        "C": _log_uniform(rng, 1e-4, 1e4),
        "class_weight": str(rng.choice(["none", "balanced"])),
    },
    "svm": lambda rng: {
        "C": _log_uniform(rng, 1e-2, 1e3),
        "gamma": _log_uniform(rng, 1e-4, 1e1),
    },
    "random_forest": lambda rng: {
        "n_estimators": _log_int(rng, 10, 200),
        "max_depth": int(rng.integers(2, 21)),
        "max_features": float(rng.uniform(0.1, 1.0)),
        "min_samples_leaf": _log_int(rng, 1, 20),
    },
    "gradient_boosting": lambda rng: {
        "learning_rate": _log_uniform(rng, 1e-3, 1.0),
        "max_iter": _log_int(rng, 10, 200),
        "max_leaf_nodes": _log_int(rng, 4, 64),
        "l2_regularization": _log_uniform(rng, 1e-6, 10.0),
    },
    "knn": lambda rng: {
        "n_neighbors": _log_int(rng, 1, 50),
        "weights": str(rng.choice(["uniform", "distance"])),
        "p": int(rng.choice([1, 2])),
    },
    "mlp": lambda rng: {
        "width": _log_int(rng, 8, 256),
        "depth": int(rng.integers(1, 3)),
        "alpha": _log_uniform(rng, 1e-6, 1e-1),
        "learning_rate_init": _log_uniform(rng, 1e-4, 1e-1),
    },
}


def sample_config(model: str, rng: np.random.Generator) -> dict:
    """One configuration of `model` drawn from its search distribution."""
    if model not in SPACES:
        raise ValueError(f"model must be one of {', '.join(MODELS)}, got {model!r}")
    return SPACES[model](rng)


@cache
def load_task(task: str):
    """(X_train, X_valid, y_train, y_valid) of a task, split once with seed 0."""
    from sklearn import datasets
    from sklearn.model_selection import train_test_split

    if task in ("iris", "wine", "breast_cancer", "digits"):
        X, y = getattr(datasets, f"load_{task}")(return_X_y=True)
    elif task == "diabetes":
        X, target = datasets.load_diabetes(return_X_y=True)
        y = (target > np.median(target)).astype(int)
    else:
        import statsmodels.api as sm

        if task == "affairs":
            frame = sm.datasets.fair.load_pandas().data
            frame = frame.sample(n=2000, random_state=SPLIT_SEED)
            y = (frame.pop("affairs") > 0).astype(int).to_numpy()
        elif task == "vote":
            frame = sm.datasets.anes96.load_pandas().data
            y = frame.pop("vote").astype(int).to_numpy()
        elif task == "schools":
            frame = sm.datasets.star98.load_pandas().data
            above, below = frame.pop("NABOVE"), frame.pop("NBELOW")
            share = above / (above + below)
            y = (share > share.median()).astype(int).to_numpy()
        else:
            raise ValueError(f"task must be one of {', '.join(TASKS)}, got {task!r}")
        X = frame.to_numpy(dtype=float)
    return tuple(train_test_split(X, y, test_size=VALIDATION, stratify=y,
                                  random_state=SPLIT_SEED))


def make_model(model: str, config: dict, seed: int):
    """The scikit-learn estimator of `model` with hyperparameters `config`."""
    from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.neural_network import MLPClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC

    c = dict(config)
    if model == "random_forest":
        return RandomForestClassifier(**c, random_state=seed, n_jobs=1)
    if model == "gradient_boosting":
        return HistGradientBoostingClassifier(**c, early_stopping=False,
                                              random_state=seed)
    if model == "logistic_regression":
        weight = None if c["class_weight"] == "none" else c["class_weight"]
        estimator = LogisticRegression(C=c["C"], class_weight=weight, max_iter=2000)
    elif model == "svm":
        estimator = SVC(C=c["C"], gamma=c["gamma"])
    elif model == "knn":
        estimator = KNeighborsClassifier(**c)
    elif model == "mlp":
        estimator = MLPClassifier(
            hidden_layer_sizes=(c["width"],) * c["depth"], alpha=c["alpha"],
            learning_rate_init=c["learning_rate_init"], max_iter=300,
            random_state=seed)
    else:
        raise ValueError(f"model must be one of {', '.join(MODELS)}, got {model!r}")
    return make_pipeline(StandardScaler(), estimator)


def train(task: str, model: str, config: dict, *, seed: int, trial: int) -> dict:
    """Fit `model` with `config` on the task's training split; its validation
    accuracy. The estimator's own seed depends on the search's seed and the trial."""
    X_train, X_valid, y_train, y_valid = load_task(task)
    estimator = make_model(model, config, seed=int(seed * 100_003 + trial))
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # convergence warnings: part of the search
        estimator.fit(X_train, y_train)
    fit_seconds = time.perf_counter() - start
    return {"accuracy": float(np.mean(estimator.predict(X_valid) == y_valid)),
            "fit_seconds": fit_seconds}


def main(argv=None) -> int:
    from evp.search.runner import run_search

    parser = argparse.ArgumentParser(
        prog="python -m evp.search.tabular",
        description="Random searches of six model families on eight tabular tasks "
                    "(resumable: rerun to finish)")
    parser.add_argument("--out", required=True, help="folder: OUT/TASK/MODEL.jsonl")
    parser.add_argument("--trials", type=int, default=50)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--tasks", default=",".join(TASKS))
    parser.add_argument("--models", default=",".join(MODELS))
    args = parser.parse_args(argv)
    # One core per search: the forests and boosting would otherwise take them all.
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    for task in args.tasks.split(","):
        for model in args.models.split(","):
            run_search(train=train, sample=sample_config, task=task, model=model,
                       trials=args.trials, seed=args.seed,
                       out=Path(args.out) / task / f"{model}.jsonl",
                       regime={"split": f"stratified {1 - VALIDATION:.0%}/"
                                        f"{VALIDATION:.0%}, seed {SPLIT_SEED}"})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
