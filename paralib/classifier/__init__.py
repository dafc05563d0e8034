"""Reference/translation classifiers (Wieting et al. 2017 §5.6.1, Table 8).

``train_classifier(pairs, out_dir)`` trains an AVG and an LSTM classifier telling references
from back-translations; ``load_classifier(path).predict_proba(texts)`` gives P(reference),
the filtering score of the ``classifier`` scorer (column ``p_ref``).

The names below load lazily: importing the package (for its config section) must not import
torch, which back-translation does not need.
"""

from paralib.lazy import lazy_exports

__all__, __getattr__ = lazy_exports(__name__, {
    ".data": "ClassifierDataError split_sizes",
    ".model": "ClassifierNotFoundError ReferenceClassifier load_classifier",
    ".train": "L2_GRID NEGATIVES train_classifier",
})
