"""Player-typed text (names, chat lines): trimmed, and refused when empty, too long, full of control
characters, or invisible; names that pass for a bot's are refused too."""

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
# Greek and Cyrillic letters (case-folded) drawn like the Latin letters of "bot".
_LOOKALIKES = str.maketrans({"β": "b", "в": "b", "ь": "b", "ο": "o", "о": "o", "τ": "t", "т": "t"})


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
    if _BOT_NAME.fullmatch(_skeleton(name)):
        raise Refusal(code, "that name is kept for bots; pick another")
    return name


def _visible(ch: str) -> bool:
    return unicodedata.category(ch) not in _INVISIBLE_CATEGORIES and ch not in _BLANKS


def _joiners_between_letters(text: str) -> bool:
    """Each ZWNJ/ZWJ stands alone between two visible characters (as in Persian "می‌روم")."""
    for i, ch in enumerate(text):
        if ch in _JOINERS and not (0 < i < len(text) - 1 and _visible(text[i - 1]) and _visible(text[i + 1])):
            return False
    return True


def _skeleton(text: str) -> str:
    """Width, case, accent, digit and look-alike variants folded to ASCII; marks and blanks dropped."""
    folded = unicodedata.normalize("NFKD", text).casefold().translate(_LOOKALIKES)
    kept = []
    for ch in folded:
        if not _visible(ch):
            continue
        digit = unicodedata.decimal(ch, None)
        kept.append(str(digit) if digit is not None else ch)
    return "".join(kept)
