"""Monolingual text inputs: plan shards of every file, read one shard into rows and rejects.

The bitext machinery does the work (:func:`paralib.io.bitext.plan_shards` with format
``lines``: line counts, byte offsets to seek to, globs and ``s3://``, gzip; and
:func:`paralib.io.bitext.shard_texts` for decoding), so a text file is read here exactly as
a bitext file is, and row ids have the bitext form ``<name>:<shard>:<line>``. Every line
ends up as a row or as a reject with its reason, never dropped.
"""

from __future__ import annotations

import re

from paralib.config import InputConfig
from paralib.encode.config import TextInput
from paralib.io.bitext import BitextError, ShardSpec, plan_shards, shard_texts
from paralib.io.fs import S3Options, expand_glob

WILDCARDS = re.compile(r"[*?\[]")


def file_name(pattern: str, path: str, prefix: str | None = None) -> str:
    """The name of ``path`` in its row ids: the path below ``pattern``'s folder, ``/`` as
    ``.``, without ``.gz`` and ``.txt``, characters other than ``A-Za-z0-9_.-`` as ``_``."""
    wild = WILDCARDS.search(pattern)
    fixed = pattern[: wild.start()] if wild else pattern
    rel = path[len(fixed.rsplit("/", 1)[0]) + 1:] if "/" in fixed else path
    for suffix in (".gz", ".txt"):
        rel = rel.removesuffix(suffix)
    name = re.sub(r"[^A-Za-z0-9_.-]", "_", rel.strip("/").replace("/", "."))
    return f"{prefix}.{name}" if prefix else name


def text_inputs(inputs: list[TextInput], s3: S3Options | None,
                where: str = "encode.inputs") -> list[InputConfig]:
    """One bitext input (format ``lines``) per file the patterns match, named by
    :func:`file_name`. Raises :class:`BitextError` naming the config key for a pattern
    that matches nothing and for two files that get one name."""
    out: list[InputConfig] = []
    seen: dict[str, str] = {}
    for i, inp in enumerate(inputs):
        try:
            files = expand_glob(inp.path, s3)
        except FileNotFoundError as exc:
            raise BitextError(f"{where}[{i}]: {exc}") from None
        for path in files:
            name = file_name(inp.path, path, inp.name)
            if name in seen:
                raise BitextError(
                    f"{where}[{i}]: {path} and {seen[name]} both get the name '{name}' in row "
                    "ids; give the inputs distinct 'name' values")
            seen[name] = path
            out.append(InputConfig(corpus=name, src_lang=inp.lang, format="lines", path=path,
                                   limit=inp.limit))
    return out


def plan_text_shards(inputs: list[TextInput], shard_rows: int,
                     s3: S3Options | None = None) -> list[ShardSpec]:
    """Shards of ``shard_rows`` lines of every input file."""
    return plan_shards(text_inputs(inputs, s3), shard_rows, s3)


def read_text_shard(spec: ShardSpec, max_chars: int, s3: S3Options | None = None
                    ) -> tuple[list[str], list[str], list[dict]]:
    """Ids and texts of the good lines of one shard, and the rejects ``{id, corpus,
    src_lang, line, reason, raw}``: every line is in exactly one. Text is stripped of
    surrounding white space."""
    ids: list[str] = []
    texts: list[str] = []
    rejects: list[dict] = []
    prefix = f"{spec.name}:{spec.shard:05d}:"
    for lineno, text, reason in shard_texts(spec, s3):
        raw = ""
        if not reason:
            text = text.strip()
            if text and len(text) <= max_chars:
                ids.append(f"{prefix}{lineno}")
                texts.append(text)
                continue
            raw = text[:200]
            reason = ("empty line" if not text else
                      f"line longer than {max_chars} characters ({len(text)})")
        rejects.append({"id": f"{prefix}{lineno}", "corpus": spec.corpus,
                        "src_lang": spec.src_lang, "line": lineno, "reason": reason,
                        "raw": raw})
    return ids, texts, rejects
