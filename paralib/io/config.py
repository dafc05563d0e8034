"""The bitext inputs section of the config (``bitext``): input files, corpora by name, the
reader's checks. It lives with :mod:`paralib.io.bitext`, its reader, so that reading bitext does
not import the whole :mod:`paralib.config` (which holds it as ``Config.bitext``)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator, model_validator

from paralib.paths import expand
from paralib.schema import ChangesResults, ChangesResultsIfSet, Strict

Format = Literal["text", "tsv", "jsonl", "parquet", "xnli", "lines", "bible"]


class InputConfig(Strict):
    """One bitext input.

    - ``text``: two line-aligned files, ``src`` (non-English) and ``en`` (English); ``.gz`` ok.
    - ``tsv``: ``path`` with ``src<TAB>en`` per line.
    - ``jsonl``: ``path`` with one object per line, fields ``src_field`` / ``en_field``.
    - ``parquet``: ``path`` with columns ``src_field`` / ``en_field``.
    - ``xnli``: two line-aligned XNLI TSVs (premise, hypothesis, label): ``src`` and ``en``;
      each distinct premise and hypothesis becomes one pair.
    - ``lines``: ``path`` with one English sentence per line (for round trips and paraphrase
      generation); the sentence fills both ``src`` and ``ref``.
    - ``bible``: two verse files (``book<TAB>chapter<TAB>verse<TAB>text``) of two English
      versions, ``src`` and ``en``, joined by verse key; the verse key is the pair's group.

    ``set`` names the set the pair comes from (e.g. ``newstest2014``); inputs expanded from
    ``bitext.corpora`` carry it, and it is kept as a column through every stage.

    ``path``/``src``/``en`` may be globs and ``s3://`` URIs; ``{data}`` is the data root.
    ``limit`` keeps the first N rows of each file, ``fraction`` the first fraction of them.
    ``line_group`` (multi-parallel files): line i of every input with this line group is one
    group, instead of the English side's normal form. ``strip_arabic_marks`` removes Arabic
    vowel marks and tatweel from the ``src`` side (:mod:`paralib.corpora.langs`).
    """

    corpus: ChangesResults[str] = Field(
        pattern=r"^[A-Za-z0-9_.-]+$",
        description="Corpus name: it names the input's shards and row ids (unique across inputs).")
    src_lang: ChangesResults[str] = Field(
        min_length=2, max_length=8,
        description="Language of the non-English side (ISO 639-1/3 or BCP-47; stored canonical).")
    format: ChangesResults[Format] = Field(
        default="text",
        description="File layout: ``text``, ``tsv``, ``jsonl``, ``parquet``, ``xnli``, ``lines`` "
                    "or ``bible`` (see above).")
    src: ChangesResults[str | None] = Field(
        default=None,
        description="Non-English file of ``text``, ``xnli`` and ``bible`` inputs: path, glob or "
                    "``s3://`` URI.")
    en: ChangesResults[str | None] = Field(
        default=None,
        description="English file of ``text``, ``xnli`` and ``bible`` inputs: path, glob or "
                    "``s3://`` URI.")
    path: ChangesResults[str | None] = Field(
        default=None,
        description="The one file of ``tsv``, ``jsonl``, ``parquet`` and ``lines`` inputs: path, "
                    "glob or ``s3://`` URI.")
    src_field: ChangesResults[str] = Field(
        default="src",
        description="Field (``jsonl``) or column (``parquet``) of the non-English side.")
    en_field: ChangesResults[str] = Field(
        default="en",
        description="Field (``jsonl``) or column (``parquet``) of the English side.")
    html_unescape: ChangesResults[bool] = Field(
        default=False,
        description="Undo ``&apos;``-style HTML escapes (tokenised corpora).")
    limit: ChangesResults[int | None] = Field(
        default=None, ge=1,
        description="Read only the first N rows of each file (or file pair).")
    fraction: ChangesResultsIfSet[float | None] = Field(
        default=None, gt=0, le=1,
        description="Read only the first fraction (0-1] of each file's rows.")
    set: ChangesResultsIfSet[str | None] = Field(
        default=None, pattern=r"^[A-Za-z0-9_.-]+$",
        description="The set the pairs come from (e.g. ``newstest2014``), kept as a column.")
    line_group: ChangesResultsIfSet[str | None] = Field(
        default=None, pattern=r"^[A-Za-z0-9_.-]+$",
        description="Multi-parallel files: line i of every input with this line group is one "
                    "group.")
    strip_arabic_marks: ChangesResultsIfSet[bool] = Field(
        default=False,
        description="Remove Arabic vowel marks and tatweel from the ``src`` side.")

    @model_validator(mode="after")
    def _canonical_lang(self) -> InputConfig:
        from paralib.corpora.langs import canonical

        object.__setattr__(self, "src_lang", canonical(self.src_lang))
        return self

    @model_validator(mode="after")
    def _paths_for_format(self) -> InputConfig:
        two_files = self.format in ("text", "xnli", "bible")
        if two_files and not (self.src and self.en):
            raise ValueError(f"format '{self.format}' needs both 'src' and 'en' file paths")
        if not two_files and not self.path:
            raise ValueError(f"format '{self.format}' needs 'path'")
        for key in ("src", "en", "path"):
            value = getattr(self, key)
            if value is not None:
                object.__setattr__(self, key, expand(value))
        return self

    def files(self) -> list[str]:
        """The configured path patterns (before glob expansion)."""
        return [p for p in (self.src, self.en, self.path) if p]


def input_name(corpus: str, src_lang: str, set_name: str | None) -> str:
    """An input's name, which keys its shards and row ids: its corpus, with language and set
    where a set is named (``wmt-news.de.newstest2014``)."""
    return corpus if set_name is None else f"{corpus}.{src_lang}.{set_name}"


def unique_corpora(inputs: list[InputConfig]) -> list[InputConfig]:
    """Input names (:func:`input_name`) key shards and row ids: two inputs may not share one."""
    names = [input_name(i.corpus, i.src_lang, i.set) for i in inputs]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ValueError(f"corpus names must be unique across inputs: {', '.join(dup)}")
    return inputs


class CorpusRef(Strict):
    """A corpus named in ``bitext.corpora`` (see ``paralib corpora``): ``langs`` is a list
    of language codes (ISO 639-1, ISO 639-3 or BCP-47: ``de`` and ``deu`` are the same) or
    ``all``; ``sets`` keeps only the sets matching these regular expressions; ``limit`` keeps
    the first N pairs of each file pair, ``fraction`` the first fraction of them. ``pivot``
    is the English version a multi-parallel corpus pairs against (``bibles``: default
    ``eng-webp``); ``strip_arabic_marks`` (on by default) strips the vowel marks and tatweel
    of a corpus' Arabic-script text that has them (the ``bibles`` Van Dyck, ``ara-svd``)."""

    name: ChangesResults[str] = Field(
        description="Corpus name from ``paralib corpora`` (e.g. ``wmt-news``, ``bibles``).")
    langs: ChangesResults[list[str] | Literal["all"]] = Field(
        default="all",
        description="Languages to read (ISO 639-1/3 or BCP-47 codes), or ``all``.")
    sets: ChangesResults[list[str] | None] = Field(
        default=None,
        description="Regular expressions: keep only the sets matching one; null: every set.")
    limit: ChangesResults[int | None] = Field(
        default=None, ge=1,
        description="Keep the first N pairs of each file pair.")
    fraction: ChangesResults[float | None] = Field(
        default=None, gt=0, le=1,
        description="Keep the first fraction (0-1] of each file pair.")
    pivot: ChangesResultsIfSet[str | None] = Field(
        default=None,
        description="English version a multi-parallel corpus pairs against; null: the corpus' "
                    "default (``bibles``: ``eng-webp``).")
    strip_arabic_marks: ChangesResultsIfSet[bool] = Field(
        default=True,
        description="Strip vowel marks and tatweel from Arabic-script text that has them.")

    def inputs(self) -> list[InputConfig]:
        """The file pairs of this corpus as bitext inputs."""
        from paralib.corpora.registry import select_sets
        from paralib.paths import data_root

        return [InputConfig(corpus=s.corpus, src_lang=s.lang, format=s.format, src=s.src,
                            en=s.en, set=s.set, limit=self.limit, fraction=self.fraction,
                            line_group=s.line_group,
                            strip_arabic_marks=self.strip_arabic_marks and s.arabic_script)
                for s in select_sets(self.name, self.langs, self.sets, data_root(),
                                     self.pivot)]

    @model_validator(mode="after")
    def _exists(self) -> CorpusRef:
        self.inputs()  # unknown names, languages and sets fail here, naming the choices
        return self


class BitextChecks(Strict):
    """Rejects beyond the reader's own (empty, undecodable, too long): a non-English side
    equal to the English one after normalisation (``untranslated``), and a side whose letters
    are less than ``min_script_share`` in the scripts of its language (0 turns it off)."""

    untranslated: ChangesResults[bool] = Field(
        default=True,
        description="Reject a pair whose non-English side equals the English one after "
                    "normalisation.")
    min_script_share: ChangesResults[float] = Field(
        default=0.5, ge=0, le=1,
        description="Reject a side with less than this share of its letters in its language's "
                    "scripts; 0: off.")
    min_letters: ChangesResults[int] = Field(
        default=4, ge=1,
        description="A side with fewer letters than this is not script-checked.")


class BitextConfig(Strict):
    """Inputs (files, or corpora by name), sharding and the limits that turn bad rows into
    rejects."""

    inputs: ChangesResults[list[InputConfig]] = Field(default_factory=list)
    corpora: ChangesResultsIfSet[list[CorpusRef]] = Field(default_factory=list)
    shard_rows: ChangesResults[int] = Field(
        default=5000, ge=1,
        description="Rows per shard (the unit of streaming and resume).")
    max_chars: ChangesResults[int] = Field(
        default=1000, ge=1,
        description="Sentences longer than this many characters are rejects.")
    checks: ChangesResultsIfSet[BitextChecks] = Field(default_factory=BitextChecks)

    _unique = field_validator("inputs")(classmethod(lambda cls, v: unique_corpora(v)))

    def all_inputs(self) -> list[InputConfig]:
        """``inputs`` followed by the file pairs of every named corpus."""
        out = list(self.inputs)
        for ref in self.corpora:
            out += ref.inputs()
        return unique_corpora(out)
