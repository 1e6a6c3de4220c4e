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

Embeddings are learned from scratch: the papers' pretrained GloVe vectors are not
available offline. Training is capped at ``MAX_EPOCHS[model]`` epochs with early
stopping after ``EARLY_STOPPING_PATIENCE`` epochs without improvement, so that a
100-trial search fits in a few hours on two CPU cores.
"""

from __future__ import annotations

import functools
import math

import numpy as np

MODELS = ("lr", "lboe", "cnn")
MAX_EPOCHS = {"lboe": 12, "cnn": 5}
EARLY_STOPPING_PATIENCE = 3
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


def _torch_model(model: str, config: dict, vocab_size: int):
    import torch
    from torch import nn

    class BagOfEmbeddings(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(vocab_size, config["embedding_dim"],
                                      padding_idx=0)
            self.drop = nn.Dropout(config["dropout"])
            self.out = nn.Linear(config["embedding_dim"], NUM_CLASSES)

        def forward(self, ids):
            mask = (ids != 0).unsqueeze(-1).float()
            mean = (self.embed(ids) * mask).sum(1) / mask.sum(1).clamp(min=1)
            return self.out(self.drop(mean))

    class KimCNN(nn.Module):
        def __init__(self):
            super().__init__()
            dim, filters = config["embedding_dim"], config["num_filters"]
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


def _batches(encoded, labels, batch_size, min_length, rng=None):
    """Padded batches; sentences of similar length go together to save padding."""
    import torch

    order = np.argsort([len(s) for s in encoded], kind="stable")
    chunks = [order[i: i + batch_size] for i in range(0, len(order), batch_size)]
    if rng is not None:
        rng.shuffle(chunks)
    for chunk in chunks:
        length = max(min_length, max(len(encoded[i]) for i in chunk))
        ids = np.zeros((len(chunk), length), dtype=np.int64)
        for row, i in enumerate(chunk):
            ids[row, : len(encoded[i])] = encoded[i]
        yield torch.from_numpy(ids), torch.from_numpy(labels[chunk])


def train_neural(model: str, config: dict, train, dev, *, seed: int,
                 max_epochs: int) -> dict:
    import torch

    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    vocab = {"<pad>": 0, "<unk>": 1}
    for tokens in train[0]:
        for token in tokens:
            vocab.setdefault(token, len(vocab))
    encode = [[vocab.get(t, 1) for t in tokens] for tokens in train[0]]
    encode_dev = [[vocab.get(t, 1) for t in tokens] for tokens in dev[0]]
    network = _torch_model(model, config, len(vocab))
    optimizer = torch.optim.Adam(network.parameters(), lr=config["learning_rate"])
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(
        optimizer, mode="max", patience=2, factor=0.5)
    loss_function = torch.nn.CrossEntropyLoss()
    min_length = config.get("max_filter_size", 1)
    best, best_epoch, epoch = -1.0, 0, 0
    for epoch in range(1, max_epochs + 1):
        network.train()
        for ids, labels in _batches(encode, train[1], config["batch_size"],
                                    min_length, rng):
            optimizer.zero_grad()
            loss_function(network(ids), labels).backward()
            optimizer.step()
        network.eval()
        correct = 0
        with torch.no_grad():
            for ids, labels in _batches(encode_dev, dev[1], 256, min_length):
                correct += int((network(ids).argmax(1) == labels).sum())
        accuracy = correct / len(encode_dev)
        scheduler.step(accuracy)
        if accuracy > best:
            best, best_epoch = accuracy, epoch
        elif epoch - best_epoch >= EARLY_STOPPING_PATIENCE:
            break
    return {"accuracy": best, "best_epoch": best_epoch, "epochs": epoch}


def train(task: str, model: str, config: dict, *, seed: int, trial: int,
          subset: int | None = None, max_epochs: int | None = None,
          threads: int = 1) -> dict:
    """Train one configuration; return best dev accuracy and the epoch it came at."""
    if task != "sst5":
        raise ValueError(f"task must be 'sst5', got {task!r}")
    train_split, dev_split = _splits(subset)
    if model == "lr":
        return train_lr(config, train_split, dev_split)
    import torch

    torch.set_num_threads(threads)
    return train_neural(model, config, train_split, dev_split,
                        seed=seed * 100_003 + trial,
                        max_epochs=max_epochs or MAX_EPOCHS[model])
