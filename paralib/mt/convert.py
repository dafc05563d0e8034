"""Conversion of Marian / OPUS-MT / Hugging Face seq2seq models to CTranslate2.

Back-translation runs on CTranslate2 (2017 §3 used beam search over an NMT system; CT2 is
its fast inference engine). Any model that ``ctranslate2.converters.TransformersConverter``
accepts can be converted; sentencepiece files next to the model are copied along so that the
converted folder is self-contained for :class:`paralib.translate.translator.Translator`.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from paralib.errors import InputError

TOKENIZER_FILES = ("source.spm", "target.spm", "sentencepiece.bpe.model", "spiece.model")
QUANTIZATIONS = ("float32", "int8", "int8_float32", "int8_float16", "float16", "bfloat16")


class ConversionError(InputError, ValueError):
    """The source model cannot be converted."""


def convert(src: str | Path, dst: str | Path, quantization: str = "int8") -> Path:
    """Convert the model folder ``src`` into a CTranslate2 model folder ``dst``.

    ``quantization`` is one of :data:`QUANTIZATIONS`; ``int8`` is stored as ``int8_float32``
    weights so that the model also runs on CPUs without int8 GEMM for float activations.
    """
    import ctranslate2

    src, dst = Path(src), Path(dst)
    if not (src / "config.json").is_file():
        raise ConversionError(f"{src} is not a Hugging Face model folder (no config.json)")
    if quantization not in QUANTIZATIONS:
        raise ConversionError(f"unknown quantization '{quantization}' (one of {QUANTIZATIONS})")
    q = "int8_float32" if quantization == "int8" else quantization
    copy = [f for f in TOKENIZER_FILES if (src / f).is_file()]
    converter = ctranslate2.converters.TransformersConverter(str(src), copy_files=copy)
    converter.convert(str(dst), quantization=q, force=True)
    meta_src = src / "paralib.json"
    if meta_src.is_file():
        meta = json.loads(meta_src.read_text())
        meta["quantization"] = quantization
        (dst / "paralib.json").write_text(json.dumps(meta, indent=2))
    card = src / "README.md"
    if card.is_file():
        shutil.copy(card, dst / "README.md")
    return dst
