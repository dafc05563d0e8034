"""``paralib mine SRC TGT`` on a planted corpus of real sentences: the planted pairs are
found among distractors, below-threshold candidates are rejects with their reason, the
output is reused or refused, and ``paralib select`` reads it."""

from __future__ import annotations

import argparse
import shutil

import numpy as np
import pytest

from paralib.config import Config, load_config
from paralib.encode.vectors import vectors_table
from paralib.io.context import StageContext
from paralib.io.shards import read_output, write_part
from paralib.io.stage import StageError
from paralib.mine import cli as mine_cli
from paralib.mine import stage
from paralib.mine.stage import MineError, MineResult
from paralib.select import Bound, SelectSpec, read_pairs
from paralib.select import run as selection


def mine(cfg: Config) -> MineResult:
    """The stage on ``cfg.mine`` and ``cfg``'s context, without progress bars."""
    return stage.run(cfg.mine, StageContext.of(cfg, progress=False))


def _perturb(sentence: str, rng: np.random.Generator) -> str:
    """A noisy copy: one word dropped and the rest in reverse order."""
    words = sentence.rstrip(".").split()
    del words[int(rng.integers(len(words)))]
    return " ".join(reversed(words))


@pytest.fixture(scope="module")
def corpus(tmp_path_factory, en_text):
    """``src.txt`` (250 sentences) and ``tgt.txt`` (noisy copies of the first 120 among 500
    other sentences, shuffled); ``gold`` maps source line to target line."""
    rng = np.random.default_rng(0)
    root = tmp_path_factory.mktemp("mine-corpus")
    src = en_text[:250]
    tgt = [_perturb(s, rng) for s in src[:120]] + en_text[1000:1500]
    order = rng.permutation(len(tgt))
    (root / "src.txt").write_text("\n".join(src) + "\n")
    (root / "tgt.txt").write_text("\n".join(tgt[i] for i in order) + "\n")
    where = {int(old): new + 1 for new, old in enumerate(order)}
    return {"root": root, "gold": {i + 1: where[i] for i in range(120)}}


def _line(row_id: str) -> int:
    return int(row_id.rsplit(":", 1)[1])


def _cfg(corpus, out, *extra):
    return load_config(None, [f"mine.src={corpus['root']}/src.txt",
                              f"mine.tgt={corpus['root']}/tgt.txt", f"mine.output={out}",
                              *extra])


@pytest.mark.slow
def test_planted_pairs_are_mined_from_text(ray_session, tiny_encoder_dir, corpus, tmp_path):
    out = tmp_path / "mined"
    cfg = _cfg(corpus, out, f"encode.model={tiny_encoder_dir}", "mine.threshold=1.1",
               "mine.src_lang=en", "mine.tgt_lang=en")
    res = mine(cfg)
    rep = res.report
    assert rep.rows_in == rep.rows_out + rep.rows_rejected and rep.rows_rejected > 0
    assert rep.reasons == {"margin below 1.1": rep.rows_rejected}
    data = read_output(str(out)).to_pandas()
    assert len(data) == rep.rows_out and (data["margin"] >= 1.1).all()
    hits = sum(corpus["gold"].get(_line(s)) == _line(t)
               for s, t in zip(data["src_id"], data["ref_id"], strict=True))
    assert hits >= 0.95 * len(corpus["gold"])  # planted pairs found ...
    assert hits >= 0.9 * len(data)  # ... and few distractors above the threshold
    rejects = read_output(str(out), "rejects").to_pandas()
    assert (rejects["reason"] == "margin below 1.1").all() and len(rejects) == rep.rows_rejected
    assert set(data["id"]).isdisjoint(rejects["id"])
    assert {"src", "ref", "src_lang", "group", "margin", "cosine"} <= set(data.columns)
    assert res.info["n_src"] == 250 and res.info["n_tgt"] == 620
    assert res.info["src"]["kind"] == "text" and (out / "embeddings" / "src" / "data").is_dir()
    assert res.text().startswith(f"mined {rep.rows_out} pairs with margin >= 1.1 of ")

    # a rerun with the same inputs and options reuses the pairs; other options are refused
    assert mine(cfg).info["reused"]
    with pytest.raises(StageError, match="other inputs or with other options"):
        mine(_cfg(corpus, out, f"encode.model={tiny_encoder_dir}", "mine.k=8",
                      "mine.src_lang=en", "mine.tgt_lang=en"))

    # the encode outputs are inputs too (no encoding), the HNSW index gives the same pairs
    again = tmp_path / "from-vectors"
    vec = load_config(None, [f"mine.src={out}/embeddings/src",
                             f"mine.tgt={out}/embeddings/tgt/data/*/*.parquet",
                             f"mine.output={again}", "mine.index=hnsw"])
    res2 = mine(vec)
    assert res2.info["src"]["kind"] == "vectors" and res2.info["src_lang"] == "en"
    assert res2.info["indexes"]["forward"]["kind"] == "hnsw"
    mined = read_output(str(again)).to_pandas()
    both = set(zip(mined["src_id"], mined["ref_id"], strict=True))
    kept = set(zip(data["src_id"], data["ref_id"], strict=True))
    assert len(kept & both) >= 0.95 * len(kept) and res2.report.rows_rejected == 0

    # paralib select reads the mined pairs: a bound on the margin
    spec = SelectSpec(input=str(again), output=str(tmp_path / "sel"),
                      bounds=[Bound(column="margin", lower=1.2)])
    sel = selection.run(spec, StageContext())
    assert sel["rows_in"] == len(mined)
    picked = read_pairs(str(tmp_path / "sel"))
    assert len(picked) == int((mined["margin"] >= 1.2).sum()) > 0
    assert set(picked["id"]) == set(mined.loc[mined["margin"] >= 1.2, "id"])


def test_mine_command_line(corpus, tmp_path, capsys):
    # vectors made by paralib encode as SRC and TGT: no model, no Ray
    vectors = tmp_path / "vectors"
    for side, lines in (("src", 40), ("tgt", 60)):
        texts = (corpus["root"] / f"{side}.txt").read_text().splitlines()[:lines]
        emb = np.random.default_rng(len(side)).standard_normal((lines, 16))
        emb[: min(lines, 40)] = np.arange(16 * 40).reshape(40, 16) % 7  # 40 shared rows
        table = vectors_table([f"{side}:00000:{i + 1}" for i in range(lines)], texts, "en",
                              emb, "float16")
        write_part(str(vectors / side), "data", f"{side}-00000", table)
        (vectors / side / "_summary.json").write_text("{}")
    parser = argparse.ArgumentParser()
    mine_cli.add_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["mine", str(vectors / "src"), str(vectors / "tgt"),
                              "--output", str(tmp_path / "o"), "--k", "3", "--index", "flat",
                              "--tgt-lang", "deu", "--no-progress",
                              "--set", "mine.corpus=planted"])
    assert mine_cli.run(args) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("mined ") and "k=3" in printed and "rows_in=" in printed
    data = read_output(str(tmp_path / "o")).to_pandas()
    assert set(data["corpus"]) == {"planted"} and set(data["ref_lang"]) == {"de"}
    assert set(data["src_lang"]) == {"en"} and len(data) <= 40
    # a run killed after writing part of its pairs (no _summary.json; a stray part) is
    # mined again, each candidate once
    (tmp_path / "o" / "_summary.json").unlink()
    stray = next((tmp_path / "o" / "data").glob("*/*.parquet"))
    shutil.copy(stray, stray.with_name("part-stray.parquet"))
    assert mine_cli.run(args) == 0 and "(already done)" not in capsys.readouterr().out
    again = read_output(str(tmp_path / "o")).to_pandas()
    assert again["id"].is_unique and again[["id", "ref_id"]].equals(data[["id", "ref_id"]])
    assert mine_cli.run(args) == 0 and "(already done)" in capsys.readouterr().out
    with pytest.raises(MineError, match="mine.tgt is not set"):
        mine_cli.run(parser.parse_args(["mine", str(vectors / "src"),
                                        "--output", str(tmp_path / "p")]))
    with pytest.raises(StageError, match="did not write"):
        mine_cli.run(parser.parse_args(["mine", str(vectors / "src"), str(vectors / "tgt"),
                                        "--output", str(vectors), "--overwrite"]))
    assert (vectors / "src" / "_summary.json").is_file()  # nothing of it was deleted
