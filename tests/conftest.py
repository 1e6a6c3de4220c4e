"""Shared by the test modules: how a test says it needs an optional dependency.

Mark the test (or the whole module, with ``pytestmark``) ``needs``:
``@pytest.mark.needs("torch")``. Where the package is missing the test is skipped,
and the message names the extra that installs it. Optional packages are imported
inside the tests, never at a module's top, so that collection never fails.
"""

import importlib.util

import pytest

# Which extra of pyproject.toml installs each optional package: evp's own table.
from evp._optional import EXTRAS


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "needs(*packages): skip unless these optional packages import")


def pytest_runtest_setup(item):
    for marker in item.iter_markers("needs"):
        for package in marker.args:
            if package not in EXTRAS:
                raise ValueError(f"needs({package!r}): not an optional package of "
                                 f"evp; known: {', '.join(EXTRAS)}")
            if importlib.util.find_spec(package) is None:
                pytest.skip(f"needs {package}: pip install -e '.[{EXTRAS[package]}]'")


def _missing_optional(error: BaseException) -> str | None:
    """The optional package whose absence raised `error`, if that is what it is."""
    if not isinstance(error, ModuleNotFoundError) or not error.name:
        return None
    package = error.name.split(".")[0]
    if package in EXTRAS and importlib.util.find_spec(package) is None:
        return package
    return None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    # A test that imports an optional package it did not declare with `needs` is
    # skipped the same way where the package is missing (a core or dev-only
    # install), rather than failing on an import the extras would satisfy.
    try:
        return (yield)
    except ModuleNotFoundError as error:
        package = _missing_optional(error)
        if package is None:
            raise
        pytest.skip(f"needs {package}: pip install -e '.[{EXTRAS[package]}]'")


# The slow tests, as measured (seconds each on a 2-core machine): marked `slow`
# here, in one place, so that `pytest -m "not slow"` is the quick loop. Whole
# modules that run notebooks, searches, servers or builds; and the single tests
# that take more than about two seconds. `make test` and CI run them all.
SLOW_MODULES = {"test_run", "test_reproduce", "test_assignments",
                "test_grading_sandbox", "test_classroom_slides", "test_search",
                "test_search_ray", "test_site", "test_lab", "test_newcomer"}
SLOW_TESTS = {
    # The sameness and sign tests of issue 50: reports, plans and many tasks.
    "test_sameness.py::test_the_report_lays_out_the_analyses_sentences_and_no_"
    "others",
    "test_sameness.py::test_the_report_across_tasks_lays_out_the_analysis",
    "test_sameness.py::test_plans_today_is_compares_verdict_with_the_same_budgets",
    "test_sameness.py::test_a_negated_score_reported_negated_is_the_loss_itself",
    "test_sameness.py::test_plan_says_the_analysis_and_the_reader_only",
    "test_sign.py::test_many_tasks",
    "test_sign.py::test_tail",
    "test_sign.py::test_plan",
    "test_analyses.py::test_the_report_lays_out_the_same_sentences",
    "test_anytime.py::test_several_optuna_studies_are_runs_of_their_tuners",
    "test_cli.py::test_curve_with_band_writes_csv_and_figure",
    "test_fuzz_outputs.py::test_random_edits_and_writes_never_lose_a_users_file",
    "test_fuzz_outputs.py::"
    "test_runs_whose_folders_change_while_they_run_never_lose_a_users_file",
    "test_hostile_values.py::test_dollar_names_are_drawn_as_written_in_curves_and_"
    "matrices",
    "test_hostile_values.py::test_every_pairs_verdicts_take_memory_linear_in_the_"
    "models",
    "test_hostile_values.py::test_report_and_figures_of_a_dollar_name",
    "test_hostile_values.py::test_report_on_two_models_with_the_same_scores",
    "test_inputs.py::test_evp_run_reads_as_curve_does",
    "test_inputs.py::test_report_and_compare_compare_at_the_same_budgets",
    "test_inputs.py::test_tail_with_bounds_stays_inside_them",
    "test_inputs.py::test_two_optuna_studies_compared_from_the_command_line",
    "test_latex.py::test_a_report_across_tasks_fits_one_and_two_columns",
    "test_latex.py::test_tables_and_appendix_compile_and_read_back",
    "test_notebooks.py::test_synthetic_mse_on_a_users_scores",
    "test_output_ownership.py::"
    "test_an_existing_file_evp_did_not_write_is_replaced_only_with_force",
    "test_output_ownership.py::test_evp_run_keeps_a_file_saved_while_the_notebook_runs",
    "test_safety.py::"
    "test_a_file_saved_beside_a_notebooks_figures_while_it_fails_is_kept",
    "test_parametric.py::test_confidence_set_covers_the_truth",
    "test_parametric.py::test_fit_agrees_with_opda_on_debertav3",
    "test_parametric.py::test_fit_recovers_a_known_noisy_quadratic",
    "test_parametric.py::test_noisy_tuning_curves_match_brute_force",
    "test_plan_cli.py::test_plan_through_a_subprocess_with_cost",
    "test_planning.py::test_rounds_needed_grows_with_the_budget_and_the_confidence",
    "test_plot.py::test_a_fitted_tail_is_not_drawn_beyond_its_threshold",
    "test_sequential.py::test_the_fixed_n_band_read_after_every_round_does_not",
    "test_sequential.py::test_holds_at_every_round_on_continuous_scores",
    "test_sequential.py::test_exact_bounds_hold_at_every_round",
    "test_monitoring.py::test_a_monitor_settles_when_one_model_is_far_ahead",
    "test_monitoring.py::test_the_figure_draws_every_band_without_overlaps",
    "test_monitoring.py::test_a_plan_is_an_estimate_of_further_rounds",
    "test_monitoring.py::test_the_watch_plans_when_asked",
    "test_monitoring.py::test_watch_exit_status_says_settled_or_not",
    "test_monitoring.py::test_watch_follow_ends_on_a_growing_csv",
    "test_monitoring.py::test_a_monitor_reads_a_growing_file_again_at_every_update",
    "test_monitoring.py::test_an_optuna_study_stops_itself_when_settled",
    "test_monitoring.py::test_one_models_study_stops_once_it_is_beaten",
    "test_monitoring.py::test_a_study_with_failed_trials_is_said_not_watched_silently",
    "test_monitoring.py::test_a_ray_tune_experiment_stops_itself_when_settled",
    "test_monitoring.py::test_the_ray_hooks_feed_the_monitor_and_stop_when_settled",
    "test_plot.py::test_every_plotting_function_draws_without_overlaps",
    "test_ranking.py::test_one_mlflow_experiment_per_task",
    "test_report.py::test_a_report_says_which_tasks_tie",
    "test_report.py::test_across_tasks_score_name_on_the_command_line",
    "test_report.py::test_across_tasks_the_checklist_counts_and_names_each_task",
    "test_report.py::test_across_tasks_the_title_names_the_tasks_and_models",
    "test_report.py::test_failed_rounds_with_bounds_have_an_expected_best",
    "test_report.py::test_only_evps_own_warnings_reach_a_report",
    "test_report.py::test_the_checklist_is_filled_in_from_the_file",
    "test_report.py::test_the_command_writes_html_and_refuses_other_formats",
    "test_report.py::test_what_would_settle_a_pair_without_a_strong_verdict",
    "test_simulate.py::test_cdf_and_pdf_memory_stays_bounded_for_many_points",
    "test_tail_cli.py::test_tail_draws_a_panel_per_model",
    "test_tail_cli.py::"
    "test_tail_prints_the_best_score_interval_and_a_band_past_the_rounds_run",
    "test_tuners.py::test_evp_run_reads_an_optuna_storage",
    "test_wording.py::test_across_tasks_never_says_a_bare_nothing_differs",
    "test_wording.py::test_budget_changes_reads_back_as_the_ranks",
    "test_wording.py::test_holm_over_the_pairs_cannot_go_below_pairs_times_the_floor",
    "test_wording.py::test_the_benchmark_reads_true_on_the_command_line_and_in_the_"
    "report",
    "test_wording.py::test_the_smallest_wilcoxon_p_is_two_over_two_to_the_k_by_brute_"
    "force",
}


def pytest_collection_modifyitems(config, items):
    for item in items:
        module = item.path.stem
        # A docstring's example (a DoctestItem) has no originalname.
        test = f"{item.path.name}::{getattr(item, 'originalname', item.name)}"
        if module in SLOW_MODULES or test in SLOW_TESTS:
            item.add_marker(pytest.mark.slow)
