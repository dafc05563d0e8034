"""``paralib backtranslate``: bitext shards → CTranslate2 actors on Ray Data → candidate pairs.

2017 §3 and 2018 §3: the non-English side of bitext is translated into English with beam
search; every hypothesis of the k-best list, paired with the English reference, is a
candidate paraphrase. Output rows: ``id, corpus, src_lang, src, ref, trans, rank, cost``.
With ``backtranslate.models`` one run translates bitext of several languages, each row with
the model of its ``src_lang``.
"""

from __future__ import annotations

from paralib.config import Config, ConfigError
from paralib.io.stage import StageReport
from paralib.translate.pipeline import Leg, run_translation
from paralib.translate.stages import OUTPUT_SCHEMA


def backtranslate(cfg: Config, progress: bool = True) -> StageReport:
    """Run back-translation as configured; returns the counts (also in ``_summary.json``)."""
    bt = cfg.backtranslate
    inputs = cfg.bitext.all_inputs()
    if bt.models:
        missing = sorted({i.src_lang for i in inputs} - set(bt.models))
        if missing:
            raise ConfigError(f"backtranslate.models has no model for {', '.join(missing)} "
                              f"(bitext languages); it names {', '.join(sorted(bt.models))}")
    leg = Leg(bt.model_for(), "src", ("trans", "rank", "cost"), bt.num_hypotheses)
    return run_translation(cfg, bt, inputs, [leg], OUTPUT_SCHEMA,
                           "candidate pairs", "backtranslate", progress)
