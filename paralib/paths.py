"""Where paralib finds the shared data and its shipped models.

Paths in configs may start with ``{data}/`` (the data root) or ``{models}/`` (the models
shipped in the repository); :func:`expand` resolves them. The data root is
``$PARALIB_DATA`` when set, else ``../shared/data`` beside the project checkout.
"""

from __future__ import annotations

import os
from pathlib import Path

from paralib.errors import MissingError

PROJECT_ROOT = Path(__file__).resolve().parents[1]


class DataNotFoundError(MissingError, FileNotFoundError):
    """The shared data folder could not be found."""


def data_root() -> Path:
    """Return the data root: ``$PARALIB_DATA`` or ``../shared/data`` next to the project."""
    env = os.environ.get("PARALIB_DATA")
    candidates = [Path(env)] if env else []
    candidates += [PROJECT_ROOT.parent / "shared" / "data", Path.cwd().parent / "shared" / "data"]
    for cand in candidates:
        if cand.is_dir():
            return cand.resolve()
    looked = ", ".join(str(c) for c in candidates)
    raise DataNotFoundError(
        f"paralib data folder not found (looked in: {looked}); set PARALIB_DATA to its path"
    )


def models_root() -> Path:
    """Return the folder of models shipped with the project (``models/``)."""
    return PROJECT_ROOT / "models"


def expand(path: str) -> str:
    """Expand ``{data}``, ``{models}``, ``~`` and environment variables in ``path``."""
    if "{data}" in path:
        path = path.replace("{data}", str(data_root()))
    if "{models}" in path:
        path = path.replace("{models}", str(models_root()))
    if "://" in path:
        return os.path.expandvars(path)
    return os.path.expanduser(os.path.expandvars(path))
