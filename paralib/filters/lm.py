"""Language-model scorer: KenLM 3-gram perplexity of the translation (2017 §5.6).

The paper trains a 3-gram KenLM model per language/corpus on 40,000 held-out references
(:mod:`paralib.lm.train`) and tunes an upper bound on the translations' perplexity over
{25, 50, 75, 100, 150, 200, inf}. The translation is tokenised as the training references were
(:mod:`paralib.filters.tokenize`) and scored with sentence boundaries:

    lm_ppl = 10 ** (-log10 P(<s> w_1 .. w_n </s>) / (n + 1))

Words the model has never seen get KenLM's ``<unk>`` probability, so every non-empty
translation has a finite perplexity; ``lm_oov`` counts those words. A translation with no
tokens is named by :meth:`LmScorer.invalid`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from paralib.filters.base import Direction, Scorer, ScorerError, register
from paralib.filters.tokenize import pair_tokens


@register
class LmScorer(Scorer):
    """``lm_ppl`` (clean when low) and ``lm_oov`` of the translation; param ``model``."""

    name = "lm"
    columns = ("lm_ppl", "lm_oov")
    requires = ("ref", "trans")
    direction = Direction.CLEAN_LOW
    needs_actor = True

    def __init__(self, model: str):
        if not isinstance(model, str) or not model:
            raise ScorerError("scorer 'lm': param 'model' must be the path of a KenLM model "
                              "(.bin or .arpa from paralib.lm.train_lm)")
        self.model_path = Path(model).expanduser()
        self.model = None

    def setup(self) -> None:
        """Load the KenLM model (once per worker)."""
        if self.model is not None:
            return
        if not self.model_path.is_file():
            raise ScorerError(f"scorer 'lm': model file {self.model_path} not found "
                              "(train one with paralib.lm.train_lm)")
        try:
            import kenlm
        except ImportError as e:
            raise ScorerError("scorer 'lm' needs the kenlm Python module "
                              "(pip install kenlm)") from e
        self.model = kenlm.Model(str(self.model_path))

    def invalid(self, batch: pd.DataFrame) -> pd.Series:
        """Empty texts, and translations with no tokens."""
        reasons = super().invalid(batch)
        bad = (pair_tokens(batch).lengths["trans"] == 0) & (reasons == "").to_numpy()
        reasons[bad] = "trans has no tokens"
        return reasons

    def score(self, batch: pd.DataFrame) -> pd.DataFrame:
        """Perplexity and OOV count of every translation (NaN for token-less ones)."""
        self.check(batch)
        self.setup()
        model = self.model
        toks = pair_tokens(batch).tokens["trans"]
        score = model.score  # type: ignore[union-attr]
        log10 = np.fromiter((score(" ".join(t), bos=True, eos=True) for t in toks),
                            dtype=np.float64, count=len(toks))
        vocab = model.__contains__  # type: ignore[union-attr]
        oov = np.fromiter((sum(not vocab(w) for w in t) for t in toks), dtype=np.int64,
                          count=len(toks))
        n = np.fromiter(map(len, toks), dtype=np.int64, count=len(toks))
        ppl = np.where(n > 0, np.power(10.0, -log10 / (n + 1)), np.nan)
        return pd.DataFrame({"lm_ppl": ppl, "lm_oov": oov}, index=batch.index)
