"""Rejects for bitext lines that read fine but cannot be translations:
an "English" side that is the source copied (untranslated), and a side
written mostly in a script its language is not written in (a Latin-script line in the Russian
file, a Chinese line on the English side).

Scripts come from :func:`paralib.corpora.langs.scripts`; a language whose scripts are unknown
is not checked. Letters only are counted (digits, punctuation and symbols are in every
script), and a side with fewer than ``min_letters`` letters is not judged.
"""

from __future__ import annotations

from functools import lru_cache

import regex

from paralib.corpora.langs import scripts
from paralib.decontaminate.normalise import normal_form

_LETTER = regex.compile(r"\p{L}")
_LATIN = regex.compile(r"(?=\p{L})\p{sc=Latn}")
_LATIN_WORD = regex.compile(r"(?:(?=\p{L})\p{sc=Latn})+")


@lru_cache(maxsize=1024)
def _script_pattern(lang: str) -> regex.Pattern | None:
    names = []
    for s in sorted(scripts(lang)):
        try:
            regex.compile(rf"\p{{sc={s}}}")
        except regex.error:
            continue  # a script Unicode does not encode (e.g. Klingon pIqaD)
        names.append(rf"\p{{sc={s}}}")
    if not names:
        return None
    return regex.compile(r"(?=\p{L})[" + "".join(names) + "]")


def script_share(text: str, lang: str) -> tuple[float, int]:
    """The share of the letters of ``text`` in the scripts of ``lang``, and the letter count.

    The share is 1.0 when the language's scripts are unknown or the text has no letters.
    ASCII text (most lines of most corpora) is counted without a regular expression: its
    letters are Latin.
    """
    if text.isascii():
        letters = sum(map(str.isalpha, text))
        latin = "Latn" in scripts(lang) or not scripts(lang)
        return (1.0 if latin or letters == 0 else 0.0), letters
    pat = _script_pattern(lang)
    letters = _LETTER.subn("", text)[1]
    if pat is None or letters == 0:
        return 1.0, letters
    expected = pat.subn("", text)[1]
    if "Latn" not in scripts(lang):
        # a Latin name in Chinese or Russian text weighs as one word, not as its letters
        latin = _LATIN.subn("", text)[1]
        words = _LATIN_WORD.subn("", text)[1]
        return expected / max(1, letters - latin + words), letters
    return expected / letters, letters


def pair_problem(src: str, en: str, src_lang: str, *, untranslated: bool = True,
                 min_script_share: float = 0.5, min_letters: int = 4,
                 en_form: str | None = None) -> str | None:
    """The reason a readable pair is no translation, or ``None`` for a good pair.

    ``src`` is in ``src_lang``, ``en`` in English (``en_form``: its normal form, when the
    caller has it). For English-English inputs (paraphrases, round-trip sources) the
    untranslated check does not apply.
    """
    english = src_lang == "en" or src_lang.startswith("en-")
    if untranslated and not english:
        norm = normal_form(src)
        if norm and norm == (en_form if en_form is not None else normal_form(en)):
            return "untranslated: the English side equals the source"
    if min_script_share > 0:
        for text, lang, side in ((src, src_lang, "source"), (en, "en", "English")):
            share, letters = script_share(text, lang)
            if letters >= min_letters and share < min_script_share:
                want = "+".join(sorted(scripts(lang)))
                return f"wrong script: {side} side not mostly {want} (language {lang})"
    return None
