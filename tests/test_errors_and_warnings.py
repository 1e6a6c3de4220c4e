"""Wording is not an interface: a bad argument is a ValueError that names it in
`.param`, and each kind of warning has a class of its own, so that a program
reads the field, or filters the class, instead of matching the message."""

import warnings

import numpy as np
import pytest

import evp
from evp.parametric import confidence_set


@pytest.mark.parametrize("call, param", [
    (lambda: evp.cdf_band([0.1, 0.2, 0.3], confidence=1.5), "confidence"),
    (lambda: evp.expected_max([0.1, np.nan], 2), "scores"),
    (lambda: evp.expected_max([0.1, 0.2], 0), "ns"),
    (lambda: evp.compare([0.1, 0.2], [np.inf, 0.3], 1), "scores_b"),
    (lambda: evp.expected_max([0.1, 0.2], 2, estimator="z"), "estimator"),
    (lambda: evp.compare([0.1, 0.2], [0.2, 0.3], 1, minimize="yes"), "minimize"),
])
def test_a_bad_argument_is_a_value_error_naming_it(call, param):
    with pytest.raises(ValueError) as raised:
        call()
    assert isinstance(raised.value, evp.ParameterError)
    assert raised.value.param == param
    assert str(raised.value).startswith(param)  # the message is unchanged


def test_ties_are_a_ties_warning_that_can_be_filtered_by_class():
    tied = np.array([0.5, 0.5, 0.6, 0.7, 0.7])
    with pytest.warns(evp.TiesWarning, match="scores contain ties"):
        evp.cdf_band(tied, 0.8)
    assert issubclass(evp.TiesWarning, RuntimeWarning)
    assert issubclass(evp.TiesWarning, evp.EvpWarning)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.simplefilter("ignore", evp.TiesWarning)
        evp.cdf_band(tied, 0.8)  # no other warning, and this one filtered


def test_an_empty_confidence_set_is_its_own_warning():
    # Scores piled at the top (as HPOBench's car grid): no noisy quadratic
    # tail fits beyond the threshold, and the set is empty.
    rng = np.random.default_rng(0)
    scores = np.concatenate([rng.uniform(0.5, 0.99, 60), np.ones(40)])
    with pytest.warns(evp.EmptyConfidenceSetWarning, match="is empty"):
        found = confidence_set(scores, threshold=0.98, confidence=0.8)
    assert found.empty
