"""What ``--dims`` and ``--quantize`` cost, measured at export time for the model card: the
size of the weight files and the STS Benchmark test correlations (Pearson's r and Spearman's
ρ x 100 of the pair cosines, 1,379 pairs, a second or two for an averaging model) of the
source model and of the export.

The export's vectors are measured with paralib on the model as written (truncated, its tables
rounded through int8): every target gives those vectors (onnxruntime to float32 rounding).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from paralib.errors import ParalibError
from paralib.models.folder import WEIGHTS
from paralib.models.pretrained import SentenceEncoder

WEIGHT_SUFFIXES = (".safetensors", ".onnx")


@dataclass(frozen=True)
class Side:
    """One column of the card's table: dimensions, table precision, bytes of weights and the
    STSB test scores (``None`` when the data was not found)."""

    dim: int
    precision: str
    weight_bytes: int
    pearson: float | None
    spearman: float | None


@dataclass(frozen=True)
class Measured:
    """The source model and the export, side by side; ``missing`` says why no scores."""

    source: Side
    export: Side
    pairs: int
    missing: str | None = None


def table_precision(folder: Path) -> str:
    """The dtype of the first embedding table in ``folder``'s ``model.safetensors``."""
    from safetensors import safe_open

    with safe_open(str(folder / WEIGHTS), framework="pt") as f:
        names = f.keys()
        key = next(k for k in names if k.endswith(".embedding.weight"))
        kind = f.get_slice(key).get_dtype()
    return {"F32": "float32", "F16": "float16", "BF16": "bfloat16", "I8": "int8"}.get(kind,
                                                                                      kind)


def weight_bytes(folder: Path) -> int:
    """Bytes of every weight file (``*.safetensors``, ``*.onnx``) under ``folder``."""
    return sum(p.stat().st_size for p in folder.rglob("*")
               if p.is_file() and p.suffix in WEIGHT_SUFFIXES)


def stsb_test() -> tuple[list[str], list[str], list[float]] | str:
    """The STS Benchmark test pairs and gold scores, or why they could not be read."""
    from paralib.evaluate.loaders import read_stsb
    from paralib.paths import data_root

    try:
        pairs = read_stsb(data_root(), "test")
    except (ParalibError, OSError) as e:
        return str(e)
    return list(pairs.a), list(pairs.b), [float(g) for g in pairs.gold]


def scores(encoder: SentenceEncoder, a: list[str], b: list[str],
           gold: list[float]) -> tuple[float | None, float | None]:
    """Pearson's r and Spearman's ρ x 100 of ``encoder``'s pair cosines with ``gold``."""
    import numpy as np

    from paralib.evaluate.metrics import correlations

    got = correlations(encoder.similarity_pairwise(a, b), np.asarray(gold))
    return got["pearson"], got["spearman"]


def measure(source: SentenceEncoder, source_folder: Path, exported: SentenceEncoder,
            export_folder: Path, int8: bool) -> Measured:
    """The card's comparison of ``source`` (as saved in ``source_folder``) and ``exported``
    (the vectors of the folder written to ``export_folder``)."""
    data = stsb_test()
    missing = data if isinstance(data, str) else None
    src = exp = (None, None)
    if not isinstance(data, str):
        src, exp = scores(source, *data), scores(exported, *data)
    return Measured(
        Side(source.dim, table_precision(source_folder),
             (source_folder / WEIGHTS).stat().st_size, *src),
        Side(exported.dim, "int8 (a float32 scale per row)" if int8 else "float32",
             weight_bytes(export_folder), *exp),
        0 if isinstance(data, str) else len(data[0]), missing)


def _value(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.2f}"


def card_section(m: Measured) -> list[str]:
    """The card's lines on what the export's options cost, measured."""
    lines = ["## Size and quality of this export", "",
             "| | source model | this export |", "|---|---|---|",
             f"| dimensions | {m.source.dim} | {m.export.dim} |",
             f"| table | {m.source.precision} | {m.export.precision} |",
             f"| weight files (bytes) | {m.source.weight_bytes:,} | {m.export.weight_bytes:,} |",
             f"| STSB test Pearson's r x 100 | {_value(m.source.pearson)} | "
             f"{_value(m.export.pearson)} |",
             f"| STSB test Spearman's ρ x 100 | {_value(m.source.spearman)} | "
             f"{_value(m.export.spearman)} |", ""]
    if m.missing:
        lines.append(f"The STS Benchmark was not found, so neither model was scored: {m.missing}")
    else:
        lines.append(f"Measured by `paralib export` on the {m.pairs:,} STS Benchmark test pairs "
                     "(cosine of the two vectors against the gold score); the export's vectors "
                     "are those of the model as written.")
    return lines
