"""Encoding speed in sentences per second (2019 §4.1, Table 4).

The paper encodes 128,000 English Europarl sentences in batches of 128 on a GPU. Here the fixed
set is the first ``Settings.speed_sentences`` English Multi30k training sentences, encoded in
this process in batches of ``Settings.speed_batch_size`` (128) after one warm-up batch; the
report gives the CPU threads torch was allowed. A measurement, not a test: numbers depend on
the machine and on what else runs on it.
"""

from __future__ import annotations

import os
import time
from typing import Any

import numpy as np

from paralib.evaluate.base import Task, load_sets, register
from paralib.evaluate.evalmodel import EvalModel
from paralib.evaluate.loaders import read_gz_lines

SPEED_FILE = ("bitext", "multi30k", "task1", "raw", "train.en.gz")


@register
class Speed(Task):
    """Sentences per second on a fixed English set."""

    name = "speed"
    title = "Encoding speed"
    paper = "2019 §4.1, Table 4"

    @property
    def notes(self) -> tuple[str, ...]:  # type: ignore[override]
        s = self.settings
        return (f"The first {s.speed_sentences:,} English Multi30k training sentences, batches "
                f"of {s.speed_batch_size}, in one process on the CPU after a warm-up batch; "
                "wall-clock time of encode().",)

    def load(self) -> dict[str, Any]:
        path = self.settings.data.joinpath(*SPEED_FILE)
        return load_sets(["multi30k-en"], lambda _: read_gz_lines(
            path, "encoding speed set", self.settings.speed_sentences))

    def run_set(self, model: EvalModel, set_name: str, data: list[str]) -> dict:
        import torch

        bs = self.settings.speed_batch_size
        enc = model.encoder
        enc.encode(data[:bs], batch_size=bs)
        start = time.perf_counter()
        emb = np.asarray(enc.encode(data, batch_size=bs))
        seconds = time.perf_counter() - start
        return {"sentences": len(data), "seconds": seconds,
                "sentences_per_s": len(data) / seconds if seconds > 0 else None,
                "dim": int(emb.shape[1]), "batch_size": bs,
                "torch_threads": torch.get_num_threads(), "cpus": os.cpu_count()}
