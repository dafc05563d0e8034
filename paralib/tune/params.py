"""The parameters a search space may name, and how a trial's values change a :class:`Config`.

A parameter is either a dotted key of the configuration (``train.margin``,
``train.model.parts.0.dropout``, ``select.size``), checked against the schema, or a named
shortcut for what the papers tuned:

- selection bounds (2017 §5.5-5.7): ``length_range`` ``[lo, hi]`` on ``len_trans`` (§5.5),
  ``cost_max`` on ``cost`` (§5.6), ``ppl_max`` on ``lm_ppl`` (§5.6, ``.inf`` = no bound),
  ``p_ref_min`` on ``p_ref`` (§5.6.1), ``overlap`` / ``overlap2`` / ``overlap3`` / ``bleu``
  ``[lo, hi]`` on ``overlap1..3`` / ``bleu`` (§5.7), each also as ``*_min`` / ``*_max``;
- ``noise`` (the clean fraction of Opusparcus §4.2) and ``size`` (the training-set size,
  2017 §5.2's 24,000 pairs);
- training (2017 §4.2 and §5.2, 2018 §4-5.2, 2019 §3.1): ``margin`` (δ),
  ``contrastive_margin`` (Opusparcus §3.2), ``megabatch`` (M), ``anneal_every``, ``scramble``,
  ``dropout`` (every encoder part), ``word_dropout``, ``lr``, ``batch_size``, ``negatives``,
  ``epochs`` (the stopping epoch, 2017 §5.3);
- the 2019 recipe at scale (2019 §2-3.1): ``data_mix`` (a named preset of ``train.sources``
  over the base configuration's ``corpus`` source: :data:`DATA_MIXES`), ``vocab_size`` and
  ``dim`` (every encoder part), ``lang_temperature`` (``train.lang_temperature``).

Shortcuts with ``selects=True`` (and dotted ``select.*`` keys) tune the selection: a space
that names none of them, on a base configuration whose ``train.sources`` do not read
``select.output``, trains each trial on ``train.sources`` directly (:func:`uses_selection`).

A shortcut bound sets that side of the bound on its column, replacing the base
configuration's; ``None`` or an infinite value leaves that side open.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from paralib.config import Config
from paralib.overrides import UnknownKey, check_key, set_path

Tree = dict[str, Any]


@dataclass(frozen=True)
class Shortcut:
    """A named parameter: what it means (with the paper section) and how it edits a config
    tree (the ``model_dump()`` of a :class:`Config`)."""

    name: str
    help: str
    apply: Callable[[Tree, Any], None]
    selects: bool = False  # a selection parameter: the trial must run paralib select


def _open(value: Any) -> float | None:
    """A bound side: ``None`` and infinities mean no bound."""
    if value is None:
        return None
    value = float(value)
    return None if math.isinf(value) else value


def set_bound(tree: Tree, column: str, lower: Any = "keep", upper: Any = "keep") -> None:
    """Set the lower and/or upper side of the selection bound on ``column`` (``"keep"``
    leaves a side as the base configuration has it); a bound left with no side is removed."""
    bounds = tree["select"]["bounds"]
    current = next((b for b in bounds if b["column"] == column), {})
    lo = current.get("lower") if lower == "keep" else _open(lower)
    hi = current.get("upper") if upper == "keep" else _open(upper)
    rest = [b for b in bounds if b["column"] != column]
    if lo is not None or hi is not None:
        rest.append({"column": column, "lower": lo, "upper": hi})
    tree["select"]["bounds"] = rest


def _bound_shortcuts(stem: str, column: str, section: str) -> list[Shortcut]:
    def both(tree: Tree, v: Any) -> None:
        if not isinstance(v, (list, tuple)) or len(v) != 2:
            raise ValueError(f"{stem} takes [lower, upper], got {v!r}")
        set_bound(tree, column, v[0], v[1])

    return [
        Shortcut(stem, f"[lower, upper] bound on {column} ({section})", both, True),
        Shortcut(f"{stem}_min", f"lower bound on {column} ({section})",
                 lambda t, v: set_bound(t, column, lower=v), True),
        Shortcut(f"{stem}_max", f"upper bound on {column} ({section})",
                 lambda t, v: set_bound(t, column, upper=v), True),
    ]


def _setter(dotted: str) -> Callable[[Tree, Any], None]:
    return lambda tree, value: set_path(tree, dotted, value, "parameter")


def _noise(tree: Tree, value: Any) -> None:
    noise = tree["select"].get("noise")
    if not noise:
        raise ValueError("noise needs select.noise (at least its column) in the base "
                         "configuration or the space's 'set'")
    noise["clean_fraction"] = value


def _parts(key: str) -> Callable[[Tree, Any], None]:
    """Set ``key`` of every encoder part (``dropout``, ``dim``, ``vocab_size``)."""
    def apply(tree: Tree, value: Any) -> None:
        for part in tree["train"]["model"]["parts"]:
            part[key] = value
    return apply


# English paraphrase sources (their pairs are en-en); ``bitext`` drops them
PARAPHRASE_KINDS = ("captions", "pairs", "sts", "ppdb")

# The data mixes the 2019 recipe at scale is tuned over, as presets of train.sources built
# from the base configuration's ``corpus`` source(s) (each keeps its path, limit and sample):
# what each trains on.
DATA_MIXES: dict[str, str] = {
    "bitext": "the corpus's bitext pairs only (exclude_langs: [en]), no English paraphrase "
              "source (2019 §2: bilingual pairs alone)",
    "paraphrases": "English paraphrase pairs only: the corpus's en-en pairs (langs: [en], the "
                   "Bible versions) and the Multi30k captions",
    "both": "every corpus pair and the Multi30k captions (the paralib-en recipe)",
}


def _data_mix(tree: Tree, value: Any) -> None:
    """Replace ``train.sources`` with the :data:`DATA_MIXES` preset ``value``: the base's
    ``corpus`` sources with a language filter, its ``bitext`` sources (bitext, both), and its
    captions source or a plain ``{kind: captions}`` (paraphrases, both); the base's other
    English paraphrase sources (pairs, sts, ppdb) stay with paraphrases and both."""
    if value not in DATA_MIXES:
        raise ValueError(f"data_mix {value!r}: choose one of {', '.join(DATA_MIXES)}")
    sources = tree["train"]["sources"]
    corpora = [dict(s) for s in sources if s["kind"] == "corpus"]
    if not corpora:
        raise ValueError("data_mix needs a corpus source in train.sources (e.g. {kind: corpus, "
                         "path: output/bitext-all}, made by paralib decontaminate)")
    for c in corpora:
        c["langs"], c["exclude_langs"] = {"bitext": (None, ["en"]),
                                          "paraphrases": (["en"], None),
                                          "both": (None, None)}[value]
    if value == "bitext":
        tree["train"]["sources"] = corpora + [s for s in sources if s["kind"] == "bitext"]
        return
    english = [s for s in sources if s["kind"] in PARAPHRASE_KINDS]
    if not any(s["kind"] == "captions" for s in english):
        english.append({"kind": "captions"})
    keep_bitext = [s for s in sources if s["kind"] == "bitext"] if value == "both" else []
    tree["train"]["sources"] = corpora + keep_bitext + english


_SHORTCUTS: list[Shortcut] = [
    *_bound_shortcuts("length_range", "len_trans", "2017 §5.5"),
    Shortcut("cost_max", "upper bound on the translation cost (2017 §5.6)",
             lambda t, v: set_bound(t, "cost", upper=v), True),
    Shortcut("ppl_max", "upper bound on the LM perplexity, .inf = none (2017 §5.6)",
             lambda t, v: set_bound(t, "lm_ppl", upper=v), True),
    Shortcut("p_ref_min", "minimum classifier P(reference) (2017 §5.6.1)",
             lambda t, v: set_bound(t, "p_ref", lower=v), True),
    *_bound_shortcuts("overlap", "overlap1", "2017 §5.7"),
    *_bound_shortcuts("overlap2", "overlap2", "2017 §5.7"),
    *_bound_shortcuts("overlap3", "overlap3", "2017 §5.7"),
    *_bound_shortcuts("bleu", "bleu", "2017 §5.7"),
    Shortcut("noise", "fraction of clean pairs, select.noise.clean_fraction (Opusparcus §4.2)",
             _noise, True),
    Shortcut("size", "training-set size, select.size (2017 §5.2)", _setter("select.size"),
             True),
    Shortcut("margin", "margin δ of the margin loss, train.margin (2017 §4.2)",
             _setter("train.margin")),
    Shortcut("contrastive_margin", "margin m of the contrastive loss (Opusparcus §3.2)",
             _setter("train.contrastive_margin")),
    Shortcut("megabatch", "mega-batch size M, train.megabatch.size (2018 §4)",
             _setter("train.megabatch.size")),
    Shortcut("anneal_every", "grow M by one every N mini-batches, null = no annealing "
             "(2019 §3.1)", _setter("train.megabatch.anneal_every")),
    Shortcut("scramble", "scrambling rate (2018 §5.2)",
             _setter("train.regularisation.scramble_rate")),
    Shortcut("dropout", "embedding dropout of every encoder part (2019 §3.1)",
             _parts("dropout")),
    Shortcut("word_dropout", "word dropout", _setter("train.regularisation.word_dropout")),
    Shortcut("lr", "Adam learning rate (2017 §5.2)", _setter("train.lr")),
    Shortcut("batch_size", "mini-batch size (2017 §5.2)", _setter("train.batch_size")),
    Shortcut("negatives", "max, rand, mix or semihard negatives (2018 §4, FaceNet §3.2)",
             _setter("train.negatives")),
    Shortcut("epochs", "epochs to train, the stopping epoch (2017 §5.3)",
             _setter("train.epochs")),
    Shortcut("data_mix", f"training data: {', '.join(DATA_MIXES)}, presets of train.sources "
             "over the base's corpus source (2019 §2)", _data_mix),
    Shortcut("vocab_size", "vocabulary size of every encoder part (sentencepiece pieces, "
             "words, trigrams; 2019 §3.1)", _parts("vocab_size")),
    Shortcut("dim", "embedding dimension of every encoder part (2019 §3.1)", _parts("dim")),
    Shortcut("lang_temperature", "language sampling temperature T, share ∝ n^(1/T) "
             "(XLM §3.1), train.lang_temperature", _setter("train.lang_temperature")),
]
SHORTCUTS: dict[str, Shortcut] = {s.name: s for s in _SHORTCUTS}


def uses_selection(base: Config, names: list[str]) -> bool:
    """Whether a trial of a space naming ``names`` (its parameters and ``set:`` keys) must
    run ``paralib select``: the base configuration trains on ``select.output`` (a ``pairs``
    source reads it) or has no training source at all, or a name tunes the selection (a
    selection shortcut or a ``select.*`` key). Otherwise the trial trains on
    ``train.sources`` directly."""
    if not base.train.sources:
        return True
    if any(s.kind == "pairs" and s.path == base.select.output for s in base.train.sources):
        return True
    return any((n in SHORTCUTS and SHORTCUTS[n].selects) or n.startswith("select.")
               for n in names)


UnknownParameter = UnknownKey  # a parameter that is neither a shortcut nor a config key


def check_parameter(name: str) -> None:
    """Raise :class:`UnknownParameter` unless ``name`` is a shortcut or a configuration key."""
    if name in SHORTCUTS:
        return
    if "." not in name:
        raise UnknownParameter(
            f"unknown parameter '{name}': not a shortcut ({', '.join(SHORTCUTS)}) and not a "
            "dotted configuration key such as train.margin")
    check_key(Config, name, "parameter")


def apply_parameters(base: Config, params: dict[str, Any]) -> Config:
    """A copy of ``base`` with the trial's parameter values applied (shortcuts and dotted
    keys, in the order given) and validated again."""
    tree = base.model_dump()
    for name, value in params.items():
        if name in SHORTCUTS:
            SHORTCUTS[name].apply(tree, value)
        else:
            check_key(Config, name, "parameter")
            set_path(tree, name, value, "parameter")
    return Config.model_validate(tree)
