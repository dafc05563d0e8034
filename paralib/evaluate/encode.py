"""Encoding for the tasks: in this process for small sets, through Ray Data for large ones.

Large sets (BUCC's tens of thousands of sentences) of a model that can be rebuilt elsewhere (a
model folder, or a baseline without input text) go through a Ray Data pipeline in the shape of
Ray's batch-inference examples: ``from_items`` → ``map_batches(EvalEncodeActor,
compute=ActorPoolStrategy(...))``, each actor loading the model once. In-memory encoders, and
sets under ``Settings.ray_threshold`` sentences, are encoded here.
"""

from __future__ import annotations

import logging

import numpy as np

from paralib.console import data_progress_bars
from paralib.evaluate.common import Settings
from paralib.evaluate.encoders import EncoderSource, EvalModel
from paralib.evaluate.metrics import row_cosines

log = logging.getLogger(__name__)


def encode_texts(model: EvalModel, texts: list[str], lang: str, settings: Settings) -> np.ndarray:
    """Embeddings (float32, ``len(texts)`` × d) of ``texts`` in language ``lang``."""
    if model.source is not None and len(texts) >= settings.ray_threshold:
        return encode_with_ray(model.source, texts, lang, settings)
    if not texts:
        return np.zeros((0, 0), dtype=np.float32)
    emb = model.encoder.encode(list(texts), batch_size=settings.batch_size)
    return np.asarray(emb, dtype=np.float32)


class EvalEncodeActor:
    """Ray Data callable class: loads the encoder once, encodes batches of ``text``."""

    def __init__(self, source: EncoderSource, batch_size: int):
        self.encoder = source.load()
        self.batch_size = batch_size

    def __call__(self, batch: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        emb = self.encoder.encode([str(t) for t in batch["text"]], batch_size=self.batch_size)
        return {"id": batch["id"], "emb": np.asarray(emb, dtype=np.float32)}


def encode_with_ray(source: EncoderSource, texts: list[str], lang: str,
                    settings: Settings) -> np.ndarray:
    """Encode ``texts`` on a pool of :class:`EvalEncodeActor` (Ray started if needed); rows are
    returned in input order."""
    import ray
    from ray.data import ActorPoolStrategy

    if not ray.is_initialized():
        from paralib.config import RayConfig
        from paralib.runtime import init_ray

        init_ray(RayConfig(address=settings.ray_address))
    ray.data.DataContext.get_current().enable_progress_bars = data_progress_bars(settings.progress)
    log.info("encoding %d sentences (%s) on %d Ray actors", len(texts), lang,
             settings.ray_actors)
    blocks = max(settings.ray_actors * 2, len(texts) // settings.ray_rows_per_batch)
    ds = ray.data.from_items([{"id": i, "text": t} for i, t in enumerate(texts)],
                             override_num_blocks=min(blocks, max(len(texts), 1)))
    ds = ds.map_batches(EvalEncodeActor, batch_format="numpy",
                        batch_size=settings.ray_rows_per_batch,
                        fn_constructor_kwargs={"source": source, "batch_size": settings.batch_size},
                        compute=ActorPoolStrategy(size=settings.ray_actors),
                        num_cpus=settings.ray_cpus_per_actor)
    batches = list(ds.iter_batches(batch_format="numpy", batch_size=None))
    order = np.argsort(np.concatenate([b["id"] for b in batches]), kind="stable")
    return np.concatenate([b["emb"] for b in batches])[order].astype(np.float32)


def encode_pairs(model: EvalModel, a: list[str], b: list[str], lang_a: str, lang_b: str,
                 settings: Settings) -> tuple[np.ndarray, np.ndarray]:
    """Embeddings of both sides of sentence pairs (one encoder call when one language)."""
    if lang_a == lang_b:
        emb = encode_texts(model, list(a) + list(b), lang_a, settings)
        return emb[: len(a)], emb[len(a):]
    return encode_texts(model, a, lang_a, settings), encode_texts(model, b, lang_b, settings)


def pair_similarities(model: EvalModel, a: list[str], b: list[str], lang_a: str, lang_b: str,
                      settings: Settings) -> np.ndarray:
    """Similarity of each pair: the cosine of the embeddings, or the pair scorer's score."""
    if not model.is_encoder:
        return np.asarray(model.encoder.score_pairs(list(a), list(b)), dtype=float)
    ea, eb = encode_pairs(model, a, b, lang_a, lang_b, settings)
    return row_cosines(ea, eb)
