"""Copy a trained model folder into ``models/NAME`` with its model card (issue "A paraphrastic
encoder worth downloading", item 3).

The card (``README.md``, Hugging Face front matter) gives the training data with its
decontamination counts, the command that reproduces the model from ``../shared/data``, the
time and machine training took, and its row beside the peers of
``benchmarks/results/quality.json`` (``python benchmarks/quality.py``; run it after shipping,
then ship again to refresh the card).

    python scripts/ship_model.py output/models/paralib-en paralib-en \\
        --config configs/paralib-en.yaml
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import shutil
import tempfile
from pathlib import Path

from safetensors import safe_open

from paralib.models.folder import check_replaceable, replace_with

ROOT = Path(__file__).resolve().parent.parent
KEEP = ("config.json", "model.safetensors", "tokenizers", "training.json", "training.md",
        "training.png")
TERMS = {  # each corpus's terms (../shared/data/README.md)
    "wmt-news": "WMT news (research use)", "tatoeba-challenge": "Tatoeba Challenge (CC BY 2.0 FR)",
    "ntrex-128": "NTREX-128 (CC BY-SA 4.0)", "tico-19": "TICO-19 (CC0 1.0)",
    "bible-versions": "Bible versions (public domain)",
    "bibles": "eBible and SWORD Bibles (public domain, CC BY-SA 4.0, CC BY 4.0 or CC BY 3.0 "
              "by translation; credits in ../shared/data/bitext/bibles/translations.tsv)",
    "un-testsets": "UN Parallel Corpus v1.0 dev/test (UN terms: the UN acknowledged as the "
                   "source)",
    "pud": "Parallel Universal Dependencies (CC BY-SA 3.0)",
    "multi30k": "Multi30k (research, non-commercial: Flickr terms)",
}
FLOAT32 = "- weights: float32 (`model.safetensors`)"  # the card's weights line without --fp16
# the card's default sentence on what the model is for (--purpose)
PURPOSE = "English sentences are its main target (STS)"
COLUMNS = ("year mean", "all-24", "STSB dev", "STSB test", "SICK-R", "STS17 en-en",
           "STS17 ar-en", "STS17 es-en", "STS17 tr-en", "Tatoeba de/fr/es/ru", "BUCC F1",
           "sent/s 1 thread")


def _fmt(value) -> str:
    if isinstance(value, float):
        return "—" if math.isnan(value) else (f"{value:,.0f}" if value >= 1000
                                               else f"{value:.1f}")
    return str(value)


def peers_table(quality: Path, name: str) -> str:
    """The Markdown rows of ``quality.json`` with this model's row in bold."""
    if not quality.is_file():
        return "(no `benchmarks/results/quality.json` yet: run `python benchmarks/quality.py`)"
    result = json.loads(quality.read_text())
    lines = ["| model | " + " | ".join(COLUMNS) + " |", "|---" * (len(COLUMNS) + 1) + "|"]
    for r in result["rows"]:
        cells = [_fmt(r.get(c, math.nan)) for c in COLUMNS]
        label = f"**{r['model']}**" if r["model"] == name else r["model"]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    notes = "\n".join(f"- {k}: {v}" for k, v in result.get("notes", {}).items())
    return "\n".join(lines) + "\n\n" + notes


def corpus_removals(train_config: Path) -> dict[str, int]:
    """Pairs each evaluation set removed from the ``corpus`` sources of ``train_config`` when
    ``paralib decontaminate`` made them (their ``_summary.json`` reasons)."""
    from paralib.config import load_config

    counts: dict[str, int] = {}
    for src in load_config(train_config).train.sources:
        summary = Path(src.path or "") / "_summary.json"
        if src.kind != "corpus" or not summary.is_file():
            continue
        for reason, n in json.loads(summary.read_text())["reasons"].items():
            if reason.startswith("contaminated: "):
                evalset = reason.split(": ", 1)[1].split(" ")[0]
                counts[evalset] = counts.get(evalset, 0) + n
    return dict(sorted(counts.items(), key=lambda kv: -kv[1]))


def making_config(src) -> Path | None:
    """The config in ``configs/`` that made a training source: ``configs/<folder>.yaml`` for
    a ``corpus`` source (``output/<folder>``, by ``paralib decontaminate``) or for a ``pairs``
    source ``output/<folder>/select/pairs.parquet`` (back-translated by ``paralib
    backtranslate``, ``score`` and ``select``); None for the others."""
    path = Path(src.path or "")
    folder = (path.name if src.kind == "corpus" else
              path.parent.parent.name if src.kind == "pairs" and path.parent.name == "select"
              else "")
    made = ROOT / "configs" / f"{folder}.yaml"
    return made if folder and made.is_file() else None


def made_commands(train_config: Path) -> list[str]:
    """The commands that make a training config's sources from ``../shared/data``."""
    from paralib.config import load_config

    commands = []
    for src in load_config(train_config).train.sources:
        made = making_config(src)
        if made is None:
            continue
        stages = ("decontaminate",) if src.kind == "corpus" else ("backtranslate", "score",
                                                                  "select")
        commands += [f"paralib {stage} --config configs/{made.name}" for stage in stages]
    return commands


def corpus_names(train_config: Path) -> list[str]:
    """The corpora a training config reads: those of the config that made each ``corpus`` or
    back-translated ``pairs`` source (:func:`making_config`), its own bitext's, and
    ``multi30k`` for captions."""
    from paralib.config import load_config

    cfg, names = load_config(train_config), []
    for src in cfg.train.sources:
        made = making_config(src)
        if made is not None:
            names += [c.name for c in load_config(made).bitext.corpora]
        elif src.kind == "bitext":
            names += [c.name for c in cfg.bitext.corpora]
        elif src.kind == "captions":
            names.append("multi30k")
    return list(dict.fromkeys(names))


def training_mix(summary: dict, train_config: Path) -> list[str]:
    """The card's lines on the training mix: ``training.json``'s ``mix``, or for a model
    trained before summaries had one, the mix recomputed from its config's sources
    (:func:`paralib.train.sources.load_sources`, the same seed; before tokenisation)."""
    from paralib.config import load_config
    from paralib.io.context import StageContext
    from paralib.train.report import mix_lines
    from paralib.train.sources import load_sources, mix_counts

    if summary.get("mix"):
        return ["- mix (pairs per corpus and language):", *mix_lines(summary["mix"])]
    cfg = load_config(train_config)
    data, _ = load_sources(cfg.train, StageContext.of(cfg, progress=False), cfg.train.seed)
    return [f"- mix (pairs per corpus and language, recomputed from the sources of "
            f"`{train_config}`: {len(data):,} pairs before tokenisation):",
            *mix_lines(mix_counts(data))]


def fp16_line(name: str, fp16: Path) -> str:
    """The card's weights line of a model shipped in float16, with what rounding changed
    (``benchmarks/fp16.py``'s row for ``name``)."""
    rows = json.loads(fp16.read_text())["rows"] if fp16.is_file() else []
    row = next((r for r in rows if r["model"] == name), None)
    if row is None:
        raise SystemExit(f"--fp16: {fp16} has no row for {name}; run `python "
                         f"benchmarks/fp16.py --model {name}=FOLDER` first")
    return (f"- weights: float16 (`model.safetensors`, {row['MB fp16']:.1f} MB; "
            f"{row['MB fp32']:.1f} MB in float32), computed in float32 after loading. "
            f"Rounding to float16 moves STS Benchmark dev r from {row['dev r fp32']:.2f} to "
            f"{row['dev r fp16']:.2f} and each pair cosine by at most {row['max |dcos|']:.1e} "
            f"(mean {row['mean |dcos|']:.1e}; `python benchmarks/fp16.py`)")


def half_weights(folder: Path) -> None:
    """Rewrite ``folder``'s ``model.safetensors`` in float16 (``paralib.load`` casts back)."""
    from safetensors.torch import load_file, save_file

    path = folder / "model.safetensors"
    save_file({k: v.half().contiguous() for k, v in load_file(str(path)).items()}, str(path))


def vocabulary_sentence(tokens: set, sample: int, pairs: int, languages: int,
                        by: str = "order") -> str:
    """Which sentences the vocabulary was fitted on: ``train.vocab_sample`` takes the first
    sentences of the English sides, then of the other sides, or (``vocab_sample_by:
    language``) distinct sentences spread evenly over the languages
    (:func:`paralib.train.sources.vocabulary_sample`)."""
    what = ("its sentencepiece vocabulary is" if tokens == {"sp"} else
            "its " + " and ".join(sorted(tokens)) + " vocabularies are")
    if by == "language":
        return (f"{what} fitted on {sample:,} distinct sentences spread evenly over the "
                f"{languages} languages of its training pairs (`train.vocab_sample_by`)")
    if sample >= 2 * pairs:
        return f"{what} shared by the {languages} languages of its training bitext"
    if sample <= pairs:
        return (f"{what} fitted on the English sides of its first {sample:,} training pairs "
                f"(`train.vocab_sample`), and it was trained on {languages} languages")
    return (f"{what} fitted on every English side and {sample - pairs:,} of the other sides "
            f"of its training pairs (`train.vocab_sample`), {languages} languages")


def card(name: str, config: dict, summary: dict, train_config: Path, quality: Path,
         purpose: str = PURPOSE, weights: str = FLOAT32,
         rows: dict[int, int] | None = None) -> str:
    """The model card; ``rows``: each part's embedding-table rows (its vocabulary as fitted,
    which can be under the configured ``vocab_size``)."""
    from paralib.config import load_config

    train = load_config(train_config).train
    corpora = corpus_names(train_config)
    command = " && ".join([*made_commands(train_config),
                           f"paralib train --config {train_config}"])
    earlier = corpus_removals(train_config)
    langs = summary.get("languages") or config.get("languages", ["en"])
    history = summary.get("history", [])
    seconds = sum(h.get("seconds", 0) for h in history)
    rate = (sum(h.get("pairs", 0) for h in history) / seconds) if seconds else math.nan
    removed = summary.get("decontaminated")
    removed_text = (", ".join(f"{k} {v:,}" for k, v in removed.items()) or "none"
                    if isinstance(removed, dict) else str(removed))
    tokens = {p.get("tokens") for p in config["model"]["parts"]}
    others = (", ".join(dict.fromkeys(s.kind for s in train.sources if s.kind != "corpus"))
              or "none")
    vocabulary = vocabulary_sentence(tokens, train.vocab_sample,
                                     summary.get("pairs", 0), len(langs),
                                     train.vocab_sample_by)
    rows = rows or {}
    parts = ", ".join(f"{p.get('encoder')}({p.get('tokens')}, vocabulary "
                      f"{rows.get(i, p.get('vocab_size')):,}, dim {p.get('dim')})"
                      for i, p in enumerate(config["model"]["parts"]))
    front = ["---", "language:", *[f"- {lang}" for lang in langs], "license: other",
             "license_name: training-data-terms", "library_name: paralib",
             "tags:", "- sentence-similarity", "- paraphrastic-embeddings",
             "- static-embeddings", "datasets:", *[f"- {c}" for c in corpora], "---"]
    body = [
        f"# {name}", "",
        f"A paraphrastic sentence encoder trained by paralib: {parts}, "
        f"{config['model'].get('combine', 'concat')} of parts. {purpose}; {vocabulary}.", "",
        "```python", "import paralib", f"model = paralib.load(\"models/{name}\")",
        "vectors = model.encode([\"A man plays a guitar.\", \"Someone plays guitar.\"], "
        "normalize=True)", "```", "",
        "## Training", "",
        f"- pairs: {summary.get('pairs', 0):,} ({summary.get('rejected', 0):,} rejected); "
        f"best epoch {summary.get('best_epoch')} of {len(history)} on "
        f"{summary.get('dev')} (Pearson x100 {summary.get('dev_pearson', math.nan):.2f})",
        "- decontamination (pairs sharing a side with an evaluation set, removed): by "
        "`paralib decontaminate` from the corpus: "
        + (", ".join(f"{k} {v:,}" for k, v in earlier.items()) or "none") +
        f"; by `paralib train` from the other sources ({others}): {removed_text}",
        *[line if line.startswith("- mix") else "  " + line
          for line in training_mix(summary, train_config)],
        f"- reproduce from `../shared/data`: `{command}`",
        f"- took {seconds / 60:.1f} minutes of training ({rate:,.0f} pairs/s) with "
        f"{summary.get('workers', 1)} Ray Train worker(s), gpu {summary.get('gpu')}, on "
        f"{platform.machine()} with 2 CPU cores",
        "- data terms: " + ("; ".join(TERMS[c] for c in corpora if c in TERMS)
                            or "see ../shared/data/README.md"),
        weights, "",
        *peers_section(quality, name)]
    return "\n".join(front + [""] + body)


def peers_section(quality: Path, name: str) -> list[str]:
    """The card's last section: this model's row beside its peers."""
    return ["## Scores beside its peers", "", "Pearson's r x 100 (`python benchmarks/quality.py`, "
            "one run, the same sentences):", "", peers_table(quality, name), ""]


def refresh_peers(folder: Path, name: str, quality: Path) -> None:
    """Rewrite the peers section of a shipped model's card from ``quality`` (after a new
    ``benchmarks/quality.py`` run), leaving the rest of the card as it is."""
    card_path = folder / "README.md"
    text = card_path.read_text(encoding="utf-8")
    head = text[: text.index("## Scores beside its peers")]
    card_path.write_text(head + "\n".join(peers_section(quality, name)), encoding="utf-8")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folder")
    ap.add_argument("name")
    ap.add_argument("--config", help="the training config (the card's "
                    "command and sources)")
    ap.add_argument("--quality", default=str(ROOT / "benchmarks/results/quality.json"))
    ap.add_argument("--purpose", default=PURPOSE,
                    help="the card's sentence on what the model is for")
    ap.add_argument("--fp16", action="store_true", help="ship float16 weights; the card "
                    "quotes benchmarks/results/fp16.json's row for NAME")
    ap.add_argument("--fp16-report", default=str(ROOT / "benchmarks/results/fp16.json"))
    ap.add_argument("--peers-only", action="store_true", help="only rewrite the peers "
                    "section of models/NAME's card from --quality (FOLDER is not read)")
    args = ap.parse_args()
    src = Path(args.folder)
    dst = ROOT / "models" / args.name
    if args.peers_only:
        refresh_peers(dst, args.name, Path(args.quality))
        print(f"refreshed the peers of {dst / 'README.md'}")
        return
    if not args.config:
        ap.error("--config is required to ship a model (its card's command and sources)")
    check_replaceable(dst)  # only a model folder paralib made is replaced
    weights = fp16_line(args.name, Path(args.fp16_report)) if args.fp16 else FLOAT32
    tmp = Path(tempfile.mkdtemp(dir=dst.parent, prefix=".paralib-"))
    for item in KEEP:
        path = src / item
        if path.is_dir():
            shutil.copytree(path, tmp / item)
        elif path.is_file():
            shutil.copy2(path, tmp / item)
    if args.fp16:
        half_weights(tmp)
    config = json.loads((src / "config.json").read_text())
    summary = json.loads((src / "training.json").read_text())
    with safe_open(str(src / "model.safetensors"), "pt") as f:
        rows = {int(k.split(".")[1]): f.get_slice(k).get_shape()[0] for k in f.keys()  # noqa: SIM118
                if k.startswith("parts.") and k.endswith(".embedding.weight")}
    (tmp / "README.md").write_text(card(args.name, config, summary, Path(args.config),
                                        Path(args.quality), args.purpose, weights, rows),
                                   encoding="utf-8")
    replace_with(tmp, dst)
    print(f"shipped {dst}")


if __name__ == "__main__":
    main()
