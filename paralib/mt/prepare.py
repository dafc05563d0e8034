"""Prepare the training data of ``paralib mt train``: read, clean, encode, never all at once.

The translation models of the papers (2017 §3, 2018 §3) train on bitext; paralib
trains them on news (WMT news, Tatoeba Challenge, NTREX, TICO) as well as captions, and
requires that the corpus is streamed and decontaminated. Three passes, each holding one shard:

1. stream the inputs (:func:`paralib.mt.data.iter_pairs`): reader rejects, wrong language,
   pairs with a side in an evaluation set of ``paralib evaluate`` (unless
   ``mt.decontaminate`` is false) or in the model's own validation and test sides, and exact
   duplicates are counted and left out; the clean pairs go to Parquet parts on disk;
2. train the joint sentencepiece vocabulary on those parts (sentencepiece samples at most
   2 M sentences from the stream);
3. encode the parts into a :class:`~paralib.mt.store.TokenStore` (``<output>/data/train``),
   leaving out pairs longer than ``max_len`` pieces; the validation pairs go to
   ``<output>/data/valid``.

The result is keyed by a fingerprint of the data keys of the config: a rerun with the same
data reuses it, so a run can be prepared on one machine and trained on another (a GPU node)
with ``<output>/mt-config.yaml``, the config with its corpora resolved to files.
"""

from __future__ import annotations

import json
import random
import shutil
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import yaml
from tqdm import tqdm

from paralib.config import MTTrainConfig
from paralib.errors import ConfigurationError
from paralib.fingerprint import stage_print
from paralib.mt.data import form_hashes, iter_pairs, read_side
from paralib.mt.store import META, TokenStore, write_store
from paralib.mt.vocab import JointVocab, train_vocab

PREPARED = "prepared.json"
# written into ``mt.output`` when paralib starts using it: the folders it replaces there
# (``data/pairs``, ``vocab``) are deleted only under this marker or a finished preparation
MADE_BY = "paralib-mt.json"


class PreparedError(ConfigurationError, ValueError):
    """A run folder whose model was trained on other data than the config names."""


def data_fingerprint(cfg: MTTrainConfig, inputs: list | None = None) -> str:
    """What the prepared data depends on: inputs, direction, vocabulary, length limit,
    decontamination and the held-out sides."""
    inputs = cfg.all_inputs() if inputs is None else inputs
    return str(stage_print({
        "inputs": [i.model_dump(mode="json") for i in inputs],
        "langs": [cfg.src_lang, cfg.tgt_lang], "vocab_size": cfg.model.vocab_size,
        "max_len": cfg.max_len, "decontaminate": cfg.decontaminate,
        "held_out": [cfg.valid_src, cfg.valid_ref, cfg.test_src, cfg.test_ref],
        "seed": cfg.seed}))


def held_out(cfg: MTTrainConfig) -> np.ndarray:
    """Normal-form hashes of every side of the validation and test sets (sorted)."""
    texts = [text for spec in (cfg.valid_src, cfg.valid_ref, cfg.test_src, cfg.test_ref)
             if spec for text in read_side(spec)]
    return np.unique(form_hashes(texts)) if texts else np.zeros(0, dtype=np.uint64)


def _parts(folder: Path) -> Iterator[pa.Table]:
    for part in sorted(folder.glob("part-*.parquet")):
        yield pq.read_table(part)


def _texts(folder: Path, rng: random.Random) -> Iterator[str]:
    """Both sides of every clean pair, part by part (sentencepiece samples the stream)."""
    for table in _parts(folder):
        cols = table.column("src").to_pylist() + table.column("tgt").to_pylist()
        rng.shuffle(cols)
        yield from cols


def _encoded(folder: Path, vocab: JointVocab, max_len: int, skipped: Counter):
    for table in _parts(folder):
        src = vocab.encode(table.column("src").to_pylist(), max_len=10_000)
        tgt = vocab.encode(table.column("tgt").to_pylist(), max_len=10_000)
        keep = [i for i in range(len(src)) if len(src[i]) <= max_len and len(tgt[i]) <= max_len]
        skipped[f"longer than {max_len} pieces"] += len(src) - len(keep)
        yield [src[i] for i in keep], [tgt[i] for i in keep]


def resolved_config(cfg: MTTrainConfig, inputs: list) -> dict:
    """The config as a ``paralib`` config file, with ``corpora`` resolved to ``inputs``."""
    dump = cfg.model_dump(mode="json", exclude_none=True)
    dump["inputs"] = [i.model_dump(mode="json", exclude_none=True) for i in inputs]
    dump["corpora"] = []
    return {"mt": dump}


def claim_output(out: Path) -> None:
    """Mark ``out`` as paralib's MT folder, or stop when it holds files paralib did not make
    (neither :data:`MADE_BY` nor :data:`PREPARED`): preparing deletes and rewrites folders in
    it, and nothing paralib did not create is ever deleted."""
    if out.is_dir() and any(out.iterdir()) and not (
            (out / MADE_BY).is_file() or (out / PREPARED).is_file()):
        raise PreparedError(f"mt.output {out} holds files that paralib did not make (no "
                            f"{MADE_BY}); give mt.output a new or empty folder")
    out.mkdir(parents=True, exist_ok=True)
    (out / MADE_BY).write_text(json.dumps({"made_by": "paralib mt"}) + "\n")


def prepare(cfg: MTTrainConfig, progress: bool = True
            ) -> tuple[TokenStore, TokenStore | None, JointVocab, dict]:
    """The training store, the validation store (or None), the vocabulary and the counts of
    what was left out; reused from ``<output>`` when its fingerprint matches."""
    out = Path(cfg.output)
    data, vocab_dir = out / "data", out / "vocab"
    inputs = cfg.all_inputs() if cfg.inputs or cfg.corpora else []
    prepared = out / PREPARED
    if prepared.is_file() and (data / "train" / META).is_file():
        info = json.loads(prepared.read_text())
        if not inputs or info["fingerprint"] == data_fingerprint(cfg, inputs):
            valid = TokenStore.open(data / "valid") if (data / "valid" / META).is_file() else None
            return (TokenStore.open(data / "train"), valid, JointVocab(vocab_dir / "source.spm"),
                    info)
    if not inputs:
        raise ValueError("mt.inputs and mt.corpora are empty: name the bitext to train on")
    key = data_fingerprint(cfg, inputs)
    if (out / "checkpoints" / "last.pt").is_file():
        raise PreparedError(f"{out} holds a model trained on other data (or an older layout); "
                            "give mt.output a new folder")
    from paralib.decontaminate.stage import per_eval_set

    index = None
    if cfg.decontaminate:
        from paralib.decontaminate import EvalIndex
        from paralib.paths import data_root

        index = EvalIndex.cached(data_root())
    claim_output(out)
    skipped: Counter = Counter()
    staging = data / "pairs"
    shutil.rmtree(staging, ignore_errors=True)  # paralib's own staging folder
    staging.mkdir(parents=True)
    kept = 0
    bar = tqdm(desc="mt prepare", unit=" pairs", disable=not progress)
    for n, chunk in enumerate(iter_pairs(inputs, cfg.src_lang, cfg.tgt_lang, skipped,
                                         cfg.shard_rows, index,
                                         held_out(cfg) if cfg.decontaminate else None)):
        pq.write_table(pa.table({"src": [p[0] for p in chunk], "tgt": [p[1] for p in chunk]}),
                       staging / f"part-{n:05d}.parquet")
        kept += len(chunk)
        bar.update(len(chunk))
    bar.close()
    if not kept:
        raise ValueError(f"mt: no training pair left after reading the inputs ({dict(skipped)})")
    shutil.rmtree(vocab_dir, ignore_errors=True)
    vocab = train_vocab(_texts(staging, random.Random(cfg.seed)), vocab_dir,
                        cfg.model.vocab_size, cfg.src_lang, cfg.tgt_lang)
    train = write_store(data / "train", _encoded(staging, vocab, cfg.max_len, skipped),
                        vocab.size, {"fingerprint": key})
    valid = None
    if cfg.valid_src and cfg.valid_ref:
        pairs = list(zip(read_side(cfg.valid_src), read_side(cfg.valid_ref), strict=True))
        src = vocab.encode([p[0] for p in pairs], max_len=cfg.model.max_positions - 2)
        tgt = vocab.encode([p[1] for p in pairs], max_len=cfg.model.max_positions - 2)
        valid = write_store(data / "valid", [(src, tgt)], vocab.size)
    shutil.rmtree(staging)
    skipped.setdefault("duplicate pair", 0)
    info = {"fingerprint": key, "train_pairs": len(train), "skipped": dict(skipped),
            "decontaminated": cfg.decontaminate,
            "per_eval_set": per_eval_set(skipped)}
    (out / "mt-config.yaml").write_text(yaml.safe_dump(resolved_config(cfg, inputs),
                                                       sort_keys=False, allow_unicode=True))
    prepared.write_text(json.dumps(info, indent=2))
    return train, valid, vocab, info

