"""Where paralib finds the shared data and its shipped models.

Paths in configs may start with ``{data}/`` (the data root) or ``{models}/`` (the models
shipped in the repository); :func:`expand` resolves them. The data root is
``$PARALIB_DATA`` when set (a path that is no folder is an error, never a fallback), else
``../shared/data`` beside the project checkout.
"""

from __future__ import annotations

import os
from pathlib import Path

from paralib.errors import MissingError

PROJECT_ROOT = Path(__file__).resolve().parents[1]


class DataNotFoundError(MissingError, FileNotFoundError):
    """The shared data folder could not be found."""


def data_root() -> Path:
    """Return the data root: ``$PARALIB_DATA`` when set (it must be a folder), else
    ``../shared/data`` next to the project or the working directory."""
    env = os.environ.get("PARALIB_DATA")
    if env:
        path = Path(os.path.expanduser(env))
        if path.is_dir():
            return path.resolve()
        what = "is a file" if path.exists() else "does not exist"
        raise DataNotFoundError(
            f"PARALIB_DATA={env}: {what}; expected the paralib data folder (the one that "
            "holds bitext/, sts/, ...). Point PARALIB_DATA at it, or unset it to use "
            "../shared/data beside the project")
    candidates = [PROJECT_ROOT.parent / "shared" / "data", Path.cwd().parent / "shared" / "data"]
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
