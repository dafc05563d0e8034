"""``paralib analyze``: the analysis report of a scored corpus (:mod:`paralib.analysis.run`)."""

from __future__ import annotations

from paralib.commands import StageContext, configured


def _analyze(cfg, args) -> str:
    from paralib.analysis.run import run_analyze

    ctx = StageContext.of(cfg, progress=not args.no_progress)
    return f"report: {run_analyze(cfg.analyze, ctx.storage, ctx.config)}"


COMMANDS = (configured("analyze", "write the analysis report of a scored corpus",
                       "paralib analyze --config configs/quickstart.yaml", _analyze),)
