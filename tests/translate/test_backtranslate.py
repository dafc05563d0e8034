"""Back-translation end to end on real Multi30k sentences through Ray Data actors."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time

import pyarrow as pa
import pytest
import yaml

from paralib.config import Config, load_config
from paralib.io.context import StageContext
from paralib.io.shards import read_output
from paralib.io.stage import StageError, StageReport
from paralib.translate import backtranslate as stage
from paralib.translate.pipeline import actor_plan


def backtranslate(cfg: Config) -> StageReport:
    """The stage on ``cfg.backtranslate`` and ``cfg``'s context, without progress bars."""
    return stage.run(cfg.backtranslate, StageContext.of(cfg, progress=False))


def make_config(tiny_mt, out, inputs, **bt):
    sets = [f"backtranslate.model={tiny_mt}/ct2-int8", f"backtranslate.output={out}",
            "backtranslate.beam_size=4", "backtranslate.num_hypotheses=3",
            "backtranslate.max_decoding_length=40", "bitext.shard_rows=100",
            "bitext.max_chars=300", f"bitext.inputs={yaml.safe_dump(inputs, width=10**6)}"]
    sets += [f"backtranslate.{k}={v}" for k, v in bt.items()]
    return load_config(None, sets)


def m30k_input(m30k, limit):
    return [{"corpus": "m30k", "src_lang": "de", "src": m30k["val_de"], "en": m30k["val_en"],
             "limit": limit}]


@pytest.mark.parametrize(("fuse_io", "in_process"), [(True, False), (False, False), (True, True)],
                         ids=["shard-actors", "read-translate-write", "in-process"])
@pytest.mark.slow
def test_end_to_end_local(ray_session, tiny_mt, m30k, tmp_path, fuse_io, in_process):
    # a second input with bad lines: every row must end up in the output or in rejects;
    # the same whether actors read and write their shards, tasks do it around them, or
    # one process does it all without Ray
    bad_de, bad_en = tmp_path / "bad.de", tmp_path / "bad.en"
    bad_de.write_bytes(b"Ein Hund rennt.\n\xc3\x28 kaputt\n\n" + b"lang " * 100 + b"\n")
    bad_en.write_bytes(b"A dog runs.\nbroken\nno source\nlong\n")
    inputs = m30k_input(m30k, 300) + [
        {"corpus": "bad", "src_lang": "de", "src": str(bad_de), "en": str(bad_en)}]
    cfg = make_config(tiny_mt, tmp_path / "out", inputs, fuse_io=fuse_io)
    cfg.ray.in_process = in_process
    report = backtranslate(cfg)

    assert report.rows_in == 304 and report.rows_out == 301 and report.rows_rejected == 3
    assert report.shards == 4 and report.hypotheses == 301 * 3
    assert report.reasons == {"empty source sentence": 1,
                              "source longer than 300 characters": 1,
                              "undecodable bytes in source": 1}
    data = read_output(str(tmp_path / "out")).to_pandas()
    assert list(data.columns) == ["id", "corpus", "src_lang", "src", "ref", "trans", "rank",
                                  "cost", "set", "group"]
    # the k-best hypotheses of one source sentence share its group
    assert (data.groupby("id")["group"].nunique() == 1).all()
    assert len(data) == 903 and data["id"].nunique() == 301
    assert sorted(data.groupby("id")["rank"].apply(tuple).unique()) == [(0, 1, 2)]
    assert (data["cost"] > 0).all() and data["trans"].str.len().gt(0).mean() > 0.95
    first = data[data["id"] == "m30k:00000:1"].sort_values("rank")
    assert first["ref"].iloc[0].startswith("A group of men are loading cotton onto a truck")
    assert first["cost"].is_monotonic_increasing
    rejects = read_output(str(tmp_path / "out"), "rejects").to_pandas()
    assert sorted(rejects["line"]) == [2, 3, 4] and set(rejects["corpus"]) == {"bad"}
    summary = (tmp_path / "out" / "_summary.json").read_text()
    assert '"rows_in": 304' in summary

    # A second run finds every shard complete and redoes nothing.
    again = backtranslate(cfg)
    assert again.shards_skipped == 4 and again.rows_in == 304
    assert len(read_output(str(tmp_path / "out"))) == 903
    # ... but the same output with other options is refused rather than mixed.
    other = make_config(tiny_mt, tmp_path / "out", inputs, num_hypotheses=2,
                        fuse_io=fuse_io)
    with pytest.raises(StageError, match="made from another input or with other options"):
        backtranslate(other)


@pytest.mark.slow
def test_resume_redoes_only_incomplete_shards(ray_session, tiny_mt, m30k, tmp_path):
    out = tmp_path / "out"
    cfg = make_config(tiny_mt, out, m30k_input(m30k, 300), num_hypotheses=1)
    backtranslate(cfg)
    before = read_output(str(out)).to_pandas().sort_values("id").reset_index(drop=True)
    # Simulate a kill in shard 1: marker missing, a stray partial part left behind.
    (out / "_markers" / "m30k-00001.json").unlink()
    stray = pa.table({"id": ["m30k:00001:101"]})
    import pyarrow.parquet as pq

    pq.write_table(stray, out / "data" / "m30k-00001" / "part-stray.parquet")
    report = backtranslate(cfg)
    assert report.shards_skipped == 2 and report.rows_in == 300
    after = read_output(str(out)).to_pandas().sort_values("id").reset_index(drop=True)
    assert after["id"].is_unique and len(after) == 300
    assert after[["id", "trans"]].equals(before[["id", "trans"]])


@pytest.mark.slow
def test_resume_after_a_real_kill(tiny_mt, m30k, tmp_path):
    """Kill a running `paralib backtranslate` process, rerun it: every row exactly once."""
    out = tmp_path / "out"
    inputs = m30k_input(m30k, 1000)
    cfg_file = tmp_path / "bt.yaml"
    cfg_file.write_text(yaml.safe_dump({
        "ray": {"num_cpus": 2, "include_dashboard": False},
        "bitext": {"shard_rows": 50, "inputs": inputs},
        "backtranslate": {"model": f"{tiny_mt}/ct2-int8", "output": str(out), "beam_size": 4,
                          "max_decoding_length": 40, "actors": 1},
    }))
    log = tmp_path / "first-run.log"
    with log.open("w") as sink:
        proc = subprocess.Popen([sys.executable, "-m", "paralib", "backtranslate", "--config",
                                 str(cfg_file), "--no-progress"], start_new_session=True,
                                stdout=sink, stderr=subprocess.STDOUT)
    markers = out / "_markers"
    deadline = time.time() + 240
    while (time.time() < deadline and proc.poll() is None
           and len(list(markers.glob("*.json"))) < 2):
        time.sleep(0.2)
    exited = proc.poll()
    with contextlib.suppress(ProcessLookupError):  # the group may be gone if it exited
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    done_at_kill = len(list(markers.glob("*.json")))
    assert 2 <= done_at_kill < 20, (
        f"the job should have been killed part-way: {done_at_kill} shards done, "
        f"{'exited with ' + str(exited) if exited is not None else 'still running'}; its "
        f"output ends:\n{log.read_text()[-2000:]}")

    res = subprocess.run([sys.executable, "-m", "paralib", "backtranslate", "--config",
                          str(cfg_file), "--no-progress"], capture_output=True, text=True,
                         timeout=400)
    assert res.returncode == 0, res.stderr[-2000:]
    assert "rows_in=1000 = rows_out=1000 + rows_rejected=0" in res.stdout
    assert f"({done_at_kill} already done)" in res.stdout
    data = read_output(str(out)).to_pandas()
    assert len(data) == 1000 and data["id"].is_unique


@pytest.mark.parametrize(
    ("device", "gpus", "expected"),
    [("auto", 0, ("cpu", 0, 0.5, 2, None)), ("auto", 4, ("cuda", 1, 1, 2, 700)),
     ("auto", 1, ("cuda", 1, 1, 1, 700)), ("cuda", 0, ("cuda", 1, 1, 2, 700))],
)
def test_actor_plan(device, gpus, expected):
    # a GPU actor gets a whole shard's rows per call: Ray Data refuses a GPU map_batches
    # without a batch size
    bt = load_config(None, [f"backtranslate.device={device}"]).backtranslate
    plan = actor_plan(bt, {"CPU": 16, "GPU": gpus} if gpus else {"CPU": 2}, shard_rows=700)
    assert (plan["device"], plan["num_gpus"], plan["num_cpus"], plan["max"],
            plan["rows_per_batch"]) == expected


@pytest.mark.parametrize("device, gpus, actors, expected",
                         [("auto", 2, 8, (0.5, 4)), ("cuda", 0, 3, (0.5, 3))])
def test_actors_share_a_gpu(device, gpus, actors, expected):
    bt = load_config(None, [f"backtranslate.device={device}", f"backtranslate.actors={actors}",
                            "backtranslate.actors_per_gpu=2"]).backtranslate
    plan = actor_plan(bt, {"CPU": 16, "GPU": gpus}, shard_rows=700)
    assert (plan["num_gpus"], plan["max"]) == expected


def test_actor_plan_keeps_a_set_rows_per_batch():
    bt = load_config(None, ["backtranslate.device=cuda",
                            "backtranslate.rows_per_batch=64"]).backtranslate
    assert actor_plan(bt, {"CPU": 2}, shard_rows=700)["rows_per_batch"] == 64
    assert actor_plan(bt.model_copy(update={"device": "cpu"}), {"CPU": 2},
                      shard_rows=700)["rows_per_batch"] == 64


@pytest.mark.slow
def test_one_model_per_language(ray_session, tiny_mt, m30k, tmp_path):
    """``backtranslate.models`` picks each row's model by its language: the same German
    model named per language gives the same k-best lists as ``model``; a language without a
    model is a config error naming it."""
    from paralib.config import ConfigError

    inputs = m30k_input(m30k, 60)
    one = backtranslate(make_config(tiny_mt, tmp_path / "one", inputs))
    per = make_config(tiny_mt, tmp_path / "per", inputs, models=f"{{deu: {tiny_mt}/ct2-int8}}")
    assert per.backtranslate.models == {"de": f"{tiny_mt}/ct2-int8"}
    report = backtranslate(per)
    assert report.rows_out == one.rows_out == 60
    cols = ["id", "rank", "trans", "cost"]
    a = read_output(str(tmp_path / "one")).to_pandas()[cols].sort_values(["id", "rank"])
    b = read_output(str(tmp_path / "per")).to_pandas()[cols].sort_values(["id", "rank"])
    assert a.reset_index(drop=True).equals(b.reset_index(drop=True))
    french = inputs + [{"corpus": "fr", "src_lang": "fr", "src": m30k["val_de"],
                        "en": m30k["val_en"], "limit": 5}]
    cfg = make_config(tiny_mt, tmp_path / "fr", french, models=f"{{de: {tiny_mt}/ct2-int8}}")
    with pytest.raises(ConfigError, match="no model for fr"):
        backtranslate(cfg)
