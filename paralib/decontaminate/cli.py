"""``paralib decontaminate``: the training-ready corpus (:mod:`paralib.decontaminate.stage`)."""

from __future__ import annotations

from paralib.commands import configured


def _decontaminate(cfg, args) -> str:
    from paralib.decontaminate.stage import decontaminate, per_eval_set

    report = decontaminate(cfg, progress=not args.no_progress)
    return report.text() + "\nremoved per evaluation set: " + (", ".join(
        f"{k} {v}" for k, v in per_eval_set(report.reasons).items()) or "none")


COMMANDS = (configured(
    "decontaminate", "the training-ready corpus: checked, decontaminated, grouped",
    "paralib decontaminate --config configs/bitext-all.yaml", _decontaminate,
    description="Read bitext.inputs and bitext.corpora, reject bad lines, remove every pair "
    "sharing a side with an evaluation set, group and de-duplicate, and write "
    "decontaminate.output. Example: paralib decontaminate --config configs/bitext-all.yaml"),)
