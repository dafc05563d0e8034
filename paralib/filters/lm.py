"""Language-model scorer: KenLM 3-gram perplexity of the translation (2017 §5.6).

The paper trains "a separate language model for each language/data pair on 40,000 references"
(:mod:`paralib.lm.train`) and tunes an upper bound on the translations' perplexity over
{25, 50, 75, 100, 150, 200, inf}. The translation is tokenised as the training references were
(:mod:`paralib.text`) and scored with sentence boundaries:

    lm_ppl = 10 ** (-log10 P(<s> w_1 .. w_n </s>) / (n + 1))

Words the model has never seen get KenLM's ``<unk>`` probability, so every non-empty
translation has a finite perplexity; ``lm_oov`` counts those words. A translation with no
tokens is named by :meth:`LmScorer.invalid`.

``model`` is a KenLM file (``.bin`` or ``.arpa``, one model for every row) or a folder written
by :func:`paralib.lm.train.train_lms` (``lms.json``: one model per corpus and language, rows
routed by their ``corpus`` and ``src_lang`` columns; rows of a group without a model are
named by :meth:`LmScorer.invalid`), local or ``s3://`` (each actor downloads it to its node's
cache, :func:`paralib.io.fs.local_copy`, with the score stage's S3 settings).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from paralib.filters.base import Direction, Scorer, ScorerError, register
from paralib.filters.tokenize import pair_tokens
from paralib.io import fs as pfs
from paralib.io.fs import S3Options
from paralib.paths import expand

MANIFEST = "lms.json"


@register
class LmScorer(Scorer):
    """``lm_ppl`` (clean when low) and ``lm_oov`` of the translation; param ``model``."""

    name = "lm"
    columns = ("lm_ppl", "lm_oov")
    requires = ("ref", "trans")
    direction = Direction.CLEAN_LOW
    needs_actor = True
    s3: S3Options | None = None  # S3 settings for an s3:// model (set by the score stage)

    def __init__(self, model: str):
        if not isinstance(model, str) or not model:
            raise ScorerError("scorer 'lm': param 'model' must be the path of a KenLM model "
                              "or of a folder from paralib.lm.train_lms")
        # an s3:// model is downloaded to the node-local cache in setup(), with the S3
        # settings the score stage gives its actors (``s3``)
        self.model = expand(model)   # {models}, ~ and environment variables
        self.model_path = Path(self.model)
        self.by: tuple[str, ...] = ()
        manifest = self.model_path / MANIFEST
        if not pfs.is_s3(self.model) and manifest.is_file():
            self.by = tuple(json.loads(manifest.read_text())["by"])
            self.requires = ("ref", "trans", *self.by)
        self.models: dict[str, Any] | None = None  # group key ("corpus\tsrc_lang") -> model

    def setup(self) -> None:
        """Load the KenLM model(s) (once per worker)."""
        if self.models is not None:
            return
        try:
            import kenlm
        except ImportError as e:
            raise ScorerError("scorer 'lm' needs the kenlm Python module "
                              "(pip install kenlm)") from e
        if pfs.is_s3(self.model):
            try:
                self.model_path = Path(pfs.local_copy(self.model, self.s3))
            except FileNotFoundError as e:
                raise ScorerError(f"scorer 'lm': model {self.model} not found ({e})") from e
        if self.model_path.is_dir():
            manifest = self.model_path / MANIFEST
            if not manifest.is_file():
                raise ScorerError(f"scorer 'lm': folder {self.model_path} has no {MANIFEST} "
                                  "(write it with paralib.lm.train_lms)")
            spec = json.loads(manifest.read_text())
            self.by = tuple(spec["by"])
            self.requires = ("ref", "trans", *self.by)
            models = {}
            for m in spec["models"]:
                path = self.model_path / m["model"]
                if not path.is_file():
                    raise ScorerError(f"scorer 'lm': {manifest} names {path}, which is missing")
                models["\t".join(str(m[c]) for c in self.by)] = kenlm.Model(str(path))
            self.models = models
        elif self.model_path.is_file():
            self.models = {"": kenlm.Model(str(self.model_path))}
        else:
            raise ScorerError(f"scorer 'lm': model {self.model_path} not found (train one "
                              "with paralib.lm.train_lm or train_lms)")

    def _groups(self, batch: pd.DataFrame) -> pd.Series:
        key = pd.Series("", index=batch.index, dtype=object)
        for i, c in enumerate(self.by):
            col = batch[c].astype(str).astype(object)
            key = col if i == 0 else key + "\t" + col
        return key

    def invalid(self, batch: pd.DataFrame) -> pd.Series:
        """Empty texts, translations with no tokens, rows of a group without a model."""
        self.check(batch)
        self.setup()
        reasons = super().invalid(batch)
        empty = pair_tokens(batch, self.tokens).lengths["trans"] == 0
        bad = empty & (reasons == "").to_numpy()
        reasons[bad] = "trans has no tokens"
        if self.by:
            groups = self._groups(batch)
            unknown = ~groups.isin(list(self.models or {})) & (reasons == "")
            for g in groups[unknown].unique():
                label = ", ".join(f"{c}={v}" for c, v in zip(self.by, g.split("\t"),
                                                             strict=True))
                reasons[unknown & (groups == g)] = f"no language model for {label}"
        return reasons

    def score(self, batch: pd.DataFrame) -> pd.DataFrame:
        """Perplexity and OOV count of every translation (NaN for rows it cannot score)."""
        self.check(batch)
        self.setup()
        assert self.models is not None
        toks = pair_tokens(batch, self.tokens)
        texts = toks.joined["trans"].to_pylist()
        lens = toks.lengths["trans"]
        sent = np.repeat(np.arange(len(texts)), lens)
        ppl = np.full(len(texts), np.nan)
        oov = np.zeros(len(texts), dtype=np.int64)
        groups = self._groups(batch).to_numpy(dtype=object)
        for key, model in self.models.items():
            rows = np.flatnonzero(groups == key) if self.by else np.arange(len(texts))
            if not len(rows):
                continue
            score = model.score
            log10 = np.fromiter((score(texts[i], bos=True, eos=True) for i in rows),
                                dtype=np.float64, count=len(rows))
            ppl[rows] = np.where(lens[rows] > 0, np.power(10.0, -log10 / (lens[rows] + 1)),
                                 np.nan)
            # OOV words: one membership test per distinct token of the batch, not per token
            known = np.fromiter(map(model.__contains__, toks.vocab), dtype=bool,
                                count=len(toks.vocab))
            in_rows = np.zeros(len(texts), dtype=bool)
            in_rows[rows] = True
            unk = ~known[toks.ids["trans"]] & in_rows[sent]
            oov += np.bincount(sent[unk], minlength=len(texts))
        return pd.DataFrame({"lm_ppl": ppl, "lm_oov": oov}, index=batch.index)
