"""sentence-transformers and model2vec folders as models of ``paralib evaluate``:
a peer, or a paralib model exported with ``paralib export``, is measured by exactly
paralib's suites.

A folder is told by its files (:func:`folder_kind`): ``config.json`` with ``"format":
"paralib-encoder"`` is a paralib model; ``config.json`` with ``"model_type": "model2vec"`` (or
model2vec's own keys ``normalize`` and ``embedding_dtype``) beside ``model.safetensors`` and
``tokenizer.json`` is a model2vec ``StaticModel`` (it also carries a ``modules.json``);
otherwise ``modules.json`` makes a sentence-transformers model. Its languages are the
``language`` of its model card (``README.md`` front matter), else English.

A sentence-transformers folder whose ``modules.json`` names a class from outside
sentence-transformers is loaded only when that class is paralib's own
(:class:`paralib.export.st_module.ParalibModule`), which paralib hands to sentence-transformers
itself: remote code stays off for every module, and a folder whose files ask for code
(``auto_map``, ``trust_remote_code``) or lead outside it is refused. paralib evaluate runs no
code that a folder brings.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from paralib.errors import ParalibError
from paralib.evaluate.evalmodel import EvaluateError, SentenceTransformerEncoder, unit_rows
from paralib.models.folder import CONFIG, FORMAT, json_object

PARALIB, SENTENCE_TRANSFORMERS, MODEL2VEC = "paralib", "sentence-transformers", "model2vec"
OWN_MODULES = ("paralib.export.st_module.ParalibModule",)


def folder_kind(folder: Path) -> str | None:
    """``paralib``, ``model2vec``, ``sentence-transformers`` or ``None`` (none of them)."""
    config = json_object(folder / CONFIG)
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

        folder = Path(folder)
        for name in ("config.json", "tokenizer.json", "model.safetensors"):
            path = folder / name
            if not path.resolve().is_relative_to(folder.resolve()):
                raise EvaluateError(f"{path} leads to {path.resolve()}, outside the model "
                                    f"folder {folder}; expected every file of a model "
                                    "folder inside it")
            if name.endswith(".safetensors"):
                continue
            try:
                json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError) as e:
                raise EvaluateError(f"{path} is not readable JSON ({e}); expected the {name} "
                                    "that model2vec saved with this model") from e
        try:
            self.model = StaticModel.from_pretrained(str(folder))
        except Exception as e:  # model2vec, tokenizers and safetensors raise many kinds
            raise EvaluateError(f"{folder}: model2vec cannot load this folder "
                                f"({type(e).__name__}: {' '.join(str(e).split())}); expected "
                                "a folder saved by model2vec or paralib export --to "
                                "model2vec") from e
        self.languages = tuple(languages)

    def encode(self, sentences: list[str], batch_size: int = 256, normalize: bool = False
               ) -> np.ndarray:
        """The model's vectors."""
        emb = np.asarray(self.model.encode(list(sentences), batch_size=batch_size),
                         dtype=np.float32)
        return unit_rows(emb) if normalize else emb


def _modules(folder: Path) -> list[dict[str, str]]:
    """The entries of ``modules.json`` (``type`` and ``path`` of every module)."""
    where = folder / "modules.json"
    try:
        modules = json.loads(where.read_text(encoding="utf-8"))
        return [{"type": str(m["type"]), "path": str(m.get("path", ""))} for m in modules]
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        raise EvaluateError(f"{where}: not a sentence-transformers module list ({e}); "
                            "expected a JSON list of {idx, name, path, type}") from e


def _asks_for_code(value: Any) -> str | None:
    """The key of a JSON value that makes transformers import code from the model folder
    (``auto_map``, or ``trust_remote_code`` set), if any."""
    items = value.items() if isinstance(value, dict) else \
        enumerate(value) if isinstance(value, list) else ()
    for key, inner in items:  # a list's keys are indices: never a key that asks
        if key == "auto_map" or (key == "trust_remote_code" and inner):
            return key
        if found := _asks_for_code(inner):
            return found
    return None


def refuse_folder_code(folder: Path, modules: list[dict[str, str]]) -> None:
    """Raise :class:`EvaluateError` when a module's folder leads out of ``folder`` or one of
    its JSON files asks for code from the folder (``auto_map``, ``trust_remote_code``):
    paralib evaluate runs no code that a model folder brings."""
    root = folder.resolve()
    for module in modules:
        where = folder / module["path"]
        if not where.resolve().is_relative_to(root):
            raise EvaluateError(f"{folder / 'modules.json'}: module {module['type']} has path "
                                f"{module['path']!r}, which leads to {where.resolve()}, outside "
                                "the model folder; expected a folder inside it")
        files = where.rglob("*.json") if module["path"].strip("./") else where.glob("*.json")
        for path in sorted(files):
            if not path.resolve().is_relative_to(root):
                raise EvaluateError(f"{path} leads to {path.resolve()}, outside the model "
                                    f"folder {folder} (module {module['type']}); expected "
                                    "every file of a model folder inside it")
            try:
                key = _asks_for_code(json.loads(path.read_text(encoding="utf-8")))
            except (OSError, ValueError):
                continue  # not JSON sentence-transformers reads: its own error names it
            if key:
                raise EvaluateError(
                    f"{folder}: module {module['type']} needs code from the model folder "
                    f"({path.relative_to(folder)} sets {key}), which paralib evaluate does "
                    "not run; expected a folder that sentence-transformers loads without "
                    "trust_remote_code")


def load_sentence_transformers(folder: Path, languages: tuple[str, ...]
                               ) -> SentenceTransformerEncoder:
    """The sentence-transformers model of ``folder``, loaded offline on the CPU.

    paralib's own module class is handed to sentence-transformers directly, so remote code
    stays off for every module: a module that needs code from the folder is refused."""
    modules = _modules(folder)
    foreign = [m["type"] for m in modules
               if not m["type"].startswith("sentence_transformers.")
               and m["type"] not in OWN_MODULES]
    if foreign:
        raise EvaluateError(
            f"{folder / 'modules.json'} names {', '.join(foreign)}: code from outside "
            "sentence-transformers and paralib, which paralib evaluate does not run; expected "
            "sentence_transformers.* modules or paralib.export.st_module.ParalibModule")
    refuse_folder_code(folder, modules)
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError as e:
        raise EvaluateError(f"{folder} is a sentence-transformers model, and "
                            "sentence-transformers is not installed (pip install -e "
                            f"'.[peers]'): {e}") from e
    from paralib.export.st_module import ParalibModule

    class OwnModules(SentenceTransformer):
        """A SentenceTransformer that takes paralib's module class as given (no import
        from the folder, no remote code)."""

        _module_classes = dict.fromkeys(OWN_MODULES, ParalibModule)

    try:
        model = OwnModules(str(folder), device="cpu", local_files_only=True,
                           trust_remote_code=False)
    except ParalibError:
        raise
    except Exception as e:  # transformers and sentence-transformers raise many kinds
        raise EvaluateError(f"{folder}: sentence-transformers cannot load this folder "
                            f"({type(e).__name__}: {' '.join(str(e).split())}); expected a "
                            "folder saved by sentence-transformers or paralib export") from e
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
