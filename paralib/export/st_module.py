"""Any paralib model as a sentence-transformers input module (``paralib export``).

:class:`ParalibModule` wraps a loaded paralib model (:func:`paralib.load`): ``preprocess``
tokenises with the model's own tokenisers (the padded ids and lengths of every part),
``forward`` runs the model, so the vectors are paralib's for every encoder (TRIGRAM,
Morfessor, LSTM, BLSTM, GRAN, several parts). It saves the paralib model folder into its
module folder of the sentence-transformers model and loads it from there.

sentence-transformers 6 imports a module class outside its own package only with
``trust_remote_code=True`` (the class is paralib's, installed code, not code from the folder):

    SentenceTransformer("out/paralib-gran-st", trust_remote_code=True)
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch
from sentence_transformers.base.modules.input_module import InputModule

CARD = ("# paralib model folder\n\nThe paralib model inside this sentence-transformers "
        "model (its `ParalibModule`); `paralib.load` reads it too. See ../README.md.\n")


class ParalibModule(InputModule):
    """A paralib model folder as the input module of a ``SentenceTransformer``: the whole
    model (tokenisation, every part, their combination) in one module."""

    save_in_root = False  # its own folder, ``0_ParalibModule``: the paralib model folder

    def __init__(self, encoder: Any):
        """``encoder``: a :class:`paralib.models.SentenceEncoder` or a model folder path."""
        super().__init__()
        if isinstance(encoder, (str, Path)):
            from paralib.models import load

            encoder = load(encoder)
        self.languages = tuple(encoder.languages)
        self.info = dict(encoder.info or {})
        self.model = encoder.model.eval()

    @property
    def max_seq_length(self) -> int:
        """The longest token sequence any part reads (longer ones are cut)."""
        return max(p.max_tokens for p in self.model.config.parts)

    def get_embedding_dimension(self) -> int:
        """Size of the sentence vectors."""
        return self.model.out_dim

    def preprocess(self, inputs: Sequence[str], prompt: str | None = None,
                   **kwargs: Any) -> dict[str, torch.Tensor]:
        """Padded ids and lengths of every part (``input_ids_<i>``, ``lengths_<i>``)."""
        texts = ["" if t is None else str(t) for t in inputs]
        if prompt:
            texts = self._prepend_prompt(texts, prompt)
        features: dict[str, torch.Tensor] = {}
        for i, (ids, lengths) in enumerate(self.model.batch(self.model.token_ids(texts))):
            features[f"input_ids_{i}"], features[f"lengths_{i}"] = ids, lengths
        return features

    def forward(self, features: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        """The model's sentence vectors as ``sentence_embedding``."""
        batches = [(features[f"input_ids_{i}"], features[f"lengths_{i}"])
                   for i in range(len(self.model.parts))]
        features["sentence_embedding"] = self.model(batches)
        return features

    def save(self, output_path: str, *args: Any, safe_serialization: bool = True,
             **kwargs: Any) -> None:
        """Write the paralib model folder (config, weights, tokenisers) to ``output_path``."""
        from paralib.models.pretrained import save_model

        save_model(self.model, Path(output_path), self.languages, self.info, CARD)

    @classmethod
    def load(cls, model_name_or_path: str, subfolder: str = "", token: bool | str | None = None,
             cache_folder: str | None = None, revision: str | None = None,
             local_files_only: bool = False, **kwargs: Any) -> ParalibModule:
        """The module from the paralib model folder at ``subfolder`` (a local folder or a
        Hugging Face repository)."""
        folder = cls.load_dir_path(model_name_or_path, subfolder=subfolder, token=token,
                                   cache_folder=cache_folder, revision=revision,
                                   local_files_only=local_files_only)
        if folder is None:
            from paralib.models import ModelLoadError

            raise ModelLoadError(f"{model_name_or_path}: no paralib model folder "
                                 f"{subfolder or '.'!r} in this sentence-transformers model")
        return cls(folder)
