"""``paralib decontaminate``: the training-ready corpus (:mod:`paralib.decontaminate.stage`)."""

from __future__ import annotations

from paralib.commands import staged


def _text(report) -> str:
    """The stage's summary and the pairs removed per evaluation set."""
    from paralib.decontaminate.stage import per_eval_set

    return report.text() + "\nremoved per evaluation set: " + (", ".join(
        f"{k} {v}" for k, v in per_eval_set(report.reasons).items()) or "none")


COMMANDS = (staged(
    "decontaminate", "the training-ready corpus: checked, decontaminated, grouped",
    "paralib decontaminate --config configs/bitext-all.yaml", "paralib.decontaminate.stage",
    "decontaminate", _text,
    description="Read bitext.inputs and bitext.corpora, reject bad lines, remove every pair "
    "sharing a side with an evaluation set, group and de-duplicate, and write "
    "decontaminate.output. Example: paralib decontaminate --config configs/bitext-all.yaml"),)
