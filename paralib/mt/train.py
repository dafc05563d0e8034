"""``paralib mt train``: a small Marian Transformer X→Y trained from our bitext.

The papers back-translate with an NMT system (2017 §3: Czech→English; 2018 §3); none can
be downloaded here, so this trains one, on a 2-core CPU or on a GPU (``mt.device``). The
corpus is streamed into an on-disk token store first (:mod:`paralib.mt.prepare`); then
token-based batches of similar lengths, Adam with inverse-square-root warm-up, label
smoothing, a time budget, checkpoint averaging, then CTranslate2 conversion (float32 and int8)
and sacreBLEU on a test set. Training resumes from ``<output>/checkpoints/last.pt`` when it
exists.

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
from dataclasses import dataclass
from pathlib import Path

import torch
import torch.nn.functional as F
from tqdm import tqdm

from paralib.config import MTTrainConfig
from paralib.errors import ResourcesError
from paralib.mt.convert import convert
from paralib.mt.data import read_side
from paralib.mt.metrics import bleu, decode, paraphrase_metrics
from paralib.mt.model import build_model, zero_pad_row
from paralib.mt.prepare import prepare
from paralib.mt.store import TokenStore
from paralib.mt.vocab import FILES as TOKENIZER_FILES


def lr_at(step: int, peak: float, warmup: int) -> float:
    """Linear warm-up to ``peak`` then inverse square-root decay."""
    if warmup == 0:
        return peak
    step = max(step, 1)
    return peak * min(step / warmup, math.sqrt(warmup / step))


def loss_of(model, batch: dict[str, torch.Tensor], smoothing: float) -> torch.Tensor:
    """Token-level cross-entropy with label smoothing, ignoring padding."""
    logits = model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"],
                   decoder_input_ids=batch["decoder_input_ids"]).logits
    return F.cross_entropy(logits.reshape(-1, logits.size(-1)), batch["labels"].reshape(-1),
                           ignore_index=-100, label_smoothing=smoothing)


@torch.no_grad()
def valid_loss(model, store: TokenStore, pad: int, batch_tokens: int, device: Device) -> float:
    """Mean cross-entropy (no smoothing) on a held-out store."""
    model.eval()
    total, count = 0.0, 0
    for idx in store.batches(batch_tokens, random.Random(0)):
        batch = device.put(store.collate(idx, pad))
        n = int((batch["labels"] != -100).sum())
        with device.autocast():
            total += float(loss_of(model, batch, 0.0)) * n
        count += n
    model.train()
    return total / max(count, 1)


@dataclass
class Device:
    """Where the model trains: CUDA with bfloat16 autocast when asked for or available."""

    name: str

    @classmethod
    def choose(cls, wanted: str) -> Device:
        if wanted == "cuda" and not torch.cuda.is_available():
            raise ResourcesError("mt.device is cuda but torch sees no CUDA device")
        cuda = wanted == "cuda" or (wanted == "auto" and torch.cuda.is_available())
        return cls("cuda" if cuda else "cpu")

    def put(self, batch: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        return {k: v.to(self.name, non_blocking=True) for k, v in batch.items()}

    def autocast(self):
        return torch.autocast("cuda", dtype=torch.bfloat16, enabled=self.name == "cuda")


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


def train_mt(cfg: MTTrainConfig, progress: bool = True, convert_models: bool = True) -> dict:
    """Prepare (stream, clean, encode), train, average, then convert and evaluate (unless
    ``convert_models`` is false: then ``<output>/hf`` is the result, and
    :func:`convert_and_test` finishes it later, e.g. on another machine); returns the
    metrics written to ``metrics.json``."""
    torch.manual_seed(cfg.seed)
    rng = random.Random(cfg.seed)
    torch.set_num_threads(cfg.threads or os.cpu_count() or 1)
    out = Path(cfg.output)
    ckdir = out / "checkpoints"
    store, valid, vocab, info = prepare(cfg, progress)
    ckdir.mkdir(parents=True, exist_ok=True)
    device = Device.choose(cfg.device)
    model = build_model(cfg.model, vocab.size, vocab.pad_id, vocab.eos_id).to(device.name)
    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr, betas=(0.9, 0.98), eps=1e-9)
    step, elapsed, epoch, history = 0, 0.0, 0, []
    last = ckdir / "last.pt"
    if last.is_file():  # weights and plain types only: nothing in it can run code
        state = torch.load(last, map_location=device.name, weights_only=True)
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["optim"])
        step, elapsed, epoch = state["step"], state["elapsed"], state["epoch"]
        history = state.get("history", [])
        rng.setstate((state["rng"][0], tuple(state["rng"][1]), state["rng"][2]))
    budget = cfg.time_budget_minutes * 60
    bar = tqdm(total=cfg.max_steps, initial=step, disable=not progress, desc="mt train",
               unit="step")
    model.train()
    done = step >= cfg.max_steps or elapsed >= budget
    loss_value = float("nan")
    while not done:
        epoch += 1
        for idx in store.batches(cfg.batch_tokens, rng):
            t0 = time.perf_counter()
            step += 1
            for g in opt.param_groups:
                g["lr"] = lr_at(step, cfg.lr, cfg.warmup_steps)
            with device.autocast():
                loss = loss_of(model, device.put(store.collate(idx, vocab.pad_id)),
                               cfg.label_smoothing)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            zero_pad_row(model)
            if step % 50 == 0 or device.name == "cpu":
                loss_value = loss.item()  # a sync on CUDA: not every step
            elapsed += time.perf_counter() - t0
            bar.update(1)
            bar.set_postfix(loss=f"{loss_value:.3f}", epoch=epoch, min=f"{elapsed / 60:.1f}")
            done = step >= cfg.max_steps or elapsed >= budget
            if step % cfg.eval_every == 0 or done:
                entry = {"step": step, "epoch": epoch, "minutes": elapsed / 60,
                         "train_loss": loss.item()}
                if valid is not None:
                    entry["valid_loss"] = valid_loss(model, valid, vocab.pad_id,
                                                     cfg.batch_tokens, device)
                history.append(entry)
                bar.write(json.dumps(entry))
                save_checkpoint(ckdir, model, opt, cfg.average_last,
                                {"step": step, "elapsed": elapsed, "epoch": epoch,
                                 "history": history, "rng": list(rng.getstate())})
            if done:
                break
    bar.close()
    model = model.to("cpu")
    meta = save_trained(cfg, model, out / "vocab", info, len(store), step, elapsed, device)
    metrics = dict(meta, history=history)
    (out / "metrics.json").write_text(json.dumps(metrics, indent=2))
    if not convert_models:
        return metrics
    return convert_and_test(cfg, history)


def save_checkpoint(ckdir: Path, model, opt, keep: int, state: dict) -> None:
    """Keep the model of this step (the last ``keep`` are averaged at the end) and the state
    to resume from (``last.pt``: tensors and plain types, loaded with ``weights_only``)."""
    step = state["step"]
    torch.save(model.state_dict(), ckdir / f"model-{step:07d}.pt")
    for old in sorted(ckdir.glob("model-*.pt"))[:-keep]:
        old.unlink()
    torch.save({"model": model.state_dict(), "optim": opt.state_dict(), **state},
               ckdir / "last.tmp")
    os.replace(ckdir / "last.tmp", ckdir / "last.pt")


def save_trained(cfg: MTTrainConfig, model, vocab_dir: Path, info: dict, n_pairs: int,
                 step: int, elapsed: float, device: Device) -> dict:
    """Average the last checkpoints and save the model to ``<output>/hf``."""
    out = Path(cfg.output)
    kept = sorted((out / "checkpoints").glob("model-*.pt"))
    if len(kept) > 1:
        model.load_state_dict(average_checkpoints(kept))
    meta = {"src_lang": cfg.src_lang, "tgt_lang": cfg.tgt_lang, "train_pairs": n_pairs,
            "steps": step, "train_minutes": round(elapsed / 60, 1),
            "device": torch.cuda.get_device_name() if device.name == "cuda" else "cpu",
            "averaged_checkpoints": len(kept), "skipped": info["skipped"],
            "decontaminated": info.get("decontaminated", True),
            "per_eval_set": info.get("per_eval_set", {}),
            "model": cfg.model.model_dump(), "params": sum(p.numel() for p in model.parameters())}
    zero_pad_row(model)
    model.save_pretrained(out / "hf")
    for f in TOKENIZER_FILES:
        shutil.copy(vocab_dir / f, out / "hf" / f)
    (out / "hf" / "paralib.json").write_text(json.dumps(meta, indent=2))
    (out / "hf" / "README.md").write_text(model_card(cfg, meta))
    return meta


def convert_and_test(cfg: MTTrainConfig, history: list | None = None) -> dict:
    """Convert ``<output>/hf`` to CTranslate2 (float32 and int8), measure BLEU on the test
    set, and write the cards and ``metrics.json``."""
    out = Path(cfg.output)
    hf = out / "hf"
    meta = json.loads((hf / "paralib.json").read_text())
    if history is None and (out / "metrics.json").is_file():
        history = json.loads((out / "metrics.json").read_text()).get("history", [])
    metrics = dict(meta, history=history or [])
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


TEST_KEYS = ("bleu", "copy_bleu", "self_bleu", "copy_rate", "length_ratio", "test_set")


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
    out["test_set"] = _side_name(cfg.test_src).removesuffix(".gz")
    return out


def _side_name(spec: str) -> str:
    """A test side as the card names it: the file name, or the whole ``PARQUET#column``."""
    return spec if "#" in spec else Path(spec).name


def model_card(cfg: MTTrainConfig, meta: dict) -> str:
    """A Markdown model card: data, size, training time and the test metrics."""
    para = cfg.src_lang == cfg.tgt_lang
    kind = "paraphrase model (ParaNMT 2018 §6)" if para else "translation model"
    threads = f"{cfg.threads} thread(s)" if cfg.threads else f"{os.cpu_count()} CPU cores"
    if meta.get("device", "cpu") != "cpu":
        threads = f"one {meta['device']}"
    lines = [
        f"# paralib {kind} {cfg.src_lang}→{cfg.tgt_lang}",
        "",
        "Made by `paralib mt train` (Marian Transformer from `transformers`, trained on "
        f"{meta.get('device', 'cpu')}, converted to CTranslate2).",
        "",
        f"- training pairs: {meta['train_pairs']} from: "
        + ", ".join(sorted({i.corpus for i in cfg.inputs} | {r.name for r in cfg.corpora})),
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
    if not meta.get("decontaminated", True):
        lines.append("- **not decontaminated** (`mt.decontaminate: false`): training pairs may "
                     "share a sentence with an evaluation set")
    elif meta.get("per_eval_set"):
        lines.append("- decontaminated: pairs removed per evaluation set "
                     + json.dumps(meta["per_eval_set"]))
    lines += ["", "Left out of training: " + json.dumps(meta["skipped"]), ""]
    return "\n".join(lines)
