"""The trained model folder and the object users encode with (``paralib.load``).

A folder holds ``config.json`` (the model section, languages, training summary),
``model.safetensors`` (weights), ``tokenizers/<n>/`` (each distinct tokeniser once) and
``README.md`` (the model card). Loading needs torch on CPU and nothing from Ray.
"""

from __future__ import annotations

import json
import reprlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch
from safetensors.torch import load_file, save_file
from tqdm.auto import tqdm

from paralib.models import reading
from paralib.models.errors import ModelFileError, ModelLoadError
from paralib.models.folder import CARD, CONFIG, FORMAT, WEIGHTS, check_replaceable, mark
from paralib.models.model import ParaphraseModel
from paralib.models.quantized import dequantize
from paralib.models.shipped import resolve
from paralib.models.tokenizers import TokenizerError


class SentenceEncoder:
    """A trained paraphrastic encoder: ``encode``, ``similarity`` and ``save``, shaped like
    sentence-transformers' and model2vec's models (2017 §4, 2019 §2).

    >>> import paralib
    >>> model = paralib.load("paralib-en")
    >>> model.encode("A man plays a guitar.").shape == (model.dim,)
    True
    >>> model.encode(["A man plays a guitar.", "Someone is playing guitar."]).shape[0]
    2
    """

    def __init__(self, model: ParaphraseModel, languages: tuple[str, ...] = ("en",),
                 info: dict[str, Any] | None = None, card: str | None = None):
        self.model = model.eval()
        self.languages = tuple(languages)
        self.info = info or {}
        self.card = card

    @property
    def dim(self) -> int:
        """Size of the sentence vectors."""
        return self.model.out_dim

    def encode(self, sentences: str | Sequence[str], batch_size: int = 256,
               show_progress_bar: bool = False, normalize: bool = False) -> np.ndarray:
        """Vectors of ``sentences``: ``(n, dim)`` float32 for a list, ``(dim,)`` for one
        string; an empty sentence gives a zero vector.

        The vocabulary is joint across languages (2019 §2), so no language is named.
        Sentences are encoded in order of length (less padding for the recurrent encoders)
        and returned in input order; ``normalize`` scales each vector to unit length.

        >>> import paralib
        >>> model = paralib.load("paralib-en")
        >>> v = model.encode(["A dog runs.", ""], normalize=True)
        >>> round(float((v[0] ** 2).sum()), 3), float(abs(v[1]).sum())
        (1.0, 0.0)
        """
        if isinstance(sentences, str):
            return self.encode([sentences], batch_size, show_progress_bar, normalize)[0]
        texts = list(sentences)
        for i, s in enumerate(texts):
            if not isinstance(s, str):
                raise TypeError(f"encode() takes strings: sentence {i} is a "
                                f"{type(s).__name__} ({reprlib.repr(s)})")
        if batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, got {batch_size}")
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        order = np.argsort([len(t) for t in texts], kind="stable")
        starts = range(0, len(texts), batch_size)
        with torch.inference_mode():
            for start in tqdm(starts, desc="encode", unit="batch", disable=not show_progress_bar):
                rows = order[start:start + batch_size]
                out[rows] = self.model.embed([texts[i] for i in rows]).float().cpu().numpy()
        if normalize:
            out /= np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12)
        return out

    def _unit(self, x: str | Sequence[str] | np.ndarray) -> np.ndarray:
        """Unit vectors of sentences, or of given vectors, as a 2-D array."""
        if not isinstance(x, (str, list)) and hasattr(x, "__array__"):
            array = np.asarray(x)
            if array.dtype.kind in "fiu":  # vectors (numpy, torch); a Series of text is not
                v = np.atleast_2d(array.astype(np.float32))
                return v / np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-12)
            x = list(array.reshape(-1))
        return np.atleast_2d(self.encode(x, normalize=True))

    def similarity(self, a: str | Sequence[str] | np.ndarray,
                   b: str | Sequence[str] | np.ndarray) -> np.ndarray:
        """Cosine similarities of every ``a[i]`` with every ``b[j]``, an ``(n, m)`` matrix,
        as sentence-transformers' ``similarity``; ``a`` and ``b`` are sentences (a string
        or a list) or vectors from :meth:`encode`.

        >>> import paralib
        >>> model = paralib.load("paralib-en")
        >>> sims = model.similarity(["A man plays a guitar."],
        ...                         ["Someone is playing guitar.", "The stock market fell."])
        >>> sims.shape, bool(sims[0, 0] > sims[0, 1])
        ((1, 2), True)
        """
        return self._unit(a) @ self._unit(b).T

    def similarity_pairwise(self, a: str | Sequence[str] | np.ndarray,
                            b: str | Sequence[str] | np.ndarray) -> np.ndarray:
        """Cosine of ``a[i]`` with ``b[i]`` for every ``i`` (lists of one length).

        >>> import paralib
        >>> model = paralib.load("paralib-en")
        >>> model.similarity_pairwise(["A dog runs."], ["A dog runs."]).round(3).tolist()
        [1.0]
        """
        ua, ub = self._unit(a), self._unit(b)
        if len(ua) != len(ub):
            raise ValueError(f"similarity_pairwise needs one length, got {len(ua)} and {len(ub)}")
        return (ua * ub).sum(1)

    def save(self, path: str | Path) -> Path:
        """Write this model as a model folder that :func:`load` reads back (config,
        weights, tokenisers, card). An existing folder is replaced only when paralib made
        it (a trained model or an empty folder); anything else is refused.

        >>> import paralib, tempfile, os
        >>> model = paralib.load("paralib-en")
        >>> with tempfile.TemporaryDirectory() as tmp:
        ...     folder = model.save(os.path.join(tmp, "copy"))
        ...     again = paralib.load(folder)
        ...     bool(abs(again.encode("A dog.") - model.encode("A dog.")).max() < 1e-6)
        True
        """
        card = self.card or "# paralib model\n\nLoad with `paralib.load(path)`.\n"
        return save_model(self.model, path, self.languages, self.info, card)


def save_model(model: ParaphraseModel, folder: str | Path, languages: tuple[str, ...],
               info: dict[str, Any], card: str) -> Path:
    """Write a model folder (config, weights, tokenisers, card)."""
    folder = Path(folder)
    check_replaceable(folder)
    folder.mkdir(parents=True, exist_ok=True)
    mark(folder)
    dirs: dict[int, str] = {}
    for tok in model.tokenizers:
        if id(tok) not in dirs:
            dirs[id(tok)] = str(len(dirs))
            tok.save(folder / "tokenizers" / dirs[id(tok)])
    config = {"format": FORMAT, "version": 1, "model": model.config.model_dump(mode="json"),
              "tokenizers": [dirs[id(t)] for t in model.tokenizers],
              "languages": list(languages), "info": info}
    (folder / CONFIG).write_text(json.dumps(config, indent=2, default=str))
    state = {k: v.detach().cpu().contiguous() for k, v in model.state_dict().items()}
    save_file(state, str(folder / WEIGHTS))
    (folder / CARD).write_text(card, encoding="utf-8")
    return folder


def load_state(model: ParaphraseModel, state: dict[str, torch.Tensor], where: str) -> None:
    """Load weights, with an error that names what differs when they do not fit."""
    own = model.state_dict()
    missing = sorted(set(own) - set(state))
    extra = sorted(set(state) - set(own))
    shapes = [f"{k}: {tuple(state[k].shape)} vs {tuple(own[k].shape)}"
              for k in own.keys() & state.keys() if own[k].shape != state[k].shape]
    if missing or extra or shapes:
        raise ModelLoadError(
            f"{where} was saved from a different encoder: missing {missing[:4]}, unexpected "
            f"{extra[:4]}, shape differences {shapes[:4]}")
    model.load_state_dict(state)


def load(name_or_path: str | Path) -> SentenceEncoder:
    """Load a shipped model by name (``"paralib-en"``) or a trained model folder, for
    encoding on CPU without Ray (:mod:`paralib.models.shipped` says where names are found).

    >>> import paralib
    >>> paralib.load("paralib-en").dim > 0
    True
    """
    folder = resolve(name_or_path)
    config = reading.read_config(folder)
    weights = folder / WEIGHTS
    if not weights.is_file():
        raise ModelLoadError(f"{folder} is incomplete: {WEIGHTS} is missing")
    try:  # paths, sizes and weight shapes checked before anything is allocated
        model = reading.build_checked(folder, config)
    except TokenizerError as e:
        raise ModelFileError(str(e)) from e
    try:
        state = load_file(str(weights))
    except Exception as e:  # safetensors raises its own SafetensorError, or OSError
        raise ModelLoadError(f"{weights}: not a readable safetensors file ({e}); expected the "
                             "weights paralib saved with this model's config.json") from e
    load_state(model, dequantize(state, folder), str(weights))
    card = folder / CARD
    text = (reading.inside(folder, card, CARD).read_text(encoding="utf-8") if card.is_file()
            else None)
    return SentenceEncoder(model, tuple(config.get("languages", ["en"])), config.get("info"),
                           text)
