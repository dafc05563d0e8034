"""``paralib backtranslate``, ``pivot`` and ``paraphrase``: candidate pairs from
``bitext.inputs`` (and ``bitext.corpora``), translated with Ray Data
(:mod:`paralib.translate.pipeline`); each prints its summary."""

from __future__ import annotations

from paralib.commands import staged

COMMANDS = (
    staged("backtranslate", "translate the non-English side into English",
           "paralib backtranslate --config configs/bt-fr.yaml",
           "paralib.translate.backtranslate", "backtranslate"),
    staged("pivot", "round-trip (pivot) paraphrases of English text",
           "paralib pivot --config configs/sts2016-roundtrip.yaml",
           "paralib.translate.pivot", "pivot"),
    staged("paraphrase", "k-best paraphrases from a paraphrase model",
           "paralib paraphrase --config configs/paraphrase.yaml",
           "paralib.translate.paraphrase", "paraphrase"),
)
