"""``paralib select``: a training set from scored pairs (:func:`paralib.select.run_select`)."""

from __future__ import annotations

import json

from paralib.commands import StageContext, configured


def _select(cfg, args) -> str:
    from paralib.select import run_select

    ctx = StageContext.of(cfg, progress=not args.no_progress)
    report = run_select(cfg.select, ctx.storage, ctx.config)
    return json.dumps({k: report[k] for k in ("rows_in", "rows_out", "steps", "files")},
                      indent=2, default=str)


COMMANDS = (configured("select", "build a training set from scored pairs",
                       "paralib select --config configs/quickstart.yaml --set select.size=20000",
                       _select),)
