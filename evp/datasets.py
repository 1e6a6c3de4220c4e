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

:func:`read_results` reads your own search results (CSV, TSV, JSON Lines, a folder
written by ``evp search``, or a DataFrame) into a validated tidy frame;
:func:`scores_by_model` splits it into one array of scores per model, and
:func:`load_search` reads the trials ``evp search`` writes.

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

import hashlib
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

from evp._validation import _describe, as_choice

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


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


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


def _reason(exc: BaseException) -> str:
    """The first line of an exception's message, at most 300 characters."""
    lines = str(exc).strip().splitlines()
    text = lines[0] if lines else type(exc).__name__
    return text if len(text) <= 300 else text[:297] + "..."


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
            actual = _sha256(path)
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


# ----------------------------------------------------------------- users' results

_FORMATS = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".tab": "tsv",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".parquet": "parquet",
    ".pq": "parquet",
    ".txt": "csv",
}
_COMPRESSIONS = (".gz", ".bz2", ".xz", ".zst", ".zip")
_ROW_NOTE = "(row 1 is the first data row)"
_DROP_HINT = "; pass drop_bad_rows=True to drop such rows"
# Delimiters a delimited text file is sniffed for, the extension's own first.
_DELIMITERS = (",", ";", "\t", "|")
_DECIMAL_COMMA = re.compile(r"^[+-]?\d+,\d+(?:[eE][+-]?\d+)?$")
_DECIMAL_POINT = re.compile(r"^[+-]?\d*\.\d+(?:[eE][+-]?\d+)?$")


def _rows(mask: np.ndarray, limit: int = 20) -> str:
    numbers = np.flatnonzero(mask) + 1
    shown = ", ".join(str(n) for n in numbers[:limit])
    more = len(numbers) - limit
    return shown + (f" and {more} more" if more > 0 else "")


def _sample_lines(path: Path, limit: int = 200) -> list[str]:
    """The first lines of a delimited text file (decompressed), for sniffing."""
    import bz2
    import gzip
    import lzma

    openers = {".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}
    suffix = path.suffix.lower()
    if suffix in _COMPRESSIONS and suffix not in openers:
        return []  # .zip, .zst: read with the extension's delimiter
    opener = openers.get(suffix, open)
    lines = []
    try:
        with opener(path, "rt", encoding="utf-8", errors="replace",
                    newline="") as handle:
            for line in handle:
                if line.strip():
                    lines.append(line.rstrip("\r\n"))
                if len(lines) >= limit:
                    break
    except (OSError, EOFError):
        return []
    return lines


def _sniff(lines: list[str], default: str) -> str:
    """The delimiter that splits every sampled line into the same number (> 1) of
    fields, the most fields winning; `default` where none does."""
    import csv

    best, widest = default, 1
    for delimiter in dict.fromkeys((default, *_DELIMITERS)):
        widths = [len(row) for row in csv.reader(lines, delimiter=delimiter)]
        if not widths or widths[0] < 2:
            continue
        agree = sum(w == widths[0] for w in widths) / len(widths)
        if agree >= 0.9 and widths[0] > widest:
            best, widest = delimiter, widths[0]
    return best


def _sniff_decimal(lines: list[str], sep: str) -> str:
    """"," where the numbers are written with decimal commas (1,5 or 0,25), else "."."""
    import csv

    if sep == ",":
        return "."
    commas = points = 0
    for row in csv.reader(lines[1:], delimiter=sep):
        for field in row:
            field = field.strip()
            commas += bool(_DECIMAL_COMMA.match(field))
            points += bool(_DECIMAL_POINT.match(field))
    return "," if commas > points else "."


def _read_table(path: Path, sep: str | None = None,
                decimal: str | None = None) -> pd.DataFrame:
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] in _COMPRESSIONS:
        suffixes = suffixes[:-1]
    kind = _FORMATS.get(suffixes[-1] if suffixes else "")
    if kind is None:
        raise ValueError(
            f"path_or_frame: cannot tell the format of {path.name}; use one of the "
            f"extensions {', '.join(_FORMATS)} (optionally compressed: "
            f"{', '.join(_COMPRESSIONS)}), or read it yourself and pass a DataFrame"
        )
    if not path.is_file():
        raise FileNotFoundError(f"path_or_frame: no such file {path}")
    if kind == "parquet":
        return _read_parquet(path)
    if kind == "jsonl":
        return _read_json_lines(path)
    if sep is None or decimal is None:
        lines = _sample_lines(path)
        if sep is None:
            sep = _sniff(lines, "\t" if kind == "tsv" else ",")
        if decimal is None:
            decimal = _sniff_decimal(lines, sep)
    if sep == decimal:
        raise ValueError(f"sep and decimal are both {sep!r}: a number could not be "
                         "told from the next field; pass another sep")
    try:
        return pd.read_csv(path, sep=sep, decimal=decimal)
    except (pd.errors.ParserError, UnicodeDecodeError) as exc:
        raise ValueError(f"path_or_frame: {path.name} could not be read as text "
                         f"separated by {sep!r}: {_reason(exc)}; pass sep") from None


def _read_parquet(path: Path) -> pd.DataFrame:
    """A Parquet file through pandas; needs pyarrow (the ``parquet`` extra)."""
    import importlib.util

    if importlib.util.find_spec("pyarrow") is None:
        raise ImportError(f"path_or_frame: reading {path.name} (Parquet) needs "
                          "pyarrow: pip install 'evp[parquet]'")
    try:
        return pd.read_parquet(path, engine="pyarrow")
    except (OSError, ValueError) as exc:  # pyarrow's errors derive from these
        raise ValueError(f"path_or_frame: {path.name} is not a readable Parquet "
                         f"file: {_reason(exc)}") from None


def _read_json_lines(path: Path) -> pd.DataFrame:
    """One row per JSON object; nested objects become ``outer.inner`` columns."""
    try:
        frame = pd.read_json(path, lines=True, dtype=False, precise_float=True)
    except ValueError as exc:
        raise ValueError(f"path_or_frame: {path.name} is not valid JSON Lines (one "
                         f"JSON object per line): {_reason(exc)}") from None
    nested = [c for c in frame.columns
              if frame[c].map(lambda v: isinstance(v, dict)).any()]
    if not nested:
        return frame
    flat = [pd.json_normalize(frame[c].map(lambda v: v if isinstance(v, dict) else {})
                              .tolist()).add_prefix(f"{c}.") for c in nested]
    return pd.concat([frame.drop(columns=nested), *flat], axis=1)


def _numbers(frame: pd.DataFrame, column) -> np.ndarray:
    values = pd.to_numeric(frame[column], errors="coerce")
    return np.asarray(values.to_numpy(dtype=float, na_value=np.nan))


def _bad_rows(frame: pd.DataFrame, roles: dict) -> list[tuple[np.ndarray, str]]:
    """(rows, what is wrong with them) per problem, in the order they are reported."""
    problems = []
    score = roles["score"]
    bad = ~np.isfinite(_numbers(frame, score))
    if bad.any():
        problems.append((bad, f"score column {score!r} has missing, non-numeric or "
                              "infinite values"))
    group = roles.get("group")
    if group is not None:
        bad = frame[group].isna().to_numpy()
        if bad.any():
            problems.append((bad, f"group column {group!r} has missing values"))
    cost = roles.get("cost")
    if cost is not None:
        costs = _numbers(frame, cost)
        bad = ~np.isfinite(costs)
        if bad.any():
            problems.append((bad, f"cost column {cost!r} has missing, non-numeric "
                                  "or infinite values"))
        negative = np.isfinite(costs) & (costs < 0)
        if negative.any():
            problems.append((negative, f"cost column {cost!r} has negative values"))
    return problems


def read_results(path_or_frame, *, score=None, group=None, cost=None, sep=None,
                 decimal=None, drop_bad_rows: bool = False, study=None,
                 metric=None, mode=None, per_trial="best") -> pd.DataFrame:
    """Read your own random-search results into a validated tidy frame.

    Parameters
    ----------
    path_or_frame : str, os.PathLike or pandas.DataFrame
        A file with one row per search round and a header — delimited text
        (``.csv``, ``.tsv``, ``.tab``, ``.txt``: the delimiter and a decimal comma
        are sniffed, see `sep` and `decimal`), JSON Lines (``.jsonl``,
        ``.ndjson``; one object per line; nested objects become ``outer.inner``
        columns), optionally compressed (``.gz``, ``.bz2``, ``.xz``, ``.zst``,
        ``.zip``), or Parquet (``.parquet``, ``.pq``; needs pyarrow, the
        ``parquet`` extra); a folder of ``evp search`` trials (see
        :func:`load_search`); or a DataFrame with the same content. A relative
        path is relative to the current folder. Also, straight from the tuner
        that ran the search (:mod:`evp.tuners`; needs the ``tuners`` extra): an
        Optuna study, its storage URL (``sqlite:///study.db``) or SQLite file
        (``.db``, ``.sqlite``, ``.sqlite3``), one row per completed trial; or a
        Ray Tune experiment folder, one report per trial.
    score : str
        Column holding each round's validation score. Optional for a tuner's
        results: an Optuna study's one objective (``value``), or a Ray Tune
        experiment's `metric`.
    group : str, optional
        Column naming the model, configuration or condition a round belongs to.
    cost : str, optional
        Column holding each round's cost (e.g. training seconds); non-negative.
    sep : str, optional
        The delimiter of a text file. Default: the one of ``,``, ``;``, tab and
        ``|`` that splits every line of the file's start into the same number of
        fields (the most fields winning), else the extension's (tab for ``.tsv``
        and ``.tab``, comma otherwise).
    decimal : str, optional
        The decimal mark of a text file. Default: ``,`` when the numbers of a file
        not separated by commas are written with decimal commas (``0,85``), else
        ``.``.
    drop_bad_rows : bool, default False
        Drop the rows whose score or cost is missing, non-numeric or infinite, whose
        cost is negative or whose group is missing, with a warning that lists them
        (also in ``.attrs["dropped_rows"]``, counting the first data row as 1).
        Default: such rows are an error.
    study : str, optional
        The Optuna study to read, when the storage holds more than one.
    metric : str, optional
        The metric a Ray Tune experiment reported; it picks each trial's best
        report and is the default `score`. Default: `score`.
    mode : {"max", "min"}, optional
        Whether a higher or lower Ray Tune `metric` is better; needed for Ray Tune.
    per_trial : {"best", "last"}, default "best"
        Each Ray Tune trial's best report of `metric`, or its last one.

    Returns
    -------
    pandas.DataFrame
        A new frame with a fresh index and columns ``score`` (float), ``group``
        (str, when `group` is given) and ``cost`` (float, when `cost` is given),
        followed by the remaining original columns unchanged, in their order.
        ``.attrs["columns"]`` maps ``"score"``, ``"group"`` and ``"cost"`` to the
        original column names (None where not given), for labels and messages;
        ``.attrs["dropped_rows"]`` lists the rows `drop_bad_rows` dropped.
        From a tuner, ``.attrs`` also hold ``"tuner"``, ``"name"`` (the study or
        experiment), ``"minimize"`` (the study's direction, or ``mode="min"``) and
        ``"note"`` (what was read: how many trials, which report per trial).

    Raises
    ------
    ValueError
        A named column is missing (the message lists the available columns); a
        score or cost is missing, non-numeric or infinite, a cost is negative, or
        a group is missing (the message names the column and lists the offending
        rows, counting the first data row, after the header, as row 1, unless
        `drop_bad_rows`); every row is bad; the file extension is not one of the
        above; or a remaining column is already called ``score``, ``group`` or
        ``cost``.
    ImportError
        A Parquet file without pyarrow installed, or an Optuna study without
        optuna (the ``tuners`` extra).
    TypeError
        `path_or_frame` is neither a path nor a DataFrame.
    FileNotFoundError
        The file does not exist.

    Examples
    --------
    >>> import pandas as pd
    >>> from evp.datasets import read_results
    >>> runs = pd.DataFrame({"acc": [0.81, 0.84], "lr": [1e-5, 3e-5]})
    >>> read_results(runs, score="acc").columns.tolist()
    ['score', 'lr']
    """
    from evp import tuners

    source = tuners.is_tuner_source(path_or_frame)
    tuned = {}
    if source is None:
        for name, value in (("study", study), ("metric", metric), ("mode", mode)):
            if value is not None:
                raise ValueError(f"{name}={value!r} is for results read straight "
                                 "from Optuna or Ray Tune; path_or_frame is neither: "
                                 f"leave {name} out")
    elif source == "optuna":
        if metric is not None or mode is not None:
            raise ValueError("metric and mode are for Ray Tune experiments; an Optuna "
                             "study names its objective with score and its "
                             "direction itself: leave them out")
        frame = tuners.read_optuna(path_or_frame, study=study, objective=score)
    else:
        if study is not None:
            raise ValueError("study is for Optuna storages; a Ray Tune experiment "
                             "names its metric: leave study out, pass metric")
        if metric is None and score is None:
            raise ValueError("metric: name the metric the Ray Tune trials reported, "
                             "e.g. metric='accuracy'")
        frame = tuners.read_ray_tune(path_or_frame, metric=metric or score,
                                     mode=mode, per_trial=per_trial)
    if source is not None:
        tuned = {k: frame.attrs[k] for k in ("tuner", "name", "minimize", "note")}
        score = score or frame.attrs["score"]
    elif score is None:
        raise ValueError("score: name the column of validation scores, e.g. "
                         "score='accuracy'")
    elif isinstance(path_or_frame, pd.DataFrame):
        frame = path_or_frame
    elif isinstance(path_or_frame, str | os.PathLike):
        path = Path(path_or_frame).expanduser()
        frame = (load_search(path) if path.is_dir()
                 else _read_table(path, sep=sep, decimal=decimal))
    else:
        raise TypeError(f"path_or_frame must be a file path or a pandas DataFrame, "
                        f"got {_describe(path_or_frame)}")

    roles = {"score": score, "group": group, "cost": cost}
    roles = {role: column for role, column in roles.items() if column is not None}
    available = list(frame.columns)
    duplicated = sorted({str(c) for c in frame.columns[frame.columns.duplicated()]})
    if duplicated:
        raise ValueError(f"path_or_frame has duplicate column names {duplicated}; "
                         "rename them first")
    for role, column in roles.items():
        if column not in available:
            raise ValueError(f"{role} column {column!r} not found; available "
                             f"columns: {available}{_separator_hint(available)}")
    used = list(roles.values())
    if len(set(used)) != len(used):
        raise ValueError(f"score, group and cost must name different columns, got "
                         f"{roles}")
    if len(frame) == 0:
        raise ValueError("path_or_frame has no rows: there are no results to read")
    rest = [c for c in available if c not in used]
    clash = [c for c in rest if c in roles]
    if clash:
        raise ValueError(
            f"the input already has a column named {clash[0]!r} besides the "
            f"{clash[0]} column {roles[clash[0]]!r}; rename one of them"
        )

    frame = frame.reset_index(drop=True)
    problems = _bad_rows(frame, roles)
    dropped: list[int] = []
    if problems and not drop_bad_rows:
        bad, what = problems[0]
        raise ValueError(f"{what} in rows {_rows(bad)} {_ROW_NOTE}{_DROP_HINT}")
    if problems:
        bad = np.logical_or.reduce([rows for rows, _ in problems])
        if bad.all():
            raise ValueError(f"every row is bad: {problems[0][1]} in rows "
                             f"{_rows(problems[0][0])} {_ROW_NOTE}")
        dropped = (np.flatnonzero(bad) + 1).tolist()
        reasons = "; ".join(f"{what} in rows {_rows(rows)}"
                            for rows, what in problems)
        import warnings

        warnings.warn(f"dropped {len(dropped)} bad row(s) of {len(frame)} "
                      f"{_ROW_NOTE}: {reasons}", UserWarning, stacklevel=2)
        frame = frame[~bad].reset_index(drop=True)
    tidy = pd.DataFrame({"score": _numbers(frame, score)})
    if group is not None:
        tidy["group"] = frame[group].astype(str)
    if cost is not None:
        tidy["cost"] = _numbers(frame, cost)
    tidy = pd.concat([tidy, frame[rest]], axis=1)
    tidy.attrs.update(frame.attrs)  # what a reader recorded, e.g. the strategy
    tidy.attrs["columns"] = {"score": score, "group": group, "cost": cost}
    tidy.attrs["dropped_rows"] = dropped
    tidy.attrs.update(tuned)
    return tidy


def _separator_hint(columns: list) -> str:
    """A hint when one column's name holds the other names: a wrong delimiter."""
    if len(columns) != 1:
        return ""
    for delimiter in _DELIMITERS:
        if delimiter in str(columns[0]):
            shown = "\\t" if delimiter == "\t" else delimiter
            return (f"; the header looks separated by {shown!r}: pass "
                    f"sep={shown!r}")
    return ""


def scores_by_model(results, models=None, *, minimize: bool = False,
                    score: str = "score", group: str | None = "group") -> dict:
    """Split tidy results into one array of scores per model.

    Parameters
    ----------
    results : pandas.DataFrame
        One row per search round, as :func:`read_results` returns it (or any frame
        with the columns named by `score` and `group`).
    models : sequence of str, optional
        The models to return, in this order; default every model, in order of
        first appearance.
    minimize : bool, default False
        The scores are losses. They are returned negated, so that higher is better
        for every model: pass them on with ``minimize=False``.
    score, group : str
        Columns of the scores and of the model names. Without a `group` column the
        whole frame is one model, named after the score column.

    Returns
    -------
    dict of str to numpy.ndarray
        Each model's scores (float, in file order), keyed by model name.

    Raises
    ------
    ValueError
        A column is missing, or a model in `models` has no rounds (the message
        lists the models present).

    Examples
    --------
    >>> import pandas as pd
    >>> from evp.datasets import read_results, scores_by_model
    >>> runs = pd.DataFrame({"acc": [0.8, 0.7, 0.9], "arm": ["a", "b", "a"]})
    >>> scores_by_model(read_results(runs, score="acc", group="arm"))
    {'a': array([0.8, 0.9]), 'b': array([0.7])}
    """
    if not isinstance(results, pd.DataFrame):
        raise TypeError(f"results must be a DataFrame of search rounds, got "
                        f"{_describe(results)}")
    if score not in results.columns:
        raise ValueError(f"results have no score column {score!r}; columns: "
                         f"{list(results.columns)}")
    sign = -1.0 if minimize else 1.0
    if group is None or group not in results.columns:
        name = results.attrs.get("columns", {}).get("score") or score
        everything = {str(name): sign * results[score].to_numpy(dtype=float)}
        if models is not None and list(models) != list(everything):
            raise ValueError(f"models: the results have no model column, so they "
                             f"hold one model only; drop models={list(models)!r} "
                             "or name the model column")
        return everything
    names = results[group].astype(str)
    present = list(dict.fromkeys(names))
    if models is None:
        models = present
    elif isinstance(models, str):
        models = [models]
    models = [str(m) for m in models]
    missing = [m for m in models if m not in present]
    if missing:
        column = results.attrs.get("columns", {}).get("group") or group
        raise ValueError(f"models: no rounds of {', '.join(map(repr, missing))} in "
                         f"column {column!r}; models present: {', '.join(present)}")
    if len(set(models)) != len(models):
        raise ValueError(f"models: each model once, got {models}")
    values = results[score].to_numpy(dtype=float)
    return {m: sign * values[(names == m).to_numpy()] for m in models}


_SEARCH_FIELDS = ("model", "trial", "accuracy")


def load_search(path) -> pd.DataFrame:
    """Read what ``evp search`` writes: one JSON Lines file, or a folder of them.

    Parameters
    ----------
    path : str or os.PathLike
        A ``.jsonl`` file of trials (one JSON object per finished trial, as
        :func:`evp.search.runner.run_search` appends them), or a folder whose
        ``*.jsonl`` files are read in name order (one file per model).

    Returns
    -------
    pandas.DataFrame
        One row per trial, sorted by model (in file order) and trial: the
        trial's fields (``model``, ``trial``, ``accuracy``, ``seconds``, …) and
        its hyperparameters as ``config.<name>`` columns (recorded library
        versions as ``versions.<name>``). Pass it to :func:`read_results` with
        ``score="accuracy", group="model", cost="seconds"``.

    Raises
    ------
    FileNotFoundError
        No such file or folder, or a folder without ``.jsonl`` files.
    ValueError
        A file is not JSON Lines, or a trial lacks ``model``, ``trial`` or
        ``accuracy``.
    """
    path = Path(path).expanduser()
    if path.is_dir():
        files = sorted(path.glob("*.jsonl"))
        if not files:
            raise FileNotFoundError(f"path: no .jsonl files of trials in {path}")
    elif path.is_file():
        files = [path]
    else:
        raise FileNotFoundError(f"path: no such file or folder {path}")
    frames = []
    for file in files:
        frame = _read_json_lines(file)
        lacking = [f for f in _SEARCH_FIELDS if f not in frame.columns]
        if lacking or frame.empty:
            raise ValueError(f"path: {file.name} is not a file of `evp search` trials "
                             f"(it lacks {', '.join(lacking) or 'trials'})")
        frames.append(frame.sort_values("trial", kind="stable"))
    trials = pd.concat(frames, ignore_index=True)
    order = ["model", "trial", "accuracy"]
    trials = trials[order + [c for c in trials.columns if c not in order]]
    trials.attrs["strategy"] = ("random search (evp search: independent draws from "
                                "each model's search space)")
    return trials
