"""`evp run`: every analysis notebook on users' own result files.

The matrix runs each analysis notebook on three made-up result files of the kinds
users bring (tests/user_results.py), with small sizes so that it stays quick. Each
run must exit 0, write its figures and claims table into its own output folder, and
leave the checkout exactly as it was.
"""

import json
import os
import shlex
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from user_results import write_fold_results, write_run_results, write_search_results

from evp.runner import notebooks

pytestmark = pytest.mark.needs("papermill", "matplotlib")

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"

# Per notebook: small sizes, so that the whole matrix runs in a couple of minutes.
SMALL = {
    "band_ablations": ["-p", "sample_sizes=6", "-p", "appendix_sizes=96"],
    "benchmark_study": ["-p", "n_worlds=50", "-p", "sim_rounds=10"],
    "deberta_coverage": ["-p", "n_rounds=256", "-p", "sample_size=20",
                         "-p", "confidences=0.5,0.9", "-p", "n_budgets=20"],
    "deberta_tutorial": ["-p", "sample_size=20", "-p", "n_repeats=50"],
    "incorrect_conclusions": ["-p", "budgets=5,10", "-p", "n_draws=1000",
                              "-p", "simulation_draws=2000", "-p", "gaps=0.2",
                              "-p", "failure_weights=0,0.5",
                              "-p", "simulation_budgets=10"],
    "mean_vs_median": ["-p", "sample_sizes=6,96"],
    "reuters_point_estimates_and_bootstrap": [
        "-p", "n_splits=100", "-p", "n_rounds=32", "-p", "round_size=20",
        "-p", "n_resamples=64"],
    "sample_size": ["-p", "sample_sizes=6,10,14", "-p", "more_sizes=30",
                    "-p", "confidences=0.5,0.8", "-p", "grid_size=300"],
    "sst_case_studies": [],
    "exchangeability": ["-p", "trial_counts=20,40", "-p", "n_sequences=20",
                        "-p", "n_studies=2"],
    "adaptive_search": ["-p", "n_replications=20", "-p", "n_bootstrap=100",
                        "-p", "n_sweeps=5"],
    "parametric_tuning_curves": ["-p", "n_subsamples=4"],
    "planning": ["-p", "budgets=1,2,4", "-p", "confidences=0.8", "-p", "start_rounds=5",
                 "-p", "more_rounds=3,6", "-p", "replications=100",
                 "-p", "continuations=50", "-p", "calibration_worlds=20"],
    "synthetic_mse": ["-p", "n_samples=200", "-p", "monte_carlo_draws=500"],
    "monitoring": ["-p", "rounds=40", "-p", "searches=20", "-p", "horizon=40"],
    "significance_tests": ["-p", "n_resamples=2000", "-p", "null_pairs=10",
                           "-p", "null_datasets=100", "-p", "null_resamples=200"],
}
# Analyses of paired per-fold scores take the fold files, of repeated runs the
# run files; the rest search results.
PAIRED = {"significance_tests"}
RUNS = {"adaptive_search"}
NOT_ON_USERS_DATA = {"tuning_and_cross_validation"}  # it trains its own classifiers
# Files left out of the matrix for the slowest analyses (CI's time limit): the
# parametric fits run on the tiny model with ties and on the losses.
SKIPPED = {("parametric_tuning_curves", "five-models-percent")}

ANALYSES = [p for p in notebooks(NOTEBOOKS, None)
            if p.stem not in NOT_ON_USERS_DATA]


def git_status():
    done = subprocess.run(["git", "status", "--porcelain", "--ignored=no"],
                          cwd=ROOT, capture_output=True, text=True, check=True)
    return done.stdout


def evp(*args, cwd):
    return subprocess.run([sys.executable, "-m", "evp.cli", *map(str, args)],
                          capture_output=True, text=True, cwd=cwd, timeout=600)


def test_every_analysis_has_small_sizes_for_the_matrix():
    assert {p.stem for p in ANALYSES} == set(SMALL)


@pytest.fixture(scope="module")
def matrix(tmp_path_factory):
    """Run the whole matrix, two notebooks at a time; return the runs and the
    checkout's git status before and after."""
    here = tmp_path_factory.mktemp("user")
    files = {"search": write_search_results(here), "paired": write_fold_results(here),
             "runs": write_run_results(here)}
    jobs = []
    notebooks_by_stem = {p.stem: p for p in ANALYSES}
    for stem, name in CASES:
        notebook = notebooks_by_stem[stem]
        path, options = files[kind_of(stem)][name]
        if stem != "sst_case_studies":
            options = _without_cost(options)
        out = here / "runs" / f"{stem}--{name}"
        relative = notebook.relative_to(NOTEBOOKS).with_suffix("").as_posix()
        jobs.append(((stem, name), ["run", relative, path.name, *options,
                                    *SMALL[stem], "--out", out]))
    before = git_status()
    with ThreadPoolExecutor(max_workers=2) as pool:
        done = dict(zip([key for key, _ in jobs],
                        pool.map(lambda job: evp(*job[1], cwd=here), jobs),
                        strict=True))
    return {"runs": done, "folder": here, "before": before, "after": git_status()}


def _without_cost(options):
    options = list(options)
    if "--cost" in options:
        at = options.index("--cost")
        del options[at: at + 2]
    return options


def kind_of(stem: str) -> str:
    return "paired" if stem in PAIRED else "runs" if stem in RUNS else "search"


FILES = {"paired": ("folds-ties", "folds-five-percent", "folds-losses"),
         "runs": ("runs-two-tuners", "runs-losses"),
         "search": ("few-rounds-ties", "five-models-percent", "losses")}
# Every analysis on every file of its kind with EVP_FULL_MATRIX=1; by default (CI's
# time limit) each analysis on one file of its kind, the files taken in turn, so
# that every file is run by some analysis and every analysis on a user's file.
FULL_MATRIX = os.environ.get("EVP_FULL_MATRIX") == "1"


def _cases() -> list[tuple[str, str]]:
    cases, turn = [], {}
    for notebook in ANALYSES:
        kind = kind_of(notebook.stem)
        names = [n for n in FILES[kind] if (notebook.stem, n) not in SKIPPED]
        if FULL_MATRIX:
            cases += [(notebook.stem, name) for name in names]
            continue
        at = turn.get(kind, 0)
        turn[kind] = at + 1
        cases.append((notebook.stem, names[at % len(names)]))
    return cases


CASES = _cases()


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-{c[1]}")
def test_every_notebook_runs_on_users_results(matrix, case):
    done = matrix["runs"][case]
    assert done.returncode == 0, done.stderr[-2000:]
    out = matrix["folder"] / "runs" / f"{case[0]}--{case[1]}"
    executed = out / f"{case[0]}.ipynb"
    cells = json.loads(executed.read_text())["cells"]
    errors = [o for c in cells for o in c.get("outputs", [])
              if o.get("output_type") == "error"]
    assert not errors
    figures = sorted(out.glob(f"{case[0]}-*.png"))
    assert figures, "no figures written"
    assert {f.with_suffix(".pdf").exists() for f in figures} == {True}
    claims = out / f"{case[0]}-claims.csv"
    assert claims.exists() and claims.read_text().startswith("claim,this run,holds")
    # The notebook ran on the user's file, not on the paper's data.
    text = executed.read_text()
    assert case[1] in text


def test_the_matrix_leaves_the_checkout_as_it_was(matrix):
    assert matrix["after"] == matrix["before"]


def test_a_failing_cell_is_one_line_with_the_partial_notebook(tmp_path):
    (path, options), *_ = write_search_results(tmp_path).values()
    done = evp("run", "deberta_tutorial", path.name, *_without_cost(options),
               "-p", "method=nope", cwd=tmp_path)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    line = lines[0]
    assert line.startswith("evp run: deberta_tutorial failed: ParameterError: method")
    kept = list((tmp_path / "evp-runs").glob("deberta_tutorial-failed-*"))
    assert len(kept) == 1
    partial = kept[0] / "deberta_tutorial.ipynb"
    assert str(partial) in line and partial.exists()


@pytest.mark.parametrize("args, message", [
    (["deberta_tutorial", "{file}", "--score", "acc", "-p", "nope=1"],
     "-p nope: deberta_tutorial has no parameter 'nope'"),
    (["deberta_tutorial", "{file}", "--score", "acc", "--cost", "seconds"],
     "--cost: deberta_tutorial has no cost axis"),
    (["no_such_analysis", "{file}", "--score", "acc"],
     "NOTEBOOK: evp has no analysis notebook 'no_such_analysis'"),
    (["deberta_tutorial", "missing.csv", "--score", "acc"],
     "RESULTS: no such file or folder missing.csv"),
    (["deberta_tutorial", "{file}", "--score", "acc", "--out", str(ROOT / "figures")],
     "--out:"),
    (["deberta_tutorial", "{file}", "--score", "acc", "--group", "arm",
      "-p", "sample_size=0"],
     "deberta_tutorial failed: ValueError: sample_size: sizes must be at least 2"),
])
def test_bad_runs_are_one_line(tmp_path, args, message):
    (path, _), *_ = write_search_results(tmp_path).values()
    before = git_status()
    done = evp("run", *(a.replace("{file}", path.name) for a in args), cwd=tmp_path)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("evp run: ") and message in lines[0], lines[0]
    assert git_status() == before


def test_relative_paths_are_the_callers(tmp_path):
    # A results path relative to the folder evp was started in, and the default
    # output folder under it.
    (path, options), *_ = write_search_results(tmp_path / "results").values()
    done = evp("run", "mean_vs_median", Path("results") / path.name,
               *_without_cost(options), *SMALL["mean_vs_median"], cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    out = tmp_path / "evp-runs" / "mean_vs_median"
    assert (out / "mean_vs_median-fig8.png").exists()


def readme_block(heading):
    """The commands of the bash block under `heading` in the README."""
    text = (ROOT / "README.md").read_text()
    section = text[text.index(heading):]
    start = section.index("```bash\n") + len("```bash\n")
    block = section[start: section.index("```", start)]
    return [line for line in block.splitlines() if line and not line.startswith("#")]


def test_the_readme_examples_work_verbatim_from_the_repo_root(tmp_path):
    shared = ROOT.parent / "shared" / "data"
    if "EVP_DATA_DIR" not in os.environ and not shared.is_dir():
        pytest.skip("needs the Reuters data: set EVP_DATA_DIR")
    # A stand-in for the repository root: its notebooks, and nothing else to damage.
    (tmp_path / "notebooks").symlink_to(NOTEBOOKS, target_is_directory=True)
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}"
                                f"{os.environ['PATH']}")
    env.setdefault("EVP_DATA_DIR", str(shared))
    before = git_status()
    for command in readme_block("## Your own results in every notebook"):
        done = subprocess.run(shlex.split(command), cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, f"{command}\n{done.stderr[-2000:]}"
    runs = tmp_path / "evp-runs"
    assert sorted(p.name for p in (runs / "deberta_tutorial").glob("*-fig2.*")) == [
        "deberta_tutorial-fig2.pdf", "deberta_tutorial-fig2.png"]
    assert (runs / "mean_vs_median" / "mean_vs_median-claims.csv").exists()
    assert git_status() == before


def test_benchmark_study_says_when_nothing_can_be_simulated(tmp_path):
    """Two models of four rounds: no truth to measure the answers' error on
    (a task needs two models with five rounds). The notebook says so in one
    line and leaves those claims out, rather than failing on an empty table."""
    rows = ["model,acc"] + [f"{m},{0.1 * i + (0.05 if m == 'b' else 0):.2f}"
                            for m in "ab" for i in range(4)]
    (tmp_path / "tiny.csv").write_text("\n".join(rows) + "\n")
    done = evp("run", "benchmark_study", "tiny.csv", "--score", "acc", "--group",
               "model", *SMALL["benchmark_study"], "--out", tmp_path / "out",
               cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    text = (tmp_path / "out" / "benchmark_study.ipynb").read_text()
    assert "No truth to simulate from" in text
    claims = (tmp_path / "out" / "benchmark_study-claims.csv").read_text()
    assert "family-wise" not in claims and "budget changes" in claims
