"""The reference/translation classifier as a scorer (2017 §5.6): P(reference) of each
translation, column ``p_ref``; high is clean. Train the model with ``paralib classifier train``
(:func:`paralib.classifier.train_classifier`)."""

from __future__ import annotations

from typing import ClassVar

import pandas as pd

from paralib.filters.base import Direction, Scorer, ScorerError, register
from paralib.io.fs import S3Options
from paralib.paths import expand


@register
class ClassifierScorer(Scorer):
    """P(reference) of ``trans`` under a trained AVG or LSTM classifier (2017 §5.6.1).

    ``model`` is a classifier folder or a ``train_classifier`` output folder (its best
    encoder on dev is used), local or ``s3://`` (downloaded to the node-local cache). The
    model is loaded in :meth:`setup`, once per actor.
    """

    name: ClassVar[str] = "classifier"
    columns: ClassVar[tuple[str, ...]] = ("p_ref",)
    requires: ClassVar[tuple[str, ...]] = ("trans",)
    direction: ClassVar[Direction] = Direction.CLEAN_HIGH
    needs_actor: ClassVar[bool] = True
    s3: S3Options | None = None  # S3 settings for an s3:// model (set by the score stage)

    def __init__(self, model: str, batch_size: int = 512):
        if not isinstance(model, str) or not model:
            raise ScorerError("scorer 'classifier' needs params.model: a classifier folder")
        self.model = expand(model)
        self.batch_size = int(batch_size)
        self._clf = None

    def setup(self) -> None:
        """Load the classifier (a clear error when the folder is not one)."""
        from paralib.classifier import ClassifierNotFoundError, load_classifier

        try:
            self._clf = load_classifier(self.model, self.s3)
        except ClassifierNotFoundError as exc:
            raise ScorerError(f"scorer 'classifier': {exc}") from exc

    def score(self, batch: pd.DataFrame) -> pd.DataFrame:
        """``p_ref`` for every row of ``batch``."""
        self.check(batch)
        if self._clf is None:
            self.setup()
        texts = batch["trans"].fillna("").astype(str).tolist()
        p = self._clf.predict_proba(texts, batch_size=self.batch_size)
        return pd.DataFrame({"p_ref": p}, index=batch.index)
