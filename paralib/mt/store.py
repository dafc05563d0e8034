"""An on-disk token store: the encoded training pairs of ``paralib mt train``, streamed.

The translation models of the papers (2017 §3, 2018 §3) train on bitext that does not fit a
worker's memory at ParaNMT's scale, so ``paralib mt train`` never holds its corpus: pairs are
encoded chunk by chunk and appended to flat id files (``src.ids``, ``tgt.ids``, ``uint16``
while the vocabulary fits, else ``uint32``) with one length per pair (``src.len``,
``tgt.len``, ``uint16``). Training memory-maps the id files; only the lengths (4 bytes a pair)
and their offsets (16 bytes a pair) are in memory, for batching by length.

A store is complete when its ``store.json`` exists; it is written last.
"""

from __future__ import annotations

import json
import os
import random
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from paralib.errors import InputError

META = "store.json"
SIDES = ("src", "tgt")


class StoreError(InputError, ValueError):
    """A token store that is missing, unfinished or does not match its description."""


class StoreWriter:
    """Appends encoded pairs to a new store in ``folder`` (any earlier store there is
    replaced; the folder is paralib's own ``<output>/data/<name>``)."""

    def __init__(self, folder: str | Path, vocab_size: int):
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        (self.folder / META).unlink(missing_ok=True)
        self.dtype = np.dtype(np.uint16 if vocab_size <= 1 << 16 else np.uint32)
        self.vocab_size = vocab_size
        self.n = 0
        self.tokens = {s: 0 for s in SIDES}
        self._files = {name: open(self.folder / name, "wb")  # noqa: SIM115
                       for side in SIDES for name in (f"{side}.ids", f"{side}.len")}

    def add(self, src: list[list[int]], tgt: list[list[int]]) -> None:
        """Append a chunk of pairs (``src[i]``, ``tgt[i]``), each a list of ids."""
        for side, seqs in zip(SIDES, (src, tgt), strict=True):
            lens = np.fromiter((len(s) for s in seqs), dtype=np.uint16, count=len(seqs))
            flat = np.fromiter((i for s in seqs for i in s), dtype=self.dtype,
                               count=int(lens.sum(dtype=np.int64)))
            self._files[f"{side}.ids"].write(flat.tobytes())
            self._files[f"{side}.len"].write(lens.tobytes())
            self.tokens[side] += len(flat)
        self.n += len(src)

    def close(self, info: dict | None = None) -> TokenStore:
        """Flush the files and write ``store.json`` (the completion marker)."""
        for f in self._files.values():
            f.flush()
            os.fsync(f.fileno())
            f.close()
        meta = {"pairs": self.n, "dtype": self.dtype.name, "vocab_size": self.vocab_size,
                "tokens": self.tokens, **(info or {})}
        tmp = self.folder / f".{META}.tmp"
        tmp.write_text(json.dumps(meta, indent=2))
        os.replace(tmp, self.folder / META)
        return TokenStore.open(self.folder)


@dataclass
class TokenStore:
    """Encoded pairs read from disk: ``ids[side]`` (memory-mapped), ``lens[side]`` and
    ``offsets[side]`` per pair."""

    folder: Path
    meta: dict
    ids: dict[str, np.ndarray]
    lens: dict[str, np.ndarray]
    offsets: dict[str, np.ndarray]

    @classmethod
    def open(cls, folder: str | Path) -> TokenStore:
        """Open a complete store; :class:`StoreError` names what is wrong otherwise."""
        folder = Path(folder)
        if not (folder / META).is_file():
            raise StoreError(f"{folder}: no finished token store ({META} missing); run "
                             "`paralib mt train` (or `--prepare-only`) to write it")
        meta = json.loads((folder / META).read_text())
        ids, lens, offsets = {}, {}, {}
        for side in SIDES:
            lens[side] = np.fromfile(folder / f"{side}.len", dtype=np.uint16)
            total = int(lens[side].sum(dtype=np.int64))
            if len(lens[side]) != meta["pairs"] or total != meta["tokens"][side]:
                raise StoreError(f"{folder}: {side} holds {len(lens[side])} pairs and {total} "
                                 f"ids, {META} says {meta['pairs']} and {meta['tokens'][side]}")
            ids[side] = (np.memmap(folder / f"{side}.ids", dtype=meta["dtype"], mode="r")
                         if total else np.zeros(0, dtype=meta["dtype"]))
            offsets[side] = np.concatenate([[0], np.cumsum(lens[side], dtype=np.int64)])
        return cls(folder, meta, ids, lens, offsets)

    def __len__(self) -> int:
        return int(self.meta["pairs"])

    def pair(self, i: int) -> tuple[list[int], list[int]]:
        """The ids of pair ``i`` (source, target)."""
        return tuple(self.ids[s][self.offsets[s][i]: self.offsets[s][i + 1]].tolist()
                     for s in SIDES)

    def batches(self, batch_tokens: int, rng: random.Random) -> list[np.ndarray]:
        """Pair indices in batches of similar length holding at most ``batch_tokens`` ids
        (longest side × pairs), in random order; ties in length are broken at random."""
        longest = np.maximum(self.lens["src"], self.lens["tgt"]).astype(np.int64)
        noise = np.random.default_rng(rng.getrandbits(63)).random(len(longest))
        order = np.lexsort((noise, longest))
        out, start = [], 0
        while start < len(order):
            # sorted by length: the last pair of a batch is its longest
            end = start + 1
            while end < len(order) and longest[order[end]] * (end - start + 1) <= batch_tokens:
                end += 1
            out.append(order[start:end])
            start = end
        rng.shuffle(out)
        return out

    def _padded(self, side: str, idx: np.ndarray, pad: int) -> np.ndarray:
        lens = self.lens[side][idx].astype(np.int64)
        width = int(lens.max()) if len(lens) else 0
        cols = np.arange(width)
        mask = cols[None, :] < lens[:, None]
        pos = np.where(mask, self.offsets[side][idx][:, None] + cols[None, :], 0)
        return np.where(mask, np.asarray(self.ids[side][pos.ravel()]).reshape(pos.shape), pad)

    def collate(self, idx: np.ndarray, pad: int) -> dict[str, torch.Tensor]:
        """Padded encoder input, decoder input shifted right behind ``<pad>`` (Marian's
        decoder start) and labels (``-100`` on padding) for the pairs ``idx``."""
        idx = np.asarray(idx, dtype=np.int64)
        src = torch.from_numpy(self._padded("src", idx, pad).astype(np.int64))
        tgt = torch.from_numpy(self._padded("tgt", idx, pad).astype(np.int64))
        dec = torch.full_like(tgt, pad)
        dec[:, 1:] = tgt[:, :-1]
        labels = tgt.masked_fill(tgt == pad, -100)
        return {"input_ids": src, "attention_mask": (src != pad).long(),
                "decoder_input_ids": dec, "labels": labels}


def write_store(folder: str | Path, chunks: Iterable[tuple[list[list[int]], list[list[int]]]],
                vocab_size: int, info: dict | None = None) -> TokenStore:
    """Write every chunk of ``(src ids, tgt ids)`` to a store in ``folder`` and open it."""
    writer = StoreWriter(folder, vocab_size)
    for src, tgt in chunks:
        writer.add(src, tgt)
    return writer.close(info)
