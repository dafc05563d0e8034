"""What group-aware negatives change on experiment 7's data: the hardest negatives of mega-batches
of Multi30k task-2 caption pairs, mined with and without the pairs' groups (2018 §4: the
hardest negative of a sentence in a mega-batch of M mini-batches of 100).

The pairs are those of the ``captions`` training source as training reads them (decontaminated,
grouped: the 4 pairs of an image share its group, and pairs sharing a normalised caption are
joined), shuffled with seed 1. For each encoder (WORD and TRIGRAM, width 300, untrained, seed 1:
the start of experiment 7's runs) and each M, over the first ``--pairs`` (16,000) pairs cut
into mega-batches of 100·M pairs:

- ``mates``: the share of pairs whose mega-batch holds another pair of their group (only these
  can lose a negative to the group mask);
- ``in_group``: the share of hardest negatives, mined without groups, that are a caption of
  the anchor's own group (what group-aware mining removes);
- ``partner_cos``, ``hardest_cos``, ``hardest_cos_grouped``: mean cosines of each first
  sentence with its partner and with its hardest negative, without and with groups;
- ``closer``, ``closer_grouped``: the share of sentences whose hardest negative is closer to
  them than their partner (a constant encoder then minimises the margin loss, at 2δ);
- ``semihard_cos``, ``semihard_fallback``: with groups and ``train.negatives: semihard``
  (FaceNet §3.2: the hardest negative farther from the sentence than its partner), the mean
  cosine of each first sentence with its negative, and the share of sentences that have no
  negative below their partner's cosine and fall back to the hardest.

Writes ``benchmarks/results/caption_groups.json``. One torch thread.

    python -m benchmarks caption_groups [--pairs 16000]
"""

from __future__ import annotations

import argparse

from benchmarks.common import table, write_json

ENCODERS = {"WORD": {"name": "word", "dim": 300}, "TRIGRAM": {"name": "trigram", "dim": 300}}
MEGABATCHES = (1, 20, 40)


def group_sizes(groups) -> dict[str, int]:
    """How many groups hold 1, 2, ... pairs (sizes above 8 counted together)."""
    import numpy as np

    _, counts = np.unique(groups, return_counts=True)
    out = {str(k): int((counts == k).sum()) for k in range(1, 9)}
    out[">8"] = int((counts > 8).sum())
    return out


def measure_megabatch(model, batch, groups) -> dict[str, float]:
    """Sums over one mega-batch (a :class:`paralib.train.batches.PairBatch`) of the counts
    and cosines the rows report."""
    import torch
    import torch.nn.functional as F

    from paralib.train.mining import negatives

    with torch.no_grad():
        e1, e2 = model(batch.side1), model(batch.side2)
    n = len(e1)
    g = torch.tensor(groups, dtype=torch.long)
    pool = F.normalize(torch.cat([e1, e2]), dim=-1)
    pool_group = torch.cat([g, g])
    anchor = F.normalize(e1, dim=-1)
    partner = (anchor * F.normalize(e2, dim=-1)).sum(1)
    plain, _ = negatives(e1, e2, "max", False)
    grouped, _ = negatives(e1, e2, "max", False, groups=g)
    semi, _ = negatives(e1, e2, "semihard", False, groups=g)
    hardest = (anchor * pool[plain]).sum(1)
    hardest_g = (anchor * pool[grouped]).sum(1)
    semi_cos = (anchor * pool[semi]).sum(1)
    _, inverse, counts = torch.unique(g, return_inverse=True, return_counts=True)
    return {"pairs": n, "mates": int((counts[inverse] > 1).sum()),
            "in_group": int((pool_group[plain] == g).sum()),
            "partner_cos": float(partner.sum()), "hardest_cos": float(hardest.sum()),
            "hardest_cos_grouped": float(hardest_g.sum()),
            "closer": int((hardest > partner).sum()),
            "closer_grouped": int((hardest_g > partner).sum()),
            "semihard_cos": float(semi_cos.sum()),
            "semihard_fallback": int((semi_cos >= partner).sum())}


def measure(encoder: str, m: int, data, tokenizers, cfg) -> dict:
    """One row: ``encoder`` (``cfg``'s model, fitted ``tokenizers``) untrained, mega-batches
    of ``100 m`` pairs over ``data``."""
    import torch

    from paralib.models.model import ParaphraseModel
    from paralib.train.batches import pair_batch

    torch.manual_seed(cfg.train.seed)
    model = ParaphraseModel(cfg.train.model, tokenizers)
    model.initialise()
    model.eval()
    size = 100 * m
    total: dict[str, float] = {}
    for start in range(0, len(data) - size + 1, size):
        chunk = data.iloc[start:start + size]
        got = measure_megabatch(model, pair_batch(chunk, model, groups=False),
                                chunk["group"].astype("int64").to_numpy())
        total = {k: total.get(k, 0) + v for k, v in got.items()}
    n = total["pairs"]
    return {"encoder": encoder, "M": m, "pairs": int(n),
            **{k: round(total[k] / n, 4) for k in total if k != "pairs"}}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pairs", type=int, default=16000)
    args = ap.parse_args(argv)
    import torch

    from paralib.config import Config
    from paralib.io.context import StageContext
    from paralib.train.run import prepare

    torch.set_num_threads(1)
    rows, sizes = [], {}
    for encoder, part in ENCODERS.items():
        cfg = Config.model_validate({"train": {"sources": [{"kind": "captions"}], "seed": 1,
                                               "model": {"parts": [part]}}})
        prepared = prepare(cfg.train, StageContext.of(cfg))
        sizes = group_sizes(prepared.data["group"].astype("int64").to_numpy())
        data = prepared.data.iloc[: args.pairs]
        for m in MEGABATCHES:
            rows.append(measure(encoder, m, data, prepared.tokenizers, cfg))
            print(f"{encoder} M={m}: {rows[-1]}", flush=True)
    print(f"groups by number of pairs: {sizes}")
    print(table(rows, ["encoder", "M", "pairs", "mates", "in_group", "partner_cos",
                       "hardest_cos", "hardest_cos_grouped", "closer", "closer_grouped",
                       "semihard_cos", "semihard_fallback"]))
    path = write_json("caption_groups", {"args": vars(args),
                                         "group_sizes": sizes, "rows": rows})
    print(f"wrote {path}")
