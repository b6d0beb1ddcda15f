"""Player-typed text (names, chat lines): trimmed, and refused when empty, too long, full of control
characters, or invisible; names that pass for a bot's are refused too, and ``name_skeleton`` tells when two
names would read the same at a table."""

from __future__ import annotations

import re
import unicodedata

from .errors import Refusal

_REFUSED_CATEGORIES = ("Cc", "Cf", "Cs", "Zl", "Zp")
_JOINERS = "\u200c\u200d"  # zero-width (non-)joiners are part of Persian spelling, between letters
# Categories that draw nothing by themselves: marks combine with a letter before them, separators are space.
_INVISIBLE_CATEGORIES = ("Mn", "Me", "Mc", "Cf", "Cc", "Zs", "Zl", "Zp")
# Letters and symbols that render as blank space (Hangul fillers, the blank Braille pattern, ...).
_BLANKS = frozenset("\u115f\u1160\u3164\uffa0\u2800\u17b4\u17b5\u180e\u2060\u034f")
# How the server names bots ("Bot 2"), as a skeleton: case, width, accents and digits folded.
_BOT_NAME = re.compile(r"b[o0]t[\W_]*\d*", re.ASCII)
# Look-alikes in the spirit of Unicode TR39's confusable skeleton, kept by hand for the scripts this client
# speaks (Latin and Persian) and the scripts whose letters pass for Latin ones (Cyrillic, Greek). No PyPI
# package gives a TR39 skeleton: confusable-homoglyphs only lists look-alike sets (and none for ی/ي or ک/ك).
# Capitals first, before case folding loses them (Greek "Η" folds to "η", which passes for "n", not "h").
_CAPITAL_LOOKALIKES = str.maketrans("ΑАΒВСΕЕΗНΙІӀЈΚКΜМΝΟОΡРЅΤТΥУҮΧХΖ", "aabbceehhllljkkmmnooppsttyyyxxz")
# Then small letters (after case folding). "i", "|" and their look-alikes read as "l" (TR39 maps "I" to "l",
# and after case folding "I" is "i"); Arabic letters become their Persian forms (ي ى → ی, ك → ک, ە ھ → ه),
# and the tatweel (a stretch of the joining line) goes.
_SMALL_LOOKALIKES = str.maketrans(
    "аαвьβсϲԁеһiıіιӏ|ǀјкκмηпоοσрρԛѕтτυνԝхχуγүيىكەھ", "aabbbccdehllllllljkkmnnoooppqsttuvwxxyyyییکهه", "\u0640"
)
_LOOKALIKE_PAIRS = (("rn", "m"), ("vv", "w"))  # two Latin letters that pass for one
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
    """``clean_text`` for a player's name, which must not pass for a bot's ("Bot 2", "ｂｏｔ７", …)."""
    name = clean_text(name, max_length=max_length, what="name", code=code)
    skeleton = name_skeleton(name)
    if _BOT_NAME.fullmatch(skeleton):
        raise Refusal(code, "that name is kept for bots; pick another")
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


def name_skeleton(name: str) -> str:
    """What a name reads as: two names with one skeleton pass for each other at a table. Width and
    compatibility forms (NFKC), case, accents and other marks, invisible characters (joiners, blanks,
    spaces), digits of every script (۲, ٢ and 2), and Cyrillic, Greek and Arabic look-alikes of Latin and
    Persian letters are all folded away."""
    folded = unicodedata.normalize("NFKC", name).translate(_CAPITAL_LOOKALIKES).casefold()
    kept = []
    for ch in unicodedata.normalize("NFD", folded):
        if not _visible(ch):
            continue
        digit = unicodedata.decimal(ch, None)
        kept.append(str(digit) if digit is not None else ch)
    skeleton = "".join(kept).translate(_SMALL_LOOKALIKES)
    for pair, letter in _LOOKALIKE_PAIRS:
        skeleton = skeleton.replace(pair, letter)
    return skeleton
