"""One language-code scheme inside paralib: BCP-47, in its shortest standard form.

Corpora name languages their own way: WMT and TICO-19 use ISO 639-1 (``de``, ``pt-BR``),
the Tatoeba Challenge and NTREX-128 use ISO 639-3 (``deu``, ``srp-Cyrl``, ``zho-TW``).
:func:`canonical` maps every one of them to the shortest BCP-47 tag (``langcodes``'
``standardize_tag`` with macro-languages folded: ``deu`` → ``de``, ``arb`` → ``ar``,
``cmn`` → ``zh``, ``zho-TW`` → ``zh-TW``), so that ``de`` and ``deu`` name the same language
in configs, outputs and reports. ISO 639-1 was chosen over
ISO 639-3 because every existing config, model and output of paralib already says ``de``,
``fr``, ``cs`` and ``en``.

:func:`scripts` gives the writing systems a language's text is expected in (from the
likely-subtags data of CLDR, through ``langcodes``), used to reject sides in the wrong script.
"""

from __future__ import annotations

from functools import lru_cache

import langcodes

from paralib.errors import ConfigurationError

# Corpus codes that are not what BCP-47 reads them as.
ALIASES = {
    "es-la": "es-419",  # TICO-19's "Latin American Spanish" (LA is Laos in BCP-47)
}
# Codes kept as they are: langcodes reads Serbo-Croatian as Latin-script Serbian, but the
# Tatoeba Challenge's hbs holds Bosnian, Croatian and Serbian in both scripts.
KEEP = {"hbs"}

# Scripts beyond CLDR's likely one that a language is commonly written in on Tatoeba and in
# news (a text in any of them is not "in the wrong script").
EXTRA_SCRIPTS = {
    "az": {"Cyrl", "Arab"}, "ber": {"Latn", "Tfng", "Arab"}, "kab": {"Latn", "Tfng"},
    "kk": {"Latn", "Arab"}, "ku": {"Arab", "Latn"}, "ckb": {"Arab", "Latn"},
    "kmr": {"Latn", "Arab"}, "mn": {"Mong"}, "sh": {"Latn", "Cyrl"},
    "hbs": {"Latn", "Cyrl"}, "sr": {"Latn"}, "bs": {"Cyrl"}, "tk": {"Cyrl"},
    "tt": {"Latn"}, "ug": {"Latn", "Cyrl"}, "uz": {"Cyrl"}, "tg": {"Latn", "Arab"},
    "yi": {"Latn"}, "pa": {"Arab"}, "sd": {"Deva"}, "ota": {"Arab", "Latn"},
    "zza": {"Latn"}, "got": {"Goth", "Latn"}, "grc": {"Grek"}, "orv": {"Cyrl", "Latn"},
    "ms": {"Arab"}, "chv": {"Cyrl"}, "cv": {"Cyrl"}, "xal": {"Cyrl"}, "jv": {"Java"},
    "tlh": {"Latn", "Piqd"}, "ja": {"Latn"}, "ko": {"Latn"}, "dv": {"Thaa"},
    "sat": {"Olck", "Deva"}, "ks": {"Arab", "Deva"}, "sa": {"Deva"}, "pi": {"Deva"},
    # seen in the corpora (paralib corpora scan): NTREX-128 writes Hassaniya and Tachelhit
    # in Arabic script, Tatoeba writes Ho, Ladino and Naga Tangshang in Latin script and
    # Lingua Franca Nova in both Latin and Cyrillic
    "mey": {"Arab"}, "shi": {"Arab", "Latn"}, "hoc": {"Latn"}, "lad": {"Latn"},
    "nst": {"Latn"}, "lfn": {"Cyrl"},
}

# CLDR script codes that stand for a mix of Unicode scripts.
COMPOSITE = {"Jpan": {"Hira", "Kana", "Hani"}, "Kore": {"Hang", "Hani"},
             "Hans": {"Hani"}, "Hant": {"Hani"}, "Hanb": {"Hani", "Bopo"}}


# Arabic vowel marks (harakat: fathatan .. sukun, and the extended marks up to U+065F), the
# superscript alef U+0670 and the tatweel U+0640: written in the Van Dyck Bible, absent from
# the STS 2017 and Tatoeba Arabic sentences.
ARABIC_MARKS = dict.fromkeys([*range(0x064B, 0x0660), 0x0670, 0x0640])


def strip_arabic_marks(text: str) -> str:
    """``text`` without Arabic vowel marks (U+064B-U+065F, U+0670) and tatweel (U+0640)."""
    return text.translate(ARABIC_MARKS)


class LanguageError(ConfigurationError, ValueError):
    """A language code that is not a valid BCP-47 or ISO 639 code."""


@lru_cache(maxsize=4096)
def canonical(code: str) -> str:
    """The shortest BCP-47 tag of ``code`` (``deu`` → ``de``, ``zho-TW`` → ``zh-TW``).

    Raises :class:`LanguageError` naming the code when it is not a language tag.
    """
    raw = code.strip().replace("_", "-")
    raw = ALIASES.get(raw.lower(), raw)
    if raw.lower() in KEEP:
        return raw.lower()
    try:
        return langcodes.standardize_tag(raw, macro=True)
    except (langcodes.tag_parser.LanguageTagError, ValueError) as exc:
        raise LanguageError(f"'{code}' is not a language code (ISO 639 or BCP-47): "
                            f"{exc}") from None


def base(code: str) -> str:
    """The language subtag of a canonical tag (``zh-TW`` → ``zh``, ``sr-Latn`` → ``sr``)."""
    return canonical(code).split("-", 1)[0]


def matches(requested: str, available: str) -> bool:
    """Whether a requested language selects a corpus language.

    Equal canonical tags match; a request without a script or region (``zh``, ``sr``) also
    selects every variant of that language (``zh-TW``, ``sr-Cyrl``).
    """
    req, avail = canonical(requested), canonical(available)
    return req == avail or ("-" not in req and base(avail) == req)


@lru_cache(maxsize=4096)
def scripts(code: str) -> frozenset[str]:
    """ISO 15924 codes of the Unicode scripts a language's text is expected in.

    The tag's own script when it names one (``sr-Latn``), else CLDR's likely script of the
    language plus :data:`EXTRA_SCRIPTS`; composite codes are expanded (``Jpan`` → Hiragana,
    Katakana and Han). An empty set means unknown: no script check for that language.
    """
    tag = canonical(code)
    lang = langcodes.Language.get(tag)
    found: set[str] = set(EXTRA_SCRIPTS.get(tag, set()))
    if lang.script and tag not in EXTRA_SCRIPTS:
        found.add(lang.script)
    else:
        try:
            likely = lang.maximize().script
        except (LookupError, ValueError):
            likely = None
        if likely:
            found.add(likely)
        found |= EXTRA_SCRIPTS.get(lang.language or "", set())
    return frozenset(u for s in found for u in COMPOSITE.get(s, {s}))
