"""``paralib classifier train``: the reference/translation classifiers of 2017 §5.6.1 on
candidate pairs read from a stage output."""

from __future__ import annotations

from paralib.classifier.config import ClassifierConfig
from paralib.classifier.train import train_classifier
from paralib.io.fs import S3Options, check_s3_paths, output_dir
from paralib.select.files import read_pairs


def run_classifier(cfg: ClassifierConfig, s3: S3Options | None = None,
                   config: dict | None = None) -> dict:
    """Train and evaluate; returns Table 8's rows (accuracy overall and per class).
    Every ``s3://`` bucket of ``config`` (the whole configuration as a dict; default:
    this section) is checked before any work (:func:`paralib.io.fs.check_s3_paths`)."""
    check_s3_paths(config if config is not None else {"classifier": cfg.model_dump()}, s3)
    pairs = read_pairs(cfg.input, s3)
    # an s3:// output is written locally and uploaded when training succeeded
    with output_dir(cfg.output, s3) as out:
        metrics = train_classifier(
            pairs, out, encoders=tuple(cfg.encoders), l2_grid=tuple(cfg.l2_grid),
            negatives=tuple(cfg.negatives), epochs=cfg.epochs, lr=cfg.lr,
            batch_size=cfg.batch_size, max_fraction=cfg.max_fraction, seed=cfg.seed,
            threads=cfg.threads)
    return {"best": metrics["best"], "split": metrics["split"], "seconds": metrics["seconds"],
            "test": {name: m["test"] for name, m in metrics["models"].items()},
            "output": cfg.output}
