"""Corpora by name: both new corpora read by name and language, with set, language and group
columns; unknown names, languages and sets are config errors naming the choices."""

from __future__ import annotations

import json

import pytest

from paralib.cli import main
from paralib.config import ConfigError, load_config
from paralib.io.bitext import plan_shards, read_shard


def _inputs(corpora: list[dict]):
    return load_config(None, [f"bitext.corpora={json.dumps(corpora)}"]).bitext.all_inputs()


def test_wmt_news_by_name_and_language_keeps_corpus_set_and_language():
    inputs = _inputs([{"name": "wmt-news", "langs": ["deu"], "sets": ["newstest2014"]}])
    assert [(i.corpus, i.src_lang, i.set) for i in inputs] == [
        ("wmt-news", "de", "newstest2014")]
    rows, rejects = read_shard(plan_shards(inputs, 100_000)[0], 1000)
    assert len(rows) + len(rejects) == 3003  # newstest2014 de-en
    row = rows[0]
    assert (row["corpus"], row["set"], row["src_lang"]) == ("wmt-news", "newstest2014", "de")
    assert row["id"].startswith("wmt-news.de.newstest2014:00000:")
    assert isinstance(row["group"], int)


def test_tatoeba_challenge_takes_iso_639_1_and_639_3_alike():
    by_3 = _inputs([{"name": "tatoeba-challenge", "langs": ["deu", "fra"], "limit": 50}])
    by_1 = _inputs([{"name": "tatoeba-challenge", "langs": ["de", "fr"], "limit": 50}])
    assert by_1 == by_3
    assert sorted(i.src_lang for i in by_1) == ["de", "fr"]
    rows, _ = read_shard(plan_shards(by_1, 100)[0], 1000)
    assert {r["src_lang"] for r in rows} == {"de"} and rows[0]["ref"]


def test_equal_english_sides_share_a_group_across_corpora():
    inputs = _inputs([{"name": "ntrex-128", "langs": ["de", "fr"], "limit": 20}])
    per_lang = {}
    for spec in plan_shards(inputs, 100):
        rows, _ = read_shard(spec, 1000)
        per_lang[spec.src_lang] = {r["line"]: r["group"] for r in rows}
    shared = set(per_lang["de"]) & set(per_lang["fr"])
    assert shared and all(per_lang["de"][n] == per_lang["fr"][n] for n in shared)
    assert len(set(per_lang["de"].values())) > 15  # different sentences, different groups


def test_bible_versions_pair_verses_by_key_and_group_them():
    inputs = _inputs([{"name": "bible-versions", "sets": ["KJV-WEB", "ASV-KJV"],
                       "limit": 30}])
    got = {}
    for spec in plan_shards(inputs, 1000):
        rows, rejects = read_shard(spec, 1000)
        assert not rejects
        got[spec.set] = rows
    kjv_web, asv_kjv = got["KJV-WEB"], got["ASV-KJV"]
    assert kjv_web[0]["src"].startswith("In the beginning God created")  # Genesis 1:1
    assert kjv_web[0]["src_lang"] == "en"
    # the same verse in two version pairs: one group; different verses: different groups
    assert kjv_web[0]["group"] == asv_kjv[0]["group"] != kjv_web[1]["group"]


@pytest.mark.parametrize(("entry", "message"), [
    ({"name": "wmt-newz"},
     "unknown corpus 'wmt-newz'; valid: bible-versions, bibles, bibles-en, multi30k"),
    ({"name": "wmt-news", "langs": ["xh"]}, "has no language 'xh'; valid: cs, de, es"),
    ({"name": "wmt-news", "langs": ["q!"]}, "'q!' is not a language code"),
    ({"name": "wmt-news", "langs": ["de"], "sets": ["newstest2099"]},
     "no set matching 'newstest2099'"),
])
def test_unknown_corpus_language_or_set_is_a_config_error(entry, message):
    with pytest.raises(ConfigError, match=message.replace("(", r"\(")):
        load_config(None, [f"bitext.corpora={json.dumps([entry])}"])


def test_paralib_corpora_lists_pairs_per_language(capsys):
    assert main(["corpora", "wmt-news", "--lang", "deu", "--lang", "cs", "--json"]) == 0
    counts = json.loads(capsys.readouterr().out)
    assert counts == {"wmt-news": {"cs": 31219, "de": 34316}}
