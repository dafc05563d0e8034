"""sentence-transformers and model2vec folders as models of ``paralib evaluate`` (issue 29,
item 2): a peer, or a paralib model exported with ``paralib export``, is measured by exactly
paralib's suites.

A folder is told by its files (:func:`folder_kind`): ``config.json`` with ``"format":
"paralib-encoder"`` is a paralib model; ``config.json`` with ``"model_type": "model2vec"`` (or
model2vec's own keys ``normalize`` and ``embedding_dtype``) beside ``model.safetensors`` and
``tokenizer.json`` is a model2vec ``StaticModel`` (it also carries a ``modules.json``);
otherwise ``modules.json`` makes a sentence-transformers model. Its languages are the
``language`` of its model card (``README.md`` front matter), else English.

A sentence-transformers folder whose ``modules.json`` names a class from outside
sentence-transformers is loaded only when that class is paralib's own
(:class:`paralib.export.st_module.ParalibModule`): paralib evaluate runs no other code.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from paralib.evaluate.evalmodel import EvaluateError, SentenceTransformerEncoder, unit_rows
from paralib.models.folder import CONFIG, FORMAT

PARALIB, SENTENCE_TRANSFORMERS, MODEL2VEC = "paralib", "sentence-transformers", "model2vec"
OWN_MODULES = ("paralib.export.st_module.ParalibModule",)


def _json(path: Path) -> dict[str, Any]:
    try:
        value = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def folder_kind(folder: Path) -> str | None:
    """``paralib``, ``model2vec``, ``sentence-transformers`` or ``None`` (none of them)."""
    config = _json(folder / CONFIG)
    if config.get("format") == FORMAT:
        return PARALIB
    marked = config.get("model_type") == "model2vec" or {"normalize", "embedding_dtype"} <= \
        set(config)
    if marked and (folder / "model.safetensors").is_file() and \
            (folder / "tokenizer.json").is_file():
        return MODEL2VEC
    if (folder / "modules.json").is_file():
        return SENTENCE_TRANSFORMERS
    return None


def card_languages(folder: Path) -> tuple[str, ...]:
    """The ``language`` of the folder's model card, else ``("en",)``."""
    from paralib.export.card import front_matter

    langs = front_matter(folder / "README.md").get("language")
    if isinstance(langs, str):
        langs = [langs]
    return tuple(str(x) for x in langs) if langs else ("en",)


class Model2VecEncoder:
    """A model2vec ``StaticModel`` folder as a paralib evaluation encoder."""

    def __init__(self, folder: str | Path, languages: tuple[str, ...] = ("en",)):
        from model2vec import StaticModel

        self.model = StaticModel.from_pretrained(str(folder))
        self.languages = tuple(languages)

    def encode(self, sentences: list[str], batch_size: int = 256, normalize: bool = False
               ) -> np.ndarray:
        """The model's vectors."""
        emb = np.asarray(self.model.encode(list(sentences), batch_size=batch_size),
                         dtype=np.float32)
        return unit_rows(emb) if normalize else emb


def _module_types(folder: Path) -> list[str]:
    try:
        modules = json.loads((folder / "modules.json").read_text())
        return [str(m["type"]) for m in modules]
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise EvaluateError(f"{folder / 'modules.json'}: not a sentence-transformers module "
                            f"list ({e}); expected a JSON list of {{idx, name, path, type}}") \
            from e


def load_sentence_transformers(folder: Path, languages: tuple[str, ...]
                               ) -> SentenceTransformerEncoder:
    """The sentence-transformers model of ``folder``, loaded offline on the CPU."""
    types = _module_types(folder)
    foreign = [t for t in types
               if not t.startswith("sentence_transformers.") and t not in OWN_MODULES]
    if foreign:
        raise EvaluateError(
            f"{folder / 'modules.json'} names {', '.join(foreign)}: code from outside "
            "sentence-transformers and paralib, which paralib evaluate does not run; expected "
            "sentence_transformers.* modules or paralib.export.st_module.ParalibModule")
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError as e:
        raise EvaluateError(f"{folder} is a sentence-transformers model, and "
                            "sentence-transformers is not installed (pip install -e "
                            f"'.[peers]'): {e}") from e
    model = SentenceTransformer(str(folder), device="cpu", local_files_only=True,
                                trust_remote_code=any(t in OWN_MODULES for t in types))
    return SentenceTransformerEncoder(model, languages)


def load_peer(folder: Path, kind: str) -> tuple[Any, tuple[str, ...]]:
    """The encoder of a sentence-transformers or model2vec folder and its languages
    (:func:`paralib.evaluate.encoders.load_model_folder` makes it an ``EvalModel``)."""
    langs = card_languages(folder)
    if kind == MODEL2VEC:
        try:
            encoder: Any = Model2VecEncoder(folder, langs)
        except ImportError as e:
            raise EvaluateError(f"{folder} is a model2vec model, and model2vec is not "
                                f"installed (pip install -e '.[peers]'): {e}") from e
    elif kind == SENTENCE_TRANSFORMERS:
        encoder = load_sentence_transformers(folder, langs)
    else:
        raise EvaluateError(f"{folder}: not a {SENTENCE_TRANSFORMERS} or {MODEL2VEC} folder")
    return encoder, langs
