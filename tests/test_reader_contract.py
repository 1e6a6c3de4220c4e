"""Every built-in reader keeps the contract of evp.readers.testing.check_reader,
on a source of its kind; and the check itself fails a reader that breaks it."""

import json
import re
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import evp
from evp.readers.registry import READERS, Reader
from evp.readers.testing import RULES, ReaderContractError, check_reader, reader_checks

FIXTURES = Path(__file__).parent / "fixtures"


def _reader(name: str, reads: str | None = None) -> Reader:
    return next(r for r in READERS if r.name == name
                and (reads is None or r.reads == reads))


def _optuna_study(path: Path) -> str:
    """A real random search with 2 failed trials and 1 pruned one, each trial
    recording an accuracy beside its log-loss objective."""
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    url = f"sqlite:///{path}"
    study = optuna.create_study(study_name="svm", storage=url,
                                sampler=optuna.samplers.RandomSampler(seed=0))

    def objective(trial):
        c = trial.suggest_float("C", 1e-3, 1e3, log=True)
        trial.set_user_attr("accuracy", 0.9 - 0.01 * abs(np.log10(c)))
        if trial.number in (2, 5):
            raise ValueError("this configuration crashes")
        return 0.3 + 0.02 * abs(np.log10(c))

    study.optimize(objective, n_trials=8, catch=(ValueError,))
    pruned = study.ask()
    pruned.suggest_float("C", 1e-3, 1e3, log=True)
    study.tell(pruned, state=optuna.trial.TrialState.PRUNED)
    return url


def _ray_folder(folder: Path) -> Path:
    """Three Ray Tune trials, the third stopped with an error before reporting."""
    for number, accuracy in enumerate((0.7, 0.8, None)):
        trial = folder / f"train_abc_0000{number}"
        trial.mkdir(parents=True)
        report = {"trial_id": f"abc_0000{number}", "training_iteration": 1}
        if accuracy is not None:
            report["acc"] = accuracy
        (trial / "result.json").write_text(json.dumps(report) + "\n")
        (trial / "params.json").write_text(json.dumps({"lr": 0.1 * (number + 1)}))
    return folder


def _mlflow_store(path: Path) -> str:
    """An MLflow experiment of four runs, the third failed."""
    import logging

    from mlflow.tracking import MlflowClient

    logging.getLogger("mlflow").setLevel(logging.WARNING)
    uri = f"sqlite:///{path}"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        client = MlflowClient(tracking_uri=uri)
        experiment = client.create_experiment("bert")
        for i, status in enumerate(("FINISHED", "FINISHED", "FAILED", "FINISHED")):
            run = client.create_run(experiment, run_name=f"r{i}",
                                    start_time=1_700_000_000_000 + 60_000 * i)
            client.log_metric(run.info.run_id, "val_acc", 0.7 + 0.05 * i)
            client.set_terminated(run.info.run_id, status)
    return uri


def _search():
    """A fitted random search in which the fits of max_depth=0 fail."""
    from sklearn.datasets import load_iris
    from sklearn.exceptions import FitFailedWarning
    from sklearn.model_selection import RandomizedSearchCV
    from sklearn.tree import DecisionTreeClassifier

    x, y = load_iris(return_X_y=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FitFailedWarning)
        warnings.simplefilter("ignore", UserWarning)
        return RandomizedSearchCV(
            DecisionTreeClassifier(random_state=0), cv=3, n_iter=8, random_state=3,
            param_distributions={"max_depth": [0, 1, 2, 3, 4],
                                 "min_samples_leaf": [1, 5, 20]}).fit(x, y)


def _wandb_table() -> pd.DataFrame:
    """The W&B public API's runs table: one crashed run of three finished."""
    return pd.DataFrame({
        "name": ["c", "b", "a"], "state": ["finished", "crashed", "finished"],
        "created_at": ["2024-03-01T11:00:00Z", "2024-03-01T10:00:00Z",
                       "2024-03-01T09:00:00Z"],
        "summary": [{"val_acc": 0.85, "_runtime": 300}, {"val_acc": 0.2},
                    {"val_acc": 0.8, "_runtime": 290}],
        "config": [{"lr": 0.1}, {"lr": 0.3}, {"lr": 0.01}]})


def _table() -> pd.DataFrame:
    return pd.DataFrame({"model": ["a", "a", "b", "b"], "trial": [0, 1, 0, 1],
                         "acc": [0.5, np.nan, 0.7, 0.6]})


@pytest.mark.needs("optuna")
def test_the_optuna_reader(tmp_path):
    url = _optuna_study(tmp_path / "study.db")
    results = check_reader(_reader("optuna"), url, failed=2)
    assert results.frame["number"].tolist() == list(range(8))
    # The pruned trial is left out, not a failed round.
    assert "1 not finished, left out (PRUNED 1)" in results.notes[0]


def test_the_keras_tuner_reader():
    results = check_reader(_reader("keras tuner"),
                           FIXTURES / "kerastuner" / "random_val_accuracy", failed=2)
    assert results.tuner == "keras tuner" and results.ordered


def test_the_smac_reader():
    check_reader(_reader("smac"), FIXTURES / "smac" / "hpo", failed=3)


def test_the_ray_tune_reader(tmp_path):
    results = check_reader(_reader("ray tune"), _ray_folder(tmp_path / "ray"),
                           metric="acc", mode="max", failed=1)
    assert results.direction == "Ray Tune's mode='max'"


@pytest.mark.slow
@pytest.mark.needs("mlflow")
def test_the_mlflow_reader(tmp_path):
    uri = _mlflow_store(tmp_path / "mlflow.db")
    results = check_reader(_reader("mlflow"), uri, score="val_acc",
                           experiment="bert", failed=1)
    assert results.frame["run_name"].tolist() == ["r0", "r1", "r2", "r3"]


@pytest.mark.needs("sklearn")
def test_the_scikit_learn_readers():
    search = _search()
    broken = int(np.isnan(search.cv_results_["mean_test_score"]).sum())
    assert broken > 0  # the check below has failed fits to see
    check_reader(_reader("scikit-learn", "a scikit-learn search"), search,
                 failed=broken)
    check_reader(_reader("scikit-learn", "scikit-learn's cv_results_ table"),
                 pd.DataFrame(search.cv_results_), failed=broken)


def test_the_wandb_reader():
    results = check_reader(_reader("wandb"), _wandb_table(), score="val_acc",
                           failed=1)
    assert results.tuner == "wandb" and results.ordered


def test_the_readers_of_ones_own_tables_and_results(tmp_path):
    check_reader(_reader("table"), _table(), score="acc", group="model", failed=1)
    path = tmp_path / "runs.csv"
    _table().to_csv(path, index=False)
    check_reader(_reader("file"), path, score="acc", group="model", failed=1)
    search = tmp_path / "search"
    search.mkdir()
    for model, rows in _table().dropna().rename(columns={"acc": "accuracy"}).groupby(
            "model"):
        rows.to_json(search / f"{model}.jsonl", orient="records", lines=True)
    check_reader(_reader("evp search"), search, failed=0)
    read = evp.read_results(_table().dropna(), score="acc", group="model")
    check_reader(_reader("results"), read, failed=0)


def test_the_pickle_reader_claims_pickles_and_reads_none(tmp_path):
    path = tmp_path / "search.pkl"
    path.write_bytes(b"\x80\x04N.")
    with pytest.raises(ValueError, match=r"^path_or_frame: search.pkl is a pickle, "
                                         r"and evp never unpickles a file"):
        check_reader(_reader("pickle"), path)
    assert path.read_bytes() == b"\x80\x04N."


def test_every_built_in_reader_is_checked_against_the_contract():
    """Here, by name, or in its own test module (a new reader's test runs
    reader_checks on its module's READER), so that a reader added to the
    registry without its test fails here."""
    here = {"optuna", "keras tuner", "smac", "ray tune", "mlflow",
            "scikit-learn", "wandb", "table", "file", "evp search", "results",
            "pickle"}
    own = {}
    for test in Path(__file__).parent.glob("test_reader*.py"):
        text = test.read_text()
        for module in re.findall(r"reader_checks\((\w+)\.READER", text):
            own[module] = test.name
    for reader in READERS:
        module = reader.read.__module__.rsplit(".", 1)[-1]
        assert reader.name in here or module in own, (
            f"the reader {reader.name!r} is checked by no test: run "
            f"reader_checks on it in tests/test_reader_{module}.py")


# One test per rule, and for every rule a reader that breaks it, caught.

class _Toy:
    """A plug-in reader of "MODEL LOSS" lines, as the registry's example;
    `broken` names the rule it breaks."""

    def __init__(self, broken=None):
        self.broken = broken
        self.options = {"scale": 1.0}
        if broken == "declares_its_options":
            self.options = {"score": 1.0}  # a name of read_results' own
        if broken == "marks_its_failed_states":
            from evp.readers.registry import Knows

            self.knows = Knows(failed=("DIVERGED",))

    def sniff(self, source):
        if self.broken == "sniff_never_raises":
            return Path(source).suffix == ".toy"  # raises for a number
        if self.broken == "sniff_claims_no_stranger":
            return isinstance(source, str | Path) and Path(source).suffix in (
                ".toy", ".csv")
        if self.broken == "sniff_changes_nothing" and isinstance(source, Path) \
                and source.is_dir():
            (source / "sniffed").write_text("x")
        if self.broken == "claims_its_own_source":
            return False
        return isinstance(source, str | Path) and str(source).endswith(".toy")

    def read(self, source, *, score=None, scale=1.0):
        rows = [line.split() for line in Path(source).read_text().splitlines()]
        if self.broken == "read_changes_nothing":
            with open(source, "a") as stream:
                stream.write("c 0.1\n")
        frame = pd.DataFrame({"model": [m for m, _ in rows],
                              "loss": [float(x) * scale for _, x in rows],
                              "trial": range(len(rows)),
                              "state": ["DIVERGED" if x == "nan" else "DONE"
                                        for _, x in rows]})
        if self.broken == "marks_its_failed_states":
            frame["loss"] = frame["loss"].fillna(9.0)  # the score kept
        if self.broken == "returns_results":
            return frame
        if self.broken == "rows_in_trial_order":
            frame = frame.iloc[::-1]
        if self.broken == "marks_failed_rounds":
            frame = frame.dropna()
        said = {"minimize": True, "direction": "the toy format: lower is better"}
        if self.broken == "says_its_direction":
            said = {}
        ordered = {"order": "trial", "ordered": True}
        if self.broken == "says_its_order":
            ordered = {}
        return evp.Results(frame, score="loss", group="model",
                           source="" if self.broken == "says_its_source"
                           else str(source), **said, **ordered)


@pytest.fixture
def toy(tmp_path):
    path = tmp_path / "runs.toy"
    path.write_text("a 0.3\na 0.2\nb nan\nb 0.25\n")
    return path


RULE_NAMES = [name for name, _, _ in RULES]


@pytest.mark.parametrize("rule", RULE_NAMES)
def test_a_plug_in_that_keeps_the_rule_passes_it(toy, rule):
    check = next(c for c in reader_checks(_Toy(), toy, failed=1) if str(c) == rule)
    check()


@pytest.mark.parametrize("rule", RULE_NAMES)
def test_a_reader_that_breaks_the_rule_is_caught_by_it(toy, rule):
    checks = {str(c): c for c in reader_checks(_Toy(rule), toy, failed=1)}
    with pytest.raises(ReaderContractError, match=r"^the reader '_Toy' .*breaks the "
                                                  r"contract: "):
        checks[rule]()


def test_the_rules_are_named_once_each_and_the_check_is_all_of_them(toy):
    assert len(set(RULE_NAMES)) == len(RULE_NAMES) == 13
    results = check_reader(_Toy(), toy, failed=1)
    assert results.minimize and results.failed == (3,)
    with pytest.raises(ReaderContractError, match="it marks 0 failed round"):
        check_reader(_Toy("marks_failed_rounds"), toy, failed=1)


def test_an_expected_failure_passes_while_broken_and_fails_once_kept(toy):
    why = {"says_its_order": "the toy format records no order"}
    check = next(c for c in reader_checks(_Toy("says_its_order"), toy,
                                          expected_failures=why)
                 if str(c) == "says_its_order")
    check()  # broken, as expected
    kept = next(c for c in reader_checks(_Toy(), toy, expected_failures=why)
                if str(c) == "says_its_order")
    with pytest.raises(ReaderContractError, match=r"expected to fail .* take it "
                                                  r"out of expected_failures"):
        kept()
    with pytest.raises(ValueError, match="expected_failures: no rule 'no_such'"):
        list(reader_checks(_Toy(), toy, expected_failures={"no_such": "x"}))


def test_the_messages_name_the_rule(toy):
    said = {}
    for rule in ("sniff_never_raises", "sniff_claims_no_stranger",
                 "rows_in_trial_order", "says_its_direction", "says_its_order"):
        checks = {str(c): c for c in reader_checks(_Toy(rule), toy, failed=1)}
        with pytest.raises(ReaderContractError) as error:
            checks[rule]()
        said[rule] = str(error.value)
    assert "sniff raised PluginError for a number" in said["sniff_never_raises"]
    assert "claims a plain CSV file" in said["sniff_claims_no_stranger"]
    assert "not in trial order" in said["rows_in_trial_order"]
    assert "which way is better" in said["says_its_direction"]
    assert "the trials' order" in said["says_its_order"]


def test_a_plug_in_that_claims_any_folder_is_caught(toy):
    # Its claim is a marker's: asked before evp's readers of folders, it would
    # read an evp search's folder.
    class AnyFolder(_Toy):
        def sniff(self, source):
            return (isinstance(source, Path) and source.is_dir()) or super().sniff(
                source)

    check = next(c for c in reader_checks(AnyFolder(), toy, failed=1)
                 if str(c) == "sniff_claims_no_stranger")
    with pytest.raises(ReaderContractError, match="claims an empty folder"):
        check()


def test_a_reader_that_does_not_claim_its_own_source_fails(toy):
    other = toy.with_suffix(".txt")
    other.write_text(toy.read_text())
    with pytest.raises(ReaderContractError, match="does not claim its own source"):
        check_reader(_Toy(), other)


def _documented_readers() -> dict:
    """The toy reader as the README and the registry's docstring show it to
    plug-in authors: {where: its module's code}."""
    import evp.readers.registry as registry

    root = Path(__file__).resolve().parents[1]
    readme = (root / "README.md").read_text(encoding="utf-8")
    shown = {"README.md": readme.split("```python\n# evp_toy_reader.py\n", 1)[1]
             .split("```", 1)[0]}
    doc = registry.__doc__.split("    # evp_toy_reader.py\n", 1)[1]
    doc = doc.split("    READER = ToyReader()\n", 1)[0] + "    READER = ToyReader()\n"
    shown["evp.readers.registry"] = textwrap.dedent(doc)
    return shown


@pytest.mark.parametrize("where", ["README.md", "evp.readers.registry"])
def test_the_documented_plug_in_keeps_every_rule(tmp_path, where):
    # What a plug-in author copies must pass the checks the docs tell them to
    # run, one test per rule, as written.
    namespace: dict = {}
    exec(compile(_documented_readers()[where], where, "exec"), namespace)
    path = tmp_path / "runs.toy"
    path.write_text("a 0.5\na 0.4\nb 0.3\nb nan\na 0.2\nb 0.35\n")
    failures = {}
    for check in reader_checks(namespace["READER"], path, failed=1):
        try:
            check()
        except ReaderContractError as error:
            failures[str(check)] = str(error)
    assert failures == {}
