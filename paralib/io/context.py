"""What a stage gets besides its own config section: :class:`StageContext`.

Every stage's entry point is ``run(section, ctx)``: ``section`` its config section
(``ScoreConfig``, ``EncodeConfig``...), ``ctx`` a :class:`StageContext`. The command line
(:mod:`paralib.commands`) and the run service build contexts from a whole config
(:meth:`StageContext.of`); a stage never sees the whole config, only what the context holds.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from paralib.config import DecontaminateConfig, RayConfig
from paralib.io.config import BitextConfig
from paralib.io.fs import S3Options, check_s3_paths
from paralib.runtime import init_ray

if TYPE_CHECKING:
    from paralib.config import Config


@dataclass(frozen=True)
class StageContext:
    """Where a stage reads and writes, and how it runs.

    ``storage`` are the fsspec options of ``s3://`` paths (``Config.s3.options()``),
    ``config`` the whole validated config as a dict (its buckets are checked before any work,
    :meth:`check_buckets`, and it is recorded next to the outputs), ``progress`` whether to
    show progress bars, ``ray`` the Ray section that :meth:`init_ray` starts or joins, and
    ``bitext`` the shared bitext section (inputs, shard size, reader checks) that the stages
    reading bitext shards (back-translation, decontamination) plan from; ``decontaminate``
    the matching that training repeats on its sources."""

    storage: S3Options | None = None
    config: dict[str, Any] = field(default_factory=dict)
    progress: bool = True
    log: logging.Logger = field(default_factory=lambda: logging.getLogger("paralib"))
    ray: RayConfig = field(default_factory=RayConfig)
    bitext: BitextConfig = field(default_factory=BitextConfig)
    decontaminate: DecontaminateConfig = field(default_factory=DecontaminateConfig)

    def init_ray(self) -> dict:
        """Start or join Ray as ``ray`` says (:func:`paralib.runtime.init_ray`); returns the
        cluster's resources."""
        return init_ray(self.ray)

    def check_buckets(self) -> None:
        """Check every ``s3://`` bucket of ``config`` before any work
        (:func:`paralib.io.fs.check_s3_paths`)."""
        check_s3_paths(self.config, self.storage)

    def with_section(self, name: str, section: Any) -> StageContext:
        """This context with ``config[name]`` replaced by ``section`` (a stage run with
        another section than the config's, as ``paralib mine`` encodes its sides)."""
        return replace(self, config={**self.config, name: section.model_dump()})

    @classmethod
    def bare(cls, name: str, section: Any, storage: S3Options | None = None,
             config: dict[str, Any] | None = None) -> StageContext:
        """A context of storage options and a config dict (default: only ``section``, under
        ``name``), for callers that hold one section."""
        return cls(storage=storage, config={name: section.model_dump()} if config is None
                   else config)

    @classmethod
    def of(cls, cfg: Config, progress: bool = True) -> StageContext:
        """The context of a validated config."""
        return cls(storage=cfg.s3.options(), config=cfg.model_dump(), progress=progress,
                   ray=cfg.ray, bitext=cfg.bitext, decontaminate=cfg.decontaminate)
