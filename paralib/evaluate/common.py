"""Settings shared by the tasks and the shapes of their results.

Every per-model result is a dict with a ``status``: ``ok`` (with the numbers), ``missing``
(a data file is absent: ``file`` and ``message`` say which and where), ``skipped`` (the model
does not cover a language the task needs), ``n/a`` (the task does not apply, e.g. retrieval
with a pair scorer) or ``error`` (the task failed; the others went on).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from paralib.evaluate.evalmodel import EvalModel
from paralib.evaluate.loaders import MissingDataError


@dataclass
class Settings:
    """Knobs of an evaluation run (defaults follow the papers where they say)."""

    data: Path
    batch_size: int = 256
    seed: int = 0
    # sets of at least this many sentences are encoded by Ray Data actors when the model can
    # be rebuilt in an actor (a model folder, GloVe, MiniLM); smaller ones in this process
    ray_threshold: int = 20_000
    ray_actors: int = 2
    ray_cpus_per_actor: float = 0.5
    ray_rows_per_batch: int = 2_000
    ray_address: str | None = None
    mlp_hidden: int = 200  # Opusparcus §4
    mlp_max_epochs: int = 100
    mlp_patience: int = 10
    bucc_k: int = 4  # ratio margin over k nearest neighbours (2019 §3.4)
    neighbours_k: int = 10  # Opusparcus Tables 4-5
    neighbour_queries: dict[str, list[str]] = field(default_factory=lambda: {
        "en": ["okay, you don't get it, man.", "A dog is running on the beach."],
        "de": ["Kann gut sein."],
    })
    speed_sentences: int = 10_000
    speed_batch_size: int = 128  # 2019 §4.1
    progress: bool = True


def missing(err: MissingDataError) -> dict:
    """A result for data that is not there: the file and where it was looked for."""
    return {"status": "missing", "file": str(err.path), "looked_in": str(err.path.parent),
            "message": str(err)}


def skipped(model: EvalModel, needs: tuple[str, ...] | list[str]) -> dict:
    """A result for a language the model does not cover."""
    return {"status": "skipped", "reason": f"model covers {model.coverage()}",
            "needs": list(needs)}


def not_applicable(model: EvalModel, task: str) -> dict:
    """A result for a task that does not apply to a pair scorer."""
    return {"status": "n/a",
            "reason": f"{model.name} is a pair scorer, not an encoder; {task} needs embeddings"}


def error(exc: BaseException) -> dict:
    """A result for a task that failed."""
    return {"status": "error", "message": f"{type(exc).__name__}: {exc}"}
