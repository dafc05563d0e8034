"""Reading a model folder that may have been changed by hand or by someone else.

Nothing in a folder is trusted before it is checked: ``config.json`` is validated against
:class:`FolderConfig` (one message naming the file, the field and what was expected); every
path the folder names, and every file that loading reads, must resolve inside the folder
(symlinks included); the sizes in ``config.json`` are compared with the shapes in the header of
``model.safetensors`` before any table is allocated, so a tampered ``dim`` is a message and
not gigabytes of memory.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from paralib.models.config import ModelConfig, PartConfig
from paralib.models.errors import ModelFileError, ModelLoadError, one_line
from paralib.models.folder import CONFIG, FORMAT, WEIGHTS

if TYPE_CHECKING:
    from paralib.models.model import ParaphraseModel


class FolderConfig(BaseModel):
    """The ``config.json`` of a paralib model folder (written by
    :func:`paralib.models.pretrained.save_model`)."""

    model_config = ConfigDict(extra="forbid")

    format: Literal["paralib-encoder"]
    version: int = Field(default=1, ge=1, strict=True)
    model: ModelConfig
    tokenizers: list[str] = Field(min_length=1)
    languages: list[str] = Field(default_factory=lambda: ["en"])
    info: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _one_tokenizer_per_part(self) -> FolderConfig:
        if len(self.tokenizers) != len(self.model.parts):
            raise ValueError(f"tokenizers names {len(self.tokenizers)} folder(s) for "
                             f"{len(self.model.parts)} model part(s); expected one per part")
        return self


def read_config(folder: Path) -> dict[str, Any]:
    """The validated ``config.json`` of a model folder, as a dict with defaults filled in."""
    if not folder.is_dir():
        raise ModelLoadError(f"model folder {folder} does not exist")
    path = folder / CONFIG
    if not path.is_file():
        raise ModelLoadError(f"{folder} is not a paralib model: {CONFIG} is missing")
    inside(folder, path, CONFIG)
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as e:
        raise ModelFileError(f"{path} is not valid JSON ({e}); expected the {CONFIG} that "
                             "paralib wrote with this model") from e
    if not isinstance(raw, dict):
        raise ModelFileError(f"{path} holds a JSON {type(raw).__name__}; expected an object "
                             f"with format {FORMAT!r}, model, tokenizers and languages")
    if raw.get("format") != FORMAT:
        raise ModelLoadError(f"{path}: format is {raw.get('format')!r}, not {FORMAT!r}")
    try:
        config = FolderConfig.model_validate(raw)
    except ValidationError as e:
        raise ModelFileError(one_line(e, str(path))) from e
    return config.model_dump(mode="json")


def inside(folder: Path, path: Path, entry: str) -> Path:
    """``path`` resolved, when it lies inside ``folder`` (after following symlinks);
    otherwise a :class:`ModelFileError` naming ``entry``, the folder entry that led to it."""
    root = folder.resolve()
    real = path.resolve()
    if not real.is_relative_to(root):
        raise ModelFileError(f"{folder}: {entry} leads to {real}, outside the model folder; "
                             "expected every path of a model folder to stay inside it")
    return real


def contained_tree(folder: Path, sub: Path, entry: str) -> Path:
    """``sub`` (a folder inside ``folder``) resolved, once it and every file and folder under
    it resolve inside ``folder``."""
    real = inside(folder, sub, entry)
    for top, dirs, files in os.walk(sub):
        for name in dirs + files:
            path = Path(top) / name
            inside(folder, path, f"{entry} ({path.relative_to(sub)})")
    return real


def tokenizer_dirs(folder: Path, config: dict[str, Any]) -> list[Path]:
    """The folder of every ``tokenizers`` entry of ``config.json``, each kept inside
    ``folder``: an absolute path, ``..`` or a symlink leading out is refused."""
    out = []
    for i, name in enumerate(config["tokenizers"]):
        entry = f"{CONFIG} tokenizers[{i}] = {name!r}"
        path = folder / "tokenizers" / name
        contained_tree(folder, path, entry)
        out.append(path)
    return out


def weight_shapes(folder: Path) -> dict[str, tuple[int, ...]]:
    """The shape of every tensor in ``model.safetensors``, read from its header only."""
    from safetensors import safe_open

    path = folder / WEIGHTS
    inside(folder, path, WEIGHTS)
    try:
        with safe_open(str(path), framework="pt") as f:
            names = f.keys()
            return {k: tuple(f.get_slice(k).get_shape()) for k in names}
    except Exception as e:  # safetensors raises its own SafetensorError, or OSError
        raise ModelFileError(f"{path}: not a readable safetensors file ({e}); expected the "
                             f"weights paralib saved with this model's {CONFIG}") from e


def check_sizes(folder: Path, parts: list[PartConfig], rows: list[int],
                tokenizers: list[str], shapes: dict[str, tuple[int, ...]]) -> None:
    """Compare each part's embedding table (``rows`` from its tokeniser, ``dim`` from
    ``config.json``) with the header of ``model.safetensors``, before anything is built."""
    for i, (part, n, name) in enumerate(zip(parts, rows, tokenizers, strict=True)):
        key = f"parts.{i}.embedding.weight"
        shape = shapes.get(key)
        if shape is None:
            continue  # a missing table is reported with the other keys (load_state)
        if len(shape) != 2 or shape[1] != part.dim:
            raise ModelFileError(
                f"{folder / CONFIG}: model.parts.{i}.dim is {part.dim}, but {WEIGHTS} holds "
                f"{key} of shape {list(shape)}; expected dim to be the table's width")
        if shape[0] != n:
            raise ModelFileError(
                f"{folder / 'tokenizers' / name}: the tokenizer has {n} rows, but {WEIGHTS} "
                f"holds {key} of shape {list(shape)}; expected the tokenizer saved with "
                "these weights")


def check_shapes(folder: Path, parts: list[PartConfig], want: dict[str, tuple[int, ...]],
                 shapes: dict[str, tuple[int, ...]]) -> None:
    """Compare the tensors the config builds (``want``, from a model on the meta device)
    with those of ``model.safetensors``: a difference names the part's sizes in config.json."""
    missing = sorted(set(want) - set(shapes))
    extra = sorted(set(shapes) - set(want))
    if missing or extra:
        raise ModelFileError(
            f"{folder / WEIGHTS} was saved from a different encoder than {folder / CONFIG} "
            f"describes: missing {missing[:4]}, unexpected {extra[:4]}")
    for key in sorted(want):
        if want[key] != shapes[key]:
            i = int(key.split(".")[1])
            part = parts[i]
            raise ModelFileError(
                f"{folder / CONFIG}: model.parts.{i} (encoder {part.encoder}, dim {part.dim}, "
                f"hidden {part.hidden}) needs {key} of shape {list(want[key])}, but {WEIGHTS} "
                f"holds {list(shapes[key])}; expected the sizes the weights were trained with")


def build_checked(folder: Path, config: dict[str, Any]) -> ParaphraseModel:
    """The model of ``folder`` with its tokenisers, weights not loaded, once its
    tokeniser paths, its sizes and the shapes of ``model.safetensors`` agree (checked on the
    header and on a model built on the meta device, before anything is allocated)."""
    import torch

    from paralib.models.model import ParaphraseModel
    from paralib.models.tokenizers import Tokenizer

    model_config = ModelConfig.model_validate(config["model"])
    dirs = tokenizer_dirs(folder, config)
    loaded = {d: Tokenizer.load(d) for d in dict.fromkeys(dirs)}  # a shared tokeniser once
    toks = [loaded[d] for d in dirs]
    shapes = weight_shapes(folder)
    check_sizes(folder, model_config.parts, [t.size for t in toks], config["tokenizers"], shapes)
    try:
        with torch.device("meta"):
            planned = ParaphraseModel(model_config, toks)
    except (RuntimeError, ValueError, OverflowError) as e:
        sizes = "; ".join(f"model.parts.{i}: encoder {p.encoder}, dim {p.dim}, hidden {p.hidden}"
                          for i, p in enumerate(model_config.parts))
        raise ModelFileError(f"{folder / CONFIG}: cannot build a model of these sizes ({sizes}): "
                             f"{' '.join(str(e).split())}; expected the sizes the weights in "
                             f"{WEIGHTS} were trained with") from e
    check_shapes(folder, model_config.parts,
                 {k: tuple(v.shape) for k, v in planned.state_dict().items()}, shapes)
    return ParaphraseModel(model_config, toks)
