"""``paralib analyze``: the analysis report of a scored corpus (:mod:`paralib.analysis.run`)."""

from __future__ import annotations

from paralib.commands import staged

COMMANDS = (staged("analyze", "write the analysis report of a scored corpus",
                   "paralib analyze --config configs/quickstart.yaml", "paralib.analysis.run",
                   "analyze", lambda path: f"report: {path}"),)
