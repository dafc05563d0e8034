"""Each encoder trains one epoch on real human paraphrases (STS Benchmark training pairs scored
at least 3.8, the DCU §3 source) and its STS Benchmark dev correlation rises above its initial
value."""

from __future__ import annotations

import copy

import numpy as np
import pytest
import torch

from paralib.config import Config
from paralib.io.context import StageContext
from paralib.models import ParaphraseModel
from paralib.train.batches import pair_batch
from paralib.train.dev import dev_pearson, load_dev
from paralib.train.regularise import penalty
from paralib.train.run import prepare
from paralib.train.schedule import megabatches
from paralib.train.steps import MegaBatchTrainer, build_optimizer

ENCODERS = {
    "word": {"name": "word", "vocab_size": 5000, "dim": 64},
    "trigram": {"name": "trigram", "vocab_size": 5000, "dim": 64},
    "sp": {"name": "sp", "vocab_size": 2000, "dim": 64},
    "lstm": {"name": "lstm", "vocab_size": 5000, "dim": 64},
    "blstm": {"name": "blstm", "vocab_size": 5000, "dim": 64},
    "gran": {"name": "gran", "vocab_size": 5000, "dim": 64},
    "gran-gru": {"name": "gran-gru", "vocab_size": 5000, "dim": 64},
}


@pytest.fixture(scope="module")
def dev():
    return load_dev("stsb-dev")


def _config(parts, **train) -> Config:
    return Config.model_validate({"train": {
        # STS Benchmark train pairs are an evaluation set: kept here on purpose
        "sources": [{"kind": "sts"}], "decontaminate": False, "model": {"parts": parts},
        "megabatch": {"size": 1}, "regularisation": {"scramble_rate": 0.3}, **train}})


def _train(cfg: Config):
    torch.manual_seed(0)
    torch.set_num_threads(1)
    prepared = prepare(cfg.train, StageContext.of(cfg))
    data, toks = prepared.data, prepared.tokenizers
    model = ParaphraseModel(cfg.train.model, toks)
    model.initialise()
    opt = build_optimizer(model, cfg.train.lr)
    trainer = MegaBatchTrainer(cfg.train, model, opt, seed=0)
    chunks = [data.iloc[i:i + 100] for i in range(0, len(data), 100)]
    return model, trainer, chunks


@pytest.mark.parametrize("name", list(ENCODERS))
def test_dev_correlation_rises(name, dev):
    cfg = _config([ENCODERS[name]])
    model, trainer, chunks = _train(cfg)
    before = dev_pearson(model, dev)
    for group in megabatches(chunks, cfg.train.megabatch):
        trainer.train_megabatch(group)
    after = dev_pearson(model, dev)
    assert after > before + 1.0, f"{name}: dev {before:.1f} -> {after:.1f}"
    assert trainer.state.step == len(chunks) > 10


@pytest.mark.parametrize("name", ["word", "sp"])
def test_sparse_training_moves_only_its_batch_rows_and_learns(name, dev):
    """``train.sparse``: SparseAdam on sparse embedding gradients updates only the rows of a
    step's tokens (dense Adam moves every row its moments remember) and still learns."""
    cfg = _config([ENCODERS[name]])
    model, _, chunks = _train(cfg)
    weight = model.parts[0].embedding.weight
    dense_twin = copy.deepcopy(model)
    trainer = MegaBatchTrainer(cfg.train, model, build_optimizer(model, cfg.train.lr, True),
                               seed=0)
    dense = MegaBatchTrainer(cfg.train, dense_twin, build_optimizer(dense_twin, cfg.train.lr),
                             seed=0)
    assert model.parts[0].sparse and not dense_twin.parts[0].sparse
    before = dev_pearson(model, dev)
    for t in (trainer, dense):
        t.train_megabatch([chunks[0]])
    w1, d1 = weight.detach().clone(), dense_twin.parts[0].embedding.weight.detach().clone()
    for t in (trainer, dense):
        t.train_megabatch([chunks[1]])
    batch = pair_batch(chunks[1], model)
    rows = set(batch.side1[0].ids.tolist()) | set(batch.side2[0].ids.tolist())
    moved = set(torch.nonzero((weight.detach() != w1).any(1)).flatten().tolist())
    dense_moved = set(torch.nonzero(
        (dense_twin.parts[0].embedding.weight.detach() != d1).any(1)).flatten().tolist())
    assert moved and moved <= rows
    assert dense_moved - rows   # the first batch's rows keep moving under dense Adam
    for group in megabatches(chunks[2:], cfg.train.megabatch):
        trainer.train_megabatch(group)
    assert dev_pearson(model, dev) > before + 1.0


def test_the_batch_loss_and_its_gradient_are_those_of_the_four_slices():
    """The trainer splits the model's vectors with one ``unbind`` (one gradient tensor in
    backward instead of one zero-filled tensor per slice): the loss and the table's gradient
    are bit for bit those of slicing the vectors into pairs and negatives."""
    from paralib.models.bags import Bags

    cfg = _config([ENCODERS["word"]], regularisation={})
    model, trainer, chunks = _train(cfg)
    batch = pair_batch(chunks[0], model)
    n1, n2 = trainer.mine(batch)
    loss = trainer._batch_loss(batch, n1, n2)
    loss.backward()
    weight = model.parts[0].embedding.weight
    fast, weight.grad = weight.grad.clone(), None
    n = len(batch)
    vecs = model([Bags.concat([batch.side1[0], batch.side2[0], n1[0], n2[0]])])
    ref = trainer.loss(vecs[:n], vecs[n:2 * n], vecs[2 * n:3 * n], vecs[3 * n:])
    ref.backward()
    assert loss.item() == ref.item() > 0
    assert torch.equal(fast, weight.grad) and fast.abs().sum() > 0


def test_combined_encoders_and_regularisers_train(dev):
    cfg = _config([ENCODERS["word"], ENCODERS["trigram"]], negatives="mix",
                  megabatch={"size": 3, "start": 1, "anneal_every": 4},
                  regularisation={"lambda_w": 1e-4, "lambda_c": 1e-4, "word_dropout": 0.1,
                                  "scramble_rate": 0.3})
    model, trainer, chunks = _train(cfg)
    before = dev_pearson(model, dev)
    sizes = []
    for group in megabatches(chunks, cfg.train.megabatch):
        sizes.append(len(group))
        assert np.isfinite(trainer.train_megabatch(group))
    assert dev_pearson(model, dev) > before
    assert sizes[:3] == [1, 1, 1] and max(sizes) == 3  # annealed 1 -> 3
    assert penalty(model, trainer.initial, cfg.train.regularisation).item() > 0


def test_contrastive_loss_on_labelled_pairs(tmp_path, dev):
    import pandas as pd

    from paralib.train.sources import load_sources

    cfg = _config([ENCODERS["sp"]])
    pos, _ = load_sources(cfg.train, StageContext.of(cfg))
    rng = np.random.default_rng(0)
    neg = pos.assign(s2=pos["s2"].to_numpy()[rng.permutation(len(pos))])
    labelled = pd.concat([pos.assign(label=1), neg.assign(label=0)])
    labelled.to_parquet(tmp_path / "labelled.parquet")
    cfg = Config.model_validate({"train": {
        "sources": [{"kind": "pairs", "path": str(tmp_path / "labelled.parquet"),
                     "s1_column": "s1", "s2_column": "s2"}],
        "model": {"parts": [ENCODERS["sp"]]}, "loss": "contrastive",
        "decontaminate": False}})  # STS Benchmark pairs, kept on purpose
    model, trainer, chunks = _train(cfg)
    before = dev_pearson(model, dev)
    for _ in range(3):
        for group in megabatches(chunks, cfg.train.megabatch):
            trainer.train_megabatch(group)
    assert dev_pearson(model, dev) > before + 1.0


def test_bilingual_training_on_raw_bitext(m30k):
    """2019 §2: English with German straight from the bitext, negatives from the other
    language only; the joint SP vocabulary shares rows across languages."""
    cfg = Config.model_validate({
        "bitext": {"inputs": [{"corpus": "m30k", "src_lang": "de", "src": m30k["val_de"],
                               "en": m30k["val_en"]}]},
        "train": {"sources": [{"kind": "bitext"}],
                  "model": {"parts": [{"name": "sp", "vocab_size": 1500, "dim": 32}]},
                  "megabatch": {"size": 2}}})
    model, trainer, chunks = _train(cfg)
    trainer.bilingual = True
    en, de = chunks[0]["s1"].tolist(), chunks[0]["s2"].tolist()
    mega = pair_batch(chunks[0], model)
    n_en, n_de = (b[0].to_lists() for b in trainer.mine(mega))
    en_ids, de_ids = mega.side1[0].to_lists(), mega.side2[0].to_lists()
    # negatives in the other language, never the translation itself
    assert {tuple(t) for t in n_en} <= {tuple(t) for t in de_ids}
    assert {tuple(t) for t in n_de} <= {tuple(t) for t in en_ids}
    assert all(t != d for t, d in zip(n_en, de_ids, strict=True))

    def translation_rank() -> float:
        with torch.no_grad():
            e = torch.nn.functional.normalize(model.embed(en[:100]), dim=-1)
            d = torch.nn.functional.normalize(model.embed(de[:100]), dim=-1)
        return float(((e @ d.T).argmax(1) == torch.arange(len(e))).float().mean())

    before = translation_rank()
    for _ in range(3):
        for group in megabatches(chunks, cfg.train.megabatch):
            trainer.train_megabatch(group)
    assert translation_rank() > before


def test_fused_adam_makes_the_per_tensor_loops_update():
    """build_optimizer's fused kernel against torch's reference loop: the same weights after
    ten steps of real training (float32 rounding apart), far from where they started."""
    cfg = _config([ENCODERS["trigram"]])
    model, trainer, chunks = _train(cfg)
    assert trainer.optimizer.optimizers[0].param_groups[0]["fused"] is True
    twin = copy.deepcopy(model)
    reference = MegaBatchTrainer(cfg.train, twin, torch.optim.Adam(twin.parameters(),
                                                                   lr=cfg.train.lr), seed=0)
    start = [p.detach().clone() for p in model.parameters()]
    for chunk in chunks[:10]:
        torch.manual_seed(1)
        trainer.train_megabatch([chunk])
        torch.manual_seed(1)
        reference.train_megabatch([chunk])
    for a, b, a0 in zip(model.parameters(), twin.parameters(), start, strict=True):
        assert (a - b).abs().max().item() < 1e-4
        assert (a - a0).abs().max().item() > 1e-3


def test_a_checkpoint_of_the_reference_loop_resumes_in_a_fused_optimizer():
    """Runs checkpointed before the fused kernel resume: the saved state loads, keeps the
    setting it was made with, and steps."""
    cfg = _config([ENCODERS["word"]])
    model, trainer, chunks = _train(cfg)
    old = torch.optim.Adam(model.parameters(), lr=cfg.train.lr)
    MegaBatchTrainer(cfg.train, model, old, seed=0).train_megabatch([chunks[0]])
    fresh = build_optimizer(model, cfg.train.lr)
    fresh.load_state_dict(old.state_dict())
    assert fresh.optimizers[0].param_groups[0]["fused"] is None
    before = [p.detach().clone() for p in model.parameters()]
    MegaBatchTrainer(cfg.train, model, fresh, seed=0).train_megabatch([chunks[1]])
    assert any((a - b).abs().max().item() > 0 for a, b in
               zip(model.parameters(), before, strict=True))
    assert int(fresh.optimizers[0].state[next(iter(model.parameters()))]["step"]) == 2
