"""``paralib backtranslate``: bitext shards → CTranslate2 actors on Ray Data → candidate pairs.

2017 §3 and 2018 §3: the non-English side of bitext is translated into English with beam
search; every hypothesis of the k-best list, paired with the English reference, is a
candidate paraphrase. Output rows: ``id, corpus, src_lang, src, ref, trans, rank, cost``.
With ``backtranslate.models`` one run translates bitext of several languages, each row with
the model of its ``src_lang``.
"""

from __future__ import annotations

from paralib.config import BacktranslateConfig, ConfigError
from paralib.io.context import StageContext
from paralib.io.runner import run_stage
from paralib.io.stage import StageReport
from paralib.translate.pipeline import Leg, Translation
from paralib.translate.stages import OUTPUT_SCHEMA


def run(section: BacktranslateConfig, ctx: StageContext) -> StageReport:
    """Back-translate ``ctx.bitext``'s inputs as ``section`` says; returns the counts (also
    in ``_summary.json``)."""
    inputs = ctx.bitext.all_inputs()
    if section.models:
        missing = sorted({i.src_lang for i in inputs} - set(section.models))
        if missing:
            raise ConfigError(f"backtranslate.models has no model for {', '.join(missing)} "
                              f"(bitext languages); it names {', '.join(sorted(section.models))}")
    leg = Leg(section.model_for(), "src", ("trans", "rank", "cost"), section.num_hypotheses)
    return run_stage(Translation(ctx, section, inputs, [leg], OUTPUT_SCHEMA, "candidate pairs",
                                 "backtranslate"))
