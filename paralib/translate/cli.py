"""``paralib backtranslate``, ``pivot`` and ``paraphrase``: candidate pairs from
``bitext.inputs`` (and ``bitext.corpora``), translated with Ray Data
(:mod:`paralib.translate.pipeline`); each prints its summary."""

from __future__ import annotations

from paralib.commands import configured


def _backtranslate(cfg, args) -> str:
    from paralib.translate.backtranslate import backtranslate

    return backtranslate(cfg, progress=not args.no_progress).text()


def _pivot(cfg, args) -> str:
    from paralib.translate.pivot import pivot

    return pivot(cfg, progress=not args.no_progress).text()


def _paraphrase(cfg, args) -> str:
    from paralib.translate.paraphrase import paraphrase

    return paraphrase(cfg, progress=not args.no_progress).text()


COMMANDS = (
    configured("backtranslate", "translate the non-English side into English",
               "paralib backtranslate --config configs/bt-fr.yaml", _backtranslate),
    configured("pivot", "round-trip (pivot) paraphrases of English text",
               "paralib pivot --config configs/sts2016-roundtrip.yaml", _pivot),
    configured("paraphrase", "k-best paraphrases from a paraphrase model",
               "paralib paraphrase --config configs/paraphrase.yaml", _paraphrase),
)
