"""Reference/translation classifiers (Wieting et al. 2017 §5.6.1, Table 8).

``train_classifier(pairs, out_dir)`` trains an AVG and an LSTM classifier telling references
from back-translations; ``load_classifier(path).predict_proba(texts)`` gives P(reference),
the filtering score of the ``classifier`` scorer (column ``p_ref``).
"""

from paralib.classifier.data import ClassifierDataError, split_sizes
from paralib.classifier.model import ClassifierNotFoundError, ReferenceClassifier, load_classifier
from paralib.classifier.train import L2_GRID, NEGATIVES, train_classifier

__all__ = [
    "L2_GRID", "NEGATIVES", "ClassifierDataError", "ClassifierNotFoundError",
    "ReferenceClassifier", "load_classifier", "split_sizes", "train_classifier",
]
