"""The small faces a seat may show: a fixed few ids a person picks from for their own seat (the client draws
each one), and the one every bot's seat shows. Anything else is refused."""

from __future__ import annotations

from typing import Literal, get_args

Avatar = Literal[
    "fox",
    "cat",
    "owl",
    "bear",
    "panda",
    "frog",
    "lion",
    "tiger",
    "koala",
    "penguin",
    "octopus",
    "unicorn",
    "rabbit",
    "monkey",
    "whale",
    "bee",
]
AVATARS: tuple[str, ...] = get_args(Avatar)
BotAvatar = Literal["robot"]
BOT_AVATAR: BotAvatar = "robot"  # every bot's seat shows it; people pick from ``AVATARS``
