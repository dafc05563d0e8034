"""Paraphrase detection with an MLP on sentence embeddings (Opusparcus §4, Tables 2 and 7).

"Each sentence in the sentence pair is embedded using the sentence encoding model. The
resulting vectors are concatenated and passed on to a multi-layer perceptron classifier with a
single hidden layer of 200 units. The classifier is trained on the development set, and the
final results are reported on the unseen test set in terms of classification accuracy."

Opusparcus itself is not available: PAWS-X and MSRPC stand in, with the protocol of
:attr:`Detection.notes`; the MLP is trained with Adam (learning rate 1e-3, batches of 128, as
Opusparcus §3).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from paralib.evaluate.base import Task, load_sets, register
from paralib.evaluate.encode import encode_pairs
from paralib.evaluate.evalmodel import EvalModel
from paralib.evaluate.loaders import Pairs, read_msrpc, read_paws
from paralib.evaluate.metrics import accuracy_f1

PAWS_LANGS = ("en", "de", "es", "fr")
FEATURES = {
    "concat": "[u, v]",
    "diff_prod": "[|u − v|, u * v]",
}


def pair_features(u: np.ndarray, v: np.ndarray, kind: str) -> np.ndarray:
    """``concat``: ``[u, v]`` (Opusparcus §4); ``diff_prod``: ``[|u − v|, u * v]``."""
    if kind == "concat":
        return np.concatenate([u, v], axis=1)
    if kind == "diff_prod":
        return np.concatenate([np.abs(u - v), u * v], axis=1)
    raise ValueError(f"unknown feature set '{kind}'")


@dataclass
class DetectionSplits:
    """Training, early-stopping and test pairs of one detection set."""

    train: Pairs
    valid: Pairs | None
    test: Pairs
    train_name: str
    valid_name: str


def train_mlp(x: np.ndarray, y: np.ndarray, x_val: np.ndarray, y_val: np.ndarray, *,
              hidden: int = 200, max_epochs: int = 100, patience: int = 10,
              seed: int = 0, batch_size: int = 128, lr: float = 1e-3):
    """Train the one-hidden-layer MLP; returns ``(predict(x) -> labels, epochs run)``.

    Early stopping keeps the weights of the epoch with the best held-out accuracy.
    """
    import torch
    from torch import nn

    mean, std = x.mean(axis=0), x.std(axis=0) + 1e-6

    def tensor(a: np.ndarray) -> torch.Tensor:
        return torch.as_tensor((a - mean) / std, dtype=torch.float32)

    gen = torch.Generator().manual_seed(seed)
    torch.manual_seed(seed)
    net = nn.Sequential(nn.Linear(x.shape[1], hidden), nn.ReLU(), nn.Linear(hidden, 2))
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    xt, yt = tensor(x), torch.as_tensor(y, dtype=torch.long)
    xv, yv = tensor(x_val), torch.as_tensor(y_val, dtype=torch.long)
    best, best_state, since, epochs = -1.0, None, 0, 0
    for _ in range(max_epochs):
        epochs += 1
        net.train()
        for idx in torch.randperm(len(xt), generator=gen).split(batch_size):
            opt.zero_grad()
            nn.functional.cross_entropy(net(xt[idx]), yt[idx]).backward()
            opt.step()
        net.eval()
        with torch.no_grad():
            acc = (net(xv).argmax(1) == yv).float().mean().item()
        if acc > best:
            best, since = acc, 0
            best_state = {k: v.clone() for k, v in net.state_dict().items()}
        else:
            since += 1
            if since >= patience:
                break
    net.load_state_dict(best_state)
    net.eval()

    def predict(a: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            return net(tensor(a)).argmax(1).numpy()

    return predict, epochs


def holdout(n: int, seed: int, fraction: float = 0.1) -> tuple[np.ndarray, np.ndarray]:
    """Training and held-out row indices (a fixed random tenth held out)."""
    perm = np.random.default_rng(seed).permutation(n)
    cut = max(1, int(round(n * fraction)))
    return np.sort(perm[cut:]), np.sort(perm[:cut])


@register
class Detection(Task):
    """PAWS-X en/de/es/fr and MSRPC with the Opusparcus MLP protocol."""

    name = "detection"
    title = "Paraphrase detection"
    paper = "Opusparcus 2018 §4, Tables 2 and 7"
    needs_encoder = False
    notes = (
        "Opusparcus is not available: PAWS-X (trained on dev, reported on test) and MSRPC "
        "(trained on train, reported on test) stand in.",
        "MLP with one hidden layer of 200 units on [u, v] (Opusparcus §4) and on "
        "[|u − v|, u * v]; features standardised on the training rows; fixed seed; early "
        "stopping on MSRPC's validation split or on a held-out tenth of PAWS-X dev.",
        "Accuracy and F1 of the paraphrase class × 100; 'all paraphrases' labels every test "
        "pair a paraphrase (Opusparcus Table 2, AP). A pair scorer gets the MLP on its score.",
    )

    def load(self) -> dict[str, Any]:
        data = self.settings.data

        def splits(name: str) -> DetectionSplits:
            if name == "MSRPC":
                return DetectionSplits(read_msrpc(data, "train"), read_msrpc(data, "val"),
                                       read_msrpc(data, "test"), "train", "val")
            lang = name.removeprefix("PAWS-X ")
            return DetectionSplits(read_paws(data, lang, "dev"), None,
                                   read_paws(data, lang, "test"), "dev", "a tenth of dev")

        return load_sets([f"PAWS-X {lang}" for lang in PAWS_LANGS] + ["MSRPC"], splits)

    def languages(self, set_name: str, data: DetectionSplits) -> tuple[str, ...]:
        return (data.test.lang_a,)

    def _features(self, model: EvalModel, pairs: Pairs) -> dict[str, np.ndarray]:
        if not model.is_encoder:
            score = model.encoder.score_pairs(pairs.a, pairs.b)
            return {"score": np.asarray(score, dtype=float)[:, None]}
        u, v = encode_pairs(model, pairs.a, pairs.b, pairs.lang_a, pairs.lang_b, self.settings)
        return {k: pair_features(u, v, k) for k in FEATURES}

    def run_set(self, model: EvalModel, set_name: str, data: DetectionSplits) -> dict:
        s = self.settings
        train = self._features(model, data.train)
        test = self._features(model, data.test)
        y, y_test = data.train.gold, data.test.gold
        if data.valid is not None:
            valid, y_val = self._features(model, data.valid), data.valid.gold
            fit = np.arange(len(y))
        else:
            fit, held = holdout(len(y), s.seed)
            valid, y_val = {k: v[held] for k, v in train.items()}, y[held]
        results = {}
        for kind, x in train.items():
            predict, epochs = train_mlp(x[fit], y[fit], valid[kind], y_val, hidden=s.mlp_hidden,
                                        max_epochs=s.mlp_max_epochs, patience=s.mlp_patience,
                                        seed=s.seed)
            results[kind] = {**accuracy_f1(predict(test[kind]), y_test), "epochs": epochs}
        return {"train": data.train_name, "early_stopping": data.valid_name,
                "n_train": int(len(fit)), "n_valid": int(len(y_val)), "n_test": int(len(y_test)),
                "all_paraphrases": accuracy_f1(np.ones_like(y_test), y_test),
                "features": results}
