"""A CTranslate2 translator with sentencepiece tokenisation, k-best lists and per-token cost.

Implements the decoding side of back-translation (2017 §3: beam search, k-best lists;
2018 §3: beam 12, best hypothesis) and the translation cost of 2017 §5.6: the negative
log-likelihood of a hypothesis divided by its number of tokens (``</s>`` included).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

import sentencepiece as spm

from paralib.errors import InputError, MissingError


class ModelNotFoundError(MissingError, FileNotFoundError):
    """The CTranslate2 model folder is missing or incomplete."""


@dataclass(frozen=True)
class Hypothesis:
    """One entry of a k-best list: text, cost (mean NLL per token) and scored tokens."""

    text: str
    cost: float
    tokens: int


def check_model_dir(path: str | Path) -> Path:
    """Raise :class:`ModelNotFoundError` unless ``path`` holds a CTranslate2 model with spm."""
    p = Path(path)
    missing = [f for f in ("model.bin", "source.spm", "target.spm") if not (p / f).is_file()]
    if missing:
        raise ModelNotFoundError(
            f"{p} is not a paralib translation model (missing {', '.join(missing)}); "
            "train one with 'paralib mt train' or convert one with 'paralib mt convert'"
        )
    check_model_header(p / "model.bin")
    return p


class CTranslate2ModelError(InputError, ValueError):
    """A ``model.bin`` that is not a CTranslate2 model."""


def check_model_header(path: Path) -> None:
    """Check the head of a CTranslate2 ``model.bin`` (a format version, then the model
    spec's name, e.g. ``TransformerSpec``) before any actor loads it: a garbage file is one
    message naming it, not an actor that dies in CTranslate2."""
    with path.open("rb") as f:
        head = f.read(260)
    found = "an empty file" if not head else f"{len(head)}+ bytes starting {head[:12]!r}"
    if len(head) >= 6:
        version = int.from_bytes(head[:4], "little")
        size = int.from_bytes(head[4:6], "little")
        name = head[6:6 + size].rstrip(b"\0")
        if 1 <= version <= 64 and name.endswith(b"Spec") and name.isascii():
            return
    raise CTranslate2ModelError(f"{path}: not a CTranslate2 model ({found}); expected the "
                                "model.bin written by 'paralib mt convert' or "
                                "ct2-transformers-converter")


def model_info(path: str | Path) -> dict:
    """The ``paralib.json`` metadata of a model folder (languages, BLEU), or ``{}``."""
    meta = Path(path) / "paralib.json"
    return json.loads(meta.read_text()) if meta.is_file() else {}


def cuda_available() -> bool:
    """True when CTranslate2 sees a CUDA device."""
    import ctranslate2

    try:
        return ctranslate2.get_cuda_device_count() > 0
    except RuntimeError:
        return False


class Translator:
    """Sentencepiece + ``ctranslate2.Translator`` for one model folder."""

    def __init__(self, model_dir: str | Path, device: str = "auto", compute_type: str = "auto",
                 intra_threads: int = 0, inter_threads: int = 1):
        import ctranslate2

        path = check_model_dir(model_dir)
        if device == "auto":
            device = "cuda" if cuda_available() else "cpu"
        self.device = device
        self.translator = ctranslate2.Translator(
            str(path), device=device, compute_type=compute_type,
            intra_threads=intra_threads or (os.cpu_count() or 1), inter_threads=inter_threads)
        self.src_sp = spm.SentencePieceProcessor(model_file=str(path / "source.spm"))
        self.tgt_sp = spm.SentencePieceProcessor(model_file=str(path / "target.spm"))

    def tokenize(self, texts: list[str]) -> list[list[str]]:
        """Source-side sentencepiece pieces for each text."""
        return self.src_sp.encode(texts, out_type=str)

    def translate(self, texts: list[str], beam_size: int = 4, num_hypotheses: int = 1,
                  length_penalty: float = 1.0, max_input_length: int = 128,
                  max_decoding_length: int = 128, max_batch_size: int = 1024,
                  batch_type: str = "tokens") -> list[list[Hypothesis]]:
        """Translate ``texts``; returns the k-best list (best first) for each input."""
        if not texts:
            return []
        results = self.translator.translate_batch(
            self.tokenize(texts), beam_size=beam_size, num_hypotheses=num_hypotheses,
            length_penalty=length_penalty, max_input_length=max_input_length,
            max_decoding_length=max_decoding_length, max_batch_size=max_batch_size,
            batch_type=batch_type, return_scores=True)
        out: list[list[Hypothesis]] = []
        for res in results:
            hyps = []
            for pieces, score in zip(res.hypotheses, res.scores, strict=True):
                # A finished hypothesis also scores its end token; one cut at the maximum
                # length does not. CT2 reports log P / n**length_penalty; the cost is
                # -log P / n (2017 §5.6).
                n = len(pieces) + (1 if len(pieces) < max_decoding_length else 0)
                cost = -score * (n**length_penalty) / n
                hyps.append(Hypothesis(self.tgt_sp.decode(pieces), float(cost), n))
            out.append(hyps)
        return out
