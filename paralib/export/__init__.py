"""Export paralib models for sentence-transformers and model2vec.

``export(model_path, out, to)`` writes a paralib model folder (:func:`paralib.load`) as a
folder that ``SentenceTransformer(out)`` or ``model2vec.StaticModel.from_pretrained(out)``
loads, with the same vectors and a Hugging Face model card. ``paralib export`` is the command.

Names are imported on first use, so that the command line starts without torch.
"""

from paralib.export.errors import ExportError
from paralib.lazy import lazy_exports

_names, __getattr__ = lazy_exports(__name__, {
    ".run": "export Exported TARGETS", ".st_module": "ParalibModule",
})
__all__ = ["ExportError", *_names]
