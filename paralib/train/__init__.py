"""Training paraphrastic encoders on Ray Train (2017 §4.2, 2018 §4, 2019 §2, Opusparcus §3.2).

``paralib.train.run.train(config)`` is the entry; :mod:`steps` holds the Ray-free mega-batch
step, :mod:`mining` the vectorised negatives, :mod:`loop` the Ray Train worker loop.
"""
