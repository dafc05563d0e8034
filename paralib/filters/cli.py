"""``paralib score``: one column per scorer on candidate pairs (:mod:`paralib.filters.stage`)."""

from __future__ import annotations

from paralib.commands import configured


def _score(cfg, args) -> str:
    from paralib.filters.stage import score

    return score(cfg, progress=not args.no_progress).text()


COMMANDS = (configured("score", "add one column per scorer to candidate pairs",
                       "paralib score --config configs/quickstart.yaml", _score),)
