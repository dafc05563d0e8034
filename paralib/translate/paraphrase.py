"""``paralib paraphrase``: k-best paraphrases of English text from a paraphrase model.

ParaNMT 2018 §6 trains a paraphrase generator on the selected English-English pairs with
the same machinery as the translation models (``paralib mt train`` with English on both
sides); this runs it through the Ray Data actors. Output rows as back-translation, with the
English input in both ``src`` and ``ref``.
"""

from __future__ import annotations

from paralib.config import ParaphraseConfig
from paralib.io.context import StageContext
from paralib.io.runner import run_stage
from paralib.io.stage import StageReport
from paralib.translate.pipeline import Leg, Translation
from paralib.translate.stages import OUTPUT_SCHEMA


def run(section: ParaphraseConfig, ctx: StageContext) -> StageReport:
    """Generate paraphrases of ``section.inputs``; returns the counts."""
    leg = Leg(section.model, "ref", ("trans", "rank", "cost"), section.num_hypotheses)
    return run_stage(Translation(ctx, section, section.inputs, [leg], OUTPUT_SCHEMA,
                                 "paraphrases", "paraphrase", "paraphrase.inputs"))
