"""What reading leaves of the process and says of itself: warnings of their
own class at the user's call, the oldest versions of the tools it needs named
in one line, and nothing process-wide changed."""

import types
import warnings

import pandas as pd
import pytest

import evp
from evp._optional import MINIMUM_VERSIONS, import_optional_dependency, too_old


def test_dropped_rows_are_an_evp_warning_at_the_users_call_however_deep():
    frame = pd.DataFrame({"acc": [0.1, None, 0.3, 0.4]})
    # Several searches in one call go through read_results twice: the warning
    # still names this line, and is evp's own class (filterable as such).
    with pytest.warns(evp.DroppedRowsWarning, match="dropped 1 bad row") as record:
        evp.read_results({"a": frame, "b": frame.fillna(0.2)}, score="acc",
                         failed="drop")
    assert record[0].filename == __file__
    assert issubclass(evp.DroppedRowsWarning, evp.EvpWarning)
    assert issubclass(evp.DroppedRowsWarning, UserWarning)  # as before


@pytest.mark.parametrize(("version", "old"), [("3.6.1", True), ("4.0.0", False),
                                              ("4.0.0rc1", False), ("10.1", False),
                                              ("unknown", False)])
def test_an_optional_tool_older_than_evp_needs_is_one_line(version, old):
    said = too_old("optuna", types.SimpleNamespace(__version__=version))
    if not old:
        assert said is None
        return
    assert said == (f"optuna {version} is installed, and evp needs optuna>=4.0: "
                    "pip install 'evp-tuning-curves[tuners]'")


def test_the_minimum_versions_are_those_the_extras_pin():
    from pathlib import Path

    pins = (Path(evp.__file__).parent.parent / "pyproject.toml").read_text()
    assert MINIMUM_VERSIONS["optuna"] == "4.0" and '"optuna>=4.0"' in pins
    assert MINIMUM_VERSIONS["mlflow"] == "3.0" and '"mlflow-skinny>=3.0"' in pins


def test_an_old_tool_is_refused_where_it_is_imported(monkeypatch):
    import json

    monkeypatch.setattr(json, "__version__", "0.1", raising=False)
    monkeypatch.setitem(MINIMUM_VERSIONS, "json", "1.0")
    with pytest.raises(ImportError, match=r"^reading it: json 0\.1 is installed, "
                                          r"and evp needs json>=1\.0: pip install "
                                          r"'json>=1\.0'$"):
        import_optional_dependency("json", purpose="reading it")
    assert import_optional_dependency("json", errors="ignore") is None


@pytest.mark.needs("optuna")
def test_reading_an_optuna_study_leaves_optunas_log_level_as_it_was(tmp_path):
    import optuna

    url = f"sqlite:///{tmp_path / 's.db'}"
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(storage=url, study_name="s",
                                sampler=optuna.samplers.RandomSampler(seed=0))
    study.optimize(lambda t: t.suggest_float("x", 0, 1), n_trials=4)
    optuna.logging.set_verbosity(optuna.logging.DEBUG)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            evp.read_results(url)
        assert optuna.logging.get_verbosity() == optuna.logging.DEBUG
    finally:
        optuna.logging.set_verbosity(optuna.logging.WARNING)
