"""``paralib classifier train``: the reference/translation classifiers
(:mod:`paralib.classifier.run`)."""

from __future__ import annotations

import json

from paralib.commands import Group, StageContext, configured

GROUP = Group("classifier", help="reference/translation classifiers", dest="clf_command")


def _train(cfg, args) -> str:
    from paralib.classifier.run import run_classifier

    ctx = StageContext.of(cfg, progress=not args.no_progress)
    return json.dumps(run_classifier(cfg.classifier, ctx.storage, ctx.config), indent=2)


COMMANDS = (configured("classifier train", "train the AVG and LSTM classifiers",
                       "paralib classifier train --config configs/quickstart.yaml", _train),)
