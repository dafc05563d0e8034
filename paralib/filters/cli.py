"""``paralib score``: one column per scorer on candidate pairs (:mod:`paralib.filters.stage`)."""

from __future__ import annotations

from paralib.commands import staged

COMMANDS = (staged("score", "add one column per scorer to candidate pairs",
                   "paralib score --config configs/quickstart.yaml", "paralib.filters.stage",
                   "score"),)
