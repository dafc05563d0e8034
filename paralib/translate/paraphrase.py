"""``paralib paraphrase``: k-best paraphrases of English text from a paraphrase model.

ParaNMT 2018 §6 trains a paraphrase generator on the selected English-English pairs with
the same machinery as the translation models (``paralib mt train`` with English on both
sides); this runs it through the Ray Data actors. Output rows as back-translation, with the
English input in both ``src`` and ``ref``.
"""

from __future__ import annotations

from paralib.config import Config
from paralib.io.stage import StageReport
from paralib.translate.pipeline import Leg, run_translation
from paralib.translate.stages import OUTPUT_SCHEMA


def paraphrase(cfg: Config, progress: bool = True) -> StageReport:
    """Generate paraphrases as configured; returns the counts."""
    pp = cfg.paraphrase
    leg = Leg(pp.model, "ref", ("trans", "rank", "cost"), pp.num_hypotheses)
    return run_translation(cfg, pp, pp.inputs, [leg], OUTPUT_SCHEMA, "paraphrases",
                           "paraphrase", progress, inputs_key="paraphrase.inputs")
