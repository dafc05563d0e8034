"""int8 embedding tables: every row stored as int8 with its own float32 scale (symmetric,
per row: ``row ≈ q * scale`` with ``q`` in -127..127 and ``scale = max |row| / 127``).

A model folder with int8 tables (``paralib export --to paralib --quantize int8``) keeps the
int8 tables in ``model.safetensors`` under their usual names and shapes, and their scales in
:data:`SCALES` under the same names; :func:`dequantize` turns them back into float32 tables
when the folder is loaded, so the model computes as before on the rounded values.
"""

from __future__ import annotations

from pathlib import Path

import torch

from paralib.models.errors import ModelLoadError

SCALES = "model.int8-scales.safetensors"
"""The file of a model folder that holds the scale of each row of its int8 tables."""


def quantize_rows(table: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """``(q, scale)``: ``table`` as int8 rows and one float32 scale per row (an all-zero row
    gets scale 1)."""
    t = table.detach().float()
    scale = t.abs().amax(1) / 127.0
    scale = torch.where(scale > 0, scale, torch.ones_like(scale))
    q = torch.round(t / scale[:, None]).clamp(-127, 127).to(torch.int8)
    return q, scale


def dequantized(q: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    """The float32 table of int8 rows ``q`` and their scales."""
    return q.float() * scale.float()[:, None]


def dequantize(state: dict[str, torch.Tensor], folder: Path) -> dict[str, torch.Tensor]:
    """``state`` with every int8 table replaced by its float32 values (scales from
    ``folder``'s :data:`SCALES`); a state without int8 tensors is returned as it is."""
    ints = [k for k, v in state.items() if v.dtype == torch.int8]
    if not ints:
        return state
    from safetensors.torch import load_file

    path = folder / SCALES
    if not path.is_file() or not path.resolve().is_relative_to(folder.resolve()):
        raise ModelLoadError(f"{folder}: model.safetensors holds int8 tables ({ints[0]}) but "
                             f"{SCALES} is missing; expected the scales paralib export wrote "
                             "beside them")
    try:
        scales = load_file(str(path))
    except Exception as e:  # safetensors raises its own SafetensorError, or OSError
        raise ModelLoadError(f"{path}: not a readable safetensors file ({e})") from e
    out = dict(state)
    for key in ints:
        scale = scales.get(key)
        if scale is None or tuple(scale.shape) != (state[key].shape[0],):
            raise ModelLoadError(
                f"{path}: no scale of shape [{state[key].shape[0]}] for the int8 table {key} "
                f"(found {None if scale is None else list(scale.shape)}); expected one scale "
                "per row")
        out[key] = dequantized(state[key], scale)
    return out
