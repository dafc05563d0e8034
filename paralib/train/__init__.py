"""Training paraphrastic encoders (2017 §4.2, 2018 §4, 2019 §2, Opusparcus §3.2).

``paralib.train.run.train(section, ctx)`` is the one engine: it prepares the pairs, then runs the
training loop (:func:`paralib.train.loop.worker`) on Ray Train's workers or, with
``engine="local"``, in this process without Ray (:mod:`session` holds the two). :mod:`steps`
holds the Ray-free mega-batch step and :mod:`mining` the vectorised negatives.
"""
