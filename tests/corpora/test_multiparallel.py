"""The multi-parallel corpora by name (``bibles``, ``bibles-en``, ``un-testsets``, ``pud``):
line i of every file is one group, the Van Dyck's vowel marks are stripped by default, the
English pivot can be chosen, and files that break the verse numbering are errors naming the
corpus, language and what was expected."""

from __future__ import annotations

import gzip
import json
import re

import pytest

from paralib.config import ConfigError, load_config
from paralib.corpora.langs import strip_arabic_marks
from paralib.io.bitext import plan_shards, read_shard

MARKS = re.compile("[\u064b-\u065f\u0670\u0640]")


def _inputs(corpora: list[dict]):
    return load_config(None, [f"bitext.corpora={json.dumps(corpora)}"]).bitext.all_inputs()


def _read(corpora: list[dict]) -> dict[str, tuple[list[dict], list[dict]]]:
    """``{input name: (rows, rejects)}`` of the corpora, read whole."""
    return {spec.name: read_shard(spec, 1000) for spec in plan_shards(_inputs(corpora), 10**6)}


def _line(path: str, n: int) -> str:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for i, line in enumerate(f, 1):
            if i == n:
                return line.rstrip("\n")
    raise AssertionError(f"{path} has fewer than {n} lines")


def test_bibles_pair_each_translation_with_the_web_verse_by_verse():
    inputs = _inputs([{"name": "bibles", "langs": ["ara", "es"], "limit": 40}])
    assert {(i.src_lang, i.set) for i in inputs} == {
        ("ar", "ara-svd"), ("es", "spa-bes"), ("es", "spa-rv1865"), ("es", "spa-rv1909")}
    assert {i.en.rsplit("/", 1)[1] for i in inputs} == {"eng-webp.txt.gz"}
    got = _read([{"name": "bibles", "langs": ["ara", "es"], "limit": 40}])
    ar = {r["line"]: r for r in got["bibles.ar.ara-svd"][0]}
    es = {r["line"]: r for r in got["bibles.es.spa-rv1909"][0]}
    assert ar[1]["ref"] == es[1]["ref"] == _line(inputs[0].en, 1)  # Genesis 1:1 in the WEB
    # a verse is one group in every language, different verses are different groups
    assert all(ar[n]["group"] == es[n]["group"] for n in set(ar) & set(es))
    assert len({r["group"] for r in ar.values()}) == len(ar) > 30


def test_the_van_dyck_loses_its_vowel_marks_unless_asked_to_keep_them():
    ara = next(i for i in _inputs([{"name": "bibles", "langs": ["ar"], "limit": 5}]))
    raw = _line(ara.src, 1)
    assert MARKS.search(raw)  # the file has harakat ...
    stripped = _read([{"name": "bibles", "langs": ["ar"], "limit": 5}])["bibles.ar.ara-svd"][0]
    assert stripped[0]["src"] == strip_arabic_marks(raw).strip()
    assert not any(MARKS.search(r["src"]) for r in stripped)  # ... the pairs do not
    kept = _read([{"name": "bibles", "langs": ["ar"], "limit": 5,
                   "strip_arabic_marks": False}])["bibles.ar.ara-svd"][0]
    assert kept[0]["src"] == raw.strip()
    # only Arabic-script files are touched
    assert not any(i.strip_arabic_marks for i in _inputs([{"name": "bibles", "langs": ["de"],
                                                          "limit": 5}]))


def test_strip_arabic_marks_removes_harakat_superscript_alef_and_tatweel_only():
    assert strip_arabic_marks("فِي الْبَدْءِ هٰذَا عربـــي ٣") == "في البدء هذا عربي ٣"
    assert strip_arabic_marks("café, 中文") == "café, 中文"


def test_a_verse_a_translation_lacks_is_a_counted_reject():
    rows, rejects = _read([{"name": "bibles", "sets": ["grc-sr"], "limit": 30}])[
        "bibles.grc.grc-sr"]  # a New Testament: Genesis is empty
    assert rows == [] and len(rejects) == 30
    assert {r["reason"] for r in rejects} == {"empty source sentence"}


def test_the_english_pivot_can_be_another_version():
    bsb = _inputs([{"name": "bibles", "langs": ["de"], "pivot": "eng-bsb", "limit": 3}])
    assert {i.en.rsplit("/", 1)[1] for i in bsb} == {"eng-bsb.txt.gz"}
    with pytest.raises(ConfigError, match="no English version 'eng-kjv'; valid: eng-bsb, "):
        _inputs([{"name": "bibles", "langs": ["de"], "pivot": "eng-kjv"}])
    with pytest.raises(ConfigError, match="corpus 'pud' has no choice of English version"):
        _inputs([{"name": "pud", "pivot": "eng-bsb"}])


def test_bibles_en_pairs_english_versions_in_the_verse_group_of_every_language():
    inputs = _inputs([{"name": "bibles-en", "limit": 3}])
    assert len(inputs) == 21 and {i.src_lang for i in inputs} == {"en"}
    got = _read([{"name": "bibles-en", "sets": ["bsb-fbv"], "limit": 10},
                 {"name": "bibles", "langs": ["ar"], "limit": 10}])
    en = {r["line"]: r for r in got["bibles-en.en.bsb-fbv"][0]}
    ar = {r["line"]: r for r in got["bibles.ar.ara-svd"][0]}
    webp = {r["line"]: r["ref"] for r in ar.values()}
    differ = [n for n in en if len({en[n]["src"], en[n]["ref"], webp.get(n)}) == 3]
    assert len(differ) > 5  # two versions, neither of them the WEB: linked by the verse only
    assert all(en[n]["group"] == ar[n]["group"] for n in set(en) & set(ar))


@pytest.mark.parametrize(("name", "langs", "sets"), [
    ("un-testsets", {"ar", "es", "fr", "ru", "zh"}, {"devset", "testset"}),
    ("pud", {"ar", "de", "es", "fr", "hi", "ru", "tr", "zh"}, {"pud"}),
])
def test_un_and_pud_lines_are_groups_across_languages(name, langs, sets):
    inputs = _inputs([{"name": name, "limit": 20}])
    assert {i.src_lang for i in inputs} == langs and {i.set for i in inputs} == sets
    got = _read([{"name": name, "limit": 20}])
    for s in sets:
        by_lang = [{r["line"]: r["group"] for r in rows}
                   for key, (rows, _) in got.items() if key.endswith(f".{s}")]
        assert len(by_lang) == len(langs)
        for n in by_lang[0]:
            assert {g[n] for g in by_lang if n in g} == {by_lang[0][n]}
        assert len(set(by_lang[0].values())) == len(by_lang[0])
    if name == "un-testsets":  # the dev and test sets' line 1 are different sentences
        dev, test = got["un-testsets.ar.devset"][0], got["un-testsets.ar.testset"][0]
        assert dev[0]["group"] != test[0]["group"]


def _bible_folder(tmp_path, data_dir, lines: dict[str, int]) -> None:
    """A data root whose ``bitext/bibles`` holds the first lines of real files: ``vref.txt``
    and each named translation cut to its number of lines."""
    src, out = data_dir / "bitext/bibles", tmp_path / "bitext/bibles"
    out.mkdir(parents=True)
    with (src / "vref.txt").open() as f:
        (out / "vref.txt").write_text("".join(next(f) for _ in range(5)))
    for name, n in lines.items():
        with gzip.open(src / f"{name}.txt.gz", "rt", encoding="utf-8") as f:
            text = "".join(next(f) for _ in range(n))
        (out / f"{name}.txt.gz").write_bytes(gzip.compress(text.encode()))


def test_a_translation_off_the_verse_numbering_is_an_error_naming_it(tmp_path, monkeypatch,
                                                                    data_dir):
    _bible_folder(tmp_path, data_dir, {"eng-webp": 5, "deu-elb1871": 4, "fra-pgr": 5})
    monkeypatch.setenv("PARALIB_DATA", str(tmp_path))
    assert [i.src_lang for i in _inputs([{"name": "bibles", "langs": ["fr"]}])] == ["fr"]
    with pytest.raises(ConfigError, match=r"corpus 'bibles', language 'de': \S+deu-elb1871"
                       r"\.txt\.gz has 4 lines; expected 5, one per verse of \S+vref\.txt"):
        _inputs([{"name": "bibles", "langs": ["de"]}])


def test_an_unknown_bible_language_names_the_choices():
    with pytest.raises(ConfigError, match="corpus 'bibles' has no language 'it'; valid: "):
        _inputs([{"name": "bibles", "langs": ["it"]}])


def test_shards_of_other_corpora_keep_their_fingerprint_keys():
    from paralib.io.formats import ShardSpec

    plain = plan_shards(_inputs([{"name": "wmt-news", "langs": ["de"],
                                  "sets": ["newstest2014"], "limit": 5}]), 100)[0].to_dict()
    assert "line_group" not in plain and "strip_arabic_marks" not in plain
    ara = plan_shards(_inputs([{"name": "bibles", "langs": ["ar"], "limit": 5}]), 100)[0]
    assert ara.to_dict()["line_group"] == "bibles" and ara.to_dict()["strip_arabic_marks"]
    assert ShardSpec.from_dict(ara.to_dict()) == ara
    # a Ray batch mixing both fills the missing keys with None / NaN
    back = ShardSpec.from_dict({**plain, "line_group": None, "strip_arabic_marks": float("nan")})
    assert (back.line_group, back.strip_arabic_marks) == (None, False)
