"""Config section of ``paralib encode``: monolingual text in, sentence vectors out.

Kept apart from :mod:`paralib.config` (which includes it as ``encode``) so that the stage's
modules import it without a cycle.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, model_validator

from paralib.schema import ExpandedPath, Strict


class TextInput(Strict):
    """One monolingual input: ``path`` is a file or a glob (local or ``s3://``, ``.gz`` ok)
    with one sentence a line, in language ``lang``.

    Row ids are ``<name>:<shard>:<line>`` as the bitext readers make them (line numbers count
    from 1). ``<name>`` is the file's path below the pattern's folder, ``/`` as ``.`` and
    without ``.gz`` / ``.txt`` (``news/2020.de.txt.gz`` under ``news/*.gz`` is ``2020.de``),
    prefixed with ``name.`` when ``name`` is set: two files of one name must get distinct
    ``name`` values. ``limit`` keeps the first N lines of each file. A plain string is read
    as ``{path: STRING}``.
    """

    path: ExpandedPath = Field(
        description="A file or glob (local or ``s3://``, ``.gz`` ok), one sentence a line.")
    lang: str = Field(
        default="en", min_length=2, max_length=8,
        description="Language code of the text (ISO 639-1/3 or BCP-47).")
    name: str | None = Field(
        default=None, pattern=r"^[A-Za-z0-9_.-]+$",
        description="Prefix of the row ids' names (``name.<file>``): tells two files of one name "
                    "apart.")
    limit: int | None = Field(
        default=None, ge=1,
        description="Read only the first N lines of each file.")

    @model_validator(mode="before")
    @classmethod
    def _plain_path(cls, value: Any) -> Any:
        return {"path": value} if isinstance(value, str) else value

    @model_validator(mode="after")
    def _canonical_lang(self) -> TextInput:
        from paralib.corpora.langs import canonical

        object.__setattr__(self, "lang", canonical(self.lang))
        return self


class EncodeConfig(Strict):
    """``paralib encode``: every line of ``inputs`` through the sentence encoder ``model``
    (a ``paralib train`` model folder, local or ``s3://``) on a Ray Data actor pool, into
    Parquet parts ``id, text, lang, embedding`` under ``output`` (2019 §2: the encoder;
    ``encode()`` as in :meth:`paralib.models.SentenceEncoder.encode`).

    ``dtype`` is the stored vectors' type (``float16`` halves the size; cosines change by
    about 1e-3); ``normalize`` stores unit-length vectors. Inputs are read in shards of
    ``shard_rows`` lines; a line that is empty, undecodable, holds NUL bytes or is longer than
    ``max_chars`` characters is a reject with its reason. ``actors`` unset means one actor per
    ``num_cpus_per_actor`` CPUs of the cluster, or one per GPU when it has GPUs (``device:
    auto``); each CPU actor runs ``num_cpus_per_actor`` torch threads (at least one).
    ``overwrite`` deletes what an earlier run wrote to ``output``; without it a rerun resumes.
    """

    model: ExpandedPath = Field(
        default="{models}/paralib-en",
        description="The sentence encoder: a ``paralib train`` model folder, local or ``s3://``.")
    inputs: list[TextInput] = Field(default_factory=list)
    output: ExpandedPath = Field(
        default="output/encode",
        description="Folder of the Parquet parts ``id, text, lang, embedding``, local or "
                    "``s3://``.")
    dtype: Literal["float16", "float32"] = Field(
        default="float32",
        description="Stored vectors' type: ``float16`` halves the size (cosines move by about "
                    "1e-3).")
    normalize: bool = Field(default=False, description="Store unit-length vectors.")
    batch_size: int = Field(
        default=256, ge=1,
        description="Sentences per forward pass of the encoder.")
    shard_rows: int = Field(
        default=10_000, ge=1,
        description="Lines per input shard (the unit of streaming and resume).")
    max_chars: int = Field(
        default=1000, ge=1,
        description="Lines longer than this many characters are rejects.")
    actors: int | None = Field(
        default=None, ge=1,
        description="Encoding actors; null: one per ``num_cpus_per_actor`` CPUs, or one per GPU.")
    num_cpus_per_actor: float = Field(
        default=1.0, gt=0,
        description="CPUs each actor reserves; a CPU actor runs that many torch threads (at least "
                    "one).")
    device: Literal["auto", "cpu", "cuda"] = Field(
        default="auto",
        description="``auto`` (GPU actors when the cluster has GPUs), ``cpu`` or ``cuda``.")
    overwrite: bool = Field(
        default=False,
        description="Delete what an earlier run wrote to ``output`` first; false: a rerun "
                    "resumes.")
