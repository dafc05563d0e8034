"""``paralib lm train``: KenLM 3-gram models on held-out references (:mod:`paralib.lm.run`)."""

from __future__ import annotations

import json

from paralib.commands import Group, staged

GROUP = Group("lm", help="KenLM language models", dest="lm_command")

COMMANDS = (staged("lm train", "train 3-gram models on held-out references",
                   "paralib lm train --config configs/quickstart.yaml", "paralib.lm.run", "lm",
                   lambda made: json.dumps(made.fields(), indent=2)),)
