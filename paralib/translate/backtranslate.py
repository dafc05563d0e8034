"""``paralib backtranslate``: bitext shards → CTranslate2 actors on Ray Data → candidate pairs.

2017 §3 and 2018 §3: the non-English side of bitext is translated into English with beam
search; every hypothesis of the k-best list, paired with the English reference, is a
candidate paraphrase. Output rows: ``id, corpus, src_lang, src, ref, trans, rank, cost``.
"""

from __future__ import annotations

from paralib.config import Config
from paralib.io.stage import StageReport
from paralib.translate.pipeline import Leg, run_translation
from paralib.translate.stages import OUTPUT_SCHEMA


def backtranslate(cfg: Config, progress: bool = True) -> StageReport:
    """Run back-translation as configured; returns the counts (also in ``_summary.json``)."""
    bt = cfg.backtranslate
    leg = Leg(bt.model, "src", ("trans", "rank", "cost"), bt.num_hypotheses)
    return run_translation(cfg, bt, cfg.bitext.all_inputs(), [leg], OUTPUT_SCHEMA,
                           "candidate pairs", "backtranslate", progress)
