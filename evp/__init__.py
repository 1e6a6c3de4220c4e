"""evp — expected validation performance and confidence bands for tuning curves.

Judge machine-learning models by their tuning effort: how good is the best of n
rounds of random hyperparameter search, and how sure can we be?

- :mod:`evp.estimators` — the expected maximum (V, U, W; Dodge et al. 2019, 2021;
  Tang et al. 2020), its spread, quantile tuning curves, budgets.
- :mod:`evp.bands` — exact simultaneous confidence bands for CDFs and tuning curves,
  and a verdict comparing two models (Lourie, Cho and He 2024).
- :mod:`evp.datasets` — the public search results and SST-5, and users' own results.
- :mod:`evp.significance` — Fisher's paired randomization test and the
  bootstrap-shift test.
- :mod:`evp.simulate` — distributions with exact tuning curves for simulations.
- :mod:`evp.plot` — tuning-curve plots over tidy data.
"""

from evp import datasets
from evp import parametric as parametric
from evp.bands import (
    CDFBand,
    Comparison,
    TuningCurveBand,
    band_coverage,
    cdf_band,
    compare,
    tuning_curve_band,
)
from evp.estimators import (
    Budget,
    budget_to_reach,
    expected_max,
    expected_max_std,
    quantile_tuning_curve,
)
from evp.significance import (
    BootstrapTestResult,
    PermutationTestResult,
    bootstrap_shift_test,
    paired_permutation_test,
)

__version__ = "0.1.0"

__all__ = [
    "BootstrapTestResult",
    "Budget",
    "CDFBand",
    "Comparison",
    "PermutationTestResult",
    "TuningCurveBand",
    "band_coverage",
    "bootstrap_shift_test",
    "budget_to_reach",
    "cdf_band",
    "compare",
    "datasets",
    "expected_max",
    "expected_max_std",
    "paired_permutation_test",
    "quantile_tuning_curve",
    "tuning_curve_band",
]
