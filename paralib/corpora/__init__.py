"""Corpora the experiments need that no translation stage makes.

- :mod:`paralib.corpora.captions`: Multi30k task-2 caption pairs written in the
  back-translation output schema, so that ``paralib score`` and ``paralib select`` treat
  human paraphrases like candidate pairs (2017 §5.3-5.7, the role of SimpWiki).
- :mod:`paralib.corpora.sts_sentences`: the sentences of an STS test year as a lines file,
  the input of ``paralib pivot`` for synthetic round-trip paraphrases (DCU 2016 §3.2).

``paralib captions`` and ``paralib sts-sentences`` (:mod:`paralib.corpora.cli`) are the
command lines.
"""
