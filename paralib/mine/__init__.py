"""``paralib mine``: translation pairs between two monolingual corpora by margin-scored
nearest neighbours (Artetxe & Schwenk 2019; 2019 §3.4, the BUCC task).

:mod:`paralib.mine.margin` is the core (k-NN, ratio margin, max-score selection) that the
BUCC evaluation uses too; :mod:`paralib.mine.index` picks the faiss index (exact, IVF or
HNSW); :mod:`paralib.mine.stage` runs ``paralib mine``. Names are imported on first use.
"""

from paralib.lazy import lazy_exports

__all__, __getattr__ = lazy_exports(__name__, {
    ".margin": "mine mine_pairs knn max_score", ".index": "IndexSpec build_index",
    ".config": "MineConfig",
})
