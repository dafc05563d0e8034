"""The paralib model folder of an export (``paralib export --to paralib``): a smaller model
that ``paralib.load`` reads like any other, with ``--dims`` (narrower tables) and
``--quantize int8`` (int8 tables in ``model.safetensors``, their per-row scales in
:data:`paralib.models.quantized.SCALES`, dequantised when loaded).

The folder carries the export's marker, not the one of a trained model, so a later export may
replace it and ``paralib train`` never writes over it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from paralib.models.folder import CARD, MARKER, WEIGHTS
from paralib.models.pretrained import SentenceEncoder, save_model
from paralib.models.quantized import SCALES, quantize_rows


def write_paralib(encoder: SentenceEncoder, folder: Path, int8: bool = False,
                  export: dict[str, Any] | None = None) -> str:
    """Save ``encoder`` as a paralib model folder into ``folder`` (its tables as int8 when
    ``int8``; ``export`` is recorded under ``info.export`` of ``config.json``); returns the
    model card's note on how to load it."""
    from safetensors.torch import save_file

    info = {**encoder.info, "export": export or {}}
    save_model(encoder.model, folder, encoder.languages, info, encoder.card or "")
    (folder / MARKER).unlink()
    (folder / CARD).unlink()
    if int8:
        state = {k: v.detach().cpu().contiguous()
                 for k, v in encoder.model.state_dict().items()}
        scales = {}
        for table in (k for k in state if k.endswith(".embedding.weight")):
            state[table], scales[table] = quantize_rows(state[table])
        save_file(state, str(folder / WEIGHTS))
        save_file(scales, str(folder / SCALES))
    return ("`paralib.load` reads this folder" + (
        f" and turns its int8 tables back into float32 (`{WEIGHTS}` holds the int8 rows, "
        f"`{SCALES}` one scale per row)" if int8 else "") + ".")
