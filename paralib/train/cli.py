"""``paralib train``: a paraphrastic encoder with Ray Train (:func:`paralib.train.run.train`)."""

from __future__ import annotations

import json

from paralib.commands import configured


def _train(cfg, args) -> str:
    from paralib.io.context import StageContext
    from paralib.train.run import train

    summary = train(cfg.train, StageContext.of(cfg, not args.no_progress), fresh=args.fresh)
    return json.dumps({k: v for k, v in summary.dump().items() if k != "history"}, indent=2)


COMMANDS = (configured(
    "train", "train a paraphrastic encoder with Ray Train",
    "paralib train --config configs/paralib-en.yaml", _train,
    options=lambda p: p.add_argument(
        "--fresh", action="store_true", help="start the run of train.name over instead of "
        "resuming it (deletes that run folder, which paralib made)")),)
