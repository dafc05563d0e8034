"""Paraphrastic sentence encoders (2017 §4, 2018 §4, 2019 §2, Opusparcus §3): tokenisers,
encoders registered by name, their combinations, the model folder and ``load``.

Names are imported on first use, so that reading a config does not import torch.
"""

from paralib.lazy import lazy_exports

__all__, __getattr__ = lazy_exports(__name__, {
    ".config": "ModelConfig PartConfig",
    ".model": "ParaphraseModel fit_tokenizers",
    ".errors": "ModelLoadError",
    ".pretrained": "SentenceEncoder load save_model",
    ".random": "random_encoder",
})
