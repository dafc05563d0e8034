"""Shipped models by name: ``paralib.load("paralib-en")`` finds ``models/paralib-en``.

A name is looked up in the folders of ``PARALIB_MODELS`` (separated by ``os.pathsep``), then
in the ``models/`` folder of the checkout paralib runs from. A path to a folder is always
taken as it is. Nothing is downloaded.
"""

from __future__ import annotations

import os
from pathlib import Path

from paralib.models.errors import ModelLoadError
from paralib.models.folder import has_format

CHECKOUT_MODELS = Path(__file__).resolve().parents[2] / "models"


def model_dirs() -> list[Path]:
    """The folders searched for a model name, in order."""
    env = os.environ.get("PARALIB_MODELS", "")
    return [Path(p).expanduser() for p in env.split(os.pathsep) if p] + [CHECKOUT_MODELS]


def shipped_models() -> dict[str, Path]:
    """Every paralib model folder in :func:`model_dirs`, by name (the first one wins)."""
    found: dict[str, Path] = {}
    for base in model_dirs():
        if base.is_dir():
            for folder in sorted(base.iterdir()):
                if folder.name not in found and folder.is_dir() and has_format(folder):
                    found[folder.name] = folder
    return found


def resolve(name_or_path: str | os.PathLike[str]) -> Path:
    """The folder of a model given by path or by a shipped model's name.

    >>> resolve("paralib-en").name
    'paralib-en'
    """
    path = Path(name_or_path).expanduser()
    if path.exists():
        return path
    known = shipped_models()
    name = str(name_or_path)
    if name in known:  # a bare name (a str or a Path of one part, as the CLI passes it)
        return known[name]
    searched = ", ".join(str(d) for d in model_dirs())
    raise ModelLoadError(
        f"no model {str(name_or_path)!r}: it is neither a folder nor a shipped model "
        f"(shipped: {', '.join(known) or 'none found'}; looked in {searched}; "
        "PARALIB_MODELS adds folders to look in)")
