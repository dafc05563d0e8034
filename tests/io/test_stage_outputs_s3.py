"""The lm, classifier and analysis stages write to ``s3://`` (a moto server on 127.0.0.1),
and the score stage's actors load the language model and the classifier from there: what a
multi-node cluster without a shared disk needs.

Real data: Multi30k references as candidate pairs, each with two other captions as its
"translations"; a real KenLM 3-gram (lmplz) and a real AVG classifier trained for one epoch.
"""

from __future__ import annotations

import gzip
import shutil

import pandas as pd
import pyarrow as pa
import pytest

from paralib.classifier import run as classifier
from paralib.classifier.config import ClassifierConfig
from paralib.config import load_config
from paralib.filters import get_scorer
from paralib.filters import stage as scoring
from paralib.io import fs
from paralib.io.context import StageContext
from paralib.io.shards import read_output, write_marker, write_part
from paralib.lm import kenlm_tools_available
from paralib.lm import run as lm
from paralib.lm.config import LMConfig

pytest.importorskip("kenlm")
BUCKET = "paralib-stages"
B = f"s3://{BUCKET}"


pytestmark = pytest.mark.skipif(not kenlm_tools_available(),
                                reason="lmplz/build_binary missing: run scripts/build_kenlm.sh")


def _candidates(m30k, n: int, first: int = 0) -> pd.DataFrame:
    with gzip.open(m30k["train_en"], "rt", encoding="utf-8") as f:
        refs = [next(f).strip() for _ in range(first + n + 2)][first:]
    rows = []
    for i in range(n):
        for rank, shift in ((0, 1), (1, 2)):
            rows.append({"id": f"m30k:00000:{first + i + 1}" + ("#1" if rank else ""),
                         "corpus": "m30k", "src_lang": "de", "src": "x", "ref": refs[i],
                         "trans": refs[i + shift], "rank": rank})
    return pd.DataFrame(rows)


def _stage_output(df: pd.DataFrame, out: str, s3) -> str:
    key = "m30k-00000"
    write_part(out, "data", key, pa.Table.from_pandas(df, preserve_index=False), s3)
    write_marker(out, key, {"rows_in": len(df)}, s3)
    fs.write_bytes(fs.join(out, "_summary.json"), b"{}", s3)  # a finished stage output
    return out


def _keys(s3, prefix: str) -> list[str]:
    page = s3.client().list_objects_v2(Bucket=BUCKET, Prefix=prefix)
    return sorted(o["Key"] for o in page.get("Contents", []))


@pytest.fixture(scope="module")
def stages(s3_options, m30k):
    """Candidate pairs on S3, with the LM and the classifier trained from them to S3."""
    s3_options.client().create_bucket(Bucket=BUCKET)
    bt = _stage_output(_candidates(m30k, 1500), f"{B}/bt", s3_options)
    lms = LMConfig(input=bt, output=f"{B}/lm", references=400)
    models = lm.run(lms, StageContext.bare("lm", lms, s3_options))
    clf = ClassifierConfig(
        input=bt, output=f"{B}/classifier", encoders=["avg"], negatives=["random"],
        l2_grid=[0.0], epochs=1, max_fraction=0.5, threads=1)
    report = classifier.run(clf, StageContext.bare("classifier", clf, s3_options))
    yield {"bt": bt, "lm": models, "classifier": report}
    shutil.rmtree(fs.cache_root() / BUCKET, ignore_errors=True)  # what the actors cached


def test_lm_and_classifier_outputs_land_in_the_bucket(stages, s3_options):
    assert stages["lm"]["models"] == f"{B}/lm"
    assert stages["lm"]["heldout_file"] == f"{B}/lm/heldout.parquet"
    assert _keys(s3_options, "lm/") == ["lm/heldout.parquet", "lm/lms.json", "lm/m30k-de.bin",
                                        "lm/m30k-de.json"]
    held = pd.read_parquet(fs.local_copy(f"{B}/lm/heldout.parquet", s3_options))
    assert len(held) == stages["lm"]["heldout_pairs"] >= 400

    assert stages["classifier"]["output"] == f"{B}/classifier"
    assert _keys(s3_options, "classifier/") == [
        "classifier/avg/README.md", "classifier/avg/classifier.json", "classifier/avg/model.pt",
        "classifier/avg/vocab.txt", "classifier/heldout.parquet", "classifier/metrics.json"]


def test_scorers_load_their_models_from_s3(stages, s3_options, m30k, tmp_path):
    batch = _candidates(m30k, 20, first=3000)
    lm = get_scorer("lm", model=f"{B}/lm")
    lm.s3 = s3_options
    clf = get_scorer("classifier", model=f"{B}/classifier")
    clf.s3 = s3_options
    got = pd.concat([lm.score(batch), clf.score(batch)], axis=1)
    # the same numbers as from a plain local copy of each model folder
    local_lm = fs.download_dir(f"{B}/lm", tmp_path / "lm", s3_options)
    local_clf = fs.download_dir(f"{B}/classifier", tmp_path / "clf", s3_options)
    want = pd.concat([get_scorer("lm", model=str(local_lm)).score(batch),
                      get_scorer("classifier", model=str(local_clf)).score(batch)], axis=1)
    pd.testing.assert_frame_equal(got, want)
    assert got["lm_ppl"].between(1, 1e6).all() and got["p_ref"].between(0, 1).all()

    missing = get_scorer("lm", model=f"{B}/no-such-lm")
    missing.s3 = s3_options
    with pytest.raises(ValueError, match="no-such-lm"):
        missing.setup()


@pytest.mark.slow
def test_score_stage_actors_read_models_from_s3(ray_session, stages, s3_options, s3_endpoint,
                                                m30k):
    inp = _stage_output(_candidates(m30k, 40, first=4000), f"{B}/to-score", s3_options)
    cfg = load_config(None, [
        f"s3.endpoint_url={s3_endpoint}", "s3.access_key=testing", "s3.secret_key=testing",
        f"score.input={inp}", f"score.output={B}/scored",
        f"score.scorers=[{{type: lm, params: {{model: '{B}/lm'}}}}, "
        f"{{type: classifier, params: {{model: '{B}/classifier'}}}}]"])
    report = scoring.run(cfg.score, StageContext.of(cfg, progress=False))
    assert report.rows_in == 80 and report.rows_out == 80, report
    scored = read_output(f"{B}/scored", "data", s3_options).to_pandas()
    assert scored["lm_ppl"].between(1, 1e6).all() and scored["p_ref"].between(0, 1).all()

    # then the analysis report of the scored pairs, written to S3 too
    from paralib.analysis import run as analysis
    from paralib.analysis.config import AnalyzeConfig

    section = AnalyzeConfig(input=f"{B}/scored", output=f"{B}/analysis")
    path = analysis.run(section, StageContext.bare("analyze", section, s3_options))
    assert path == f"{B}/analysis/report.html"
    keys = _keys(s3_options, "analysis/")
    assert "analysis/report.html" in keys and "analysis/report.json" in keys
    assert any(k.startswith("analysis/plots/") for k in keys)
