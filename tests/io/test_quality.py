"""Readable lines that are no translation: untranslated and wrong-script sides are rejects."""

from __future__ import annotations

from paralib.io.quality import pair_problem, script_share


def test_a_copied_source_is_untranslated_after_normalisation():
    why = pair_problem("Tom   ist müde!", "TOM IST MÜDE", "de")
    assert why is not None and why.startswith("untranslated")
    assert pair_problem("Tom ist müde.", "Tom is tired.", "de") is None


def test_english_paraphrase_pairs_are_never_untranslated():
    assert pair_problem("The cat sat.", "The cat sat.", "en") is None


def test_a_side_in_the_wrong_script_is_named():
    why = pair_problem("This line was never translated at all", "Hello there friend", "ru")
    assert why == "wrong script: source side not mostly Cyrl (language ru)"
    why = pair_problem("Привет, как дела?", "Привет, как дела сегодня?", "ru",
                       untranslated=False)
    assert why is not None and "English side" in why
    assert pair_problem("Привет, как дела?", "Hi, how are you?", "ru") is None


def test_short_sides_and_mixed_scripts_are_not_judged():
    assert pair_problem("OK", "OK then", "ru", untranslated=False) is None
    share, letters = script_share("東京タワーは高い", "ja")  # ー is in no script of its own
    assert share >= 0.85 and letters == 8
    assert pair_problem("Я живу в Berlin.", "I live in Berlin.", "ru") is None


def test_the_check_can_be_turned_off():
    assert pair_problem("never translated", "Hello there friend", "ru",
                        min_script_share=0) is None
