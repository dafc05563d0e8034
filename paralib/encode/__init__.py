"""``paralib encode`` at scale: monolingual text (local or ``s3://``) → sentence vectors in
Parquet, on a Ray Data actor pool, resumable per shard.

``run(section, ctx)`` (:mod:`paralib.encode.pipeline`) runs the stage; :mod:`paralib.encode.vectors`
reads its output back. Names are imported on first use, so that reading a config (which
imports :mod:`paralib.encode.config`) does not import Ray or torch.
"""

from paralib.lazy import lazy_exports

__all__, __getattr__ = lazy_exports(__name__, {
    ".config": "EncodeConfig TextInput", ".vectors": "read_vectors Vectors",
})
