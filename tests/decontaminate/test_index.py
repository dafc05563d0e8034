"""The index catches planted evaluation sentences and keeps near misses; its cache."""

from __future__ import annotations

import gzip
import shutil

import numpy as np
import pytest
import regex

from paralib.decontaminate import EVAL_SETS, EvalIndex, normal_form, tokens
from paralib.decontaminate.index import _bitmap, _maybe
from paralib.evaluate.loaders import (
    STS_YEARS,
    read_bucc,
    read_gz_lines,
    read_msrpc,
    read_sick,
    read_sts_input,
    read_stsb,
    read_tatoeba,
)

M30K = "bitext/multi30k/task1/raw"
# made-up words: no evaluation sentence holds them, so windows that reach into them are new
PAD_A = "Zorblat quixotically frobnicated the"
PAD_B = "beside seventeen vermilion kumquats"


def _both(pairs) -> list[str]:
    return [*pairs.a, *pairs.b]


def sources(data) -> dict[str, list[str]]:
    """Where each planted sentence is taken from: one file (or split) of each set."""
    return {
        # most STS 2012-2016 sentences are in the STS Benchmark too (reported under the year)
        "sts2014": [s for ds in STS_YEARS[2014] for row in read_sts_input(data, 2014, ds)
                    for s in row],
        "stsb": _both(read_stsb(data, "test")),
        "sick": _both(read_sick(data, "trial")),
        "tatoeba": read_tatoeba(data, "deu")[0],  # the German side
        "bucc2018": read_bucc(data, "de-en").trg,
        "msrpc": _both(read_msrpc(data, "test")),
        "multi30k-test": read_gz_lines(data / M30K / "test_2016_flickr.en.gz", "m30k"),
    }


def pick_long(reference, sentences: list[str], name: str, min_tokens: int = 12) -> str:
    """The first sentence of at least ``min_tokens`` tokens whose normal form and every
    10-token window occur in set ``name`` only (so a match must name that set)."""
    for s in sentences:
        toks = tokens(s)
        if (len(toks) >= min_tokens and reference.sets_with_form(normal_form(s)) == {name}
                and reference.sets_with_window(toks) == {name}):
            return s
    raise AssertionError(f"no sentence of {name} alone")


def repunctuate(s: str) -> str:
    """The words of ``s`` with its punctuation removed, commas between words, extra spaces
    and a different ending."""
    return ",  ".join(regex.sub(r"\p{P}+", " ", s).split()) + " ?!"


@pytest.fixture(scope="module")
def planted(data_dir, reference) -> dict[str, str]:
    """One long sentence of each of seven evaluation sets, found in that set only."""
    return {name: pick_long(reference, sents, name) for name, sents in sources(data_dir).items()}


@pytest.mark.slow
def test_planted_eval_sentences_are_caught_with_their_set(eval_index, planted):
    clean = "Two dogs play in the snow near a red barn at dusk."
    a, b, want = [], [], []
    for i, (name, s) in enumerate(planted.items()):
        variants = [(s, "exact"), (s.upper(), "exact"), (s.lower(), "exact"),
                    (repunctuate(s), "exact"), (f"{PAD_A} {s} {PAD_B}", "10-gram"),
                    (f"{PAD_A}, {repunctuate(s).upper()} {PAD_B}", "10-gram")]
        for j, (text, how) in enumerate(variants):
            # planted on side a or side b of a bitext-like pair
            pair = (text, clean) if (i + j) % 2 else (clean, text)
            a.append(pair[0])
            b.append(pair[1])
            want.append(f"contaminated: {name} ({how})")
    assert {a.count(clean), b.count(clean)} == {len(want) // 2}  # planted on both sides
    assert eval_index.match_pairs(a, b) == want
    texts = [x if y == clean else y for x, y in zip(a, b, strict=True)]
    assert eval_index.match(texts) == want
    assert eval_index.match([clean]) == [None]


def test_near_misses_are_kept(eval_index, reference, planted, data_dir):
    misses = []
    # one content word changed in short sentences (under 10 tokens: exact match only)
    for name, sents in sources(data_dir).items():
        for s in sents:
            words = s.split()
            content = [k for k, w in enumerate(words) if len(w.strip(".,;:!?\"'")) >= 5
                       and w.strip(".,;:!?\"'").isalpha()]
            if not 5 <= len(tokens(s)) < 10 or not content:
                continue
            changed = " ".join(words[:content[-1]] + ["zeppelin"] + words[content[-1] + 1:])
            if not reference.sets_with_form(normal_form(changed)):
                assert eval_index.match([s])[0].endswith("(exact)")
                misses.append(changed)
                break
        else:
            raise AssertionError(f"no short sentence in {name}")
    assert len(misses) == 7
    # 9 tokens of a long evaluation sentence inside other text: caught only from 10 tokens
    for name in ("bucc2018", "msrpc", "stsb"):
        toks = tokens(planted[name])
        nine = " ".join(toks[1:10])
        assert reference.sets_with_window(tokens(f"{PAD_A} {nine} {PAD_B}")) == set()
        misses.append(f"{PAD_A} {nine} {PAD_B}")
        ten = f"{PAD_A} {' '.join(toks[1:11])} {PAD_B}"
        assert eval_index.match([ten]) == [f"contaminated: {name} (10-gram)"]
    # a 9-token evaluation sentence is not a window of a longer text
    short = next(s for s in sources(data_dir)["multi30k-test"] if len(tokens(s)) == 9
                 and reference.sets_with_form(normal_form(s)) == {"multi30k-test"})
    assert eval_index.match([short]) == ["contaminated: multi30k-test (exact)"]
    misses.append(f"{PAD_A} {short} {PAD_B}")
    # empty and punctuation-only texts never match, nor do missing values
    misses += ["", "   ", "...", "?!", "— «»", None]
    assert eval_index.match(misses) == [None] * len(misses)
    assert eval_index.match_pairs(misses, misses[::-1]) == [None] * len(misses)


@pytest.mark.slow
def test_ordinary_training_sentences_are_kept(eval_index, reference, data_dir):
    with gzip.open(data_dir / M30K / "train.en.gz", "rt", encoding="utf-8") as f:
        train = [next(f).rstrip("\n") for _ in range(200)]
    clean = [s for s in train if not reference.sets_with_form(normal_form(s))
             and not reference.sets_with_window(tokens(s))]
    assert len(clean) > 180 and sum(len(tokens(s)) >= 10 for s in clean) > 100
    assert eval_index.match(clean) == [None] * len(clean)
    # some Multi30k training captions are STS image captions (Flickr) as they are
    dirty = [s for s in train if s not in clean]
    assert dirty and all(r is not None for r in eval_index.match(dirty))


def test_exact_matches_agree_with_the_reference(eval_index, reference, data_dir):
    """Tatoeba Challenge English sentences: many are LASER Tatoeba sentences too."""
    folder = data_dir / "bitext" / "tatoeba-challenge"
    texts = []
    for pair in ("deu-eng", "eng-fra", "eng-spa"):
        with gzip.open(folder / pair / "test.eng.gz", "rt", encoding="utf-8") as f:
            texts += [next(f).rstrip("\n") for _ in range(3000)]
    exact, _ = eval_index.match_ids(texts)
    names = eval_index.set_names
    want = [min((EVAL_SETS.index(n) for n in reference.sets_with_form(normal_form(t))),
                default=-1) for t in texts]
    assert exact.tolist() == want
    assert sum(w >= 0 for w in want) > 100  # the overlap the data README warns about
    assert names == list(EVAL_SETS)


def test_index_arrays(eval_index):
    idx = eval_index
    for h, s in ((idx.exact_hashes, idx.exact_sets), (idx.ngram_hashes, idx.ngram_sets)):
        assert h.dtype == np.uint64 and len(h) == len(s) > 100_000
        assert (h[1:] >= h[:-1]).all()
        assert s.min() >= 0 and s.max() < len(EVAL_SETS)
    assert set(idx.counts) == set(EVAL_SETS) and min(idx.counts.values()) > 0
    assert idx.missing == {} and (idx.ngram, idx.min_tokens) == (10, 10)
    assert idx.nbytes < 64 * 2 ** 20
    # the bitmap in front of the window search has no false negatives and stops most others
    bitmap = _bitmap(idx.ngram_hashes)
    assert _maybe(bitmap, idx.ngram_hashes).all()
    other = np.random.default_rng(0).integers(0, 2 ** 62, 100_000, dtype=np.uint64) * np.uint64(3)
    assert _maybe(bitmap, other).mean() < 0.1


def test_second_cached_call_loads_from_disk(eval_index, eval_cache, data_dir, planted):
    again = EvalIndex.cached(data_dir, cache_dir=eval_cache)
    assert again.loaded_from is not None and again.loaded_from.parent == eval_cache
    assert again.fingerprint == eval_index.fingerprint
    for a in ("exact_hashes", "exact_sets", "ngram_hashes", "ngram_sets"):
        assert np.array_equal(getattr(again, a), getattr(eval_index, a))
    assert (again.set_names, again.counts) == (eval_index.set_names, eval_index.counts)
    texts = [t for s in planted.values() for t in (s, f"{PAD_A} {s}", s[: len(s) // 2])]
    assert again.match(texts) == eval_index.match(texts)
    with np.load(again.loaded_from, allow_pickle=False) as z:
        assert all(z[k].dtype.kind != "O" for k in z.files)


@pytest.fixture
def small_data(data_dir, tmp_path):
    """A data folder with copies of two evaluation files (all other sets missing)."""
    part = tmp_path / "data"
    for rel in ("sts/STS14-en-test/STS.input.images.txt", f"{M30K}/test_2016_flickr.en.gz"):
        (part / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(data_dir / rel, part / rel)
    return part


def test_cache_rebuilds_when_parameters_or_files_change(small_data, tmp_path):
    cache = tmp_path / "cache"
    first = EvalIndex.cached(small_data, cache_dir=cache)
    assert first.loaded_from is None
    assert set(first.missing) == set(EVAL_SETS)  # sts2014 and multi30k-test: in part
    assert first.counts["sts2014"] == 1500 and first.counts["multi30k-test"] == 1000
    assert [p.name for p in cache.iterdir()] == [f"evalindex-{first.fingerprint[:24]}.npz"]
    second = EvalIndex.cached(small_data, cache_dir=cache)
    assert second.loaded_from == cache / f"evalindex-{first.fingerprint[:24]}.npz"
    assert second.missing == first.missing

    images = [s for row in read_sts_input(small_data, 2014, "images") for s in row]
    long = next(s for s in images if len(tokens(s)) >= 12)
    nine = next(s for s in images if len(tokens(s)) == 9)
    texts = [f"{PAD_A} {long} {PAD_B}", f"{PAD_A} {nine} {PAD_B}"]
    assert first.match(texts) == ["contaminated: sts2014 (10-gram)", None]
    eight = EvalIndex.cached(small_data, ngram=8, min_tokens=8, cache_dir=cache)
    assert eight.loaded_from is None and (eight.ngram, eight.min_tokens) == (8, 8)
    assert eight.fingerprint != first.fingerprint and len(list(cache.iterdir())) == 2
    assert eight.match(texts) == ["contaminated: sts2014 (8-gram)"] * 2
    # min_tokens applies to both sides: no window of a shorter evaluation sentence is indexed,
    # and a shorter text is not split into windows
    twelve = EvalIndex.cached(small_data, ngram=8, min_tokens=12, cache_dir=cache)
    assert twelve.loaded_from is None and len(list(cache.iterdir())) == 3
    assert twelve.match(texts) == ["contaminated: sts2014 (8-gram)", None]
    assert twelve.match([" ".join(tokens(long)[:11]), " ".join(tokens(long)[:12])]) == [
        None, "contaminated: sts2014 (8-gram)"]
    assert eight.match([" ".join(tokens(long)[:11])]) == ["contaminated: sts2014 (8-gram)"]

    # a changed evaluation file changes the fingerprint: the new sentence is matched
    new = "Zorblat frobnicates seventeen vermilion kumquats"
    assert first.match([new]) == [None]
    with open(small_data / "sts/STS14-en-test/STS.input.images.txt", "a") as f:
        f.write(f"{new}\tAnother sentence\n")
    changed = EvalIndex.cached(small_data, cache_dir=cache)
    assert changed.loaded_from is None and changed.fingerprint != first.fingerprint
    assert changed.match([new.upper()]) == ["contaminated: sts2014 (exact)"]
    assert not [p for p in cache.iterdir() if not p.name.endswith(".npz")]  # no temp files

    # an unreadable or truncated cache file is rebuilt and replaced
    path = cache / f"evalindex-{changed.fingerprint[:24]}.npz"
    whole = path.read_bytes()
    for broken in (b"not an npz", whole[: len(whole) // 2], whole[:-200]):
        path.write_bytes(broken)
        again = EvalIndex.cached(small_data, cache_dir=cache)
        assert again.loaded_from is None and EvalIndex.load(path).counts == changed.counts


def test_match_pairs_needs_equal_sides(eval_index):
    with pytest.raises(ValueError):
        eval_index.match_pairs(["a"], [])
    assert eval_index.match([]) == [] and eval_index.match_pairs([], []) == []


def test_long_lists_are_matched_in_chunks_with_the_same_result(eval_index, planted, monkeypatch):
    import paralib.decontaminate.index as index_module

    texts = [t for s in planted.values() for t in (s, "A quiet afternoon.", f"{PAD_A} {s}", "")]
    whole = eval_index.match(texts)
    monkeypatch.setattr(index_module, "CHUNK", 3)
    assert eval_index.match(texts) == whole
    assert sum(r is not None for r in whole) == 2 * len(planted)
