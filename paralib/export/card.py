"""The Hugging Face model card (``README.md``) of an exported folder.

Its YAML front matter makes the folder ready for a hub as it is: ``language`` (the model's
``config.json`` languages), ``license`` (the paralib model card's, else MIT), ``library_name``,
``tags``, ``datasets`` (the paralib model card's) and a ``model-index`` with the STS results of
the model's row in ``benchmarks/results/quality.json`` (``python benchmarks/quality.py``; the
export gives the same vectors, so the same scores). Without a row the card says so and has no
``model-index``. An export with ``--dims`` or ``--quantize`` gives other vectors: its card's
``model-index`` and its table are the STS Benchmark test scores of the export itself, measured
when it was written (:mod:`paralib.export.measure`), beside the source model's.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import yaml

from paralib.export.measure import Measured, card_section
from paralib.export.static import describe, not_static
from paralib.models.pretrained import SentenceEncoder
from paralib.paths import PROJECT_ROOT
from paralib.schema import load_yaml

QUALITY = PROJECT_ROOT / "benchmarks" / "results" / "quality.json"
# quality.json column -> (dataset name, dataset type, split)
STS_RESULTS = {
    "STSB test": ("STS Benchmark", "sentence-transformers/stsb", "test"),
    "STSB dev": ("STS Benchmark", "sentence-transformers/stsb", "validation"),
    "all-24": ("STS 2012-2016 (mean of 24 sets)", "sts12-16", "test"),
    "SICK-R": ("SICK relatedness", "sick", "train"),
    "STS17 en-en": ("STS 2017 en-en", "mteb/sts17-crosslingual-sts", "test"),
}
TAGS = {"sentence-transformers": ["sentence-transformers", "sentence-similarity",
                                  "feature-extraction"],
        "model2vec": ["model2vec", "embeddings", "sentence-similarity"],
        "onnx": ["onnx", "sentence-similarity", "feature-extraction"],
        "paralib": ["sentence-similarity", "feature-extraction"]}


def front_matter(card: Path) -> dict[str, Any]:
    """The YAML front matter of a model card (empty when it has none)."""
    if not card.is_file():
        return {}
    text = card.read_text(encoding="utf-8")
    if not text.startswith("---\n"):
        return {}
    head, sep, _ = text[4:].partition("\n---")
    try:  # the card of a folder paralib did not necessarily write: bounded, and never a bug
        meta = load_yaml(head) if sep else None
    except yaml.YAMLError:  # YAMLTooLarge too
        return {}
    return meta if isinstance(meta, dict) else {}


def quality_row(quality: Path, name: str) -> dict[str, Any] | None:
    """The row of model ``name`` in a ``quality.json`` (``None`` when absent)."""
    if not quality.is_file():
        return None
    rows = json.loads(quality.read_text()).get("rows", [])
    return next((r for r in rows if r.get("model") == name), None)


def _finite(row: dict[str, Any], column: str) -> float | None:
    value = row.get(column)
    return round(float(value), 2) if isinstance(value, (int, float)) and \
        math.isfinite(value) else None


def model_index(name: str, row: dict[str, Any]) -> list[dict[str, Any]]:
    """The ``model-index`` entry: one result per STS column of the row."""
    results = []
    for column, (dataset, kind, split) in STS_RESULTS.items():
        value = _finite(row, column)
        if value is not None:
            results.append({
                "task": {"type": "semantic-similarity", "name": "Semantic Similarity"},
                "dataset": {"name": dataset, "type": kind, "split": split},
                "metrics": [{"type": "pearson_cosine", "value": value,
                             "name": "Pearson's r x 100 (cosine similarity)"}]})
    return [{"name": name, "results": results}] if results else []


def _data_terms(card: Path) -> str | None:
    if not card.is_file():
        return None
    for line in card.read_text(encoding="utf-8").splitlines():
        if line.startswith("- data terms:"):
            return line.removeprefix("- data terms:").strip()
    return None


def _usage(target: str, kind: str, out: str) -> list[str]:
    if target == "onnx":
        return ["```python", "import numpy as np", "import onnxruntime",
                "from tokenizers import Tokenizer", "",
                f"tokenizer = Tokenizer.from_file(\"{out}/tokenizer.json\")",
                f"session = onnxruntime.InferenceSession(\"{out}/model.onnx\")",
                "batch = tokenizer.encode_batch([\"A man plays a guitar.\", "
                "\"Someone plays guitar.\"])",
                "feed = {\"input_ids\": np.array([e.ids for e in batch], dtype=np.int64),",
                "        \"attention_mask\": np.array([e.attention_mask for e in batch], "
                "dtype=np.int64)}",
                "vectors = session.run([\"sentence_embedding\"], feed)[0]", "```"]
    if target == "paralib":
        return ["```python", "import paralib", "", f"model = paralib.load(\"{out}\")",
                "vectors = model.encode([\"A man plays a guitar.\", \"Someone plays guitar.\"])",
                "print(model.similarity(vectors[0], vectors[1]))", "```"]
    if target == "model2vec":
        return ["```python", "from model2vec import StaticModel", "",
                f"model = StaticModel.from_pretrained(\"{out}\")",
                "vectors = model.encode([\"A man plays a guitar.\", \"Someone plays guitar.\"])",
                "```"]
    trust = ", trust_remote_code=True" if kind == "ParalibModule" else ""
    return ["```python", "from sentence_transformers import SentenceTransformer", "",
            f"model = SentenceTransformer(\"{out}\"{trust})",
            "vectors = model.encode([\"A man plays a guitar.\", \"Someone plays guitar.\"])",
            "print(model.similarity(vectors[0], vectors[1]))", "```"]


def _how(target: str, kind: str) -> str:
    if target == "paralib":
        return "It is a paralib model folder, read by `paralib.load` as any other."
    if target == "onnx":
        return ("It is an ONNX graph (`model.onnx`) of the mean of the token vectors over the "
                "ids of `tokenizer.json`, paralib's tokeniser converted id for id (lower-casing, "
                "the sentencepiece normaliser or the word split, unknown text averaged in as "
                "`<unk>`, the cut at the model's `max_tokens`); it runs with onnxruntime "
                "(onnxruntime-web in a browser) and nothing from paralib.")
    if kind == "ParalibModule":
        return ("Its one module, `paralib.export.st_module.ParalibModule`, holds the paralib "
                "model folder (`0_ParalibModule/`) and runs paralib's own tokenisers and "
                "encoder, so loading it needs `pip install paralib` and "
                "`trust_remote_code=True` (the class is paralib's installed code).")
    library = "model2vec's `StaticModel`" if target == "model2vec" else \
        "sentence-transformers' `StaticEmbedding`"
    return (f"It is {library}: the mean of the token vectors over the ids of `tokenizer.json`, "
            "paralib's tokeniser converted id for id (lower-casing, the sentencepiece "
            "normaliser or the word split, unknown text averaged in as `<unk>`, the cut at "
            "the model's `max_tokens`); nothing from paralib is needed to load it.")


def model_card(name: str, target: str, kind: str, source: Path, encoder: SentenceEncoder,
               out: str, quality: Path | None = None, notes: list[str] | None = None,
               measured: Measured | None = None) -> str:
    """The ``README.md`` of the exported folder of model ``name`` (from ``source``);
    ``notes`` follow the paragraph on how it encodes; ``measured`` (an export with ``--dims``
    or ``--quantize``) gives the export's own scores and size."""
    quality = QUALITY if quality is None else quality
    meta = front_matter(source / "README.md")
    row = quality_row(quality, name)
    changed = measured is not None
    front: dict[str, Any] = {"language": list(encoder.languages),
                             "license": meta.get("license", "mit")}
    if meta.get("license_name"):
        front["license_name"] = meta["license_name"]
    front.update({"library_name": target, "pipeline_tag": "sentence-similarity",
                  "tags": TAGS[target] + ["paralib", "paraphrastic-embeddings"] +
                  (["static-embeddings"] if not_static(encoder.model.config) is None
                   else [])})
    if meta.get("datasets"):
        front["datasets"] = list(meta["datasets"])
    if changed:
        own = {"STSB test": measured.export.pearson}
        index = model_index(name, own) if measured.export.pearson is not None else []
    else:
        index = model_index(name, row) if row else []
    if index:
        front["model-index"] = index
    options = ""
    if changed:
        options = (f" --dims {measured.export.dim}" if measured.export.dim != encoder.dim
                   else "") + (" --quantize int8" if "int8" in measured.export.precision
                               else "")
    gives = (f"It gives the vectors of `paralib.load(\"{source}\").encode(...)`" if not changed
             else f"It gives the first {measured.export.dim} dimensions of the vectors of "
             f"`paralib.load(\"{source}\").encode(...)`, its table as "
             f"{measured.export.precision}")
    body = [f"# {name} ({target})", "",
            f"The paralib paraphrastic sentence encoder {name} ({describe(encoder.model.config)}"
            f", {encoder.dim} dimensions), exported with `paralib export {source} {out} --to "
            f"{target}{options}`. {gives}; compare them with the cosine.", "",
            _how(target, kind), "",
            *[line for note in notes or [] for line in (note, "")],
            *_usage(target, kind, out), ""]
    if changed:
        body += card_section(measured) + [""]
    body += ["## Scores", ""]
    if changed:
        body.append("The scores of the source model, full size and unquantised, are in its own "
                    f"card ({source / 'README.md'}); this export's are in the table above.")
    elif index:
        body += ["Pearson's r x 100 of the paralib model (`python benchmarks/quality.py`, "
                 "`paralib evaluate`), the same for this export:", "",
                 "| set | Pearson's r x 100 |", "|---|---|"]
        body += [f"| {c} | {_finite(row, c):.1f} |" for c in STS_RESULTS
                 if _finite(row, c) is not None]
    else:
        body.append(f"No row for {name} in `{quality.name}` (`python benchmarks/quality.py`), "
                    "so this card has no `model-index`: measure the folder with `paralib "
                    f"evaluate --model {out}`.")
    terms = _data_terms(source / "README.md")
    body += ["", "## Data and licence", "",
             f"Languages of the training data: {', '.join(encoder.languages)}.",
             f"Licence: {front['license']}" + (f" ({front['license_name']})"
                                                if "license_name" in front else "") + "."]
    if terms:
        body.append(f"Terms of the training data: {terms}.")
    head = yaml.safe_dump(front, sort_keys=False, allow_unicode=True, width=100)
    return "---\n" + head + "---\n\n" + "\n".join(body) + "\n"
