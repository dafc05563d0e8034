"""``paralib classifier train``: the reference/translation classifiers
(:mod:`paralib.classifier.run`)."""

from __future__ import annotations

import json

from paralib.commands import Group, staged

GROUP = Group("classifier", help="reference/translation classifiers", dest="clf_command")

COMMANDS = (staged("classifier train", "train the AVG and LSTM classifiers",
                   "paralib classifier train --config configs/quickstart.yaml",
                   "paralib.classifier.run", "classifier",
                   lambda report: json.dumps(report.fields(), indent=2)),)
