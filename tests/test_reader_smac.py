"""Reading SMAC3 output folders (evp.readers.smac).

The fixtures are the record files of real SMAC3 2.4.1 runs (see
tests/fixtures/README.md); every expected value below is typed from their
runhistory.json and scenario.json.
"""

import json
import math
import shutil
from pathlib import Path

import numpy as np
import pytest

import evp
from evp.readers import smac

FIXTURES = Path(__file__).parent / "fixtures" / "smac"
HPO = FIXTURES / "hpo"  # two seeds: hpo/0 and hpo/1
HPO0 = HPO / "0"
RANDOM = FIXTURES / "random" / "3"
NOISY = FIXTURES / "noisy" / "11"
HYPERBAND = FIXTURES / "hyperband" / "2"
MULTI = FIXTURES / "multi" / "5"
AC = FIXTURES / "ac" / "7"
NAN = math.nan

# hpo/0/runhistory.json "cost" of configs 1-14 (7 and 11 CRASHED, cost 10.0).
HPO0_COSTS = [3.0406941519410546, 3.7704927239943737, 2.3123099051242595,
              1.6531559899679036, 1.9804824948644826, 2.555350184970479, NAN,
              2.648849790898319, 2.1732844682925134, 1.788176838465224, NAN,
              1.6450927890733602, 1.2554505639193376, 1.7078801162033985]
# hpo/1: config 8 CRASHED.
HPO1_COSTS = [5.1536851170843825, 3.076982975425999, 1.4141656068339705,
              1.239494268151097, 1.2777010760122516, 1.0892146452355957,
              0.851442085516472, NAN, 1.8819974800758386, 0.37861701332168735,
              1.0855039237224844, 0.29512872654985023, 0.34218560246623747,
              0.6144376034225293]
# random/3: config 6 CRASHED (cost Infinity).
RANDOM_COSTS = [0.5249999999956573, 5.346305557939891, 1.8181099092405795,
                4.06944499677979, 1.676222629863057, NAN, 2.5756024042084604,
                1.5008421495053215, 0.40135618050759053, 1.7335449827150744]


def read(path, **options):
    """Through read_results, which validates what the reader returns."""
    score = options.pop("score", None)
    return evp.read_results(smac.read(path, score=score), **options)


def copy(source: Path, tmp_path: Path) -> Path:
    target = tmp_path / source.parent.name / source.name
    shutil.copytree(source, target)
    return target


def edit(path: Path, change) -> None:
    record = json.loads(path.read_text())
    change(record)
    path.write_text(json.dumps(record))


# ------------------------------------------------------------------ reading

def test_a_run_folder_reads_one_row_per_configuration_in_order():
    raw = smac.read(HPO0)
    frame = raw.frame
    np.testing.assert_array_equal(frame["cost"], HPO0_COSTS)
    assert frame["config_id"].tolist() == list(range(1, 15))
    assert frame["state"].tolist() == (["completed"] * 6 + ["crashed"]
                                       + ["completed"] * 3 + ["crashed"]
                                       + ["completed"] * 3)
    assert frame["status"].iloc[[0, 6, 10]].tolist() == ["SUCCESS", "CRASHED",
                                                         "CRASHED"]
    assert frame["n_trials"].tolist() == [1] * 14
    # configs["1"] and configs["7"] of the run history.
    assert frame[["hp_kernel", "hp_lr", "hp_x"]].iloc[0].tolist() == [
        "rbf", 0.0072726734261, -3.3873817743734]
    assert frame["hp_kernel"].iloc[6] == "poly"
    assert frame["error"].iloc[6] == "RuntimeError('poly kernel diverged')"
    assert frame["origin"].iloc[[0, 3]].tolist() == [
        "Initial Design: Sobol", "Acquisition Function Maximizer: Local Search"]
    # The trial's "time" (seconds) is the cost column.
    assert frame["duration_seconds"].iloc[0] == 2.2172927856445312e-05
    assert list(frame.columns[:2]) == ["cost", "config_id"]
    # What the record says.
    assert raw.score == "cost" and raw.minimize is True
    assert raw.direction == ("SMAC3 minimizes cost (scenario.json's objective "
                             "'cost')")
    assert raw.tuner == "smac" and raw.name == "hpo"
    assert raw.ordered and raw.order == "config_id"
    assert raw.strategy == ("SMAC3 2.4.1, HyperparameterOptimizationFacade "
                            "(SobolInitialDesign, RandomForest, EI, Intensifier, "
                            "random configurations with probability 0.2)")
    assert raw.source == "SMAC3 run hpo/0"
    (note,) = raw.notes
    assert note.startswith("SMAC3 run 'hpo' (seed 0): 12 completed configurations, "
                           "objective 'cost' (minimized); "
                           "2 failed (CRASHED 2): failed rounds")
    assert ("config_origins: 3 from the initial design, 0 drawn at random, 11 "
            "proposed by the model") in note
    assert ("in the order SMAC first ran each configuration (config_id, as in "
            "runhistory.json's data)") in note


def test_the_folder_or_its_runhistory_json_read_the_same():
    by_file = smac.read(HPO0 / "runhistory.json").frame
    assert by_file.equals(smac.read(HPO0).frame)
    assert smac.read(str(HPO0)).frame.equals(by_file)


def test_failed_trials_are_failed_rounds_under_each_policy():
    with pytest.raises(ValueError) as refused:
        read(HPO0)
    message = str(refused.value)
    assert "\n" not in message
    assert "2 failed round(s)" in message and "rows 7, 11" in message
    assert "failed='drop'" in message and "failed='worst'" in message

    with pytest.warns(UserWarning, match=r"dropped 2 bad row\(s\) of 14.*rows 7, "
                                         r"11"):
        dropped = read(HPO0, failed="drop")
    assert dropped.dropped == (7, 11)
    np.testing.assert_array_equal(dropped.scores_as_read["hpo"],
                                  [c for c in HPO0_COSTS if not math.isnan(c)])

    worst = read(HPO0, failed="worst")
    assert worst.failed == (7, 11)
    values = worst.scores_as_read["hpo"]
    assert np.isposinf(values[[6, 10]]).all()  # a cost: lower is better
    assert values[0] == 3.0406941519410546 and values[13] == 1.7078801162033985


def test_the_exchangeability_test_runs_on_the_configuration_order():
    results = read(HPO0, failed="worst")
    assert set(results.exchangeability) == {"hpo"}
    assert 0 <= results.exchangeability["hpo"] <= 1
    assert any(n.startswith("trials in order (column 'config_id'): "
                            "exchangeability test p = ") for n in results.notes)


def test_config_ids_out_of_the_data_s_order_take_the_first_trial_s_place(
        tmp_path):
    # A run history edited by hand: config 3's trial listed first.
    run = copy(HPO0, tmp_path)
    edit(run / "runhistory.json", lambda r: r.update(
        data=[r["data"][2], *r["data"][:2], *r["data"][3:]]))
    raw = smac.read(run)
    assert raw.order == "first_trial"
    assert raw.frame["config_id"].tolist()[:4] == [3, 1, 2, 4]
    assert raw.frame["first_trial"].tolist() == list(range(1, 15))
    assert raw.frame["cost"].iloc[0] == 2.3123099051242595
    assert "(column first_trial; the config_ids are not in that order" in (
        raw.notes[0])
    assert "first_trial" not in smac.read(HPO0).frame


def test_the_direction_is_smac_s_and_cannot_be_turned():
    with pytest.raises(ValueError, match=r"^minimize: SMAC3 minimizes cost"):
        read(HPO0, failed="drop", minimize=False)


# ------------------------------------------------------------------ seeds

def test_a_name_folder_reads_each_seed_as_a_model_never_pooled():
    raw = smac.read(HPO)
    frame = raw.frame
    assert raw.group == "seed"
    assert frame["seed"].tolist() == ["0"] * 14 + ["1"] * 14
    assert set(frame["tuner"]) == {"hpo"}
    np.testing.assert_array_equal(frame["cost"], HPO0_COSTS + HPO1_COSTS)
    assert frame["config_id"].tolist() == list(range(1, 15)) * 2
    (note,) = raw.notes
    assert note.startswith("SMAC3 runs of 'hpo', 2 seeds (0, 1) in column 'seed': "
                           "runs of one adaptive tuner, never pooled as one "
                           "search: each seed is a model of its own unless read "
                           "as repeated runs of the tuner (pass runs='seed')")
    # hpo/1's config_origins: 4 of "Random Search" (6, 8, 9, 10).
    assert ("seed 1: 13 completed configurations, objective 'cost' (minimized); "
            "1 failed (CRASHED 1): failed "
            "rounds (state 'crashed', 'killed' or 'failed'); config_origins: 3 "
            "from the initial design, 4 drawn at random, 7 proposed by the "
            "model") in note
    assert raw.source == "2 SMAC3 runs in 'hpo'"

    results = read(HPO, failed="worst")
    assert results.models == ["0", "1"]  # two models, not one pooled search
    assert len(results.scores["0"]) == 14 and len(results.scores["1"]) == 14
    assert set(results.exchangeability) == {"0", "1"}


def test_seeds_read_as_repeated_runs_of_one_tuner():
    results = read(HPO, runs="seed", failed="worst")
    assert results.models == ["hpo"] and results.runs == "seed"
    assert results.frame["seed"].tolist() == ["0"] * 14 + ["1"] * 14
    assert any("repeated runs of a tuner (column 'seed'): 2 runs" in n
               for n in results.notes)
    assert results.exchangeability == {}  # runs are not tested


# ------------------------------------------------------------------ facades

def test_the_random_facade_and_its_times():
    raw = smac.read(RANDOM)
    np.testing.assert_array_equal(raw.frame["cost"], RANDOM_COSTS)
    assert raw.frame["state"].iloc[5] == "crashed"
    assert raw.strategy == ("SMAC3 2.4.1, RandomFacade (DefaultInitialDesign, "
                            "RandomModel, DummyAcquisitionFunction, Intensifier)")
    assert ("config_origins: 1 from the initial design, 9 drawn at random, 0 "
            "proposed by the model") in raw.notes[0]
    assert raw.frame["duration_seconds"].iloc[:3].tolist() == [
        0.012427806854248047, 0.009745121002197266, 0.009004354476928711]
    assert raw.frame["cpu_seconds"].iloc[0] == 0.006393046000000124
    worst = read(RANDOM, failed="worst", cost="duration_seconds")
    assert worst.cost == "duration_seconds"


def test_several_seeds_per_configuration_are_averaged_as_smac_does():
    # deterministic=False: the intensifier ran configurations on 1 to 3 seeds.
    raw = smac.read(NOISY)
    frame = raw.frame
    assert frame["config_id"].tolist() == [1, 2, 3, 4, 5, 6, 7]
    assert frame["n_trials"].tolist() == [2, 3, 3, 3, 1, 3, 1]
    assert frame["cost"].iloc[0] == pytest.approx(
        (5.670859699206689 + 6.131245770441637) / 2, rel=1e-15)
    assert frame["cost"].iloc[1] == pytest.approx(
        (4.303332066698558 + 4.763718137933506 + 3.8073439440778007) / 3,
        rel=1e-15)
    assert frame["cost"].iloc[4] == 4.55172447287611
    assert math.isnan(frame["cost"].iloc[6])
    assert frame["state"].iloc[6] == "crashed"
    assert ("16 trials: each configuration's score the mean cost over its 1 to 3 "
            "trials (seeds), as SMAC averages them") in raw.notes[0]


def test_a_crash_on_one_seed_makes_the_configuration_a_failed_round(tmp_path):
    run = copy(NOISY, tmp_path)
    # Config 2's second trial crashes; its other two succeeded.
    edit(run / "runhistory.json", lambda r: r["data"][3].update(status=2))
    frame = smac.read(run).frame
    assert frame["state"].iloc[1] == "crashed" and math.isnan(frame["cost"].iloc[1])
    assert frame["n_trials"].iloc[1] == 3


def test_hyperband_reads_the_configurations_started_at_the_highest_budget(
        tmp_path):
    raw = smac.read(HYPERBAND)
    frame = raw.frame
    # Configs 13, 14 and 15 ran at budget 9.0 only; 1 and 9 were promoted.
    assert frame["config_id"].tolist() == [13, 14, 15]
    np.testing.assert_array_equal(frame["cost"], [4.919456546450876,
                                                  4.830632895691069,
                                                  2.940166227179116])
    assert frame["budget"].tolist() == [9.0, 9.0, 9.0]
    assert raw.strategy.startswith("SMAC3 2.4.1, MultiFidelityFacade "
                                   "(RandomInitialDesign, RandomForest, EI, "
                                   "Hyperband")
    assert ("only the configurations run at the highest budget (9) alone are "
            "read; 17 configuration(s) run at lower budgets left out"
            ) in raw.notes[0]
    # Without them, only promoted configurations reach budget 9: refused.
    run = copy(HYPERBAND, tmp_path)
    edit(run / "runhistory.json", lambda r: r.update(
        data=[t for t in r["data"] if t["config_id"] not in (13, 14, 15)]))
    with pytest.raises(ValueError, match=r"^path_or_frame: the SMAC3 run "
                                         r"'hyperband' ran its configurations at "
                                         r"budgets 1, 3, 9 and none started at the "
                                         r"highest \(9\)") as refused:
        smac.read(run)
    assert "\n" not in str(refused.value)


def test_configurations_on_different_instances_are_refused(tmp_path):
    # The algorithm-configuration facade raced challengers on one instance.
    with pytest.raises(ValueError, match=r"^path_or_frame: SMAC3 ran the "
                                         r"configurations of 'ac' on different "
                                         r"instances \(1 to 3 of 3: inst_0, "
                                         r"inst_1, inst_2\)") as refused:
        smac.read(AC)
    assert "\n" not in str(refused.value)
    # Every configuration on the same instances: each one's mean over them.
    run = copy(AC, tmp_path)
    edit(run / "runhistory.json", lambda r: r.update(
        data=[t for t in r["data"] if t["config_id"] == 1]))
    frame = smac.read(run).frame
    assert frame["n_trials"].tolist() == [11]
    costs = [1.5461185199097276, 0.5461185199097278, 2.5461185199097276,
             2.5169245729810195, 0.5169245729810195, 1.5169245729810195,
             0.4713522145839363, 1.4713522145839362, 2.4713522145839364,
             1.4899616189166007, 2.4899616189166007]
    assert frame["cost"].iloc[0] == pytest.approx(sum(costs) / 11, rel=1e-14)


# ------------------------------------------------------------------ score=

def test_several_objectives_need_score():
    with pytest.raises(ValueError, match=r"^score: the SMAC3 run 'multi' has 2 "
                                         r"objectives \(error, size\); name one, "
                                         r"e.g. score='error'$"):
        smac.read(MULTI)
    raw = smac.read(MULTI, score="error")
    frame = raw.frame
    assert raw.score == "error" and raw.minimize is True
    assert frame["error"].iloc[[0, 2]].tolist() == [6.070588102944418,
                                                    1.5087078494473793]
    assert frame["size"].iloc[0] == 0.286829787965964
    assert math.isnan(frame["error"].iloc[1]) and math.isnan(frame["size"].iloc[1])
    # The objective "error" keeps its name; the crash message moves aside.
    assert frame["smac.error"].iloc[1] == "RuntimeError('poly kernel diverged')"
    size = smac.read(MULTI, score="size")
    assert size.score == "size" and size.frame["size"].iloc[2] == 2.009306695383037
    assert size.direction == ("SMAC3 minimizes cost (scenario.json's objective "
                              "'size')")
    with pytest.warns(UserWarning, match=r"dropped 1 bad row\(s\) of 12.*rows 2"):
        results = read(MULTI, score="error", failed="drop")
    assert len(results.scores["multi"]) == 11


def test_score_naming_no_objective_is_refused():
    with pytest.raises(ValueError, match=r"^score: the SMAC3 run 'multi' has no "
                                         r"objective 'cost'; its objectives: "
                                         r"error, size$"):
        smac.read(MULTI, score="cost")
    with pytest.raises(ValueError, match=r"^score: the SMAC3 run 'hpo' has no "
                                         r"objective 'accuracy'; its objective: "
                                         r"cost$"):
        smac.read(HPO0, score="accuracy")


# ------------------------------------------------------------------ statuses

def test_timeouts_memoryouts_and_running_trials(tmp_path):
    run = copy(HPO0, tmp_path)

    def change(record):
        record["data"][1]["status"] = 3  # TIMEOUT
        record["data"][2]["status"] = 4  # MEMORYOUT
        record["data"][13]["status"] = 0  # RUNNING
        record["stats"].update(finished=13, running=1)

    edit(run / "runhistory.json", change)
    raw = smac.read(run)
    frame = raw.frame
    assert frame["config_id"].tolist() == list(range(1, 14))  # 14 left out
    assert frame["state"].iloc[[1, 2]].tolist() == ["killed", "killed"]
    assert frame["status"].iloc[[1, 2]].tolist() == ["TIMEOUT", "MEMORYOUT"]
    assert math.isnan(frame["cost"].iloc[1])
    note = raw.notes[0]
    assert "9 completed configurations, objective 'cost' (minimized); 4 failed" in note
    assert "TIMEOUT 1" in note and "MEMORYOUT 1" in note and "CRASHED 2" in note
    assert "1 RUNNING trial(s) left out" in note
    with pytest.raises(ValueError, match=r"rows 2, 3, 7, 11"):
        evp.read_results(raw)


def test_a_success_without_a_finite_cost_is_a_failed_round(tmp_path):
    run = copy(RANDOM, tmp_path)
    edit(run / "runhistory.json", lambda r: r["data"][0].update(cost=None))
    frame = smac.read(run).frame
    assert frame["state"].iloc[0] == "failed" and math.isnan(frame["cost"].iloc[0])


@pytest.mark.parametrize("status", [7, "SUCCESS", True])
def test_an_unknown_status_is_refused(tmp_path, status):
    run = copy(RANDOM, tmp_path)
    edit(run / "runhistory.json", lambda r: r["data"][4].update(status=status))
    with pytest.raises(ValueError, match=r"random/3/runhistory.json: trial 5 has "
                                         r"status .*, not one of SMAC 2.x's"):
        smac.read(run)


def test_smac_2_0_to_2_2_wrote_each_trial_as_a_list(tmp_path):
    # RunHistory.save in SMAC 2.0.0-2.2.0: a list of ten fields, no cpu_time.
    run = copy(HPO0, tmp_path)
    edit(run / "runhistory.json", lambda r: r.update(data=[
        [t["config_id"], t["instance"], t["seed"], t["budget"], t["cost"],
         t["time"], t["status"], t["starttime"], t["endtime"],
         t["additional_info"]] for t in r["data"]]))
    frame = smac.read(run).frame
    np.testing.assert_array_equal(frame["cost"], HPO0_COSTS)
    assert frame["state"].iloc[[6, 10]].tolist() == ["crashed", "crashed"]
    assert frame["duration_seconds"].iloc[0] == 2.2172927856445312e-05
    assert "cpu_seconds" not in frame
    assert frame.equals(smac.read(HPO0).frame.drop(columns="cpu_seconds"))


def test_a_smac_2_alpha_run_is_refused(tmp_path):
    run = copy(HPO0, tmp_path)
    edit(run / "scenario.json", lambda s: s["_meta"].update(version="2.0.0a2"))
    with pytest.raises(ValueError, match=r"^path_or_frame: hpo/0/scenario.json was "
                                         r"written by SMAC 2.0.0a2, whose statuses "
                                         r"are numbered otherwise"):
        smac.read(run)


def test_a_smac_1_run_history_is_refused(tmp_path):
    run = copy(RANDOM, tmp_path)
    edit(run / "runhistory.json", lambda r: r.update(data=[
        [[1, None, 0, 0.0], [0.5, 0.1, {"__enum__": "StatusType.SUCCESS"}, 0, 0,
                             {}]]]))
    with pytest.raises(ValueError, match=r"written by SMAC 1.x or older"):
        smac.read(run)


# ------------------------------------------------------------------ sniff

def test_sniff_knows_a_smac_folder_and_nothing_else(tmp_path):
    assert smac.sniff(HPO0) and smac.sniff(str(RANDOM))
    assert smac.sniff(HPO0 / "runhistory.json")
    assert smac.sniff(HPO)  # the name folder of two seeds
    # output_directory, above the names, is not one run.
    assert not smac.sniff(FIXTURES)
    # runhistory.json without scenario.json.
    lonely = tmp_path / "lonely"
    lonely.mkdir()
    shutil.copy(HPO0 / "runhistory.json", lonely)
    assert not smac.sniff(lonely)
    # Another tool's folder: a Ray Tune experiment, a KerasTuner project.
    ray = tmp_path / "ray" / "train_abc_00000"
    ray.mkdir(parents=True)
    (ray / "result.json").write_text('{"accuracy": 0.8, "training_iteration": 1}\n')
    assert not smac.sniff(tmp_path / "ray")
    keras = tmp_path / "keras"
    (keras / "trial_0").mkdir(parents=True)
    (keras / "oracle.json").write_text("{}")
    (keras / "trial_0" / "trial.json").write_text("{}")
    assert not smac.sniff(keras)
    # A csv file, an evp search folder, a missing path, things not paths.
    table = tmp_path / "results.csv"
    table.write_text("cost,lr\n0.8,0.1\n")
    assert not smac.sniff(table)
    search = tmp_path / "search"
    search.mkdir()
    (search / "trials.jsonl").write_text('{"trial": 0, "score": 0.8}\n')
    assert not smac.sniff(search)
    assert not smac.sniff(tmp_path / "missing")
    assert not smac.sniff(None) and not smac.sniff(42)
    assert not smac.sniff({"path": str(HPO0)})


# ------------------------------------------------------------------ errors

@pytest.mark.parametrize("where", ["runhistory.json", "scenario.json"])
def test_a_truncated_record_is_one_line_naming_the_file(tmp_path, where):
    run = copy(HPO0, tmp_path)
    record = run / where
    record.write_bytes(record.read_bytes()[:300])  # cut short mid-write
    with pytest.raises(ValueError) as refused:
        smac.read(run)
    message = str(refused.value)
    assert "\n" not in message
    assert message.startswith(f"path_or_frame: hpo/0/{where} is not valid JSON")


def test_damaged_records_are_one_line_errors(tmp_path):
    run = copy(HPO0, tmp_path)
    (run / "runhistory.json").write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(ValueError, match=r"^path_or_frame: hpo/0/runhistory.json is "
                                         r"not text"):
        smac.read(run)
    (run / "runhistory.json").write_text("[1, 2, 3]")
    with pytest.raises(ValueError, match=r"hpo/0/runhistory.json holds list, not a "
                                         r"SMAC3 run history"):
        smac.read(run)
    (run / "runhistory.json").write_text('{"stats": {}}')
    with pytest.raises(ValueError, match=r"hpo/0/runhistory.json has no list 'data'"):
        smac.read(run)
    (run / "runhistory.json").write_text('{"data": [{"cost": 1.0}]}')
    with pytest.raises(ValueError, match=r"trial 1 of 'data' has no config_id"):
        smac.read(run)
    # In a name folder, the message names the seed's folder too.
    runs = copy(HPO0, tmp_path / "two")
    shutil.copytree(HPO / "1", runs.parent / "1")
    (runs.parent / "1" / "scenario.json").write_text('{"name": ')
    with pytest.raises(ValueError, match=r"^path_or_frame: hpo/1/scenario.json is "
                                         r"not valid JSON"):
        smac.read(runs.parent)


def test_missing_folders_and_runs_without_results(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"^path_or_frame: no such folder"):
        smac.read(tmp_path / "missing")
    with pytest.raises(FileNotFoundError, match=r"^path_or_frame: no SMAC3 run in"):
        smac.read(tmp_path)
    with pytest.raises(TypeError, match=r"^path_or_frame: a SMAC3 output folder is "
                                        r"a path"):
        smac.read(42)
    run = copy(RANDOM, tmp_path)
    edit(run / "runhistory.json", lambda r: r.update(
        data=[dict(t, status=2) for t in r["data"][:3]]
        + [dict(r["data"][3], status=0)]))
    with pytest.raises(ValueError, match=r"^path_or_frame: the SMAC3 run random/3 "
                                         r"has no completed configuration \(4 "
                                         r"trial\(s\): CRASHED 3, RUNNING 1\)$"):
        smac.read(run)
    edit(run / "runhistory.json", lambda r: r.update(data=[]))
    with pytest.raises(ValueError, match=r"^path_or_frame: the SMAC3 run random/3 "
                                         r"has no completed configuration \(no "
                                         r"trials recorded yet\)$"):
        smac.read(run)


def test_reading_changes_nothing_in_the_folder(tmp_path):
    top = copy(HPO0, tmp_path).parent
    shutil.copytree(HPO / "1", top / "1")

    def snapshot():
        return {p.relative_to(top): (p.read_bytes() if p.is_file() else None,
                                     p.stat().st_mtime_ns)
                for p in sorted(top.rglob("*"))} | {
            Path("."): (None, top.stat().st_mtime_ns)}

    before = snapshot()
    smac.sniff(top)
    smac.read(top)
    smac.read(top / "0")
    read(top, failed="worst")
    read(top, failed="worst", runs="seed")
    assert snapshot() == before


# ------------------------------------------------------------------ registered

def test_read_results_reads_a_smac_folder_by_its_path():
    hpo = evp.read_results(HPO0, failed="worst")
    assert hpo.tuner == "smac" and hpo.score == "cost" and hpo.minimize is True
    assert hpo.order == "config_id" and hpo.failed == (7, 11)
    assert "hpo" in hpo.exchangeability
    with pytest.warns(UserWarning, match=r"dropped 1 bad row\(s\) of 7"):
        noisy = evp.read_results(str(NOISY), failed="drop")
    assert noisy.scores_as_read["noisy"][4] == 4.55172447287611
    # The name folder: a model per seed, or runs of one tuner.
    assert evp.read_results(HPO, failed="worst").models == ["0", "1"]
    runs = evp.read_results(HPO, failed="worst", runs="seed")
    assert runs.models == ["hpo"] and runs.runs == "seed"
    # score= names an objective.
    multi = evp.read_results(MULTI, score="size", failed="worst")
    assert multi.score == "size" and multi.failed == (2,)
    with pytest.raises(ValueError, match=r"has 2 objectives \(error, size\)"):
        evp.read_results(MULTI)
    # Several runs in one call, each a model.
    both = evp.read_results({"hpo": HPO0, "random": RANDOM}, failed="worst")
    assert both.models == ["hpo", "random"] and len(both.frame) == 14 + 10


def test_the_command_line_reads_a_smac_folder(capsys):
    from evp.cli import main

    assert main(["curve", str(RANDOM), "--ns", "1", "--failed", "drop"]) == 0
    out, err = capsys.readouterr()
    # V at n = 1 is the mean of the nine completed costs.
    completed = [c for c in RANDOM_COSTS if not math.isnan(c)]
    assert f"{sum(completed) / 9:.4f}" in out
    assert "note: SMAC3 run 'random' (seed 3): 9 completed configurations" in err
    assert main(["curve", str(RANDOM), "--ns", "1"]) == 2
    err = capsys.readouterr().err
    assert "1 failed round(s)" in err and "rows 6" in err
    assert main(["curve", str(HPO), "--ns", "1,5", "--failed", "worst",
                 "--runs", "seed"]) == 0
    out, err = capsys.readouterr()
    assert "repeated runs of a tuner (column 'seed'): 2 runs" in err
    assert main(["curve", str(HPO0), "--maximize", "--failed", "drop"]) == 2
    assert "SMAC3 minimizes cost" in capsys.readouterr().err


@pytest.mark.parametrize("field", ["cost", "time", "cpu_time", "budget", "seed",
                                   "config_id", "starttime"])
def test_a_number_too_large_for_a_float_is_a_one_line_error_or_read(tmp_path,
                                                                    capsys, field):
    # JSON allows integers of any length; float() overflows on 400 digits.
    from evp.cli import main

    run = copy(RANDOM, tmp_path)
    text = (run / "runhistory.json").read_text()
    record = json.loads(text)
    record["data"][2][field] = 0  # a placeholder, replaced as text below
    (run / "runhistory.json").write_text(
        json.dumps(record).replace(f'"{field}": 0', f'"{field}": {"9" * 400}', 1))
    status = main(["curve", str(run), "--ns", "1"])
    err = capsys.readouterr().err
    assert status in (0, 2), err
    assert "Traceback" not in err and "evp bug" not in err
    if status == 2:
        assert len([line for line in err.splitlines() if "evp curve:" in line]) == 1
