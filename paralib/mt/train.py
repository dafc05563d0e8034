"""``paralib mt train``: a small Marian Transformer X→Y trained on CPU from our bitext.

The papers back-translate with an NMT system (2017 §3: Czech→English; 2018 §3); none can
be downloaded here, so this trains one. The recipe is tuned for a 2-core CPU: token-based
batches of similar lengths, Adam with inverse-square-root warm-up, label smoothing, a time
budget, checkpoint averaging, then CTranslate2 conversion (float32 and int8) and sacreBLEU
on a test set. Training resumes from ``<output>/checkpoints/last.pt`` when it exists.

With English on both sides (``src_lang: en``, ``tgt_lang: en``) the same machinery trains
the paraphrase generator of ParaNMT 2018 §6 on selected English-English pairs; its test
metrics add the copy baseline, self-BLEU and the copy rate (:mod:`paralib.mt.metrics`).
"""

from __future__ import annotations

import json
import math
import os
import random
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

import torch
import torch.nn.functional as F
from tqdm import tqdm

from paralib.config import MTTrainConfig
from paralib.mt.convert import convert
from paralib.mt.data import load_pairs, read_side
from paralib.mt.data import read_text as read_text  # re-exported for callers
from paralib.mt.metrics import bleu, decode, paraphrase_metrics
from paralib.mt.model import build_model, zero_pad_row
from paralib.mt.vocab import FILES as TOKENIZER_FILES
from paralib.mt.vocab import JointVocab, train_vocab


@dataclass
class Corpus:
    """Encoded training pairs (source ids, target ids) and what was left out."""

    src: list[list[int]]
    tgt: list[list[int]]
    skipped: dict[str, int] = field(default_factory=dict)


def encode_corpus(pairs: list[tuple[str, str]], vocab: JointVocab, max_len: int) -> Corpus:
    """Encode pairs; pairs with a side longer than ``max_len`` pieces are left out, counted."""
    src = vocab.encode([p[0] for p in pairs], max_len=10_000)
    tgt = vocab.encode([p[1] for p in pairs], max_len=10_000)
    keep_s, keep_t, too_long = [], [], 0
    for s, t in zip(src, tgt, strict=True):
        if len(s) > max_len or len(t) > max_len:
            too_long += 1
            continue
        keep_s.append(s)
        keep_t.append(t)
    return Corpus(keep_s, keep_t, {f"longer than {max_len} pieces": too_long})


def make_batches(corpus: Corpus, batch_tokens: int, rng: random.Random) -> list[list[int]]:
    """Group pair indices into batches of similar length holding at most ``batch_tokens``."""
    order = sorted(
        range(len(corpus.src)),
        key=lambda i: (max(len(corpus.src[i]), len(corpus.tgt[i])), rng.random()),
    )
    batches, cur, longest = [], [], 0
    for i in order:
        n = max(len(corpus.src[i]), len(corpus.tgt[i]))
        if cur and max(longest, n) * (len(cur) + 1) > batch_tokens:
            batches.append(cur)
            cur, longest = [], 0
        cur.append(i)
        longest = max(longest, n)
    if cur:
        batches.append(cur)
    rng.shuffle(batches)
    return batches


def collate(corpus: Corpus, idx: list[int], pad: int) -> dict[str, torch.Tensor]:
    """Padded encoder input, shifted decoder input (starting with ``<pad>``) and labels."""
    src = [corpus.src[i] for i in idx]
    tgt = [corpus.tgt[i] for i in idx]
    ls, lt = max(map(len, src)), max(map(len, tgt))
    input_ids = torch.full((len(idx), ls), pad, dtype=torch.long)
    dec = torch.full((len(idx), lt), pad, dtype=torch.long)
    labels = torch.full((len(idx), lt), -100, dtype=torch.long)
    for j, (s, t) in enumerate(zip(src, tgt, strict=True)):
        input_ids[j, : len(s)] = torch.tensor(s)
        labels[j, : len(t)] = torch.tensor(t)
        dec[j, 1 : len(t)] = torch.tensor(t[:-1])
    return {
        "input_ids": input_ids,
        "attention_mask": (input_ids != pad).long(),
        "decoder_input_ids": dec,
        "labels": labels,
    }


def lr_at(step: int, peak: float, warmup: int) -> float:
    """Linear warm-up to ``peak`` then inverse square-root decay."""
    if warmup == 0:
        return peak
    step = max(step, 1)
    return peak * min(step / warmup, math.sqrt(warmup / step))


def loss_of(model, batch: dict[str, torch.Tensor], smoothing: float) -> torch.Tensor:
    """Token-level cross-entropy with label smoothing, ignoring padding."""
    out = model(
        input_ids=batch["input_ids"],
        attention_mask=batch["attention_mask"],
        decoder_input_ids=batch["decoder_input_ids"],
    )
    logits = out.logits
    return F.cross_entropy(
        logits.reshape(-1, logits.size(-1)),
        batch["labels"].reshape(-1),
        ignore_index=-100,
        label_smoothing=smoothing,
    )


@torch.no_grad()
def valid_loss(model, corpus: Corpus, pad: int, batch_tokens: int) -> float:
    """Mean cross-entropy (no smoothing) on a held-out corpus."""
    model.eval()
    total, count = 0.0, 0
    for idx in make_batches(corpus, batch_tokens, random.Random(0)):
        batch = collate(corpus, idx, pad)
        n = int((batch["labels"] != -100).sum())
        total += float(loss_of(model, batch, 0.0)) * n
        count += n
    model.train()
    return total / max(count, 1)


def average_checkpoints(paths: list[Path]) -> dict[str, torch.Tensor]:
    """Element-wise mean of model state dicts (checkpoint averaging)."""
    avg: dict[str, torch.Tensor] = {}
    for p in paths:
        state = torch.load(p, map_location="cpu", weights_only=True)
        for k, v in state.items():
            if v.is_floating_point():
                avg[k] = avg.get(k, 0) + v / len(paths)
            else:
                avg[k] = v
    return avg


def _save_hf(model, vocab_dir: Path, out: Path, meta: dict, card: str) -> None:
    zero_pad_row(model)
    model.save_pretrained(out)
    for f in TOKENIZER_FILES:
        shutil.copy(vocab_dir / f, out / f)
    (out / "paralib.json").write_text(json.dumps(meta, indent=2))
    (out / "README.md").write_text(card)


def train_mt(cfg: MTTrainConfig, progress: bool = True) -> dict:
    """Train, average, convert and evaluate; returns the metrics written to ``metrics.json``."""
    if not cfg.inputs:
        raise ValueError("mt.inputs is empty: name the bitext to train on")
    torch.manual_seed(cfg.seed)
    rng = random.Random(cfg.seed)
    torch.set_num_threads(cfg.threads or os.cpu_count() or 1)
    out = Path(cfg.output)
    ckdir = out / "checkpoints"
    ckdir.mkdir(parents=True, exist_ok=True)
    vocab_dir = out / "vocab"

    pairs, skipped = load_pairs(cfg.inputs, cfg.src_lang, cfg.tgt_lang)
    if not (vocab_dir / "source.spm").is_file():
        texts = [s for p in pairs for s in p]
        rng.shuffle(texts)
        train_vocab(texts, vocab_dir, cfg.model.vocab_size, cfg.src_lang, cfg.tgt_lang)
    vocab = JointVocab(vocab_dir / "source.spm")
    corpus = encode_corpus(pairs, vocab, cfg.max_len)
    skipped.update(corpus.skipped)
    if not corpus.src:
        raise ValueError(f"mt: no training pair left after reading the inputs ({skipped})")
    valid = None
    if cfg.valid_src and cfg.valid_ref:
        vpairs = list(zip(read_side(cfg.valid_src), read_side(cfg.valid_ref), strict=True))
        valid = encode_corpus(vpairs, vocab, cfg.model.max_positions - 2)

    model = build_model(cfg.model, vocab.size, vocab.pad_id, vocab.eos_id)
    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr, betas=(0.9, 0.98), eps=1e-9)
    step, elapsed, epoch, history = 0, 0.0, 0, []
    last = ckdir / "last.pt"
    if last.is_file():
        state = torch.load(last, map_location="cpu", weights_only=False)
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["optim"])
        step, elapsed, epoch = state["step"], state["elapsed"], state["epoch"]
        history = state.get("history", [])
        rng.setstate(state["rng"])
    budget = cfg.time_budget_minutes * 60
    bar = tqdm(total=cfg.max_steps, initial=step, disable=not progress, desc="mt train",
               unit="step")
    model.train()
    done = step >= cfg.max_steps or elapsed >= budget
    while not done:
        epoch += 1
        for idx in make_batches(corpus, cfg.batch_tokens, rng):
            t0 = time.perf_counter()
            step += 1
            for g in opt.param_groups:
                g["lr"] = lr_at(step, cfg.lr, cfg.warmup_steps)
            loss = loss_of(model, collate(corpus, idx, vocab.pad_id), cfg.label_smoothing)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            zero_pad_row(model)
            elapsed += time.perf_counter() - t0
            bar.update(1)
            bar.set_postfix(loss=f"{loss.item():.3f}", epoch=epoch, min=f"{elapsed / 60:.1f}")
            done = step >= cfg.max_steps or elapsed >= budget
            if step % cfg.eval_every == 0 or done:
                entry = {"step": step, "epoch": epoch, "minutes": elapsed / 60,
                         "train_loss": loss.item()}
                if valid is not None:
                    entry["valid_loss"] = valid_loss(model, valid, vocab.pad_id, cfg.batch_tokens)
                history.append(entry)
                bar.write(json.dumps(entry))
                torch.save(model.state_dict(), ckdir / f"model-{step:07d}.pt")
                kept = sorted(ckdir.glob("model-*.pt"))
                for old in kept[: -cfg.average_last]:
                    old.unlink()
                torch.save(
                    {"model": model.state_dict(), "optim": opt.state_dict(), "step": step,
                     "elapsed": elapsed, "epoch": epoch, "history": history,
                     "rng": rng.getstate()},
                    ckdir / "last.tmp",
                )
                os.replace(ckdir / "last.tmp", last)
            if done:
                break
    bar.close()
    return finish(cfg, model, vocab_dir, history, skipped, len(corpus.src), step, elapsed)


def finish(cfg: MTTrainConfig, model, vocab_dir: Path, history: list, skipped: dict,
           n_pairs: int, step: int, elapsed: float) -> dict:
    """Average the last checkpoints, save, convert to CTranslate2 and measure BLEU."""
    out = Path(cfg.output)
    kept = sorted((out / "checkpoints").glob("model-*.pt"))
    if len(kept) > 1:
        model.load_state_dict(average_checkpoints(kept))
    meta = {"src_lang": cfg.src_lang, "tgt_lang": cfg.tgt_lang, "train_pairs": n_pairs,
            "steps": step, "train_minutes": round(elapsed / 60, 1),
            "averaged_checkpoints": len(kept), "skipped": skipped,
            "model": cfg.model.model_dump(), "params": sum(p.numel() for p in model.parameters())}
    hf = out / "hf"
    _save_hf(model, vocab_dir, hf, meta, model_card(cfg, meta))
    metrics = dict(meta, history=history)
    for q in ("float32", "int8"):
        dst = convert(hf, out / f"ct2-{q}", quantization=q)
        if cfg.test_src and cfg.test_ref:
            metrics.update(evaluate_test_set(cfg, dst, q))
    for q in ("float32", "int8"):
        final = dict(meta, **{k: v for k, v in metrics.items() if k.startswith(TEST_KEYS)})
        (out / f"ct2-{q}" / "paralib.json").write_text(json.dumps(final, indent=2))
        (out / f"ct2-{q}" / "README.md").write_text(model_card(cfg, final))
    (out / "metrics.json").write_text(json.dumps(metrics, indent=2))
    return metrics


TEST_KEYS = ("bleu", "copy_bleu", "self_bleu", "copy_rate", "length_ratio")


def evaluate_test_set(cfg: MTTrainConfig, model_dir: Path, quantization: str) -> dict:
    """sacreBLEU on the test set and the decoding speed, keyed by ``quantization``; for an
    X→X (paraphrase) model also the copy baseline, self-BLEU, copy rate and length ratio."""
    sources, refs = read_side(cfg.test_src), read_side(cfg.test_ref)
    hyps, speed = decode(model_dir, sources, cfg.beam_size, cfg.threads,
                         max_length=min(128, cfg.model.max_positions - 2))
    scores = (paraphrase_metrics(sources, hyps, refs) if cfg.src_lang == cfg.tgt_lang
              else {"bleu": round(bleu(hyps, refs), 2)})
    out = {f"{k}_{quantization}": v for k, v in scores.items()}
    out[f"sentences_per_s_{quantization}"] = round(speed, 1)
    return out


def _side_name(spec: str) -> str:
    """A test side as the card names it: the file name, or the whole ``PARQUET#column``."""
    return spec if "#" in spec else Path(spec).name


def model_card(cfg: MTTrainConfig, meta: dict) -> str:
    """A Markdown model card: data, size, training time and the test metrics."""
    para = cfg.src_lang == cfg.tgt_lang
    kind = "paraphrase model (ParaNMT 2018 §6)" if para else "translation model"
    threads = f"{cfg.threads} thread(s)" if cfg.threads else f"{os.cpu_count()} CPU cores"
    lines = [
        f"# paralib {kind} {cfg.src_lang}→{cfg.tgt_lang}",
        "",
        "Made by `paralib mt train` (Marian Transformer from `transformers`, trained on CPU, "
        "converted to CTranslate2).",
        "",
        f"- training pairs: {meta['train_pairs']} from: "
        + ", ".join(sorted({i.corpus for i in cfg.inputs})),
        f"- parameters: {meta['params']:,}; d_model {cfg.model.d_model}, "
        f"{cfg.model.encoder_layers}+{cfg.model.decoder_layers} layers, "
        f"joint sentencepiece vocabulary of {cfg.model.vocab_size}",
        f"- steps: {meta['steps']} in {meta['train_minutes']} minutes on {threads}; "
        f"batches of {cfg.batch_tokens} tokens, lr {cfg.lr}, "
        f"warm-up {cfg.warmup_steps}, label smoothing {cfg.label_smoothing}; "
        f"average of the last {meta['averaged_checkpoints']} checkpoints",
    ]
    for q in ("float32", "int8"):
        if f"bleu_{q}" not in meta:
            continue
        where = f"on {_side_name(cfg.test_src)} (beam {cfg.beam_size}, CTranslate2 {q})"
        if not para:
            lines.append(f"- sacreBLEU {where}: {meta[f'bleu_{q}']}")
            continue
        lines.append(
            f"- {where}: sacreBLEU against {_side_name(cfg.test_ref)} {meta[f'bleu_{q}']} "
            f"(the unchanged input scores {meta[f'copy_bleu_{q}']}); self-BLEU against the "
            f"input {meta[f'self_bleu_{q}']}; copy rate {meta[f'copy_rate_{q}']}; "
            f"output/input length {meta[f'length_ratio_{q}']}")
    lines += ["", "Left out of training: " + json.dumps(meta["skipped"]), ""]
    return "\n".join(lines)
