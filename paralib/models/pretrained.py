"""The trained model folder and the object users encode with (``paralib.load``).

A folder holds ``config.json`` (the model section, languages, training summary),
``model.safetensors`` (weights), ``tokenizers/<n>/`` (each distinct tokeniser once) and
``README.md`` (the model card). Loading needs torch on CPU and nothing from Ray.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import torch
from safetensors.torch import load_file, save_file

from paralib.models.config import ModelConfig
from paralib.models.errors import ModelLoadError
from paralib.models.folder import CARD, CONFIG, FORMAT, WEIGHTS, check_replaceable, mark
from paralib.models.model import ParaphraseModel
from paralib.models.tokenizers import Tokenizer, TokenizerError



class SentenceEncoder:
    """``encode(sentences) -> (n, d)`` float32 and ``similarity(a, b)`` (cosines)."""

    def __init__(self, model: ParaphraseModel, languages: tuple[str, ...] = ("en",),
                 info: dict[str, Any] | None = None):
        self.model = model.eval()
        self.languages = tuple(languages)
        self.info = info or {}

    @property
    def dim(self) -> int:
        """Size of the sentence vectors."""
        return self.model.out_dim

    def encode(self, sentences: list[str], batch_size: int = 256, normalize: bool = False,
               lang: str | None = None) -> np.ndarray:
        """Vectors of ``sentences`` (empty sentences give zero vectors).

        Sentences are encoded in order of length (less padding for the recurrent encoders)
        and returned in input order. ``lang`` is accepted for multilingual callers: the
        vocabulary is joint across languages (2019 §2), so it does not change the encoding.
        """
        if isinstance(sentences, str):
            raise TypeError("encode() takes a list of sentences, not one string")
        texts = ["" if s is None else str(s) for s in sentences]
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        order = np.argsort([len(t) for t in texts], kind="stable")
        with torch.inference_mode():
            for start in range(0, len(texts), batch_size):
                rows = order[start:start + batch_size]
                out[rows] = self.model.embed([texts[i] for i in rows]).float().cpu().numpy()
        if normalize:
            out /= np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12)
        return out

    def similarity(self, a: list[str] | str, b: list[str] | str) -> np.ndarray:
        """Cosine of ``a[i]`` and ``b[i]`` (strings give a 1-element array)."""
        a = [a] if isinstance(a, str) else a
        b = [b] if isinstance(b, str) else b
        if len(a) != len(b):
            raise ValueError(f"similarity needs lists of one length, got {len(a)} and {len(b)}")
        ea, eb = self.encode(a, normalize=True), self.encode(b, normalize=True)
        return (ea * eb).sum(1)


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


def read_config(folder: Path) -> dict[str, Any]:
    """The validated ``config.json`` of a model folder."""
    if not folder.is_dir():
        raise ModelLoadError(f"model folder {folder} does not exist")
    path = folder / CONFIG
    if not path.is_file():
        raise ModelLoadError(f"{folder} is not a paralib model: {CONFIG} is missing")
    try:
        config = json.loads(path.read_text())
    except json.JSONDecodeError as e:
        raise ModelLoadError(f"{path}: not valid JSON ({e})") from e
    if config.get("format") != FORMAT:
        raise ModelLoadError(f"{path}: format is {config.get('format')!r}, not {FORMAT!r}")
    return config


def build_from_folder(folder: Path, config: dict[str, Any]) -> ParaphraseModel:
    """The model of a folder with its tokenisers, weights not loaded."""
    try:
        model_config = ModelConfig.model_validate(config["model"])
        cache: dict[str, Tokenizer] = {}
        toks = [cache.setdefault(d, Tokenizer.load(folder / "tokenizers" / d))
                for d in config["tokenizers"]]
    except (KeyError, ValueError, TokenizerError) as e:
        raise ModelLoadError(f"{folder}: cannot rebuild the model: {e}") from e
    return ParaphraseModel(model_config, toks)


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


def load(path: str | Path) -> SentenceEncoder:
    """Load a trained model folder for encoding (CPU, no Ray)."""
    folder = Path(path)
    config = read_config(folder)
    weights = folder / WEIGHTS
    if not weights.is_file():
        raise ModelLoadError(f"{folder} is incomplete: {WEIGHTS} is missing")
    model = build_from_folder(folder, config)
    try:
        state = load_file(str(weights))
    except Exception as e:  # safetensors raises its own SafetensorError, or OSError
        raise ModelLoadError(f"{weights}: not a readable safetensors file ({e}); expected the "
                             "weights paralib saved with this model's config.json") from e
    load_state(model, state, str(weights))
    return SentenceEncoder(model, tuple(config.get("languages", ["en"])), config.get("info"))
