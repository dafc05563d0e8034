"""Config section of ``paralib mine``: translation pairs between two monolingual corpora.

Kept apart from :mod:`paralib.config` (which includes it as ``mine``) so that the stage's
modules import it without a cycle.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from paralib.schema import ExpandedPath, Strict


class MineConfig(Strict):
    """``paralib mine``: margin-scored nearest neighbours between ``src`` and ``tgt`` (2019
    §3.4, the BUCC task; Artetxe & Schwenk 2019, "Margin-based parallel corpus mining with
    multilingual sentence embeddings": ratio margin over ``k`` neighbours each way, the
    max-score candidates, each sentence used at most once).

    ``src`` / ``tgt`` are a ``paralib encode`` output folder, Parquet files of its columns
    (a file or a glob), or text files (a file or a glob, one sentence a line, local or
    ``s3://``), which are encoded first with the ``encode`` section's model and actors into
    ``output/embeddings/src`` and ``.../tgt`` (in ``src_lang`` / ``tgt_lang``; unset: ``und``
    for text, the stored ``lang`` otherwise).

    Output (a stage folder under ``output``, read by ``paralib select`` and usable as a
    ``paralib train`` source of kind ``corpus``): ``id`` (the source sentence's id),
    ``corpus``, ``src_lang``, ``src``, ``ref`` (the target sentence), ``ref_lang``,
    ``src_id``, ``ref_id``, ``margin``, ``cosine`` and ``group`` (pairs whose target sides
    have one normal form share it). Candidates whose margin is below ``threshold`` go to
    ``rejects/`` with the reason (unset: every candidate is kept; a finite number, never
    ``nan``, which no margin is below).

    The faiss index of the k-nearest-neighbour search, over one side's unit vectors:
    ``flat`` is exact (``IndexFlatIP``: every inner product); ``ivf`` (``IndexIVFFlat``)
    searches ``nprobe`` of ``nlist`` k-means cells (``nlist`` unset: about 4·√n, at least 39
    training vectors a cell); ``hnsw`` (``IndexHNSWFlat``) walks a graph of ``hnsw_m``
    links a node, with ``hnsw_ef_construction`` / ``hnsw_ef_search`` candidates while
    building / searching. ``auto`` is ``flat`` for fewer than ``exact_below`` vectors, else
    ``hnsw`` (which kept BUCC's F1 where IVF lost points, :mod:`paralib.mine.index`). The
    kind is chosen per direction, by the size of the side searched.
    """

    src: ExpandedPath | None = Field(
        default=None,
        description="Source side: a ``paralib encode`` output folder, Parquet files or text files "
                    "(a file or glob).")
    tgt: ExpandedPath | None = Field(
        default=None,
        description="Target side, in the forms of ``src``.")
    src_lang: str | None = Field(
        default=None, min_length=2, max_length=8,
        description="Language of ``src``; null: ``und`` for text, else the stored ``lang``.")
    tgt_lang: str | None = Field(
        default=None, min_length=2, max_length=8,
        description="Language of ``tgt``; null: ``und`` for text, else the stored ``lang``.")
    output: ExpandedPath = Field(
        default="output/mine",
        description="Stage folder of the mined pairs (with ``rejects/`` and ``embeddings/``).")
    corpus: str = Field(
        default="mined", pattern=r"^[A-Za-z0-9_.-]+$",
        description="Corpus name of the mined pairs (their ``corpus`` column and part keys).")
    k: int = Field(
        default=4, ge=1,
        description="Neighbours each way of the ratio margin (Artetxe & Schwenk 2019).")
    threshold: float | None = Field(
        default=None, allow_inf_nan=False,
        description="Candidates with a margin below this are rejects; null: keep every candidate.")
    index: Literal["auto", "flat", "ivf", "hnsw"] = Field(
        default="auto",
        description="faiss index: ``flat`` (exact), ``ivf``, ``hnsw``, or ``auto`` (``flat`` "
                    "below ``exact_below`` vectors, else ``hnsw``).")
    exact_below: int = Field(
        default=100_000, ge=1,
        description="``index: auto`` searches a side of fewer vectors than this exactly.")
    nlist: int | None = Field(
        default=None, ge=1,
        description="``ivf``: k-means cells; null: about 4·√n.")
    nprobe: int = Field(default=32, ge=1, description="``ivf``: cells searched per query.")
    hnsw_m: int = Field(default=32, ge=2, description="``hnsw``: graph links per node.")
    hnsw_ef_construction: int = Field(
        default=200, ge=1,
        description="``hnsw``: candidates kept while building the graph.")
    hnsw_ef_search: int = Field(
        default=128, ge=1,
        description="``hnsw``: candidates kept while searching.")
    part_rows: int = Field(
        default=100_000, ge=1,
        description="Rows per written Parquet part of the mined pairs.")
    overwrite: bool = Field(
        default=False,
        description="Delete the output first instead of resuming.")

    @model_validator(mode="after")
    def _canonical_langs(self) -> MineConfig:
        from paralib.corpora.langs import canonical

        for key in ("src_lang", "tgt_lang"):
            value = getattr(self, key)
            if value is not None:
                object.__setattr__(self, key, canonical(value))
        return self
