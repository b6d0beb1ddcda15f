"""Player-typed text: invisible-only names and chat lines are refused, Persian joiners inside words are
kept, and names that pass for a bot's ("Bot 2" in any case, width, digit or look-alike) are refused."""

from __future__ import annotations

import pytest

from app.table import Refusal
from app.table.text import clean_name, clean_text, name_skeleton

INVISIBLE = [
    "\u3164",  # HANGUL FILLER (a letter that draws nothing)
    "\u3164\u3164\u3164",
    "\uffa0",  # HALFWIDTH HANGUL FILLER
    "\u115f\u1160",  # Hangul choseong and jungseong fillers
    "\u2800\u2800",  # blank Braille pattern
    "\u200c",  # a lone zero-width non-joiner
    "\u200c\u200d\u200c\u200d",  # a run of zero-width joiners
    "\u0301\u0301\u0301",  # only combining marks
    "\u20dd",  # only an enclosing mark
    "\u3000\u3164",  # ideographic space and a filler
]
STRAY_JOINERS = ["\u200cAli", "Ali\u200c", "a\u200c\u200cb", "a \u200cb"]
VALID = ["Ali", "سارا", "می\u200cروم", "نیما\u200cجان", "José", "e\u0301", "😀", "Robot 2", "Abbot", "Botany"]
BOTLIKE = [
    "Bot 2",
    "bot 7",
    "BOT",
    "Bot2",
    "Bot #3",
    "bot-4",
    "\uff22\uff4f\uff54\u3000\uff12",  # fullwidth "Ｂｏｔ　２"
    "bot \u06f2",  # Persian digit two
    "Bo\u0301t 2",  # an accent
    "b\u200cot 2",  # a joiner inside
    "\u0412\u041e\u0422 2",  # Cyrillic "ВОТ"
    "\u0392\u03bf\u03a4 5",  # Greek "ΒοΤ" (Unicode's confusables take capital Τ for "T"; small τ is not a t)
    "B0t 3",
    "\u0631\u0627\u06cc\u0627\u0646\u0647 \u06f2",  # "رایانه ۲": what the Persian client calls a bot
    "\u0631\u0627\u064a\u0627\u0646\u0647 3",  # the same with an Arabic yeh and a Latin digit
]


@pytest.mark.parametrize("text", INVISIBLE + STRAY_JOINERS)
@pytest.mark.parametrize("what", ["name", "chat line"])
def test_invisible_text_and_stray_joiners_are_refused(text: str, what: str) -> None:
    with pytest.raises(Refusal) as refused:
        clean_text(text, max_length=200, what=what)
    assert refused.value.code == "bad_message" and what in refused.value.message


@pytest.mark.parametrize("text", VALID)
def test_real_names_and_persian_joiners_inside_words_are_kept(text: str) -> None:
    assert clean_name(f"  {text} ", max_length=32) == text
    assert clean_text(text, max_length=200, what="chat line") == text


@pytest.mark.parametrize("name", BOTLIKE)
def test_names_that_pass_for_a_bot_are_refused(name: str) -> None:
    with pytest.raises(Refusal) as refused:
        clean_name(name, max_length=32)
    assert refused.value.code == "name_for_bots" and "bot" in refused.value.message


def test_a_chat_line_may_mention_a_bot() -> None:
    assert clean_text("Bot 2", max_length=200, what="chat line") == "Bot 2"


@pytest.mark.parametrize(
    ("name", "lookalike"),
    [
        ("Sara", "SARA"),  # case
        ("Sara", "\u0405\u0430r\u0430"),  # Cyrillic Ѕ and а
        ("HANA", "\u0397\u0391\u039d\u0391"),  # Greek capitals Η Α Ν Α
        ("Omid", "\u039f\U0001d5c6id"),  # Greek Ο and a mathematical sans-serif m
        ("Ilya", "llya"),  # capital I and small l (TR39: I → l)
        ("Sara", "S\u00e1ra"),  # an accent
        ("Sara", "\uff33\uff41\uff52\uff41"),  # fullwidth
        ("Mani", "rnani"),  # "rn" for "m"
        ("علی", "علي"),  # Arabic yeh for Persian yeh
        ("کاوه", "كاوه"),  # Arabic kaf for Persian keheh
        ("نیما", "نيمـا"),  # and a tatweel
        ("نیما ۲", "نیما 2"),  # Persian, Arabic-Indic and ASCII digits
        ("نیما ۲", "نیما ٢"),
        ("می\u200cروم", "میروم"),  # a zero-width non-joiner
    ],
)
def test_look_alike_names_have_one_skeleton(name: str, lookalike: str) -> None:
    assert name_skeleton(name) == name_skeleton(lookalike)


@pytest.mark.parametrize(
    ("name", "other"), [("Sara", "Sam"), ("Ali", "Ala"), ("نیما ۲", "نیما ۳"), ("Bob", "Rob")]
)
def test_different_names_have_different_skeletons(name: str, other: str) -> None:
    assert name_skeleton(name) != name_skeleton(other)


# Issue 39, item 4: look-alikes the hand-kept fold missed; the skeleton is now Unicode's (UTS #39, ICU).
@pytest.mark.parametrize(
    ("name", "lookalike"),
    [
        ("Omid", "0mid"),  # zero and capital O
        ("Sara", "S\u0251r\u0251"),  # U+0251 Latin alpha
        ("Sara", "\ua4e2ara"),  # Lisu Ꮪ
        ("Sara", "\u13daara"),  # Cherokee Ꮪ
        ("Omid", "\u0555mid"),  # Armenian Օ
        ("Nima", "N\u0131m\u0251"),  # dotless ı, alpha
        ("Ivan", "1van"),  # one, capital I and small l
        ("Ivan", "lvan"),
        ("Bot 2", "\u15f7ot 2"),  # Canadian syllabics ᗷ
        ("Bot 2", "\u13f4ot 2"),  # Cherokee Ᏼ
    ],
)
def test_unicodes_confusables_collide(name: str, lookalike: str) -> None:
    assert name_skeleton(name) == name_skeleton(lookalike)


@pytest.mark.parametrize("name", ["\u15f7ot 2", "\ua7b4ot 2", "\u0184ot 3", "B0t 12"])
def test_the_bot_name_rule_folds_as_names_do(name: str) -> None:
    with pytest.raises(Refusal) as refused:
        clean_name(name, max_length=32)
    assert refused.value.code == "name_for_bots"


@pytest.mark.parametrize("name", ["S\u0430ra", "\u0392ob", "Sara \u06f12"])
def test_names_mixing_scripts_as_spoofs_do_are_refused(name: str) -> None:
    """A Cyrillic "а" inside a Latin name, a Greek "Β", digits of two numbering systems."""
    with pytest.raises(Refusal) as refused:
        clean_name(name, max_length=32)
    assert refused.value.code == "name_mixes_scripts" and "scripts" in refused.value.message


PERSIAN_AND_ARABIC = [
    "محمد",
    "فاطمه",
    "زهرا",
    "علی",
    "رضا",
    "حسین",
    "مریم",
    "نگار",
    "کیان",
    "یاسمین",
    "امیرحسین",
    "پریسا",
    "سارا",
    "نیما",
    "آرش",
    "ژیلا",
    "گلناز",
    "چکاوک",
    "محمّد",
    "يوسف",
    "عائشة",
    "خالد",
    "ليلى",
    "Sara سارا",
]


def test_common_persian_and_arabic_names_are_kept_and_told_apart() -> None:
    for name in PERSIAN_AND_ARABIC:
        assert clean_name(name, max_length=32) == name
    skeletons = {name_skeleton(name): name for name in PERSIAN_AND_ARABIC}
    folded_together = [("محمد", "محمّد")]  # a shadda is a mark: the same name
    assert len(skeletons) == len(PERSIAN_AND_ARABIC) - len(folded_together)
