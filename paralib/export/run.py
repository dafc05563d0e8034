"""``export(model_path, out, to)``: write a paralib model folder as a sentence-transformers or
model2vec folder.

The output folder is written beside ``out`` and moved there at the end; an existing ``out`` is
replaced only when paralib made it (:mod:`paralib.models.folder`: its marker, or an empty
folder), and never when it is, holds or lies inside the model folder itself.
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from paralib.export.errors import ExportError
from paralib.models.folder import MARKER, made_by_paralib, mark, replace_with

if TYPE_CHECKING:
    from paralib.models.pretrained import SentenceEncoder

TARGETS = ("sentence-transformers", "model2vec")


@dataclass(frozen=True)
class Exported:
    """What :func:`export` wrote: the folder, the target library, its module
    (``StaticEmbedding``, ``ParalibModule`` or ``StaticModel``), the model's name and size."""

    out: Path
    target: str
    module: str
    name: str
    dim: int


def check_out(model: Path, out: Path) -> None:
    """Raise :class:`ExportError` when ``out`` may not be written."""
    src, dst = model.resolve(), out.resolve()
    if dst == src or dst in src.parents or src in dst.parents:
        raise ExportError(f"output folder {out} is, holds or lies inside the model folder "
                          f"{model}: expected a folder of its own")
    if out.exists() and not (out.is_dir() and made_by_paralib(out)):
        raise ExportError(f"output folder {out} exists and paralib did not make it (no "
                          f"{MARKER}): paralib export never replaces it; expected a new or "
                          "empty folder, or one paralib wrote")


def export(model_path: str | Path, out: str | Path, to: str, name: str | None = None,
           quality: str | Path | None = None) -> Exported:
    """Export the paralib model folder ``model_path`` to ``out`` for ``to`` (one of
    :data:`TARGETS`); returns what it wrote.

    ``name`` (default: the model folder's name) titles the model card and picks the model's
    row of ``quality`` (default ``benchmarks/results/quality.json``) for its ``model-index``.
    """
    from paralib.models import load

    if to not in TARGETS:
        raise ExportError(f"unknown export target {to!r}: expected one of {', '.join(TARGETS)}")
    model, out = Path(model_path), Path(out)
    check_out(model, out)
    encoder = load(model)
    name = name or model.resolve().name
    if to == "model2vec":
        from paralib.export.m2v import check_model2vec

        check_model2vec(encoder, str(model))  # before anything is written
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        module = _write(encoder, model, str(out), tmp, to, name, quality)
        mark(tmp)
        replace_with(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return Exported(out, to, module, name, encoder.dim)


def _write(encoder: SentenceEncoder, model: Path, out: str, tmp: Path, to: str, name: str,
           quality: str | Path | None) -> str:
    """Write the folder and its card into ``tmp``; returns the module kind."""
    try:
        from paralib.export.card import model_card
        if to == "model2vec":
            from paralib.export.m2v import write_model2vec
        else:
            from paralib.export.st import write_sentence_transformers
    except ImportError as e:
        raise ExportError(f"paralib export --to {to} needs {to} and tokenizers, the optional "
                          f"extra 'peers' (pip install -e '.[peers]'): {e}") from e
    try:
        if to == "model2vec":
            notes = [write_model2vec(encoder, tmp, str(model))]
            module = "StaticModel"
        else:
            module, notes = write_sentence_transformers(encoder, tmp), []
    except ExportError as e:
        if str(e).startswith(str(model)):
            raise
        raise ExportError(f"{model}: {e}") from e
    card = model_card(name, to, module, model, encoder, out,
                      Path(quality) if quality else None, notes)
    (tmp / "README.md").write_text(card, encoding="utf-8")
    return module
