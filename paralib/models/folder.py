"""Replacing a model folder safely: only one that paralib made, never a user's folder.

Every model folder paralib writes carries :data:`MARKER`; a folder whose ``config.json`` says
``paralib-encoder`` (made before the marker) counts too, and so does an empty folder. Anything
else at the output path is refused before any work starts, with the folder named, and nothing
in it is touched. A new model is written beside the old one and swapped in at the end.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from paralib.models.errors import ModelFolderError

MARKER = ".paralib-model"
# A model folder's files and format (here, not in paralib.models.pretrained, so that code
# which only checks a folder, e.g. the encode driver, does not import torch).
FORMAT = "paralib-encoder"
CONFIG, WEIGHTS, CARD = "config.json", "model.safetensors", "README.md"


def json_object(path: Path) -> dict[str, Any]:
    """The JSON object in the file ``path``; ``{}`` when it is unreadable or not an object."""
    try:
        value = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def has_format(folder: Path) -> bool:
    """Whether ``folder``'s ``config.json`` says it is a paralib model (:data:`FORMAT`)."""
    return json_object(folder / CONFIG).get("format") == FORMAT


def made_by_paralib(folder: Path) -> bool:
    """Whether ``folder`` is a model folder paralib wrote (or an empty folder)."""
    return ((folder / MARKER).is_file() or (folder.is_dir() and not any(folder.iterdir()))
            or has_format(folder))


def check_replaceable(out: Path) -> None:
    """Raise :class:`ModelFolderError` when ``out`` exists and paralib did not make it."""
    if out.exists() and not (out.is_dir() and made_by_paralib(out)):
        raise ModelFolderError(
            f"{out} exists and is not a model folder that paralib made (no {MARKER}): "
            "paralib never replaces it. Choose another train.output, or move the folder "
            "away yourself")


def mark(folder: Path) -> None:
    """Write the marker that says paralib made ``folder``."""
    (folder / MARKER).write_text(json.dumps({"made_by": "paralib", "kind": "model"}) + "\n")


def replace_with(new: Path, out: Path) -> Path:
    """Move the finished folder ``new`` to ``out``, replacing a folder paralib made there."""
    check_replaceable(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    if out.exists():
        shutil.rmtree(out)
    shutil.move(str(new), str(out))
    return out
