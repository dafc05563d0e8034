"""``paralib lm train``: KenLM 3-gram models on held-out references (:mod:`paralib.lm.run`)."""

from __future__ import annotations

import json

from paralib.commands import Group, StageContext, configured

GROUP = Group("lm", help="KenLM language models", dest="lm_command")


def _train(cfg, args) -> str:
    from paralib.lm.run import run_lm

    ctx = StageContext.of(cfg, progress=not args.no_progress)
    return json.dumps(run_lm(cfg.lm, ctx.storage, ctx.config), indent=2)


COMMANDS = (configured("lm train", "train 3-gram models on held-out references",
                       "paralib lm train --config configs/quickstart.yaml", _train),)
