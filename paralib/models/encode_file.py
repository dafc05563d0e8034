"""``paralib encode``: embed a text file (one sentence per line) into a ``.npy`` matrix."""

from __future__ import annotations

import gzip
import time
from pathlib import Path

import numpy as np

from paralib.models.pretrained import load


def read_sentences(path: str | Path) -> list[str]:
    """Lines of a UTF-8 text file (``.gz`` too); undecodable bytes are an error naming the line."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"input {path}: no such file")
    opener = gzip.open if path.suffix == ".gz" else open
    out = []
    with opener(path, "rb") as f:
        for n, raw in enumerate(f, 1):
            try:
                out.append(raw.decode("utf-8").rstrip("\r\n"))
            except UnicodeDecodeError as e:
                raise ValueError(f"{path}:{n}: not UTF-8 ({e.reason} at byte {e.start})") from e
    return out


def encode_file(model: str, input_path: str, output: str, batch_size: int = 256,
                normalize: bool = False) -> dict:
    """Encode every line of ``input_path`` with the model folder ``model`` into ``output``.

    Empty lines are kept (zero vectors, so row i is line i) and counted in the summary."""
    encoder = load(model)
    sentences = read_sentences(input_path)
    t0 = time.perf_counter()
    vecs = encoder.encode(sentences, batch_size=batch_size, normalize=normalize)
    seconds = time.perf_counter() - t0
    Path(output).parent.mkdir(parents=True, exist_ok=True)
    np.save(output, vecs)
    return {"output": output, "sentences": len(sentences), "dim": int(vecs.shape[1]),
            "empty_lines": sum(1 for s in sentences if not s.strip()),
            "sentences_per_s": round(len(sentences) / max(seconds, 1e-9), 1)}
