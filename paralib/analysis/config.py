"""Config section of ``paralib analyze`` (2017 Tables 9-11; ParaNMT 2018 §6 examples)."""

from __future__ import annotations

from pydantic import Field

from paralib.schema import ChangesResults, ExpandedPath, KeptForOldRecords, Strict


class AnalyzeConfig(Strict):
    """Which scored corpus to analyse and where the report goes.

    ``paraphrase_model`` (a CTranslate2 English→English model from ``paralib mt train``,
    e.g. ``{models}/en-en-paraphrase``) adds canonicalising paraphrases of
    ``paraphrase_inputs`` sampled references to the report (ParaNMT 2018 §6); off when null.
    """

    input: ChangesResults[ExpandedPath] = Field(
        default="output/score",
        description="The scored corpus to analyse: a ``paralib score`` output folder, local or "
                    "``s3://``.")
    output: KeptForOldRecords[ExpandedPath] = Field(
        default="output/analysis",
        description="Folder of ``report.html``, ``report.json`` and ``plots/``.")
    examples: ChangesResults[int] = Field(
        default=5, ge=1,
        description="Top and bottom examples shown per score (2017 Table 11), and the number of "
                    "most canonicalising paraphrase examples.")
    seed: ChangesResults[int] = Field(
        default=0,
        description="Seed of the report's random samples (diversity tables, paraphrased "
                    "references).")
    paraphrase_model: ChangesResults[ExpandedPath | None] = Field(
        default=None,
        description="CTranslate2 English→English model folder whose paraphrases of sampled "
                    "references the report adds (ParaNMT 2018 §6); null: none.")
    paraphrase_inputs: ChangesResults[int] = Field(
        default=300, ge=1,
        description="Distinct references, sampled with ``seed``, that ``paraphrase_model`` "
                    "paraphrases.")
    paraphrase_beam: ChangesResults[int] = Field(
        default=4, ge=1, le=64,
        description="Beam size of the ``paraphrase_model`` decoding.")
