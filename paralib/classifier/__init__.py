"""Reference/translation classifiers (Wieting et al. 2017 §5.6.1, Table 8).

``train_classifier(pairs, out_dir)`` trains an AVG and an LSTM classifier telling references
from back-translations; ``load_classifier(path).predict_proba(texts)`` gives P(reference),
the filtering score of the ``classifier`` scorer (column ``p_ref``).

The names below load lazily: importing the package (for its config section) must not import
torch, which back-translation does not need.
"""

from importlib import import_module

_EXPORTS = {
    "ClassifierDataError": "data", "split_sizes": "data",
    "ClassifierNotFoundError": "model", "ReferenceClassifier": "model",
    "load_classifier": "model",
    "L2_GRID": "train", "NEGATIVES": "train", "train_classifier": "train",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name in _EXPORTS:
        return getattr(import_module(f"paralib.classifier.{_EXPORTS[name]}"), name)
    raise AttributeError(f"module 'paralib.classifier' has no attribute {name!r}")
