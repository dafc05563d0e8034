"""paralib's SP and WORD tokenisers as Hugging Face ``tokenizers`` tokenisers, id for id.

sentence-transformers' ``StaticEmbedding`` and model2vec's ``StaticModel`` both average the
embedding rows of a ``tokenizers.Tokenizer``'s ids, as paralib's averaging encoder does
(2019 §2). :func:`convert` builds that tokeniser so that every text gets the ids paralib gives
it (then cut to the part's ``max_tokens``, the tokeniser's truncation):

- lower-casing is Python's ``str.lower``: the final-sigma rule as a ``Replace`` with Python's
  own context (a cased letter before, none after), then ``Lowercase`` (per character; the
  55 code points of Unicode 15-16 that this Python's Unicode 14 tables do not lower-case are
  the one difference);
- SP: the sentencepiece model's pieces and scores as a ``Unigram`` (``BPE`` with the merges of
  ``transformers``' ``generate_merges`` for a BPE model), with the normaliser (the model's
  precompiled ``nmt_nfkc`` charsmap) and ``Metaspace`` pre-tokeniser of ``transformers``'
  ``SpmConverter``; the control pieces are renamed so that text never matches them.
  ``tokenizers``' charsmap normaliser works grapheme by grapheme where sentencepiece's does
  not, so a few vowel-sign compositions differ: 3 of 31,643 Tatoeba sentences of 112
  languages, all Tamil, get other pieces (``benchmarks/export_check.py``);
- WORD: paralib's ``\\w+|[^\\w\\s]+`` split with Python's own ``\\w`` and ``\\s`` classes, each
  word looked up whole.

Unknown text needs care: paralib averages the ``<unk>`` row in like any token, while model2vec
drops the ids of the tokeniser's unknown token. So no text reaches that token: for SP, every
run of characters that no piece holds becomes one placeholder character that is a piece of its
own, whose row is ``<unk>``'s (sentencepiece also gives one ``<unk>`` for such a run); for
WORD, every word gets a marker in front, the vocabulary holds the marked words, and a word that
is not there falls apart into its marker (row ``<unk>``) and characters no entry holds, which a
``BPE`` without an unknown token drops.
"""

from __future__ import annotations

import functools
import itertools
import re
import sys
import tempfile
import types
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from tokenizers import Regex, Tokenizer, models, normalizers, pre_tokenizers

from paralib.export.errors import ExportError
from paralib.models.tokenizers import UNK
from paralib.models.tokenizers.base import VocabTokenizer
from paralib.models.tokenizers.sp import SentencePieceTokenizer
from paralib.models.tokenizers.word import WordTokenizer

# Python's final sigma (Objects/unicodeobject.c): a cased letter before it (case-ignorables
# between), no cased letter after it
FINAL_SIGMA = r"(?<=\p{Cased}\p{Case_Ignorable}*)\u03a3(?!\p{Case_Ignorable}*\p{Cased})"
# marker and placeholder characters: private-use code points, tried in order until one is in
# no vocabulary entry
PRIVATE = [chr(c) for c in range(0xE000, 0xE100)]
SPACE = "\u2581"  # sentencepiece's whitespace piece character
NORMAL, UNKNOWN, CONTROL = 1, 2, 3  # sentencepiece's ModelProto.SentencePiece.Type


@dataclass
class Converted:
    """A tokeniser and, for each of its ids, the row of the paralib embedding table."""

    tokenizer: Tokenizer
    rows: np.ndarray


def convert(tok: object, max_tokens: int) -> Converted:
    """The ``tokenizers`` version of a paralib SP or WORD tokeniser (:class:`ExportError` for
    any other)."""
    if isinstance(tok, SentencePieceTokenizer):
        out = _from_sentencepiece(tok)
    elif type(tok) is WordTokenizer:
        out = _from_words(tok)
    else:
        raise ExportError(f"no tokenizers version of paralib's {getattr(tok, 'name', tok)!r} "
                          "tokens (only sp and word)")
    out.tokenizer.no_padding()
    out.tokenizer.enable_truncation(max_tokens)
    return out


def lowercase() -> list[normalizers.Normalizer]:
    """Normalisers that lower-case as Python's ``str.lower`` does."""
    return [normalizers.Replace(Regex(FINAL_SIGMA), "\u03c2"), normalizers.Lowercase()]


def char_class(chars: Iterable[str], negate: bool = False) -> str:
    """A regex character class (Oniguruma syntax) of ``chars`` as code point ranges."""
    parts = []
    for _, run in itertools.groupby(enumerate(sorted({ord(c) for c in chars})),
                                    lambda ic: ic[1] - ic[0]):  # runs of consecutive code points
        (_, lo), *rest = run
        hi = rest[-1][1] if rest else lo
        parts.append(f"\\x{{{lo:x}}}" + (f"-\\x{{{hi:x}}}" if hi > lo else ""))
    return "[" + ("^" if negate else "") + "".join(parts) + "]"


@functools.cache
def python_class(pattern: str) -> str:
    """The code points this Python's ``re`` matches with ``pattern`` (``\\w``, ``\\s``), as a
    character class."""
    every = "".join(chr(c) for c in range(sys.maxunicode + 1) if not 0xD800 <= c < 0xE000)
    return char_class(re.findall(pattern, every))


def _unused(taken: set[str], count: int) -> list[str]:
    free = [c for c in PRIVATE if c not in taken]
    if len(free) < count:
        raise ExportError("every private-use character U+E000-U+E0FF is in the vocabulary: "
                          "no marker is left for the tokenizers version")
    return free[:count]


def _from_sentencepiece(tok: SentencePieceTokenizer) -> Converted:
    from transformers.convert_slow_tokenizer import SpmConverter, generate_merges

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "sp.model"
        path.write_bytes(tok.proto)
        converter = SpmConverter(types.SimpleNamespace(vocab_file=str(path)))
    proto = converter.proto
    spec = proto.normalizer_spec
    if (not spec.add_dummy_prefix or not spec.remove_extra_whitespaces
            or proto.trainer_spec.byte_fallback or proto.trainer_spec.unk_id != UNK):
        raise ExportError("this sentencepiece model uses options paralib does not train with "
                          "(no dummy prefix, kept whitespace, byte fallback or another unk id)")
    if any(p.type not in (NORMAL, UNKNOWN, CONTROL) for p in proto.pieces):
        raise ExportError("this sentencepiece model has user-defined or byte pieces, which "
                          "paralib does not train")
    # a piece with a space can never match: the pre-tokeniser turns spaces into SPACE
    vocab = [(p.piece if p.type == NORMAL else f"{p.piece} ", p.score) for p in proto.pieces]
    known = {c for p in proto.pieces if p.type == NORMAL for c in p.piece} | {SPACE, " "}
    (placeholder,) = _unused(known, 1)
    low = min(score for _, score in vocab) - 10.0  # sentencepiece's unknown-piece penalty
    vocab.append((placeholder, low))
    if proto.trainer_spec.model_type == 1:
        model = models.Unigram(vocab, unk_id=UNK, byte_fallback=False)
    else:
        ids = {piece: i for i, (piece, _) in enumerate(vocab)}
        merges = generate_merges({p: ids[p] for p, _ in vocab[:-1]}, vocab[:-1])
        model = models.BPE(ids, merges, unk_token=vocab[UNK][0], fuse_unk=True, dropout=None)
    out = Tokenizer(model)
    out.normalizer = normalizers.Sequence(
        (lowercase() if tok.lowercase else []) + [
            converter.normalizer(proto),
            normalizers.Replace(Regex(char_class(known, negate=True) + "+"), placeholder)])
    out.pre_tokenizer = converter.pre_tokenizer(SPACE, True)
    rows = np.append(np.arange(len(proto.pieces)), UNK)
    return Converted(out, rows)


def _from_words(tok: VocabTokenizer) -> Converted:
    words = tok.itos[2:]
    marker, substitute = _unused({c for w in words for c in w}, 2)
    vocab = {"<pad> ": 0, marker: UNK}
    vocab.update((marker + w, i) for i, w in enumerate(words, 2))
    out = Tokenizer(models.BPE(vocab, [], unk_token=None, ignore_merges=True, dropout=None))
    # a marker in the text itself becomes another character no word holds
    out.normalizer = normalizers.Sequence([normalizers.Replace(marker, substitute), *lowercase()])
    out.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(python_class(r"\s") + "+"), "removed"),
        pre_tokenizers.Split(Regex(python_class(r"\w") + "+"), "isolated"),
        pre_tokenizers.Metaspace(replacement=marker, prepend_scheme="always", split=False)])
    return Converted(out, np.arange(len(tok.itos)))
