"""Reading KerasTuner project folders (evp.readers.kerastuner).

The fixtures are the .json records of real searches (keras-tuner 1.4.8, Keras 3,
see tests/fixtures/README.md); every expected value below is typed from those
files.
"""

import json
import math
import shutil
from pathlib import Path

import numpy as np
import pytest

import evp
from evp.readers import kerastuner

FIXTURES = Path(__file__).parent / "fixtures" / "kerastuner"
RANDOM = FIXTURES / "random_val_accuracy"
BAYES = FIXTURES / "bayes_val_loss"
HYPERBAND = FIXTURES / "hyperband_val_auc"
INTERRUPTED = FIXTURES / "interrupted"

# trial_<n>/trial.json "score" of the RandomSearch, trials 0-7 (5 and 6 FAILED).
RANDOM_SCORES = [0.8125, 0.5, 0.637499988079071, 0.7124999761581421, 0.8125,
                 math.nan, math.nan, 0.8374999761581421]
# The same trials' val_loss at their best_step.
RANDOM_VAL_LOSS = [0.5362001657485962, 0.7355090379714966, 0.619659960269928,
                   0.591091513633728, 0.47908735275268555, math.nan, math.nan,
                   0.34212812781333923]
BAYES_SCORES = [0.3360777050256729, 0.7409979999065399, 0.34654396772384644,
                0.26613210141658783, 0.5139739662408829]


def read(path, **options):
    """Through read_results, which validates what the reader returns."""
    score = options.pop("score", None)
    return evp.read_results(kerastuner.read(path, score=score), **options)


def copy(source: Path, tmp_path: Path) -> Path:
    target = tmp_path / source.name
    shutil.copytree(source, target)
    return target


def edit(path: Path, change) -> None:
    record = json.loads(path.read_text())
    change(record)
    path.write_text(json.dumps(record))


# ------------------------------------------------------------------ reading

def test_a_random_search_reads_every_finished_trial_in_creation_order():
    raw = kerastuner.read(RANDOM)
    frame = raw.frame
    np.testing.assert_array_equal(frame["val_accuracy"], RANDOM_SCORES)
    assert frame["trial_number"].tolist() == list(range(8))
    assert frame["trial_id"].tolist() == [str(n) for n in range(8)]
    assert frame["state"].tolist() == ["completed"] * 5 + ["failed"] * 2 + [
        "completed"]
    assert frame["status"].tolist() == ["COMPLETED"] * 5 + ["FAILED"] * 2 + [
        "COMPLETED"]
    assert frame["hyperparameters.units"].tolist() == [8, 28, 16, 16, 32, 8, 8, 24]
    assert frame["hyperparameters.activation"].tolist() == [
        "relu", "relu", "tanh", "relu", "tanh", "gelu_broken", "gelu_broken", "tanh"]
    assert frame["hyperparameters.learning_rate"].iloc[0] == 0.017611785596585997
    # The other metrics at the best step, and the failed trials' error.
    np.testing.assert_array_equal(frame["val_loss"], RANDOM_VAL_LOSS)
    assert frame["best_step"].iloc[[0, 2, 3]].tolist() == [2, 3, 1]
    assert frame["message"].iloc[5] == ("ValueError: activation 'gelu_broken' is "
                                        "not implemented")
    assert frame["message"].iloc[[0, 7]].isna().all()
    assert list(frame.columns[:2]) == ["val_accuracy", "trial_number"]
    # What the record says.
    assert raw.score == "val_accuracy" and raw.minimize is False
    assert raw.direction == ("the KerasTuner objective's direction (max), as the "
                             "trials record it for 'val_accuracy'")
    assert raw.tuner == "keras tuner" and raw.name == "random_val_accuracy"
    assert raw.ordered and raw.order == "trial_number"
    assert raw.strategy == ("KerasTuner, RandomSearch or GridSearch (oracle.json "
                            "records the same fields for both)")
    assert raw.source == "KerasTuner project 'random_val_accuracy'"
    assert raw.cost is None and not any("duration" in c for c in frame.columns)
    (note,) = raw.notes
    assert "6 completed trials" in note
    assert "objective 'val_accuracy' (maximized)" in note
    assert "averaged over the trial's executions" in note
    assert "2 failed (FAILED 2): failed rounds (state 'failed')" in note
    assert "2 trial(s) ran more than once (retries)" in note  # run_times 2
    assert "in the order they were created" in note


def test_the_folder_or_its_oracle_json_read_the_same():
    by_file = kerastuner.read(RANDOM / "oracle.json").frame
    assert by_file.equals(kerastuner.read(RANDOM).frame)
    assert kerastuner.read(str(RANDOM)).frame.equals(by_file)


def test_failed_trials_are_failed_rounds_under_each_policy():
    with pytest.raises(ValueError) as refused:
        read(RANDOM)
    message = str(refused.value)
    assert "\n" not in message
    assert "2 failed round(s)" in message and "rows 6, 7" in message
    assert "failed='drop'" in message and "failed='worst'" in message

    with pytest.warns(UserWarning, match=r"dropped 2 bad row\(s\) of 8.*rows 6, 7"):
        dropped = read(RANDOM, failed="drop")
    assert dropped.dropped == (6, 7)
    scores = [s for s in RANDOM_SCORES if not math.isnan(s)]
    np.testing.assert_array_equal(dropped.scores_as_read["random_val_accuracy"],
                                  scores)
    assert set(dropped.frame["state"]) == {"completed"}

    worst = read(RANDOM, failed="worst")
    assert worst.failed == (6, 7)
    values = worst.scores_as_read["random_val_accuracy"]
    assert values.tolist()[:5] == RANDOM_SCORES[:5]
    assert np.isneginf(values[[5, 6]]).all()  # accuracy: higher is better
    assert values[7] == 0.8374999761581421


def test_a_minimized_objective_takes_the_record_s_direction():
    bayes = read(BAYES)
    assert bayes.score == "val_loss" and bayes.minimize is True
    assert bayes.direction == ("the KerasTuner objective's direction (min), as the "
                               "trials record it for 'val_loss'")
    np.testing.assert_array_equal(bayes.scores_as_read["bayes_val_loss"],
                                  BAYES_SCORES)
    assert bayes.strategy == "KerasTuner, BayesianOptimization (num_initial_points=3)"
    assert bayes.frame["hyperparameters.units"].tolist() == [8, 8, 20, 32, 32]
    # executions_per_trial=2: one averaged value recorded per metric.
    assert bayes.frame["best_step"].tolist() == [2, 2, 2, 1, 2]
    assert "0 failed" not in bayes.notes[0] and "failed" not in bayes.notes[0]
    with pytest.raises(ValueError, match=r"^minimize: the KerasTuner objective's "
                                         r"direction \(min\)"):
        read(BAYES, minimize=False)
    assert read(BAYES, minimize=True).minimize is True


def test_the_exchangeability_test_runs_on_the_trial_order():
    results = read(RANDOM, failed="worst")
    assert set(results.exchangeability) == {"random_val_accuracy"}
    assert 0 <= results.exchangeability["random_val_accuracy"] <= 1
    assert any(n.startswith("trials in order (column 'trial_number'): "
                            "exchangeability test p = ") for n in results.notes)
    bayes = read(BAYES)
    assert "bayes_val_loss" in bayes.exchangeability


def test_hyperband_reads_only_its_last_bracket(tmp_path):
    hyperband = read(HYPERBAND)
    frame = hyperband.frame
    # Trials 0004 and 0005: tuner/bracket 0, three epochs from scratch.
    assert frame["trial_id"].tolist() == ["0004", "0005"]
    assert frame["trial_number"].tolist() == [4, 5]
    np.testing.assert_array_equal(hyperband.scores_as_read["hyperband_val_auc"],
                                  [0.7082551717758179, 0.8217636346817017])
    assert frame["tuner/epochs"].tolist() == [3, 3]
    assert frame["tuner/bracket"].tolist() == [0, 0]
    # A kt.Objective("val_auc", "max") of the user's.
    assert hyperband.score == "val_auc" and hyperband.minimize is False
    assert hyperband.strategy == ("KerasTuner, Hyperband (its last bracket only: "
                                  "random configurations trained for max_epochs=3)")
    assert ("4 trial(s) of its other brackets left out" in hyperband.notes[0])
    # Without a finished trial of the last bracket: refused, in one line.
    search = copy(HYPERBAND, tmp_path)
    shutil.rmtree(search / "trial_0004")
    edit(search / "trial_0005" / "trial.json",
         lambda r: r.update(status="RUNNING", score=None))
    with pytest.raises(ValueError, match=r"^path_or_frame: hyperband_val_auc is a "
                                         "Hyperband search without a finished "
                                         "trial of its last bracket") as refused:
        kerastuner.read(search)
    assert "\n" not in str(refused.value)


def test_an_interrupted_search_leaves_its_running_trial_out():
    results = read(INTERRUPTED)
    np.testing.assert_array_equal(results.scores_as_read["interrupted"],
                                  [0.8125, 0.5874999761581421])
    assert results.frame["trial_id"].tolist() == ["0", "1"]
    assert "1 not finished, left out (RUNNING 1)" in results.notes[0]


def test_an_invalid_trial_is_a_failed_round(tmp_path):
    # A crashed trial whose retry never ran (the search stopped): INVALID.
    search = copy(RANDOM, tmp_path)
    edit(search / "trial_6" / "trial.json", lambda r: r.update(status="INVALID"))
    raw = kerastuner.read(search)
    assert raw.frame["state"].iloc[6] == "failed"
    assert "(FAILED 1, INVALID 1)" in raw.notes[0]


# ------------------------------------------------------------------ score=

def test_score_names_another_metric_whose_direction_is_not_taken():
    raw = kerastuner.read(RANDOM, score="val_loss")
    assert raw.score == "val_loss"
    np.testing.assert_array_equal(raw.frame["val_loss"], RANDOM_VAL_LOSS)
    np.testing.assert_array_equal(raw.frame["val_accuracy"], RANDOM_SCORES)
    assert "score 'val_loss', not the objective" in raw.notes[0]
    # KerasTuner's guess of a metric's direction is not taken: the name decides.
    with pytest.raises(ValueError, match="looks like a loss"):
        evp.read_results(raw, failed="drop")
    results = evp.read_results(raw, failed="worst", minimize=True)
    assert results.minimize is True and results.direction == "given: minimize=True"


def test_score_naming_no_metric_is_refused():
    with pytest.raises(ValueError, match=r"^score: no metric 'f1' in the KerasTuner "
                                         r"trials of random_val_accuracy; their "
                                         r"metrics: accuracy, auc, loss, "
                                         r"val_accuracy, val_auc, val_loss$"):
        kerastuner.read(RANDOM, score="f1")


def test_two_metrics_equal_to_every_score_need_score(tmp_path):
    search = copy(BAYES, tmp_path)
    for trial in search.glob("trial_*/trial.json"):
        edit(trial, lambda r: r["metrics"]["metrics"].update(
            val_loss_copy=r["metrics"]["metrics"]["val_loss"]))
    with pytest.raises(ValueError, match=r"^score: KerasTuner does not record the "
                                         r"objective's name, and 'val_loss', "
                                         r"'val_loss_copy' each equal"):
        kerastuner.read(search)
    chosen = kerastuner.read(search, score="val_loss_copy")
    assert chosen.score == "val_loss_copy" and chosen.minimize is True
    np.testing.assert_array_equal(chosen.frame["val_loss_copy"], BAYES_SCORES)


# ------------------------------------------------------------------ order

def test_trial_ids_that_are_not_numbers_take_the_oracle_s_start_order(tmp_path):
    # KerasTuner 1.0 named trials by hashes; its start_order gives the order.
    search = copy(BAYES, tmp_path)
    names = {"0": "e3", "1": "a9", "2": "c1", "3": "b7", "4": "d5"}
    for old, new in names.items():
        (search / f"trial_{old}").rename(search / f"trial_{new}")
        edit(search / f"trial_{new}" / "trial.json",
             lambda r, new=new: r.update(trial_id=new))
    edit(search / "oracle.json",
         lambda r: r.update(start_order=[names[str(n)] for n in range(5)]))
    ordered = kerastuner.read(search)
    assert ordered.frame["trial_id"].tolist() == ["e3", "a9", "c1", "b7", "d5"]
    assert ordered.frame["trial_number"].tolist() == [0, 1, 2, 3, 4]
    np.testing.assert_array_equal(ordered.frame["val_loss"], BAYES_SCORES)
    assert "(oracle.json's start_order)" in ordered.notes[0]
    # Without start_order, the order is unknown, and said so.
    edit(search / "oracle.json", lambda r: r.pop("start_order"))
    unordered = kerastuner.read(search)
    assert not unordered.ordered and unordered.order is None
    assert "trial_number" not in unordered.frame
    assert "the order the trials ran is not recorded" in unordered.notes[0]
    assert evp.read_results(unordered).exchangeability == {}


# ------------------------------------------------------------------ sniff

def test_sniff_knows_a_kerastuner_project_and_nothing_else(tmp_path):
    assert kerastuner.sniff(RANDOM) and kerastuner.sniff(str(HYPERBAND))
    assert kerastuner.sniff(RANDOM / "oracle.json")
    # The tuner's directory= above the projects: claimed, to be refused when it
    # holds several (below), read when it holds one.
    assert kerastuner.sniff(FIXTURES)
    # Another tool's folder: a Ray Tune experiment.
    ray = tmp_path / "ray" / "train_abc_00000"
    ray.mkdir(parents=True)
    (ray / "result.json").write_text('{"accuracy": 0.8, "training_iteration": 1}\n')
    (ray / "params.json").write_text('{"lr": 0.1}')
    assert not kerastuner.sniff(tmp_path / "ray")
    # A csv file, and an evp search folder.
    table = tmp_path / "results.csv"
    table.write_text("accuracy,lr\n0.8,0.1\n")
    assert not kerastuner.sniff(table)
    search = tmp_path / "search"
    search.mkdir()
    (search / "trials.jsonl").write_text('{"trial": 0, "score": 0.8}\n')
    assert not kerastuner.sniff(search)
    # oracle.json alone, a missing path, things that are not paths.
    lonely = tmp_path / "lonely"
    lonely.mkdir()
    (lonely / "oracle.json").write_text("{}")
    assert not kerastuner.sniff(lonely)
    assert not kerastuner.sniff(tmp_path / "missing")
    assert not kerastuner.sniff(None) and not kerastuner.sniff(42)
    assert not kerastuner.sniff({"path": str(RANDOM)})


# ------------------------------------------------------------------ errors

@pytest.mark.parametrize("where", ["trial_3/trial.json", "oracle.json"])
def test_a_truncated_record_is_one_line_naming_the_file(tmp_path, where):
    search = copy(RANDOM, tmp_path)
    record = search / where
    record.write_bytes(record.read_bytes()[:300])  # cut short mid-write
    with pytest.raises(ValueError) as refused:
        kerastuner.read(search)
    message = str(refused.value)
    assert "\n" not in message
    assert message.startswith(f"path_or_frame: random_val_accuracy/{where} is not "
                              "valid JSON")


def test_damaged_records_are_one_line_errors(tmp_path):
    search = copy(RANDOM, tmp_path)
    (search / "trial_2" / "trial.json").write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(ValueError, match=r"^path_or_frame: random_val_accuracy/"
                                         r"trial_2/trial.json is not text"):
        kerastuner.read(search)
    (search / "trial_2" / "trial.json").write_text("[1, 2, 3]")
    with pytest.raises(ValueError, match=r"trial_2/trial.json holds list, not a "
                                         r"KerasTuner trial record"):
        kerastuner.read(search)
    (search / "trial_2" / "trial.json").write_text('{"trial_id": "2"}')
    with pytest.raises(ValueError, match=r"trial_2/trial.json has no "
                                         r"metrics.metrics"):
        kerastuner.read(search)


def test_missing_folders_and_searches_without_results(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"^path_or_frame: no such folder"):
        kerastuner.read(tmp_path / "missing")
    with pytest.raises(FileNotFoundError, match=r"^path_or_frame: no oracle\.json"):
        kerastuner.read(tmp_path)
    with pytest.raises(ValueError, match=r"^path_or_frame: trial\.json is a file; "
                                         r"give the KerasTuner project folder"):
        kerastuner.read(RANDOM / "trial_0" / "trial.json")
    with pytest.raises(TypeError, match=r"^path_or_frame: a KerasTuner project"):
        kerastuner.read(42)
    search = copy(INTERRUPTED, tmp_path)
    for trial in ("trial_0", "trial_1"):
        shutil.rmtree(search / trial)
    with pytest.raises(ValueError, match=r"^path_or_frame: interrupted has no "
                                         r"completed trial with a score \(1 "
                                         r"trial\(s\): RUNNING 1\)$"):
        kerastuner.read(search)


def test_reading_changes_nothing_in_the_folder(tmp_path):
    search = copy(RANDOM, tmp_path)

    def snapshot():
        return {p.relative_to(search): (p.read_bytes() if p.is_file() else None,
                                        p.stat().st_mtime_ns)
                for p in sorted(search.rglob("*"))} | {
            Path("."): (None, search.stat().st_mtime_ns)}

    before = snapshot()
    kerastuner.sniff(search)
    kerastuner.read(search)
    read(search, failed="worst")
    assert snapshot() == before


def test_checkpoints_and_trial_folders_without_a_record_are_not_read(tmp_path):
    search = copy(RANDOM, tmp_path)
    (search / "trial_0" / "checkpoint.weights.h5").write_bytes(b"\x89HDF\r\n\x1a\n")
    (search / "trial_0" / "build_config.json").write_text('{"input_shape": null}')
    (search / "trial_8").mkdir()  # created, its record not yet written
    (search / "notes.txt").write_text("not KerasTuner's")
    assert kerastuner.read(search).frame.equals(kerastuner.read(RANDOM).frame)


def test_trial_folders_without_a_record_are_counted_and_named(tmp_path):
    search = copy(RANDOM, tmp_path)
    (search / "trial_8").mkdir()  # created, its record not yet written
    (search / "trial_3" / "trial.json").unlink()  # a record lost
    note = kerastuner.read(search).notes[0]
    assert ("2 trial folder(s) without a trial.json not read (trial_3, trial_8)"
            in note), note
    assert "without a trial.json" not in kerastuner.read(RANDOM).notes[0]


# ------------------------------------------------------------------ registered

def test_read_results_reads_a_project_folder_by_its_path():
    bayes = evp.read_results(BAYES)
    assert bayes.tuner == "keras tuner" and bayes.score == "val_loss"
    assert bayes.minimize is True and bayes.order == "trial_number"
    np.testing.assert_array_equal(bayes.scores_as_read["bayes_val_loss"],
                                  BAYES_SCORES)
    assert "bayes_val_loss" in bayes.exchangeability
    worst = evp.read_results(str(RANDOM), failed="worst")
    assert worst.failed == (6, 7) and worst.name == "random_val_accuracy"
    # Several searches in one call, each a model.
    both = evp.read_results({"random": RANDOM, "interrupted": INTERRUPTED},
                            failed="worst")
    assert both.models == ["random", "interrupted"]
    assert len(both.frame) == 8 + 2


def test_the_command_line_reads_a_project_folder(capsys):
    from evp.cli import main

    assert main(["curve", str(BAYES), "--ns", "1"]) == 0
    out, err = capsys.readouterr()
    # V at n = 1 is the mean of the five val_loss scores.
    assert f"{sum(BAYES_SCORES) / 5:.4f}" in out and "bayes_val_loss" in out
    assert err.startswith("note: KerasTuner project 'bayes_val_loss': 5 completed "
                          "trials, objective 'val_loss' (minimized)")
    assert main(["curve", str(RANDOM), "--ns", "1"]) == 2
    err = capsys.readouterr().err
    assert "2 failed round(s)" in err and "rows 6, 7" in err
    assert main(["curve", str(BAYES), "--maximize"]) == 2
    assert "the KerasTuner objective's direction (min)" in capsys.readouterr().err


def test_the_tuner_s_directory_is_read_when_it_holds_one_project(tmp_path):
    with pytest.raises(ValueError, match=r"^path_or_frame: kerastuner holds 4 "
                                         r"KerasTuner projects \(bayes_val_loss, "
                                         r"hyperband_val_auc, interrupted, "
                                         r"random_val_accuracy\): give one "
                                         r"project's folder, or several as "
                                         r"\{name: folder\}$"):
        evp.read_results(FIXTURES)
    directory = tmp_path / "my_dir"
    directory.mkdir()
    copy(BAYES, directory)
    (directory / "unrelated").mkdir()
    assert kerastuner.sniff(directory)
    results = evp.read_results(directory)
    assert results.name == "bayes_val_loss"
    np.testing.assert_array_equal(results.scores_as_read["bayes_val_loss"],
                                  BAYES_SCORES)


@pytest.mark.parametrize("where", ["score", "metric"])
def test_a_number_too_large_for_a_float_is_a_one_line_error(tmp_path, capsys, where):
    # JSON allows integers of any length; float() overflows on 400 digits.
    from evp.cli import main

    search = copy(RANDOM, tmp_path)
    path = search / "trial_2" / "trial.json"
    record = json.loads(path.read_text())
    if where == "score":
        record["score"] = 0.125
    else:
        record["metrics"]["metrics"]["val_accuracy"]["observations"][0]["value"] = [
            0.125]
    path.write_text(json.dumps(record).replace("0.125", "9" * 400))
    assert main(["curve", str(search), "--ns", "1", "--failed", "drop"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "evp bug" not in err
    assert err.count("evp curve:") == 1 and err.strip().count("\n") == 0, err
