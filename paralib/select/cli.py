"""``paralib select``: a training set from scored pairs (:func:`paralib.select.run.run`)."""

from __future__ import annotations

import json

from paralib.commands import staged


def _text(report) -> str:
    """Rows in and out, the steps and the files of a selection, as JSON."""
    shown = report.fields()
    return json.dumps({k: shown[k] for k in ("rows_in", "rows_out", "steps", "files")},
                      indent=2, default=str)


COMMANDS = (staged("select", "build a training set from scored pairs",
                   "paralib select --config configs/quickstart.yaml --set select.size=20000",
                   "paralib.select.run", "select", _text),)
