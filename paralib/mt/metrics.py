"""Test-set metrics of a trained model: sacreBLEU, and for a paraphrase model how far its
output moves from its input.

A translation model is measured by sacreBLEU against references. A paraphrase generator
(ParaNMT 2018 §6) can score well on BLEU by copying its input, so its metrics also give the
copy baseline (BLEU of the unchanged inputs against the same references), self-BLEU (BLEU of
the outputs against the inputs) and the copy rate (outputs equal to their input).
"""

from __future__ import annotations

import time
from pathlib import Path


def decode(model_dir: Path, sources: list[str], beam: int, threads: int = 0,
           max_length: int = 128) -> tuple[list[str], float]:
    """Best hypotheses of a CTranslate2 model, and the decoding speed (sentences/s).

    ``max_length`` (pieces) must stay below the model's position limit: an undertrained
    model can loop until CTranslate2 runs out of position encodings.
    """
    from paralib.translate.translator import Translator

    tr = Translator(model_dir, device="cpu", compute_type="default",  # the model's own type
                    intra_threads=threads)
    t0 = time.perf_counter()
    hyps = [h[0].text for h in tr.translate(sources, beam_size=beam, max_input_length=max_length,
                                            max_decoding_length=max_length)]
    return hyps, len(sources) / max(time.perf_counter() - t0, 1e-9)


def bleu(hyps: list[str], refs: list[str]) -> float:
    """Corpus sacreBLEU of ``hyps`` against one reference each."""
    import sacrebleu

    if len(hyps) != len(refs):
        raise ValueError(f"{len(hyps)} hypotheses but {len(refs)} references")
    return sacrebleu.corpus_bleu(hyps, [refs]).score


def paraphrase_metrics(sources: list[str], hyps: list[str], refs: list[str]) -> dict[str, float]:
    """BLEU against ``refs``, the copy baseline, self-BLEU, copy rate and length ratio."""
    if not sources or len(sources) != len(hyps):
        raise ValueError(f"need as many hypotheses as sources ({len(sources)} and {len(hyps)})")
    copies = sum(h.strip() == s.strip() for s, h in zip(sources, hyps, strict=True))
    words_in = sum(len(s.split()) for s in sources)
    words_out = sum(len(h.split()) for h in hyps)
    return {"bleu": round(bleu(hyps, refs), 2), "copy_bleu": round(bleu(sources, refs), 2),
            "self_bleu": round(bleu(hyps, sources), 2),
            "copy_rate": round(copies / len(sources), 4),
            "length_ratio": round(words_out / max(words_in, 1), 4)}
