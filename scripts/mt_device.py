"""Move a translation model trained on a GPU machine back to this one, within a transfer limit.

``paralib mt train --prepare-only`` writes the token store here; a GPU machine trains from it
(``paralib mt train --no-convert``, which writes ``<output>/hf``); this script packs that model
there and unpacks it here, where ``paralib mt finish`` converts it to CTranslate2 and scores it:

    python scripts/mt_device.py pack runs/mt-news-de-en OUT/      # on the GPU machine
    python scripts/mt_device.py unpack OUT/ runs/mt-news-de-en    # here

``pack`` writes the weights as float16 in shards of at most 15 MB (``<name>.<k>.safetensors``),
the small files of ``hf/`` plus ``metrics.json`` in the metadata of the first shard (a
transfer may bring back only a few files). ``unpack``
restores ``hf/`` in float32 (the float16 rounding is the only change, and the model card says
so) with the vocabulary files of ``<run>/vocab``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import torch
from safetensors import safe_open
from safetensors.torch import load_file, save_file

SHARD_BYTES = 15_000_000
META_KEY = "paralib_files"
SMALL = ("config.json", "generation_config.json", "paralib.json")
VOCAB = ("source.spm", "target.spm", "vocab.json", "tokenizer_config.json")


def pack(run: Path, out: Path) -> list[Path]:
    """Shards of ``run/hf/model.safetensors`` in float16 and one JSON of the small files."""
    name = run.name
    state = load_file(run / "hf" / "model.safetensors")
    out.mkdir(parents=True, exist_ok=True)
    shards: list[dict[str, torch.Tensor]] = [{}]
    size = 0
    for key in sorted(state):
        t = state[key].half() if state[key].is_floating_point() else state[key]
        if size and size + t.numel() * t.element_size() > SHARD_BYTES:
            shards.append({})
            size = 0
        shards[-1][key] = t.contiguous()
        size += t.numel() * t.element_size()
    meta = {f: (run / "hf" / f).read_text() for f in SMALL if (run / "hf" / f).is_file()}
    if (run / "metrics.json").is_file():
        meta["metrics.json"] = (run / "metrics.json").read_text()
    written = []
    for k, shard in enumerate(shards):
        written.append(out / f"{name}.{k}.safetensors")
        save_file(shard, written[-1], metadata={META_KEY: json.dumps(meta)} if k == 0 else None)
    return written


def unpack(src: Path, run: Path) -> Path:
    """Restore ``run/hf`` (float32 weights, config, vocabulary) from :func:`pack`'s files."""
    name = run.name
    with safe_open(src / f"{name}.0.safetensors", "pt") as f:
        meta = json.loads(f.metadata()[META_KEY])
    state: dict[str, torch.Tensor] = {}
    for shard in sorted(src.glob(f"{name}.*.safetensors")):
        state.update(load_file(shard))
    state = {k: v.float() if v.is_floating_point() else v for k, v in state.items()}
    hf = run / "hf"
    hf.mkdir(parents=True, exist_ok=True)
    save_file(state, hf / "model.safetensors", metadata={"format": "pt"})
    for f, text in meta.items():
        (run / f if f == "metrics.json" else hf / f).write_text(text)
    info = json.loads((hf / "paralib.json").read_text())
    info["weights_transfer"] = "float16 (packed on the training machine), restored as float32"
    (hf / "paralib.json").write_text(json.dumps(info, indent=2))
    for f in VOCAB:
        (hf / f).write_bytes((run / "vocab" / f).read_bytes())
    return hf


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("pack", help="RUN OUT: pack RUN/hf into OUT")
    p.add_argument("run", type=Path)
    p.add_argument("out", type=Path)
    p = sub.add_parser("unpack", help="SRC RUN: restore RUN/hf from SRC")
    p.add_argument("src", type=Path)
    p.add_argument("run", type=Path)
    args = ap.parse_args()
    if args.cmd == "pack":
        for path in pack(args.run, args.out):
            print(f"{path} {path.stat().st_size:,} bytes")
    else:
        print(f"restored {unpack(args.src, args.run)}")


if __name__ == "__main__":
    main()
