"""The training report next to the model: ``training.json``, a per-epoch table
(``training.md``) and loss / dev curves (``training.png``)."""

from __future__ import annotations

import json
import math
from pathlib import Path

from paralib.contracts import EpochRecord, TrainingSummary
from paralib.evaluate.plots import pyplot, save_figure
from paralib.train.dev import LABELS, PEARSON
from paralib.train.epoch import COLLAPSED_SD


def _score(entry: EpochRecord) -> float:
    """An epoch's dev score; NaN when it has none."""
    value = entry.score()
    return math.nan if value is None else float(value)


def _sd(entry: EpochRecord) -> str:
    """The dev cosines' spread of an epoch, ``*`` marking a collapsed encoder."""
    sd = entry.dev_cos_sd
    if sd is None or math.isnan(sd):
        return "—"
    return f"{sd:.4f}" + (" *" if entry.collapsed else "")


def mix_lines(mix: dict[str, dict[str, int]], top: int = 8) -> list[str]:
    """The training mix as Markdown list items: each corpus's pairs, its share of all
    pairs and its ``top`` largest languages."""
    total = sum(n for langs in mix.values() for n in langs.values()) or 1
    lines = []
    for corpus, langs in mix.items():
        pairs = sum(langs.values())
        largest = ", ".join(f"{lang} {n:,}" for lang, n in list(langs.items())[:top])
        more = f", and {len(langs) - top} more languages" if len(langs) > top else ""
        lines.append(f"- {corpus}: {pairs:,} pairs ({100 * pairs / total:.1f}%): "
                     f"{largest}{more}")
    return lines


def write_report(folder: Path, summary: TrainingSummary | dict) -> dict[str, str]:
    """Write the three report files; returns their paths."""
    plt = pyplot()
    summary = TrainingSummary.load(summary)
    history = summary.history
    paths = {k: str(folder / f"training.{k}") for k in ("json", "md", "png")}
    Path(paths["json"]).write_text(json.dumps(summary.dump(), indent=2, default=str))
    score, metric = summary.best_dev()
    label = LABELS.get(metric, LABELS[PEARSON])  # without a dev set: the NaN Pearson column
    rows = [f"| epoch | loss | dev {label} | dev cosine sd | pairs/s | seconds |",
            "|---|---|---|---|---|---|"]
    rows += [f"| {h.epoch} | {h.loss:.4f} | {_score(h):.2f} | {_sd(h)} | "
             f"{h.pairs_per_s:.0f} | {h.seconds:.1f} |" for h in history]
    head = (f"# Training report\n\nModel: `{summary.model}`; {summary.pairs} pairs "
            f"({summary.rejected} rejected); {summary.workers} worker(s); best epoch "
            f"{summary.best_epoch} on {summary.dev}"
            + (f" ({label} {score:.2f})" if score is not None and metric != "none" else "")
            + ".\n\n")
    dec = summary.decontaminated
    if isinstance(dec, dict):
        head += ("Decontaminated: " + (", ".join(f"{k} removed {v}" for k, v in sorted(
            dec.items())) or "no pair shared a side with an evaluation set") + ".\n\n")
    elif dec:
        head += f"**Not decontaminated**: {dec}.\n\n"
    if summary.mix:
        head += "Mix (pairs per corpus and language):\n\n" + "\n".join(
            mix_lines(summary.mix)) + "\n\n"
    gone = [h.epoch for h in history if h.collapsed]
    if gone:
        head += (f"**The encoder collapsed** in epoch(s) {', '.join(map(str, gone))}: the dev "
                 f"cosines have a standard deviation below {COLLAPSED_SD}, so every sentence "
                 f"gets nearly the same vector (see `paralib.train.epoch`).\n\n")
    Path(paths["md"]).write_text(head + "\n".join(rows) + "\n")
    fig, ax = plt.subplots(1, 2, figsize=(9, 3.2))
    epochs = [h.epoch for h in history]
    ax[0].plot(epochs, [h.loss for h in history], marker="o")
    ax[0].set(xlabel="epoch", ylabel="training loss")
    ax[1].plot(epochs, [_score(h) for h in history], marker="o", color="C1")
    ax[1].set(xlabel="epoch", ylabel=f"{summary.dev} {label}")
    save_figure(fig, Path(paths["png"]), dpi=110)
    return paths
