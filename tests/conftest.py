"""Session fixtures: the shared data, one embedded Ray, a tiny translation model; and the
order of the test files.

The tiny model is trained here on real Multi30k pairs in seconds (the shipped models are
CTranslate2-only, and a test needs the `transformers` weights to compare against), once for
the whole run: the test processes of pytest-xdist share it.
"""

from __future__ import annotations

import os
import shutil
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from paralib.config import InputConfig, MTModelConfig, MTTrainConfig
from paralib.paths import data_root

M30K = "bitext/multi30k/task1/raw"


def pytest_collection_modifyitems(config, items):
    """Files with the most slow tests run first, each file's tests in their order: the two
    test processes (``--dist loadfile``, ``--no-loadscope-reorder``) then take the long files
    early and end on short ones, instead of one process finishing a tuning run alone."""
    slow = Counter(item.path for item in items if item.get_closest_marker("slow"))
    items.sort(key=lambda item: -slow[item.path])  # stable: the rest keep collection order


def built_once(tmp_path_factory, name: str, build: Callable[[Path], None]) -> Path:
    """The folder ``name`` that ``build(folder)`` fills, built once for the whole run: under
    pytest-xdist the first process to ask builds it (holding a lock) in the run's temporary
    folder, the others wait for it and reuse it."""
    from filelock import FileLock

    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent  # this run's folder, above every process's own
    out, done = root / name, root / f"{name}.done"
    with FileLock(str(root / f"{name}.lock")):
        if not done.exists():
            shutil.rmtree(out, ignore_errors=True)  # what a process killed mid-build left
            build(out)
            done.touch()
    return out


@pytest.fixture(scope="session", autouse=True)
def run_logs(tmp_path_factory) -> Path:
    """Run log folders of ``paralib.cli.main`` calls go to a temporary folder, not the
    checkout's ``output/logs``."""
    root = tmp_path_factory.mktemp("paralib-logs")
    old = os.environ.get("PARALIB_LOG_DIR")
    os.environ["PARALIB_LOG_DIR"] = str(root)
    yield root
    if old is None:
        os.environ.pop("PARALIB_LOG_DIR", None)
    else:
        os.environ["PARALIB_LOG_DIR"] = old


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """The shared data folder (../shared/data or $PARALIB_DATA)."""
    return data_root()


@pytest.fixture(scope="session")
def m30k(data_dir) -> dict[str, str]:
    """Paths of the Multi30k German-English files."""
    base = data_dir / M30K
    return {k: str(base / f"{k.replace('_', '.')}.gz") for k in
            ("train_de", "train_en", "val_de", "val_en")}


@pytest.fixture(scope="session")
def ray_session():
    """One embedded Ray instance for the whole test session (2 logical CPUs)."""
    import ray

    os.environ.setdefault("RAY_DEDUP_LOGS", "0")
    ray.init(num_cpus=2, include_dashboard=False, ignore_reinit_error=True,
             log_to_driver=False)
    ray.data.DataContext.get_current().enable_progress_bars = False
    yield ray
    ray.shutdown()


@pytest.fixture(scope="session")
def tiny_mt(tmp_path_factory, m30k) -> Path:
    """A tiny German→English Marian trained on 3,000 Multi30k pairs, converted to CT2.

    ``PARALIB_TEST_MT_CACHE=DIR`` keeps it in DIR between test runs (for development).
    """
    pytest.importorskip("transformers")
    from paralib.mt.train import train_mt

    def build(out: Path) -> None:
        cfg = MTTrainConfig(
            src_lang="de", tgt_lang="en",
            inputs=[InputConfig(corpus="m30k", src_lang="de", src=m30k["train_de"],
                                en=m30k["train_en"], limit=3000)],
            valid_src=m30k["val_de"], valid_ref=m30k["val_en"],
            output=str(out),
            model=MTModelConfig(vocab_size=600, d_model=64, encoder_layers=1,
                                decoder_layers=1, attention_heads=2, ffn_dim=128,
                                max_positions=96),
            batch_tokens=2000, max_len=48, lr=3e-3, warmup_steps=20, max_steps=80,
            eval_every=40, average_last=2, threads=2,
        )
        train_mt(cfg, progress=False)

    cache = os.environ.get("PARALIB_TEST_MT_CACHE")
    if cache and (Path(cache) / "ct2-int8" / "model.bin").is_file():
        return Path(cache)
    if cache:
        build(Path(cache))
        return Path(cache)
    return built_once(tmp_path_factory, "tiny-mt", build)


@pytest.fixture(scope="session")
def en_text(m30k) -> list[str]:
    """3,000 English Multi30k training sentences (tokeniser and encoder tests)."""
    import gzip

    with gzip.open(m30k["train_en"], "rt", encoding="utf-8") as f:
        return [next(f).strip() for _ in range(3000)]


@pytest.fixture(scope="session")
def trained_sp():
    """A small SP encoder trained in-process (no Ray) for three epochs on STS Benchmark training
    pairs scoring at least 3.8 (the DCU §3 source): a real trained model in seconds."""
    import torch

    from paralib.config import Config
    from paralib.io.context import StageContext
    from paralib.models import ParaphraseModel, SentenceEncoder
    from paralib.train.run import prepare
    from paralib.train.schedule import megabatches
    from paralib.train.steps import MegaBatchTrainer

    cfg = Config.model_validate({"train": {
        "sources": [{"kind": "sts"}], "decontaminate": False,  # STSB train: an eval set
        "model": {"parts": [{"name": "sp", "vocab_size": 2000, "dim": 64}]}}})
    torch.manual_seed(0)
    prepared = prepare(cfg.train, StageContext.of(cfg))
    data, tokenizers = prepared.data, prepared.tokenizers
    model = ParaphraseModel(cfg.train.model, tokenizers)
    model.initialise()
    trainer = MegaBatchTrainer(cfg.train, model, torch.optim.Adam(model.parameters(), 1e-3))
    chunks = [data.iloc[i:i + 100] for i in range(0, len(data), 100)]
    for _ in range(3):
        for group in megabatches(chunks, cfg.train.megabatch):
            trainer.train_megabatch(group)
    return SentenceEncoder(model, ("en",), {"trained": "sts>=3.8, 3 epochs"})


@pytest.fixture(scope="module")
def s3_endpoint():
    """A moto S3 server on 127.0.0.1 (a free port), for the S3 tests of every folder."""
    import socket

    moto_server = pytest.importorskip("moto.server")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    yield f"http://127.0.0.1:{port}"
    server.stop()


@pytest.fixture(scope="module")
def s3_options(s3_endpoint):
    """:class:`paralib.io.fs.S3Options` for :func:`s3_endpoint` (moto's test credentials)."""
    from paralib.io.fs import S3Options

    return S3Options(s3_endpoint, access_key="testing", secret_key="testing")


@pytest.fixture(scope="session")
def tiny_encoder_dir(tmp_path_factory, en_text) -> Path:
    """A saved model folder that loads in milliseconds: a random WORD-averaging encoder
    (dim 64) with its vocabulary fitted on :func:`en_text` (the encode and mine tests)."""
    from paralib.models import random_encoder, save_model

    enc = random_encoder("word", en_text, vocab_size=6000, dim=64, seed=0, languages=("en",))
    folder = tmp_path_factory.mktemp("tiny-encoder") / "model"
    save_model(enc.model, folder, enc.languages, enc.info, "# tiny test encoder\n")
    return folder
