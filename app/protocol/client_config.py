"""What a client offers its player, each value from its one Python source: the seat bounds, the bot levels,
the quick reactions, the seat avatars, the default house rules and the choices of the options that have a
fixed few."""

from __future__ import annotations

import json
from functools import cache

from pydantic import BaseModel, ConfigDict

from app.engine import BOT_LEVELS, BotLevel, Options
from app.engine.options import (
    DEFAULT_BOT_LEVEL,
    FACE_VALUES,
    MAX_DECKS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    PACES,
    TURN_TIMERS,
)
from app.table import AVATARS, BOT_AVATAR, Avatar, BotAvatar

from .messages import REACTIONS, Reaction

CLIENT_CONFIG_URL = "/api/client-config"
# The element of the client's page that carries the same document (static/js/config.js reads it).
PAGE_ELEMENT_ID = "client-config"


class SeatBounds(BaseModel):
    """A table has ``min`` to ``max`` seats (seat numbers 0 to ``max`` - 1)."""

    model_config = ConfigDict(frozen=True)

    min: int
    max: int


class OptionChoices(BaseModel):
    """The values an option with a fixed few may take (``decks`` may also be null: by player count)."""

    model_config = ConfigDict(frozen=True)

    decks: list[int]
    face_values: list[str]
    turn_timer: list[int]
    pace: list[str | int]  # "live", or the hours a turn may take


class ClientConfig(BaseModel):
    """The server's fixed values a client builds its forms from, rather than keeping copies."""

    model_config = ConfigDict(frozen=True)

    seats: SeatBounds
    bot_levels: list[BotLevel]
    default_bot_level: BotLevel
    reactions: list[Reaction]
    avatars: list[Avatar]  # the faces a person may pick for their seat (the client draws each id)
    bot_avatar: BotAvatar  # the face every bot's seat shows
    options: Options  # the default house rules (a new table's, and any option a client leaves out)
    option_choices: OptionChoices


@cache
def client_config() -> ClientConfig:
    return ClientConfig(
        seats=SeatBounds(min=MIN_PLAYERS, max=MAX_PLAYERS),
        bot_levels=list(BOT_LEVELS),
        default_bot_level=DEFAULT_BOT_LEVEL,
        reactions=list(REACTIONS),
        avatars=list(AVATARS),
        bot_avatar=BOT_AVATAR,
        options=Options(),
        option_choices=OptionChoices(
            decks=list(range(1, MAX_DECKS + 1)),
            face_values=list(FACE_VALUES),
            turn_timer=list(TURN_TIMERS),
            pace=list(PACES),
        ),
    )


@cache
def client_config_script() -> str:
    """The document as a data block of the client's page (not run: the CSP needs no hash for it)."""
    text = json.dumps(client_config().model_dump(mode="json"), ensure_ascii=False, separators=(",", ":"))
    # "<" cannot end the element early ("</script>") once escaped; JSON reads \u003c as "<".
    text = text.replace("<", "\\u003c")
    return f'<script type="application/json" id="{PAGE_ELEMENT_ID}">{text}</script>'
