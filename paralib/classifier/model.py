"""The reference/translation classifiers of 2017 §5.6.1: an encoder and a softmax layer.

``avg`` averages word embeddings (the AVG model); ``lstm`` takes the last hidden state of an
LSTM. A linear layer gives two logits (translation, reference); the softmax of the second
is P(reference), the filtering score of 2017 §5.6.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import torch
from torch import nn

from paralib.classifier.vocab import Vocab
from paralib.errors import MissingError
from paralib.io.fs import S3Options, local_copy
from paralib.models.encoders.recurrent import run_rnn

CONFIG_FILE, WEIGHTS_FILE, VOCAB_FILE, METRICS_FILE = (
    "classifier.json", "model.pt", "vocab.txt", "metrics.json")


class ClassifierNotFoundError(MissingError, FileNotFoundError):
    """A classifier folder is missing or incomplete."""


@dataclass
class NetConfig:
    """Architecture of one classifier."""

    encoder: str  # "avg" or "lstm"
    vocab_size: int
    dim: int = 100
    hidden: int = 100
    max_len: int = 100


class RefClassifierNet(nn.Module):
    """Word embeddings → AVG or LSTM sentence vector → linear → 2 logits."""

    def __init__(self, cfg: NetConfig):
        super().__init__()
        if cfg.encoder not in ("avg", "lstm"):
            raise ValueError(f"classifier encoder must be 'avg' or 'lstm', not {cfg.encoder!r}")
        self.cfg = cfg
        self.emb = nn.Embedding(cfg.vocab_size, cfg.dim, padding_idx=0)
        self.lstm = (nn.LSTM(cfg.dim, cfg.hidden, batch_first=True)
                     if cfg.encoder == "lstm" else None)
        self.out = nn.Linear(cfg.hidden if self.lstm is not None else cfg.dim, 2)

    def encode(self, ids: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        """Sentence vectors ``[n, d]`` (an empty sentence encodes as the zero ``<pad>``)."""
        e = self.emb(ids)
        n = lengths.clamp(min=1)
        if self.lstm is None:
            return e.sum(1) / n.unsqueeze(1).to(e.dtype)
        states = run_rnn(self.lstm, e, n)  # packed: padding never enters the recurrence
        return states[torch.arange(len(n), device=n.device), n - 1]  # each last state

    def forward(self, ids: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        """Logits ``[n, 2]``; column 1 is the reference class."""
        return self.out(self.encode(ids, lengths))


class ReferenceClassifier:
    """A trained classifier with its vocabulary: ``predict_proba(texts)`` = P(reference)."""

    def __init__(self, net: RefClassifierNet, vocab: Vocab, info: dict | None = None):
        self.net = net.eval()
        self.vocab = vocab
        self.info = info or {}

    @torch.no_grad()
    def predict_proba(self, texts: list[str], batch_size: int = 512) -> np.ndarray:
        """P(reference) for every text, as float64."""
        out = np.empty(len(texts), dtype=np.float64)
        for start in range(0, len(texts), batch_size):
            ids, lengths = self.vocab.encode(texts[start:start + batch_size], self.net.cfg.max_len)
            probs = torch.softmax(self.net(ids, lengths), dim=-1)[:, 1]
            out[start:start + len(probs)] = probs.double().numpy()
        return out

    def save(self, path: str | Path) -> Path:
        """Write the folder: config and metrics, vocabulary, weights and a model card."""
        p = Path(path)
        p.mkdir(parents=True, exist_ok=True)
        (p / CONFIG_FILE).write_text(json.dumps(
            {"net": asdict(self.net.cfg), **self.info}, indent=2, default=float))
        self.vocab.save(p / VOCAB_FILE)
        torch.save(self.net.state_dict(), p / WEIGHTS_FILE)
        (p / "README.md").write_text(_card(self.net.cfg, self.info))
        return p


def _card(cfg: NetConfig, info: dict) -> str:
    test = info.get("test", {})
    lines = [
        f"# Reference/translation classifier ({cfg.encoder.upper()})", "",
        "Tells a reference sentence from a back-translation (Wieting et al. 2017, §5.6.1);",
        "P(reference) is a filtering score (`paralib` scorer `classifier`, column `p_ref`).", "",
        f"- vocabulary: {cfg.vocab_size} words; embeddings: {cfg.dim}; "
        f"hidden: {cfg.hidden if cfg.encoder == 'lstm' else '-'}",
        f"- chosen on dev: L2 = {info.get('l2')}, negatives = {info.get('negative')}",
        f"- examples train/dev/test: {info.get('split')}",
    ]
    if test:
        lines.append(f"- test accuracy: {100 * test['acc']:.1f} (reference "
                     f"{100 * test['acc_ref']:.1f}, translation {100 * test['acc_trans']:.1f})")
    return "\n".join(lines) + "\n"


def load_classifier(path: str | Path, s3: S3Options | None = None) -> ReferenceClassifier:
    """Load a classifier folder, or the best one of a :func:`train_classifier` output.

    An ``s3://`` folder is first copied to the node-local cache
    (:func:`paralib.io.fs.local_copy`)."""
    try:
        p = Path(local_copy(str(path), s3))
    except FileNotFoundError as exc:
        raise ClassifierNotFoundError(f"{path} is not a reference classifier ({exc}); "
                                      "train one with 'paralib classifier train'") from exc
    if not (p / CONFIG_FILE).is_file() and (p / METRICS_FILE).is_file():
        p = p / json.loads((p / METRICS_FILE).read_text())["best"]
    missing = [f for f in (CONFIG_FILE, WEIGHTS_FILE, VOCAB_FILE) if not (p / f).is_file()]
    if missing:
        raise ClassifierNotFoundError(
            f"{path} is not a reference classifier (missing {', '.join(missing)}); "
            "train one with 'paralib classifier train'")
    info = json.loads((p / CONFIG_FILE).read_text())
    net = RefClassifierNet(NetConfig(**info.pop("net")))
    net.load_state_dict(torch.load(p / WEIGHTS_FILE, map_location="cpu", weights_only=True))
    return ReferenceClassifier(net, Vocab.load(p / VOCAB_FILE), info)
