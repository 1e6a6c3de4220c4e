"""evp — expected validation performance and confidence bands for tuning curves.

Judge machine-learning models by their tuning effort: how good is the best of n
rounds of random hyperparameter search, and how sure can we be?

Estimators of the expected maximum (V, U, W; Dodge et al. 2019, 2021; Tang et al.
2020) live in :mod:`evp.estimators`.
"""

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

__version__ = "0.1.0"

__all__ = [
    "Budget",
    "CDFBand",
    "Comparison",
    "TuningCurveBand",
    "band_coverage",
    "budget_to_reach",
    "cdf_band",
    "compare",
    "expected_max",
    "expected_max_std",
    "quantile_tuning_curve",
    "tuning_curve_band",
]
