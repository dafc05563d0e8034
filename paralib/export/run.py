"""``export(model_path, out, to)``: write a paralib model folder as a sentence-transformers,
model2vec, ONNX or (smaller) paralib folder, optionally with its first ``dims`` dimensions
only and int8 tables (:mod:`paralib.export.dims`; what they cost is measured and written on
the card, :mod:`paralib.export.measure`).

The output folder is written beside ``out`` and moved there at the end. An existing ``out`` is
replaced only when an earlier ``paralib export`` made it (its :data:`EXPORT_MARKER` says
``"stage": "export"``) or it is an empty folder: never a trained model folder, a file or a
folder of the user's, and never when it is, holds or lies inside the model folder itself.
The folder and its files get the modes the umask gives, as training output does.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from paralib.export.errors import ExportError
from paralib.export.static import STATIC_TARGETS, check_static
from paralib.models.folder import MARKER, has_format, json_object

if TYPE_CHECKING:
    from paralib.export.measure import Measured
    from paralib.models.pretrained import SentenceEncoder

EXPORT_MARKER = ".paralib-export"
"""The file that says ``paralib export`` wrote a folder (JSON, ``"stage": "export"``)."""
TARGETS = ("sentence-transformers", "model2vec", "onnx", "paralib")
QUANTIZE = ("int8",)
# the optional extra each target needs (paralib needs none)
EXTRAS = {"sentence-transformers": "peers", "model2vec": "peers", "onnx": "export"}


@dataclass(frozen=True)
class Exported:
    """What :func:`export` wrote: the folder, the target library, its module
    (``StaticEmbedding``, ``ParalibModule``, ``StaticModel``, ``onnx`` or ``paralib``), the
    model's name and size, its table precision and what the options cost (``measured``)."""

    out: Path
    target: str
    module: str
    name: str
    dim: int
    quantize: str | None = None
    measured: Measured | None = None


def made_by_export(folder: Path) -> bool:
    """Whether ``folder`` holds the marker of an earlier ``paralib export``."""
    return json_object(folder / EXPORT_MARKER).get("stage") == "export"


def _what_blocks(out: Path) -> str | None:
    """Why ``out`` may not be replaced by an export (what it is), or ``None`` when it may."""
    for parent in out.parents:
        if parent.exists() or parent.is_symlink():
            if not parent.is_dir():
                return f"lies under {parent}, which is a file, not a folder"
            break
    if out.is_symlink():
        return "is a symbolic link"
    if not out.exists():
        return None
    if not out.is_dir():
        return "is a file"
    # a model folder of paralib train or a shipped one (not one that export --to paralib wrote)
    if (out / MARKER).is_file() or (not made_by_export(out) and has_format(out)):
        return "is a paralib model folder (a trained or shipped model), which export never replaces"
    if made_by_export(out) or not any(out.iterdir()):
        return None
    return (f"is a folder of yours (paralib did not make it: no {EXPORT_MARKER} marker), which "
            "export never replaces")


def check_out(model: Path, out: Path) -> None:
    """Raise :class:`ExportError` when ``out`` may not be written: it is, holds or lies inside
    the model folder, or it exists and is not an earlier export or an empty folder."""
    src, dst = model.resolve(), out.resolve()
    if dst == src or dst in src.parents or src in dst.parents:
        raise ExportError(f"output folder {out} is, holds or lies inside the model folder "
                          f"{model}: expected a folder of its own")
    why = _what_blocks(out)
    if why is not None:
        raise ExportError(f"output folder {out} {why}: expected a new path, an empty folder "
                          "or a folder an earlier paralib export wrote")


def _follow_umask(root: Path) -> None:
    """Give ``root`` and everything in it the modes a plain ``mkdir`` / ``open`` would under
    the umask (``mkdtemp`` makes 0700, some writers 0600)."""
    mask = os.umask(0o022)  # the process's umask, read by setting it, then set back
    os.umask(mask)
    os.chmod(root, 0o777 & ~mask)
    for folder, dirs, files in os.walk(root):
        for d in dirs:
            os.chmod(os.path.join(folder, d), 0o777 & ~mask)
        for f in files:
            path = os.path.join(folder, f)
            executable = os.stat(path).st_mode & 0o111
            os.chmod(path, (0o777 if executable else 0o666) & ~mask)


def _swap(model: Path, new: Path, out: Path) -> None:
    """Move the finished folder ``new`` to ``out``, replacing an earlier export there (checked
    again just before: the old one is moved aside first and deleted only once ``new`` is
    in its place)."""
    check_out(model, out)
    old = None
    if out.exists():
        old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old.", dir=out.parent))
        os.replace(out, old / out.name)
    os.replace(new, out)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def export(model_path: str | Path, out: str | Path, to: str, name: str | None = None,
           quality: str | Path | None = None, dims: int | None = None,
           quantize: str | None = None) -> Exported:
    """Export the paralib model folder ``model_path`` to ``out`` for ``to`` (one of
    :data:`TARGETS`); returns what it wrote.

    ``name`` (default: the model folder's name) titles the model card and picks the model's
    row of ``quality`` (default ``benchmarks/results/quality.json``) for its ``model-index``.
    ``dims`` keeps the first ``dims`` dimensions of the vectors, ``quantize="int8"`` stores
    the tables as int8 rows with a scale each; with either, the card gives the size and the
    STS Benchmark test scores of the source and of the export, measured.
    """
    from paralib.export.dims import check_options
    from paralib.models import load

    if to not in TARGETS:
        raise ExportError(f"unknown export target {to!r}: expected one of {', '.join(TARGETS)}")
    if quantize is not None and quantize not in QUANTIZE:
        raise ExportError(f"--quantize {quantize}: unknown; expected one of "
                          f"{', '.join(QUANTIZE)}")
    from paralib.models.shipped import resolve

    model, out = resolve(model_path), Path(out)  # a shipped model's name or a folder
    check_out(model, out)
    encoder = load(model)
    name = name or model.resolve().name
    if to in STATIC_TARGETS:
        check_static(encoder.model.config, str(model), to)  # before anything is written
    check_options(encoder, str(model), to, dims, quantize)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        module, measured = _write(encoder, model, str(out), tmp, to, name, quality, dims,
                                  quantize)
        (tmp / EXPORT_MARKER).write_text(json.dumps(
            {"made_by": "paralib", "stage": "export", "target": to, "model": str(model)}) + "\n")
        _follow_umask(tmp)
        _swap(model, tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return Exported(out, to, module, name, measured.export.dim if measured else encoder.dim,
                    quantize, measured)


def _needs(to: str) -> None:
    """Raise :class:`ExportError` when the libraries of target ``to`` are not installed."""
    libraries = {"sentence-transformers": ("sentence_transformers", "tokenizers"),
                 "model2vec": ("model2vec", "tokenizers"),
                 "onnx": ("onnx", "tokenizers")}.get(to, ())
    for library in libraries:
        try:
            __import__(library)
        except ImportError as e:
            raise ExportError(f"paralib export --to {to} needs {', '.join(libraries)}, the "
                              f"optional extra '{EXTRAS[to]}' (pip install -e "
                              f"'.[{EXTRAS[to]}]'): {e}") from e


def _write(encoder: SentenceEncoder, model: Path, out: str, tmp: Path, to: str, name: str,
           quality: str | Path | None, dims: int | None = None,
           quantize: str | None = None) -> tuple[str, Measured | None]:
    """Write the folder and its card into ``tmp``; returns the module kind and, with
    ``dims`` or ``quantize``, what they cost."""
    from paralib.export.card import model_card

    _needs(to)
    int8 = quantize == "int8"
    source = encoder
    if dims is not None:
        from paralib.export.dims import truncate

        encoder = truncate(encoder, dims)
    try:
        if to == "model2vec":
            from paralib.export.m2v import write_model2vec

            notes = [write_model2vec(encoder, tmp, str(model), int8)]
            module = "StaticModel"
        elif to == "onnx":
            from paralib.export.onnx import write_onnx

            notes, module = [write_onnx(encoder, tmp, str(model), int8)], "onnx"
        elif to == "paralib":
            from paralib.export.model_folder import write_paralib

            notes = [write_paralib(encoder, tmp, int8, {"source": str(model), "dims": dims,
                                                        "quantize": quantize})]
            module = "paralib"
        else:
            from paralib.export.st import write_sentence_transformers

            module, notes = write_sentence_transformers(encoder, tmp), []
    except ExportError as e:
        if str(e).startswith(str(model)):
            raise
        raise ExportError(f"{model}: {e}") from e
    measured = None
    if dims is not None or quantize is not None:
        from paralib.export.dims import through_int8
        from paralib.export.measure import measure

        measured = measure(source, model, through_int8(encoder) if int8 else encoder, tmp, int8)
    card = model_card(name, to, module, model, source, out,
                      Path(quality) if quality else None, notes, measured)
    (tmp / "README.md").write_text(card, encoding="utf-8")
    return module, measured
