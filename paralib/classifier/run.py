"""``paralib classifier train``: the reference/translation classifiers of 2017 §5.6.1 on
candidate pairs read from a stage output."""

from __future__ import annotations

from paralib.classifier.config import ClassifierConfig
from paralib.classifier.train import train_classifier
from paralib.contracts import ClassifierReport
from paralib.io.context import StageContext
from paralib.io.fs import output_dir
from paralib.select.files import read_pairs


def run(cfg: ClassifierConfig, ctx: StageContext) -> ClassifierReport:
    """Train and evaluate; returns Table 8's rows (accuracy overall and per class).
    Every ``s3://`` bucket of ``ctx.config`` is checked before any work."""
    ctx.check_buckets()
    s3 = ctx.storage
    pairs = read_pairs(cfg.input, s3)
    # an s3:// output is written locally and uploaded when training succeeded
    with output_dir(cfg.output, s3) as out:
        metrics = train_classifier(
            pairs, out, encoders=tuple(cfg.encoders), l2_grid=tuple(cfg.l2_grid),
            negatives=tuple(cfg.negatives), epochs=cfg.epochs, lr=cfg.lr,
            batch_size=cfg.batch_size, max_fraction=cfg.max_fraction, seed=cfg.seed,
            threads=cfg.threads)
    return ClassifierReport(
        best=metrics["best"], split=metrics["split"], seconds=metrics["seconds"],
        test={name: m["test"] for name, m in metrics["models"].items()}, output=cfg.output)
