"""evp — expected validation performance and confidence bands for tuning curves.

Judge machine-learning models by their tuning effort: how good is the best of n
rounds of random hyperparameter search, and how sure can we be?

The modules, in layers; a module imports only from its own layer and those
listed before it (ARCHITECTURE.md says it in full, and a test checks it):

1. Readers and their Results

   - :mod:`evp.results` — :class:`Results`: a tidy frame and what it means (the
     score, model and cost columns, the direction and who said it, the reader's
     notes, the strategy, the rows left out).
   - :mod:`evp.readers` — :func:`read_results`: users' files, Optuna studies,
     Ray Tune experiments, ``evp search`` trials.
   - :mod:`evp.datasets` — the papers' public data: sources, checksums, mirror.

2. Statistics on plain arrays

   - :mod:`evp.estimators` — the expected maximum (V, U, W; Dodge et al. 2019,
     2021; Tang et al. 2020), its spread, quantile tuning curves, budgets.
   - :mod:`evp.bands` — exact simultaneous confidence bands for CDFs and tuning
     curves (Lourie, Cho and He 2024).
   - :mod:`evp.comparison` — a verdict comparing two models, from bounds on
     each curve: the band, the top band, exact intervals at the budgets.
   - :mod:`evp.parametric` — noisy quadratic tails that extrapolate tuning curves.
   - :mod:`evp.significance` — Fisher's paired randomization test, the
     bootstrap-shift test, and the exchangeability test of a search's trial order.
   - :mod:`evp.simulate` — distributions with exact tuning curves for simulations.
   - :mod:`evp.anytime` — tuning curves of adaptive tuners from repeated runs.
   - :mod:`evp.planning` — how likely more rounds are to settle a comparison.
   - :mod:`evp.sequential` — tuning-curve bands valid at every number of
     rounds, for searches read as they run.
   - :mod:`evp.multiple` — many models and many tasks: bands adjusted for the
     number of models, the best set, Holm, Wilcoxon across tasks.

3. Tables: :mod:`evp.tables` — the statistics of :class:`Results` as DataFrames;
   :mod:`evp.ranking` — many models and tasks at every budget (:func:`best_set`,
   :func:`compare_all`, ranks, profiles and targets across tasks).
4. Analyses: :mod:`evp.analyses` — one object per question a user asks (the
   curves of a search, two models, many models, many tasks, a plan, a tail,
   the checklist): its tables, its sentences, ``.plot()``; the command line,
   the report and the notebooks display them. :mod:`evp.watching` — a search
   read as it runs (``evp watch``).
   Monitoring: :mod:`evp.monitoring` — :class:`Monitor`, fed a running
   search, and the Optuna and Ray Tune hooks that stop it when settled.
5. Presentation: :mod:`evp.plot` (draws tables), :mod:`evp.latex`,
   :mod:`evp.report`, :mod:`evp.cli`, :mod:`evp.notebook` (what notebook cells
   call) and :mod:`evp.runner` (executes notebooks).

In JupyterLab, results show as compact tables with small inline figures
(:func:`set_display` turns the figures off); their plain ``repr`` is unchanged.
"""

from evp import analyses as analyses
from evp import datasets
from evp import parametric as parametric
from evp._display import set_display
from evp._validation import (
    DroppedRowsWarning,
    EmptyConfidenceSetWarning,
    EvpWarning,
    ParameterError,
    TiesWarning,
)
from evp.anytime import AnytimeBand, anytime_band, compare_runs
from evp.bands import (
    CDFBand,
    TuningCurveBand,
    band_coverage,
    bounded_budget,
    cdf_band,
    rounds_needed,
    tuning_curve_band,
)
from evp.comparison import Comparison, compare
from evp.estimators import (
    Budget,
    budget_to_reach,
    expected_max,
    expected_max_std,
    quantile_tuning_curve,
)
from evp.monitoring import Monitor
from evp.planning import VerdictPower, verdict_power
from evp.ranking import BestSet, best_set, compare_all
from evp.readers import read_results
from evp.results import Results
from evp.sequential import SequentialBand, sequential_band
from evp.significance import (
    BootstrapTestResult,
    ExchangeabilityTestResult,
    PermutationTestResult,
    bootstrap_shift_test,
    exchangeability_test,
    paired_permutation_test,
)

__version__ = "0.1.0"


def __getattr__(name: str):
    """``evp.latex`` (``evp.latex.PREAMBLE``) on first use: the presentation
    modules are not imported by ``import evp``."""
    if name == "latex":
        import importlib

        return importlib.import_module("evp.latex")
    raise AttributeError(f"module 'evp' has no attribute {name!r}")

__all__ = [
    "AnytimeBand",
    "BestSet",
    "BootstrapTestResult",
    "Budget",
    "CDFBand",
    "Comparison",
    "DroppedRowsWarning",
    "EmptyConfidenceSetWarning",
    "EvpWarning",
    "ExchangeabilityTestResult",
    "Monitor",
    "ParameterError",
    "PermutationTestResult",
    "Results",
    "SequentialBand",
    "TiesWarning",
    "TuningCurveBand",
    "VerdictPower",
    "anytime_band",
    "band_coverage",
    "best_set",
    "bootstrap_shift_test",
    "bounded_budget",
    "budget_to_reach",
    "cdf_band",
    "compare",
    "compare_all",
    "compare_runs",
    "datasets",
    "exchangeability_test",
    "expected_max",
    "expected_max_std",
    "paired_permutation_test",
    "quantile_tuning_curve",
    "read_results",
    "rounds_needed",
    "sequential_band",
    "set_display",
    "tuning_curve_band",
    "verdict_power",
]
