"""Config section of ``paralib analyze`` (2017 Tables 9-11; ParaNMT 2018 §6 examples)."""

from __future__ import annotations

from pydantic import Field

from paralib.schema import ExpandedPath, Keyed, Strict


class AnalyzeConfig(Strict):
    """Which scored corpus to analyse and where the report goes.

    ``paraphrase_model`` (a CTranslate2 English→English model from ``paralib mt train``,
    e.g. ``{models}/en-en-paraphrase``) adds canonicalising paraphrases of
    ``paraphrase_inputs`` sampled references to the report (ParaNMT 2018 §6); off when null.
    """

    input: Keyed[ExpandedPath] = "output/score"
    output: Keyed[ExpandedPath] = "output/analysis"
    examples: Keyed[int] = Field(default=5, ge=1)
    seed: Keyed[int] = 0
    paraphrase_model: Keyed[ExpandedPath | None] = None
    paraphrase_inputs: Keyed[int] = Field(default=300, ge=1)
    paraphrase_beam: Keyed[int] = Field(default=4, ge=1, le=64)
