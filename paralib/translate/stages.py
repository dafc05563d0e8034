"""Ray Data stages of back-translation: read shards, translate in actors, write parts.

Each stage is a plain function or callable class of the shape Ray's batch-inference
examples use (``map_batches(Cls, compute=ActorPoolStrategy(...))``): the model is loaded
once per actor in ``__init__`` and applied per batch in ``__call__``. Stage logic knows
nothing of where it runs. :class:`ShardActor` runs the three in one actor, so that a shard's
rows never pass through Ray's object store (``backtranslate.fuse_io``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa

from paralib.io.bitext import read_shards
from paralib.io.stage import write_parts

# ``set`` and ``group``: the set a pair comes from and its group
# (pairs of one group are paraphrases: the k-best hypotheses of one source share the group of
# its English reference).
OUTPUT_SCHEMA = pa.schema(
    [("id", pa.string()), ("corpus", pa.string()), ("src_lang", pa.string()),
     ("src", pa.string()), ("ref", pa.string()), ("trans", pa.string()),
     ("rank", pa.int32()), ("cost", pa.float32()), ("set", pa.string()), ("group", pa.int64())]
)


class TranslateActor:
    """Holds a ``ctranslate2.Translator`` (or one per source language, loaded when a row of
    that language first comes); expands each row into its k-best translations.

    Reads ``source_column`` and writes the k-best list into ``target_columns`` (text, rank,
    cost). Tokenisation (sentencepiece) happens here, inside the actor. Rows that carry a
    reject ``reason`` pass through untranslated (rank -1) so that the writer can count them.
    ``_first`` marks one row per input row; chained legs (round trips) keep it on the row
    that is first in every leg.
    """

    def __init__(self, model: str | dict[str, str], options: dict, device: str = "auto",
                 compute_type: str = "auto", intra_threads: int = 1, inter_threads: int = 1,
                 source_column: str = "src",
                 target_columns: tuple[str, str, str] = ("trans", "rank", "cost")):
        self.model = model
        self.settings = {"device": device, "compute_type": compute_type,
                         "intra_threads": intra_threads, "inter_threads": inter_threads}
        self.translators: dict[str, object] = {}
        if not isinstance(model, dict):
            self._translator("")
        self.options, self.source_column = options, source_column
        self.text, self.rank, self.cost = target_columns

    def _translator(self, lang: str):
        key = lang if isinstance(self.model, dict) else ""
        if key not in self.translators:
            from paralib.translate.translator import Translator

            path = self.model[key] if key else self.model
            self.translators[key] = Translator(path, **self.settings)
        return self.translators[key]

    def _kbest(self, good: pd.DataFrame) -> list:
        texts = good[self.source_column].tolist()
        if not isinstance(self.model, dict):
            return self._translator("").translate(texts, **self.options)
        out: list = [None] * len(texts)
        langs = good["src_lang"].to_numpy()
        for lang in dict.fromkeys(langs.tolist()):
            rows = np.flatnonzero(langs == lang)
            hyps = self._translator(lang).translate([texts[i] for i in rows], **self.options)
            for i, h in zip(rows.tolist(), hyps, strict=True):
                out[i] = h
        return out

    def __call__(self, batch: pd.DataFrame) -> pd.DataFrame:
        ok = (batch["reason"] == "").to_numpy()
        good = batch[ok]
        kbest = self._kbest(good)
        counts = np.array([len(h) for h in kbest], dtype=np.int64)
        out = good.loc[good.index.repeat(counts)].assign(**{
            self.text: [h.text for hyps in kbest for h in hyps],
            self.rank: np.concatenate([np.arange(c) for c in counts]) if len(counts) else [],
            self.cost: [h.cost for hyps in kbest for h in hyps]})
        bad = batch[~ok].assign(**{self.text: "", self.rank: -1, self.cost: np.nan})
        res = pd.concat([out, bad], ignore_index=True)
        first = res["_first"] if "_first" in res.columns else True
        res["_first"] = (res[self.rank] <= 0) & first
        res[self.rank] = res[self.rank].astype(np.int32)
        res[self.cost] = res[self.cost].astype(np.float32)
        return res


class ShardActor:
    """Reads whole shards, translates them through every leg and writes their parts, in one
    actor; returns only each shard's coverage row (:func:`paralib.io.stage.write_parts`).

    The same work as the chain read tasks → :class:`TranslateActor` pool(s) → write tasks,
    without two Ray Data operators, their task workers and the object-store copies of every
    row between them: on a small machine that is CPU the translation gets back.
    """

    def __init__(self, legs: list[dict], read: dict, write: dict):
        self.legs = [TranslateActor(**leg) for leg in legs]
        self.read, self.write = read, write

    def __call__(self, batch: pd.DataFrame) -> pd.DataFrame:
        rows = read_shards(batch, **self.read)
        for leg in self.legs:
            rows = leg(rows)
        return write_parts(rows, **self.write)
