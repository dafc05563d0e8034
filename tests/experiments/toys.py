"""Toy experiments for the tests of cells computed over runs and of their plots: ten-fold
selection of 2018 Table 5 cut to three folds, and the languages of 2019 Table 5; and a toy
tuned experiment whose training and evaluation the ``crafted`` fixture replaces."""

from __future__ import annotations

import yaml

FOLDS = yaml.safe_load("""
number: 6
name: toy-folds
title: Toy folds
paper:
  citation: a paper
  table: Table 5
  caption: a caption
  rows: [Cost, Overlap]
  columns: [Model Avg.]
  values: {Cost: {Model Avg.: 83.2}, Overlap: {Model Avg.: 83.1}}
ours:
  label: ours
  run: "{row} fold {fold} {model}"
  metric: sts17/sets/en-en
  aggregate: [{over: model, how: mean}, {over: fold, how: max}]
compare:
  - {rows: [Cost, Overlap]}
grid:
  name: "{crit} fold {fold} {model}"
  axes:
    crit: {Cost: {}, Overlap: {}}
    fold: {"1": {}, "2": {}, "3": {}}
    model: {WORD: {}, LSTM: {}}
evaluate: {suites: [sts17]}
sizes: {smoke: {}, full: {}}
""")

# per criterion, fold → (WORD, LSTM): the best single run is not in the best fold
SCORES = {"Cost": {"1": (60.0, 40.0), "2": (70.0, 60.0), "3": (90.0, 20.0)},
          "Overlap": {"1": (50.0, 50.0), "2": (55.0, 45.0), "3": (40.0, 30.0)}}


def sts(value: float | None) -> dict:
    if value is None:
        return {"status": "skipped"}
    return {"status": "ok", "results": {"sts17": {"sets": {"en-en": {"status": "ok",
                                                                     "pearson": value}}}}}


def fold_records() -> dict:
    return {f"{c} fold {f} {m}": sts(v[i]) for c, folds in SCORES.items()
            for f, v in folds.items() for i, m in enumerate(("WORD", "LSTM"))}


LANGS = yaml.safe_load("""
number: 11
name: toy-langs
title: Toy languages
paper:
  citation: a paper
  table: Table 5
  caption: a caption
  rows: [All Lang., Low]
  columns: [SP Ovl., Lang. Distance]
  values:
    All Lang.: {SP Ovl.: 71.5, Lang. Distance: -22.8}
    Low: {SP Ovl.: 23.6, Lang. Distance: -63.8}
ours:
  label: ours
  run: "SP en-{lang}"
  metric: sts/all
  scale: 100
  aggregate: [{over: lang, how: spearman, with: properties/sp_overlap}]
  cells:
    Low:
      SP Ovl.:
        run: "SP en-{lang}"
        metric: sts/all
        aggregate:
          - {over: lang, how: spearman, with: properties/sp_overlap,
             where: {metric: properties/sp_overlap, at_most: 0.3}}
  unavailable:
    Lang. Distance: URIEL distances are not in the data here
compare:
  - {sign: [All Lang., SP Ovl.]}
  - {sign: [All Lang., Lang. Distance]}
grid:
  name: "SP en-{lang}"
  axes:
    lang: {de: {}, fr: {}, cs: {}, ar: {}, tr: {}}
evaluate: {suites: [sts]}
sizes: {smoke: {}, full: {}}
""")

# language → (SP overlap, STS mean)
LANG_NUMBERS = {"de": (0.50, 60.0), "fr": (0.60, 62.0), "cs": (0.40, 61.0),
                "ar": (0.05, 50.0), "tr": (0.25, 58.0)}


def lang_records(numbers: dict) -> dict:
    return {f"SP en-{k}": {"status": "ok", "properties": {"sp_overlap": x},
                           "results": {"sts": {"all": {"pearson": y}}}}
            for k, (x, y) in numbers.items()}


DEV = {0.1: 50.0, 0.2: 70.0, 0.3: 60.0}      # dev Pearson by learning rate: 0.2 wins
TEST = {0.1: 90.0, 0.2: 40.0, 0.3: 80.0}     # test Pearson: the winner is not the test-best

TREE = yaml.safe_load("""
number: 99
name: toy-tuned
title: Toy tuned
paper:
  citation: a paper
  table: Table 1
  caption: a caption
  rows: [Fixed, Tuned]
  columns: [STS]
  values: {Fixed: {STS: 60.0}, Tuned: {STS: 61.0}}
ours: {label: ours, run: "{row}", metric: sts17/sets/en-en}
compare:
  - {rows: [Tuned, Fixed]}
base:
  train: {sources: [{kind: captions}], epochs: 1, dev: stsb-dev}
runs:
  Fixed: {set: {train.lr: 0.1}}
  Tuned:
    tune:
      parameters: {train.lr: [0.1, 0.2, 0.3]}
evaluate: {suites: [sts17]}
sizes: {smoke: {}, full: {}}
""")
