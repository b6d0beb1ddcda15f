"""Player-typed text (names, chat lines): trimmed, and refused when empty, too long, full of control
characters, or invisible; names that pass for a bot's are refused too, and ``name_skeleton`` tells when two
names would read the same at a table."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

import icu  # type: ignore[import-untyped]  # PyICU has no type hints

from .errors import Refusal

_REFUSED_CATEGORIES = ("Cc", "Cf", "Cs", "Zl", "Zp")
_JOINERS = "\u200c\u200d"  # zero-width (non-)joiners are part of Persian spelling, between letters
_TATWEEL = "\u0640"  # a stretch of the Arabic joining line, not a letter: "نيمـا" is "نيما"
# Categories that draw nothing by themselves: marks combine with a letter before them, separators are space.
_INVISIBLE_CATEGORIES = ("Mn", "Me", "Mc", "Cf", "Cc", "Zs", "Zl", "Zp")
# Letters and symbols that render as blank space (Hangul fillers, the blank Braille pattern, ...).
_BLANKS = frozenset("\u115f\u1160\u3164\uffa0\u2800\u17b4\u17b5\u180e\u2060\u034f")
# A name's tail of digits, spaces and punctuation ("Bot 2", "bot-12"): what the bot-name rule looks past.
_NUMBERED = re.compile(r"[\W\d_]+$")
# Unicode's confusables data and its restriction levels (UTS #39), through ICU's spoof checker: a maintained
# table, not one kept by hand. ``_SKELETONS`` only maps (no checks); ``_SCRIPTS`` refuses a name that mixes
# scripts the way spoofs do (Latin with Cyrillic or Greek letters, digits of two numbering systems). Latin
# with one other script (a Persian name beside a Latin one) is allowed: UTS #39's "moderately restrictive".
_SKELETONS = icu.SpoofChecker()
_SCRIPTS = icu.SpoofChecker()
_SCRIPTS.setChecks(icu.USpoofChecks.RESTRICTION_LEVEL | icu.USpoofChecks.MIXED_NUMBERS)
_SCRIPTS.setRestrictionLevel(icu.URestrictionLevel.MODERATELY_RESTRICTIVE)
# The width of every column made from a name (``app.store.models``: the name, its key and its skeleton).
# Folding can make a name longer ("ﬃ" is "ffi", "ß" is "ss", "ﷺ" is 18 letters), so a name is accepted only
# when its folded forms fit too: a name that is accepted can always be stored.
STORED_NAME_LENGTH = 64


def clean_text(text: str, *, max_length: int, what: str, code: str = "bad_message") -> str:
    """Strip; refuse empty, too long, control/format characters, stray joiners or nothing visible."""
    text = text.strip()
    if not text:
        raise Refusal(code, f"the {what} is empty")
    if len(text) > max_length:
        raise Refusal(code, f"the {what} is longer than {max_length} characters")
    if any(unicodedata.category(ch) in _REFUSED_CATEGORIES and ch not in _JOINERS for ch in text):
        raise Refusal(code, f"the {what} contains control characters")
    if not _joiners_between_letters(text):
        raise Refusal(code, f"the {what} has a zero-width joiner that is not between two letters")
    if not any(_visible(ch) for ch in text):
        raise Refusal(code, f"the {what} has nothing visible in it")
    return text


def clean_name(name: str, *, max_length: int, code: str = "bad_request") -> str:
    """``clean_text`` for a player's name, which must not pass for a bot's ("Bot 2", "ｂｏｔ７", "ᗷot 2", the
    Persian client's "رایانه ۲", …) nor mix scripts the way spoofed names do ("Sаra" with a Cyrillic "а").
    Those two have codes of their own
    (``name_for_bots``, ``name_mixes_scripts``), so a client can say why in its own language; any other fault
    is refused with ``code``."""
    name = clean_text(name, max_length=max_length, what="name", code=code)
    if _SCRIPTS.check(name):
        raise Refusal(
            "name_mixes_scripts", "that name mixes scripts whose letters or digits look alike; pick another"
        )
    skeleton = name_skeleton(name)
    if name_skeleton(_NUMBERED.sub("", name)) in _BOTS:
        raise Refusal("name_for_bots", "that name is kept for bots; pick another")
    if max(len(name), len(skeleton), len(name_key(name))) > STORED_NAME_LENGTH:
        raise Refusal(code, "that name is too long once its letters are spelled out; pick another")
    return name


def name_key(name: str) -> str:
    """How names are matched in the history: trimmed, any letter case."""
    return name.strip().casefold()


def _visible(ch: str) -> bool:
    return unicodedata.category(ch) not in _INVISIBLE_CATEGORIES and ch not in _BLANKS


def _joiners_between_letters(text: str) -> bool:
    """Each ZWNJ/ZWJ stands alone between two visible characters (as in Persian "می‌روم")."""
    for i, ch in enumerate(text):
        if ch in _JOINERS and not (0 < i < len(text) - 1 and _visible(text[i - 1]) and _visible(text[i + 1])):
            return False
    return True


@lru_cache(maxsize=4096)
def name_skeleton(name: str) -> str:
    """What a name reads as: two names with one skeleton pass for each other at a table, and share a record.
    Width and compatibility forms (NFKC), accents and other marks, invisible characters (joiners, blanks,
    spaces) and digits of every script (۲, ٢ and 2) are folded first; then Unicode's confusable skeleton
    (UTS #39, ICU's data: "0mid" and "Omid", "ꓢara" and "Sara", ي and ی, ك and ک) and letter case, in turn
    until nothing changes; last "i" reads as "l" (the skeleton maps "I" to "l", and case folds "I" to "i")."""
    kept = []
    for ch in unicodedata.normalize("NFD", unicodedata.normalize("NFKC", name)):
        if not _visible(ch) or ch == _TATWEEL:
            continue
        digit = unicodedata.decimal(ch, None)
        kept.append(str(digit) if digit is not None else ch)
    skeleton = "".join(kept)
    for _ in range(4):  # two rounds settle every name seen; a bound all the same
        folded = unicodedata.normalize("NFKC", _SKELETONS.getSkeleton(0, skeleton)).casefold()
        if folded == skeleton:
            break
        skeleton = folded
    return skeleton.replace("i", "l")


# How bots are named ("Bot 2"; the Persian client says "رایانه ۲"), as skeletons, their numbers left out.
_BOTS = frozenset(name_skeleton(word) for word in ("bot", "رایانه"))
