"""``paralib pivot``: paraphrases of any English text by round-trip translation.

DCU-SEManiacs 2016 §3.2 made synthetic paraphrases by translating English sentences into a
pivot language and back. Here English → X (``pivot.model``, the ``pivot_hypotheses``-best)
→ English (``pivot.model_back``, the ``num_hypotheses``-best), both legs as actor pools in
one Ray Data pipeline. Output rows: ``id, corpus, src_lang, src, ref, trans, rank, cost``
(``src`` is the pivot sentence, ``ref`` the English original, ``trans`` the paraphrase) plus
``pivot_rank`` and ``pivot_cost`` of the first leg.
"""

from __future__ import annotations

import pyarrow as pa

from paralib.config import PivotConfig
from paralib.io.context import StageContext
from paralib.io.runner import run_stage
from paralib.io.stage import StageReport
from paralib.translate.pipeline import Leg, Translation
from paralib.translate.stages import OUTPUT_SCHEMA

PIVOT_SCHEMA = OUTPUT_SCHEMA.append(pa.field("pivot_rank", pa.int32())).append(
    pa.field("pivot_cost", pa.float32()))


def run(section: PivotConfig, ctx: StageContext) -> StageReport:
    """Round-trip paraphrase ``section.inputs``; returns the counts."""
    legs = [Leg(section.model, "ref", ("src", "pivot_rank", "pivot_cost"),
                section.pivot_hypotheses),
            Leg(section.model_back, "src", ("trans", "rank", "cost"), section.num_hypotheses)]
    return run_stage(Translation(ctx, section, section.inputs, legs, PIVOT_SCHEMA,
                                 "round-trip paraphrases", "pivot", "pivot.inputs"))
