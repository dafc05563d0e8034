"""paralib: paraphrastic sentence embeddings from bitext, as distributed batch jobs on Ray.

Stages, one subpackage each: ``paralib.io`` (bitext in, shards out), ``paralib.mt``
(translation models), ``paralib.translate`` (back-translation on Ray Data).
"""

__version__ = "0.1.0"
