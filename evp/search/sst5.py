"""SST-5 sentence classification: the models and search spaces of the SST case studies.

Task: the Stanford Sentiment Treebank, five classes, sentence level (the root's
label); tokens are the tree leaves, lower-cased. Train on train, select and report
accuracy on dev.

Search spaces (each hyperparameter sampled independently per trial):

``lr`` — logistic regression on n-grams, Dodge et al. (2019), Table 5:
    penalty {l1, l2}; C ~ Uniform(0, 1] ; solver liblinear; tol ~ LogUniform[1e-4,
    1e-2]; stopwords {none, english}; weighting {tf, tf-idf, binary}; ngram_range
    {(1,2), (1,3), (2,3)}; random_state integer.
``lboe`` — linear bag of embeddings, Dodge et al. (2021), Table 3: the mean of
    learned 50-d word embeddings → dropout → linear layer. dropout ~ Uniform[0,
    0.5]; Adam with lr ~ LogUniform[1e-6, 1e-1]; batch 64; reduce-on-plateau
    (patience 2, factor 0.5) on dev accuracy; early stopping on dev accuracy.
``cnn`` — Kim (2014)-style CNN, Dodge et al. (2021), Table 2: filters of every
    width 1..max_filter_size, ReLU, max-pooled over time, concatenated → dropout →
    linear. max_filter_size ~ integer [1, 9]; num_filters ~ integer [64, 512];
    dropout ~ Uniform[0, 0.5]; Adam with lr ~ LogUniform[1e-6, 1e-1]; batch 64;
    reduce-on-plateau (2, 0.5); early stopping.

The training regime is an argument of :func:`regime` (and of ``evp search``):

* epochs and patience: by default training is capped at ``MAX_EPOCHS[model]``
  epochs with early stopping after ``EARLY_STOPPING_PATIENCE`` epochs without
  improvement, so that a 100-trial search fits in an hour or two on two CPU cores;
  the papers' regime is 50 epochs with patience 10 (``PAPERS_REGIME``; Dodge et al.
  2021, Tables 2–3);
* embeddings: learned from scratch by default; ``embeddings=`` names a file of
  pretrained vectors in GloVe's text format (one ``word v1 … vd`` per line), such as
  the papers' 50-d GloVe. Words of the training vocabulary found there start from
  their vector; the others start as the from-scratch embeddings do (standard
  normal). All embeddings are trained;
* device: ``"auto"`` trains on the GPU when torch sees one, else on the CPU.

Sentences are tokenised and encoded once per process, and padded into
length-sorted batches once per batch size; an epoch only reshuffles the order of
those batches. Adam runs as one fused update per step.
"""

from __future__ import annotations

import functools
import math
from pathlib import Path

import numpy as np

MODELS = ("lr", "lboe", "cnn")
MAX_EPOCHS = {"lboe": 12, "cnn": 5}
EARLY_STOPPING_PATIENCE = 3
PAPERS_REGIME = {"max_epochs": 50, "patience": 10}  # Dodge et al. (2021), Tables 2–3
EMBEDDING_DIM = 50
BATCH_SIZE = 64
NUM_CLASSES = 5


def _log_uniform(rng, low, high):
    return float(math.exp(rng.uniform(math.log(low), math.log(high))))


def sample_config(model: str, rng: np.random.Generator) -> dict:
    """Draw one configuration of `model` from its search space."""
    if model == "lr":
        return {
            "penalty": str(rng.choice(["l1", "l2"])),
            "C": float(1.0 - rng.random()),  # (0, 1]: C = 0 is not a model
            "solver": "liblinear",
            "tol": _log_uniform(rng, 1e-4, 1e-2),
            "stopwords": str(rng.choice(["none", "english"])),
            "weighting": str(rng.choice(["tf", "tf-idf", "binary"])),
            "ngram_range": [list(r) for r in ([1, 2], [1, 3], [2, 3])][
                int(rng.integers(3))],
            "random_state": int(rng.integers(2**31 - 1)),
        }
    common = {
        "dropout": float(rng.uniform(0.0, 0.5)),
        "learning_rate": _log_uniform(rng, 1e-6, 1e-1),
        "batch_size": BATCH_SIZE,
    }
    if model == "lboe":
        return {"embedding_dim": EMBEDDING_DIM, **common}
    if model == "cnn":
        return {
            "embedding_dim": EMBEDDING_DIM,
            "max_filter_size": int(rng.integers(1, 10)),
            "num_filters": int(rng.integers(64, 513)),
            **common,
        }
    raise ValueError(f"model must be one of {MODELS}, got {model!r}")


@functools.lru_cache(maxsize=4)
def _splits(subset: int | None):
    """(train, dev) lists of (lower-cased tokens, label); `subset` keeps the first."""
    from evp.datasets import load_sst5

    data = load_sst5(["train", "dev"])
    out = []
    for split in ("train", "dev"):
        rows = data[data["split"] == split]
        if subset is not None:
            rows = rows.iloc[:subset]
        out.append(([[t.lower() for t in tokens] for tokens in rows["tokens"]],
                    rows["label"].to_numpy()))
    return tuple(out)


def train_lr(config: dict, train, dev) -> dict:
    from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.multiclass import OneVsRestClassifier

    options = dict(
        analyzer="word", tokenizer=str.split, token_pattern=None, lowercase=False,
        preprocessor=None, ngram_range=tuple(config["ngram_range"]),
        stop_words="english" if config["stopwords"] == "english" else None,
    )
    if config["weighting"] == "tf-idf":
        vectorizer = TfidfVectorizer(**options)
    else:
        vectorizer = CountVectorizer(binary=config["weighting"] == "binary", **options)
    x_train = vectorizer.fit_transform(" ".join(t) for t in train[0])
    x_dev = vectorizer.transform(" ".join(t) for t in dev[0])
    # liblinear fits one binary model per class (one-vs-rest), as it did inside
    # LogisticRegression before scikit-learn 1.7 made that explicit.
    classifier = OneVsRestClassifier(LogisticRegression(
        penalty=config["penalty"], C=config["C"], solver="liblinear",
        tol=config["tol"], random_state=config["random_state"]))
    classifier.fit(x_train, train[1])
    accuracy = float((classifier.predict(x_dev) == dev[1]).mean())
    return {"accuracy": accuracy, "best_epoch": None, "epochs": None}


def _torch_model(model: str, config: dict, vocab_size: int, dim: int):
    import torch
    from torch import nn

    class BagOfEmbeddings(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(vocab_size, dim, padding_idx=0)
            self.drop = nn.Dropout(config["dropout"])
            self.out = nn.Linear(dim, NUM_CLASSES)

        def forward(self, ids):
            mask = (ids != 0).unsqueeze(-1).float()
            mean = (self.embed(ids) * mask).sum(1) / mask.sum(1).clamp(min=1)
            return self.out(self.drop(mean))

    class KimCNN(nn.Module):
        def __init__(self):
            super().__init__()
            filters = config["num_filters"]
            self.embed = nn.Embedding(vocab_size, dim, padding_idx=0)
            self.convs = nn.ModuleList(
                nn.Conv1d(dim, filters, width)
                for width in range(1, config["max_filter_size"] + 1))
            self.drop = nn.Dropout(config["dropout"])
            self.out = nn.Linear(filters * len(self.convs), NUM_CLASSES)

        def forward(self, ids):
            x = self.embed(ids).transpose(1, 2)  # (batch, dim, time)
            pooled = [torch.relu(conv(x)).amax(dim=2) for conv in self.convs]
            return self.out(self.drop(torch.cat(pooled, dim=1)))

    return BagOfEmbeddings() if model == "lboe" else KimCNN()


@functools.lru_cache(maxsize=4)
def _encoded(subset: int | None):
    """The training vocabulary (0: padding, 1: unknown) and both splits as ids."""
    (train_tokens, train_labels), (dev_tokens, dev_labels) = _splits(subset)
    vocab = {"<pad>": 0, "<unk>": 1}
    for tokens in train_tokens:
        for token in tokens:
            vocab.setdefault(token, len(vocab))
    train_ids = [[vocab.get(t, 1) for t in tokens] for tokens in train_tokens]
    dev_ids = [[vocab.get(t, 1) for t in tokens] for tokens in dev_tokens]
    return vocab, (train_ids, train_labels), (dev_ids, dev_labels)


def _pad(encoded, labels, batch_size, min_length, device):
    """Padded batches on `device`; sentences of similar length go together."""
    import torch

    order = np.argsort([len(s) for s in encoded], kind="stable")
    batches = []
    for start in range(0, len(order), batch_size):
        chunk = order[start: start + batch_size]
        length = max(min_length, max(len(encoded[i]) for i in chunk))
        ids = np.zeros((len(chunk), length), dtype=np.int64)
        for row, i in enumerate(chunk):
            ids[row, : len(encoded[i])] = encoded[i]
        batches.append((torch.from_numpy(ids).to(device),
                        torch.from_numpy(labels[chunk]).to(device)))
    return batches


@functools.lru_cache(maxsize=8)
def _batches(subset, batch_size: int, min_length: int, device: str):
    """Train and dev batches, padded once per process and batch shape."""
    _, train, dev = _encoded(subset)
    return (_pad(*train, batch_size, min_length, device),
            _pad(*dev, 256, min_length, device))


@functools.lru_cache(maxsize=2)
def load_embeddings(path: str, subset: int | None = None):
    """Pretrained vectors for the training vocabulary, from a GloVe text file.

    Returns ``(vectors, found)``: a float32 array (vocabulary size, d) holding the
    file's vector for each word found there and NaN rows for the others, and the
    number of words found. Raises ValueError for a file that is not
    ``word v1 … vd`` lines of one width.
    """
    vocab, _, _ = _encoded(subset)
    vectors, width = None, None
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            word, _, rest = line.rstrip("\n").partition(" ")
            if width is None:
                width = len(rest.split())
                if width == 0:
                    raise ValueError(f"embeddings: line 1 of {path} has no vector; "
                                     "expected GloVe's 'word v1 ... vd' lines")
                vectors = np.full((len(vocab), width), np.nan, dtype=np.float32)
            index = vocab.get(word)
            if index is None or index < 2:
                continue
            values = rest.split()
            if len(values) != width:
                raise ValueError(f"embeddings: line {number} of {path} has "
                                 f"{len(values)} values, line 1 has {width}")
            vectors[index] = np.asarray(values, dtype=np.float32)
    if vectors is None:
        raise ValueError(f"embeddings: {path} is empty")
    return vectors, int(np.isfinite(vectors[:, 0]).sum())


def resolve_device(device: str) -> str:
    """"auto" is "cuda" when torch sees a GPU, else "cpu"."""
    if device != "auto":
        return device
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def regime(model: str, *, max_epochs: int | None = None, patience: int | None = None,
           embeddings=None, device: str = "auto", subset: int | None = None) -> dict:
    """How the trials of a search are trained, as each trial line records it.

    The embeddings are named by file name and SHA-256 (no machine path), with their
    width and the share of the training vocabulary they cover.
    """
    out = {"subset": subset}
    if model == "lr":
        return out
    out.update(max_epochs=max_epochs or MAX_EPOCHS[model],
               patience=patience or EARLY_STOPPING_PATIENCE,
               device=resolve_device(device), embeddings="learned from scratch")
    if embeddings is not None:
        import hashlib

        path = Path(embeddings)
        vectors, found = load_embeddings(str(path), subset)
        out["embeddings"] = {
            "file": path.name,
            "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
            "dim": int(vectors.shape[1]),
            "vocabulary_found": round(found / (vectors.shape[0] - 2), 4),
        }
    return out


def train_neural(model: str, config: dict, *, subset: int | None = None, seed: int,
                 max_epochs: int, patience: int = EARLY_STOPPING_PATIENCE,
                 embeddings=None, device: str = "cpu") -> dict:
    import torch

    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    vocab, _, (_, dev_labels) = _encoded(subset)
    dim = config["embedding_dim"]
    if embeddings is not None:
        vectors, _ = load_embeddings(str(embeddings), subset)
        dim = vectors.shape[1]
    network = _torch_model(model, config, len(vocab), dim)
    if embeddings is not None:
        with torch.no_grad():
            found = torch.from_numpy(np.isfinite(vectors[:, 0]))
            network.embed.weight[found] = torch.from_numpy(vectors[found.numpy()])
    network.to(device)
    # The fused kernel updates every parameter in one pass: the same Adam, about
    # 4x faster per epoch for the bag of embeddings, whose dense embedding table
    # dominates its steps (data/sst5/README.md has the timings).
    optimizer = torch.optim.Adam(network.parameters(), lr=config["learning_rate"],
                                 fused=True)
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(
        optimizer, mode="max", patience=2, factor=0.5)
    loss_function = torch.nn.CrossEntropyLoss()
    train_batches, dev_batches = _batches(subset, config["batch_size"],
                                          config.get("max_filter_size", 1), device)
    order = list(range(len(train_batches)))
    best, best_epoch, epoch = -1.0, 0, 0
    for epoch in range(1, max_epochs + 1):
        network.train()
        rng.shuffle(order)
        for index in order:
            ids, labels = train_batches[index]
            optimizer.zero_grad()
            loss_function(network(ids), labels).backward()
            optimizer.step()
        network.eval()
        correct = 0
        with torch.no_grad():
            for ids, labels in dev_batches:
                correct += int((network(ids).argmax(1) == labels).sum())
        accuracy = correct / len(dev_labels)
        scheduler.step(accuracy)
        if accuracy > best:
            best, best_epoch = accuracy, epoch
        elif epoch - best_epoch >= patience:
            break
    return {"accuracy": best, "best_epoch": best_epoch, "epochs": epoch}


def train(task: str, model: str, config: dict, *, seed: int, trial: int,
          subset: int | None = None, max_epochs: int | None = None,
          patience: int | None = None, embeddings=None, device: str = "auto",
          threads: int = 1) -> dict:
    """Train one configuration; return best dev accuracy and the epoch it came at."""
    if task != "sst5":
        raise ValueError(f"task must be 'sst5', got {task!r}")
    if model == "lr":
        return train_lr(config, *_splits(subset))
    import torch

    torch.set_num_threads(threads)
    return train_neural(model, config, subset=subset, seed=seed * 100_003 + trial,
                        max_epochs=max_epochs or MAX_EPOCHS[model],
                        patience=patience or EARLY_STOPPING_PATIENCE,
                        embeddings=embeddings, device=resolve_device(device))
