"""paralib: paraphrastic sentence embeddings from bitext, as distributed batch jobs on Ray.

The Python API, shaped like sentence-transformers' and model2vec's:

- :func:`load` a shipped model by name (``"paralib-en"``) or a model folder;
- :class:`SentenceEncoder`: ``encode``, ``similarity``, ``save``;
- :func:`fit` an encoder on your own ``(sentence, paraphrase)`` pairs, without YAML.

>>> import paralib
>>> model = paralib.load("paralib-en")
>>> model.similarity("A man plays a guitar.", "Someone is playing guitar.").shape
(1, 1)

The stages (back-translation, scoring, selection, training, evaluation, tuning) run as Ray
jobs from the ``paralib`` command; each is one subpackage (docs/STAGES.md). Names are
imported on first use, so ``import paralib`` imports neither torch nor Ray.
"""

from paralib.lazy import lazy_exports

__version__ = "0.1.0"

__all__, __getattr__ = lazy_exports(__name__, {
    "paralib.models.pretrained": "SentenceEncoder load",
    "paralib.models.shipped": "shipped_models",
    "paralib.train.api": "fit",
})
