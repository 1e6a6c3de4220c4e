r"""Public tuning data behind the papers, and readers for your own search results.

Three external datasets are registered here with their exact source and checksum.
They are never bundled with evp: the loaders download them once into a cache (with
:mod:`pooch`, checking each file's SHA-256) or, offline, read them from a mirror
folder named by the environment variable ``EVP_DATA_DIR``.

* **DeBERTa / DeBERTaV3 on MultiNLI** (:func:`load_deberta`). 1,024 rounds of random
  search over five hyperparameters for each of DeBERTa-base and DeBERTaV3-base, with
  learning curves on MultiNLI's matched and mismatched validation sets. Source:
  repository ``nicholaslourie/opda``, folder ``data/deberta/``, commit
  ``ec685e83c92293151b3cffe5458477ec0b1a47c3``. Licence: CC BY-SA 4.0 (© 2023
  Nicholas Lourie). Cite Lourie, Cho and He (2024).
* **AlexNet and ConvNeXt-Tiny on ImageNet** (:func:`load_alexnet`,
  :func:`load_convnext`). 512 rounds of random search each over seven training
  hyperparameters, with per-epoch learning curves (top-1, top-5, training loss,
  seconds). Source: repository ``nicholaslourie/opda``, folders ``data/alexnet/``
  and ``data/convnext/``, commit ``9529a34b7715e0b32920f630c1f7f7ff6f891060``
  (release 0.8.0). Licence: CC BY-SA 4.0. Cite Lourie, He and Cho (2025),
  Hyperparameter Loss Surfaces Are Simple Near their Optima, COLM.
* **MLP and LSTM F1 on Reuters** (:func:`load_reuters`). Development-set F1 of
  repeated runs of two Hedwig models, used by Tang et al. (2020) and by the
  bootstrap analyses of Lourie, Cho and He (2024). Source: repository
  ``castorini/meanmax``, file ``data/hedwig.tsv``, commit
  ``0ea124105eda04a00677c077b591a94c2e2b2936``. Licence: MIT (© 2019 Ralph Tang).
  Cite Tang et al. (2020).
* **Stanford Sentiment Treebank, five classes** (:func:`load_sst5`). Sentences with
  a sentiment label 0 (very negative) … 4 (very positive), the case study of Dodge
  et al. (2019, 2021). Source: the official archive
  ``https://nlp.stanford.edu/sentiment/trainDevTestTrees_PTB.zip`` of Socher et al.
  (2013). The archive carries no licence file; check the terms on the treebank's
  page before redistributing it. Its bytes are not pinned, so instead of a hash the
  trees are checked against their published line and root-label counts (Table 1 of
  Dodge et al. 2021).

Files are looked up as follows.

1. If ``EVP_DATA_DIR`` is set, it names a mirror folder laid out like
   ``deberta/deberta-base.results.jsonl``, ``deberta/deberta-v3-base.results.jsonl``,
   ``reuters/hedwig.tsv`` and ``sst5/{train,dev,test}.txt``. Nothing is downloaded;
   files are checked against the same hashes (SST-5: the counts).
2. Otherwise files are downloaded into the cache folder ``EVP_CACHE_DIR`` (default:
   ``pooch.os_cache("evp")``), laid out the same way (SST-5 as the zip archive), and
   reused from there while their hash still matches.

A failed download, a missing file or a hash (or count) mismatch raises one
:class:`DatasetError` that names the file, what was expected and ``EVP_DATA_DIR``;
a wrong table is never returned silently.

Your own search results are read by :mod:`evp.readers` (:func:`evp.read_results`,
:func:`evp.datasets.load_search`, still importable from here).

References
----------
Lourie, Cho and He (2024). Show Your Work with Confidence: Confidence Bands for
Tuning Curves. NAACL. arXiv:2311.09480.

Tang, Yang, Lin et al. (2020). Showing Your Work Doesn't Always Work. ACL.

Socher, Perelygin, Wu, Chuang, Manning, Ng and Potts (2013). Recursive Deep Models
for Semantic Compositionality Over a Sentiment Treebank. EMNLP.

Dodge, Gururangan, Card, Schwartz and Smith (2021). Expected Validation Performance
and Estimation of a Random Variable's Maximum. Findings of EMNLP.
"""

from __future__ import annotations

import json
import os
import re
import types
import zipfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from evp._output import file_sha256
from evp._validation import _describe, as_choice
from evp._validation import reason as _reason

# Users' results were read here before they had a module of their own: these names
# keep working.
from evp.readers import load_search, read_results
from evp.results import scores_by_model

__all__ = [
    "DEBERTA_MODELS",
    "REGISTRY",
    "SST5_SPLITS",
    "DatasetError",
    "Source",
    "load_alexnet",
    "load_convnext",
    "load_deberta",
    "load_reuters",
    "load_search",
    "load_sst5",
    "read_results",
    "scores_by_model",
]

DATA_DIR_VARIABLE = "EVP_DATA_DIR"
CACHE_DIR_VARIABLE = "EVP_CACHE_DIR"

OPDA_COMMIT = "ec685e83c92293151b3cffe5458477ec0b1a47c3"
MEANMAX_COMMIT = "0ea124105eda04a00677c077b591a94c2e2b2936"
VISION_COMMIT = "9529a34b7715e0b32920f630c1f7f7ff6f891060"  # opda release 0.8.0

_OPDA_URL = (
    f"https://raw.githubusercontent.com/nicholaslourie/opda/{OPDA_COMMIT}/data/deberta/"
)
_VISION_URL = (
    f"https://raw.githubusercontent.com/nicholaslourie/opda/{VISION_COMMIT}/data/"
)
_MEANMAX_URL = (
    f"https://raw.githubusercontent.com/castorini/meanmax/{MEANMAX_COMMIT}/data/"
)
_SST_URL = "https://nlp.stanford.edu/sentiment/trainDevTestTrees_PTB.zip"

# Seconds to wait for the server to answer (per connection attempt and read).
_TIMEOUT = 60


class DatasetError(OSError):
    """A dataset file could not be obtained, or is not the registered file.

    Raised for a failed download, a file missing from the ``EVP_DATA_DIR`` mirror,
    a SHA-256 mismatch, or SST-5 trees whose line or label counts differ from the
    published ones. The message names the file, what was expected, and
    ``EVP_DATA_DIR``.
    """


@dataclass(frozen=True)
class Source:
    """One registered file: where it lives and how to recognise it.

    Attributes
    ----------
    name : str
        Path of the file inside the mirror (``EVP_DATA_DIR``) and cache folders,
        e.g. ``"reuters/hedwig.tsv"``.
    url : str
        Address it is downloaded from.
    sha256 : str or None
        Its SHA-256 hex digest; None when the bytes are not pinned (the SST-5
        archive, whose content is checked by counts instead).
    """

    name: str
    url: str
    sha256: str | None


def _source(name: str, url: str, sha256: str | None) -> tuple[str, Source]:
    return name, Source(name, url, sha256)


_REGISTRY: dict[str, Source] = dict([
    _source(
        "deberta/deberta-base.results.jsonl",
        _OPDA_URL + "deberta-base.results.jsonl",
        "e87fadcab74fd19616f1a456fdbba2455b861a7b2bf1f4b2ccb0129a4ef7aa97",
    ),
    _source(
        "deberta/deberta-v3-base.results.jsonl",
        _OPDA_URL + "deberta-v3-base.results.jsonl",
        "16e232c58a27c7a279d50f9669ae028701d5c6baecfdccb578c9906e159a512c",
    ),
    _source(
        "reuters/hedwig.tsv",
        _MEANMAX_URL + "hedwig.tsv",
        "a9d4c271e12f757be26f1c131f7f74c82546729a47efd107012f9619282af2af",
    ),
    _source("sst5/trainDevTestTrees_PTB.zip", _SST_URL, None),
    _source(
        "alexnet/alexnet_tuning.results.jsonl",
        _VISION_URL + "alexnet/alexnet_tuning.results.jsonl",
        "05477f1b081650daea8c66f7b7b02f885f4dae2915e7f6ad3ebd1f9d5f38822b",
    ),
    _source(
        "convnext/convnext-tiny_tuning.results.jsonl",
        _VISION_URL + "convnext/convnext-tiny_tuning.results.jsonl",
        "58e9c5956c4309145cd95bccee2ab8b7de6ac6bd9e076519fd75619097cc9bfc",
    ),
])

#: The registered files, by their path inside the mirror and cache folders.
REGISTRY: Mapping[str, Source] = types.MappingProxyType(_REGISTRY)

DEBERTA_MODELS = ("deberta-base", "deberta-v3-base")
SST5_SPLITS = ("train", "dev", "test")

_DEBERTA_FILES = {model: f"deberta/{model}.results.jsonl" for model in DEBERTA_MODELS}
_HYPERPARAMETERS = (
    "num_train_epochs",
    "train_batch_size",
    "learning_rate",
    "warmup_steps",
    "cls_drop_out",
)
_VALIDATION_SETS = ("matched", "mismatched")

_REUTERS_HEADER = ["model_name", "dataset_name", "--seed", "set_type", "f1"]
_REUTERS_MODELS = {"mlp": "mlp", "reg_lstm": "lstm"}

_SST_ARCHIVE = "sst5/trainDevTestTrees_PTB.zip"
# Root-label counts (labels 0..4) per split; their sums are the line counts
# 8,544 / 1,101 / 2,210. Table 1 of Dodge et al. (2021).
_SST_COUNTS = {
    "train": (1092, 2218, 1624, 2322, 1288),
    "dev": (139, 289, 229, 279, 165),
    "test": (279, 633, 389, 510, 399),
}
# A leaf: "(label word)", the word being everything up to the closing parenthesis
# (a few SST words contain a non-breaking space).
_LEAF = re.compile(r"\((\d) ([^()]+)\)")
_ROOT = re.compile(r"\((\d) ")


# ------------------------------------------------------------------ locating files


def _mirror_dir() -> Path | None:
    value = os.environ.get(DATA_DIR_VARIABLE, "")
    if not value:
        return None
    folder = Path(value).expanduser()
    if not folder.is_dir():
        raise DatasetError(
            f"{DATA_DIR_VARIABLE}={value} is not a folder. Set {DATA_DIR_VARIABLE} to "
            "a folder laid out like deberta/, reuters/hedwig.tsv and sst5/, or unset "
            "it to download the data."
        )
    return folder


def _cache_dir() -> Path:
    value = os.environ.get(CACHE_DIR_VARIABLE, "")
    if value:
        return Path(value).expanduser()
    import pooch  # here, not at import: only downloads need it

    return Path(pooch.os_cache("evp"))


def _sst_split(source: Source) -> str | None:
    """The split of an SST-5 tree file in the mirror (sst5/dev.txt → "dev")."""
    folder, _, file = source.name.partition("/")
    split = file.removesuffix(".txt")
    return split if folder == "sst5" and split in _SST_COUNTS else None


def _expected(source: Source) -> str:
    """What the file is checked against, as a phrase starting with "expected"."""
    if source.sha256 is not None:
        return f"expected sha256 {source.sha256}"
    split = _sst_split(source)
    if split is not None:
        counts = _SST_COUNTS[split]
        return (f"expected {sum(counts):,} trees with root-label counts "
                f"{list(counts)} for labels 0..4 (no pinned hash)")
    return "expected no particular hash (the trees inside are checked by counts)"


def _origin(source: Source) -> str:
    split = _sst_split(source)
    if split is not None:
        return f"trees/{split}.txt of the archive {source.url}"
    return f"the file from {source.url}"


def _offline_hint(source: Source) -> str:
    if source.name == _SST_ARCHIVE:
        where = "<folder>/sst5/{train,dev,test}.txt (the archive's trees/ folder)"
    else:
        where = f"<folder>/{source.name}"
    return (f"Without network access, put a copy at {where} and set "
            f"{DATA_DIR_VARIABLE}=<folder>.")


def _download_reason(exc: BaseException) -> str:
    """Why a download failed, in a few words rather than urllib3's nested repr."""
    import requests  # pooch's own dependency; imported only when something failed

    if isinstance(exc, requests.HTTPError) and exc.response is not None:
        return (f"the server answered {exc.response.status_code} "
                f"{exc.response.reason}")
    if isinstance(exc, requests.Timeout):
        return f"no answer within {_TIMEOUT} s"
    if isinstance(exc, requests.ConnectionError):
        errno = re.search(r"\[Errno [^\]]+\][^'\")]*", str(exc))
        detail = f" ({errno.group(0).strip()})" if errno else ""
        return f"could not connect to the server{detail}"
    got = re.search(r"does not match the known hash.* but got (\w+)", str(exc))
    if isinstance(exc, ValueError) and got:
        return f"the downloaded file has sha256 {got.group(1)} (it was discarded)"
    return f"{type(exc).__name__}: {_reason(exc)}"


def _fetch(source: Source) -> Path:
    """Local path of a registered file: from the mirror if set, else the cache.

    Mirror files are checked against ``source.sha256``; downloads are checked by
    pooch before they are moved into the cache. Every failure is one DatasetError.
    """
    mirror = _mirror_dir()
    if mirror is not None:
        path = mirror / source.name
        if not path.is_file():
            raise DatasetError(
                f"{source.name} is missing from the mirror folder {mirror} "
                f"({DATA_DIR_VARIABLE}); {_expected(source)}. Put {_origin(source)} "
                f"at {path}, or unset {DATA_DIR_VARIABLE} to download it."
            )
        if source.sha256 is not None:
            actual = file_sha256(path)
            if actual.lower() != source.sha256.lower():
                raise DatasetError(
                    f"{source.name} in the mirror folder {mirror} "
                    f"({DATA_DIR_VARIABLE}) is not the registered file: "
                    f"{_expected(source)}, got {actual}. Replace it with "
                    f"{_origin(source)}, or unset {DATA_DIR_VARIABLE} to download it."
                )
        return path

    import pooch

    cache = _cache_dir()
    known = None if source.sha256 is None else f"sha256:{source.sha256}"
    registry = pooch.create(
        path=cache,
        base_url="",
        registry={source.name: known},
        urls={source.name: source.url},
    )
    downloader = pooch.HTTPDownloader(progressbar=False, timeout=_TIMEOUT)
    try:
        return Path(registry.fetch(source.name, downloader=downloader))
    except (OSError, ValueError) as exc:  # requests' errors are OSErrors
        raise DatasetError(
            f"could not download {source.name} from {source.url} into {cache}: "
            f"{_download_reason(exc)}; {_expected(source)}. {_offline_hint(source)}"
        ) from None


def _malformed(name: str, path: Path, problem: str) -> DatasetError:
    return DatasetError(
        f"{name} ({path}) is malformed: {problem}. Replace the file, or point "
        f"{DATA_DIR_VARIABLE} at a folder holding the registered version."
    )


def _as_choices(value, name: str, choices: tuple[str, ...]) -> list[str]:
    """None → all choices; a string or a sequence of strings → that list, checked."""
    if value is None:
        return list(choices)
    if isinstance(value, str) or not isinstance(value, Iterable):
        value = [value]
    values = list(dict.fromkeys(value))
    if not values:
        raise ValueError(f"{name} must name at least one of {list(choices)}, got "
                         f"{_describe(value)}")
    for item in values:
        as_choice(item, name, choices)
    return values


# ------------------------------------------------------------------------ DeBERTa


def _read_rounds(path: Path, model: str, name: str, hyperparameters,
                 summarise) -> pd.DataFrame:
    """One row per JSON line: the model, the round, its hyperparameters and what
    `summarise(record)` makes of its learning curve; a bad line names itself."""
    rows = []
    with open(path, encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
                row = {"model": model, "iteration": int(record["iteration"])}
                row.update({key: record[key] for key in hyperparameters})
                row.update(summarise(record))
            except (ValueError, KeyError, TypeError) as exc:
                raise _malformed(name, path, f"line {number}: {_reason(exc)}") from None
            rows.append(row)
    return pd.DataFrame(rows)


def _deberta_curves(record) -> dict:
    row = {"total_model_steps": int(record["total_model_steps"])}
    for split in _VALIDATION_SETS:
        curve = record["learning_curves"][split]
        row[f"best_{split}"] = max(float(accuracy) for _, accuracy in curve)
        # The final point is the one at the largest step.
        row[f"final_{split}"] = float(max(curve, key=lambda p: p[0])[1])
    return row


def _read_deberta(path: Path, model: str, name: str) -> pd.DataFrame:
    return _read_rounds(path, model, name, _HYPERPARAMETERS, _deberta_curves)


def load_deberta(model=None) -> pd.DataFrame:
    """DeBERTa and DeBERTaV3 on MultiNLI: one row per model and random-search round.

    Each model was fine-tuned with 1,024 hyperparameter configurations drawn at
    random (Lourie, Cho and He 2024); each round was evaluated on MultiNLI's
    matched and mismatched validation sets every 1,000 steps and at the end.

    Parameters
    ----------
    model : {"deberta-base", "deberta-v3-base"} or list of them, optional
        Load only these models (default: both; only their files are fetched).

    Returns
    -------
    pandas.DataFrame
        One row per model and round (2 × 1,024 for both models), in file order,
        with columns

        * ``model`` — "deberta-base" or "deberta-v3-base";
        * ``iteration`` — the round of random search, 1 … 1,024;
        * the sampled hyperparameters ``num_train_epochs``, ``train_batch_size``,
          ``learning_rate``, ``warmup_steps`` (warm-up expressed in steps) and
          ``cls_drop_out``;
        * ``total_model_steps`` — optimisation steps of the round;
        * ``best_matched``, ``best_mismatched`` — the best accuracy along the
          round's learning curve (early stopping): the paper's score, matched
          unless said otherwise;
        * ``final_matched``, ``final_mismatched`` — the accuracy at the last
          evaluation.

    Raises
    ------
    DatasetError
        The file cannot be downloaded or found in ``EVP_DATA_DIR``, or its SHA-256
        differs from the registered one.

    Notes
    -----
    Accuracy is measured on a finite validation set, so scores tie: the 1,024
    DeBERTaV3 matched best scores take only 445 distinct values.

    Examples
    --------
    >>> from evp.datasets import load_deberta
    >>> data = load_deberta()  # doctest: +SKIP
    >>> data.groupby("model")["best_matched"].max()  # doctest: +SKIP
    """
    models = _as_choices(model, "model", DEBERTA_MODELS)
    frames = []
    for name in models:
        source = _REGISTRY[_DEBERTA_FILES[name]]
        frames.append(_read_deberta(_fetch(source), name, source.name))
    return pd.concat(frames, ignore_index=True)


# ------------------------------------------------------------ AlexNet, ConvNeXt

_VISION_HYPERPARAMETERS = ("epochs", "batch_size", "lr", "lr_peak_epoch",
                           "momentum", "weight_decay", "label_smoothing")


def _vision_curve(record) -> dict:
    curve = record["learning_curve"]
    top_1 = [float(epoch["top_1"]) for epoch in curve]
    top_5 = [float(epoch["top_5"]) for epoch in curve]
    return {"nan_train_loss": bool(record["nan_train_loss"]),
            "evaluations": len(curve),
            "best_top_1": max(top_1, default=0.0),
            "best_top_5": max(top_5, default=0.0),
            "final_top_1": top_1[-1] if curve else 0.0,
            "seconds": float(curve[-1]["time"]) if curve else np.nan}


def _read_vision(path: Path, model: str, name: str) -> pd.DataFrame:
    return _read_rounds(path, model, name, _VISION_HYPERPARAMETERS, _vision_curve)


_VISION_DOC = """{title} on ImageNet: 512 rounds of random search (Lourie et al. 2025).

    Returns
    -------
    pandas.DataFrame
        512 rows in file order, with columns

        * ``model`` — ``"{model}"``;
        * ``iteration`` — the round of random search, 1 … 512;
        * the sampled hyperparameters ``epochs``, ``batch_size``, ``lr``,
          ``lr_peak_epoch``, ``momentum``, ``weight_decay``, ``label_smoothing``;
        * ``nan_train_loss`` — the training loss became NaN;
        * ``evaluations`` — epochs evaluated (0 when training diverged before the
          first evaluation);
        * ``best_top_1``, ``best_top_5`` — the best accuracy along the learning
          curve, even where the loss later became NaN, and 0 where the curve is
          empty: the score of opda's analyses;
        * ``final_top_1`` — the top-1 accuracy at the last evaluation (0 when
          none);
        * ``seconds`` — training time, the last ``time`` of the curve (seconds
          since the start of training; NaN where the curve is empty): a cost
          column for budgets in GPU hours.

    Raises
    ------
    DatasetError
        The file cannot be downloaded or found in ``EVP_DATA_DIR`` (as
        ``{name}``), or its SHA-256 differs from the registered one.

    Notes
    -----
    {facts}
    """


def load_alexnet() -> pd.DataFrame:
    source = _REGISTRY["alexnet/alexnet_tuning.results.jsonl"]
    return _read_vision(_fetch(source), "alexnet", source.name)


def load_convnext() -> pd.DataFrame:
    source = _REGISTRY["convnext/convnext-tiny_tuning.results.jsonl"]
    return _read_vision(_fetch(source), "convnext-tiny", source.name)


load_alexnet.__doc__ = _VISION_DOC.format(
    title="AlexNet", model="alexnet", name="alexnet/alexnet_tuning.results.jsonl",
    facts="49 rounds diverged before the first evaluation and 147 had a NaN "
          "training loss; the best top-1 accuracy is 0.58558.")
load_convnext.__doc__ = _VISION_DOC.format(
    title="ConvNeXt-Tiny", model="convnext-tiny",
    name="convnext/convnext-tiny_tuning.results.jsonl",
    facts="71 rounds diverged before the first evaluation and 224 had a NaN "
          "training loss; the best top-1 accuracy is 0.74888.")


# ------------------------------------------------------------------------ Reuters


def load_reuters() -> pd.DataFrame:
    """Development-set F1 of repeated MLP and LSTM runs on Reuters (Tang et al. 2020).

    Returns
    -------
    pandas.DataFrame
        297 rows in file order (152 LSTM, 145 MLP) with columns

        * ``model`` — "lstm" or "mlp";
        * ``seed`` — the run's random seed (int);
        * ``f1`` — F1 on the Reuters development set;
        * ``model_name`` — the name in the source file ("reg_lstm" or "mlp").

    Raises
    ------
    DatasetError
        The file cannot be downloaded or found in ``EVP_DATA_DIR``, its SHA-256
        differs from the registered one, or its header is not
        ``model_name, dataset_name, --seed, set_type, f1``.
    """
    source = _REGISTRY["reuters/hedwig.tsv"]
    path = _fetch(source)
    raw = pd.read_csv(path, sep="\t", dtype={"model_name": str})
    if list(raw.columns) != _REUTERS_HEADER:
        raise _malformed(source.name, path, f"header {list(raw.columns)}, expected "
                                            f"{_REUTERS_HEADER}")
    unknown = sorted(set(raw["model_name"]) - set(_REUTERS_MODELS))
    if unknown:
        raise _malformed(source.name, path, f"unknown model names {unknown}")
    return pd.DataFrame({
        "model": raw["model_name"].map(_REUTERS_MODELS).astype(str),
        "seed": raw["--seed"].astype(np.int64),
        "f1": raw["f1"].astype(float),
        "model_name": raw["model_name"].astype(str),
    })


# -------------------------------------------------------------------------- SST-5


def _parse_trees(text: str, split: str, name: str, where: Path) -> pd.DataFrame:
    """Root labels and leaves of one PTB tree per line, checked against the counts."""
    lines = text.splitlines()
    expected = _SST_COUNTS[split]
    if len(lines) != sum(expected):
        raise DatasetError(
            f"{name} ({where}) has {len(lines):,} lines, expected {sum(expected):,} "
            f"(one tree per line) with root-label counts {list(expected)} for labels "
            f"0..4. Replace the file with the official {split} trees from {_SST_URL}, "
            f"or set {DATA_DIR_VARIABLE} to a folder holding sst5/{split}.txt."
        )
    labels = np.empty(len(lines), dtype=np.int64)
    tokens = []
    for number, line in enumerate(lines, start=1):
        root = _ROOT.match(line)
        leaves = _LEAF.findall(line)
        # Every tree of the treebank is binary: n leaves, n - 1 inner nodes.
        opened = line.count("(")
        if (root is None or not leaves or opened != line.count(")")
                or opened != 2 * len(leaves) - 1 or not line.endswith(")")):
            raise _malformed(name, where, f"line {number} is not a binary PTB tree: "
                                          f"{_describe(line)}")
        labels[number - 1] = int(root.group(1))
        tokens.append([word for _, word in leaves])
    found = tuple(int(c) for c in np.bincount(labels, minlength=5))
    if found != expected:
        raise DatasetError(
            f"{name} ({where}) has root-label counts {list(found)} for labels 0..4, "
            f"expected {list(expected)}. Replace the file with the official {split} "
            f"trees from {_SST_URL}, or set {DATA_DIR_VARIABLE} to a folder holding "
            f"sst5/{split}.txt."
        )
    return pd.DataFrame({
        "split": pd.Series([split] * len(lines), dtype=str),
        "tokens": tokens,
        "label": labels,
    })


def _read_sst_archive(splits: list[str]) -> dict[str, tuple[str, str, Path]]:
    source = _REGISTRY[_SST_ARCHIVE]
    path = _fetch(source)
    texts = {}
    try:
        with zipfile.ZipFile(path) as archive:
            for split in splits:
                member = f"trees/{split}.txt"
                texts[split] = (
                    archive.read(member).decode("utf-8"),
                    f"{source.name}:{member}",
                    path,
                )
    except (zipfile.BadZipFile, KeyError, UnicodeDecodeError) as exc:
        raise DatasetError(
            f"{source.name} ({path}) is not the treebank archive: {_reason(exc)}. "
            f"Delete it to download it again from {source.url}, or set "
            f"{DATA_DIR_VARIABLE} to a folder holding sst5/{{train,dev,test}}.txt."
        ) from None
    return texts


def load_sst5(split=None) -> pd.DataFrame:
    """Stanford Sentiment Treebank, fine-grained: one row per sentence.

    Parameters
    ----------
    split : {"train", "dev", "test"} or list of them, optional
        Load only these splits (default: all three, in that order).

    Returns
    -------
    pandas.DataFrame
        8,544 train, 1,101 dev and 2,210 test rows in file order, with columns

        * ``split`` — "train", "dev" or "test";
        * ``tokens`` — the sentence's words, the leaves of its tree, as they
          appear there (PTB escapes such as ``-LRB-`` and ``\\/`` are kept);
        * ``label`` — the root's sentiment, 0 (very negative) … 4 (very positive).

    Raises
    ------
    DatasetError
        The trees cannot be downloaded or found in ``EVP_DATA_DIR``, a line is not
        a tree, or a split's line or root-label counts differ from the published
        ones: train 1092/2218/1624/2322/1288, dev 139/289/229/279/165, test
        279/633/389/510/399 (labels 0..4).

    Notes
    -----
    The archive ``trainDevTestTrees_PTB.zip`` is downloaded into the cache; with
    ``EVP_DATA_DIR`` set, the trees are read from ``sst5/{train,dev,test}.txt``.
    Trees are read with a small regular-expression parser (one tree per line,
    binary, leaves ``(label word)``).
    """
    splits = _as_choices(split, "split", SST5_SPLITS)
    mirror = _mirror_dir()
    if mirror is None:
        texts = _read_sst_archive(splits)
    else:
        texts = {}
        for name in splits:
            source = Source(f"sst5/{name}.txt", _SST_URL, None)
            path = _fetch(source)
            try:
                text = path.read_text(encoding="utf-8")
            except UnicodeDecodeError as exc:
                raise _malformed(source.name, path, _reason(exc)) from None
            texts[name] = (text, source.name, path)
    frames = []
    for name in splits:
        text, label, where = texts[name]
        frames.append(_parse_trees(text, name, label, where))
    return pd.concat(frames, ignore_index=True)
