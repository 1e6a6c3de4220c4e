"""load_alexnet and load_convnext against the facts of the data's SOURCES.md."""

import os
from pathlib import Path

import numpy as np
import pytest

from evp.datasets import REGISTRY, VISION_COMMIT, load_alexnet, load_convnext

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def vision():
    value = os.environ.get("EVP_DATA_DIR") or str(ROOT.parent / "shared" / "data")
    if not Path(value, "alexnet").is_dir():
        pytest.skip("no offline data mirror: set EVP_DATA_DIR")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("EVP_DATA_DIR", value)
        return {"alexnet": load_alexnet(), "convnext": load_convnext()}


@pytest.mark.parametrize("name, empty, nan, best, distinct, hours", [
    ("alexnet", 49, 147, 0.58558, 300, 3.9),
    ("convnext", 71, 224, 0.74888, 427, 13.0),
])
def test_vision_facts(vision, name, empty, nan, best, distinct, hours):
    data = vision[name]
    assert len(data) == 512
    assert data["iteration"].tolist() == list(range(1, 513))
    assert int((data["evaluations"] == 0).sum()) == empty
    assert int(data["nan_train_loss"].sum()) == nan
    assert data["best_top_1"].max() == pytest.approx(best, abs=5e-6)
    ran = data["evaluations"] > 0
    assert data.loc[ran, "best_top_1"].nunique() == distinct
    assert (data.loc[~ran, "best_top_1"] == 0).all()
    assert data.loc[~ran, "seconds"].isna().all()
    assert np.median(data.loc[ran, "seconds"]) / 3600 == pytest.approx(hours, abs=0.1)
    assert (data["best_top_1"] >= data["final_top_1"]).all()


def test_vision_files_are_registered_at_the_release_commit():
    for name in ("alexnet/alexnet_tuning.results.jsonl",
                 "convnext/convnext-tiny_tuning.results.jsonl"):
        source = REGISTRY[name]
        assert VISION_COMMIT in source.url and source.url.endswith(name)
        assert len(source.sha256) == 64
