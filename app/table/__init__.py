"""The table core: one live table as a pure value and the pure commands that change it.

Standard library and ``app.engine`` only (a test holds it to that): no asyncio, no I/O, no pydantic.
"""

from .avatars import AVATARS, BOT_AVATAR, Avatar, BotAvatar
from .changes import (
    AddSeat,
    Change,
    EndGame,
    FinalTotal,
    RecordMove,
    RemoveSeat,
    Reopen,
    ReplaceSeat,
    RoundScore,
    SetHost,
    SetLobby,
    StartGame,
    Write,
)
from .commands import WrongStatus
from .errors import REGISTRY, ErrorCode, Refusal
from .table import AUTO_LEVEL, NO_PAUSE, TRANSITIONS, Claim, Pause, RoomStatus, Seat, Table
from .text import clean_text

__all__ = [
    "AUTO_LEVEL",
    "AVATARS",
    "BOT_AVATAR",
    "Avatar",
    "BotAvatar",
    "REGISTRY",
    "TRANSITIONS",
    "NO_PAUSE",
    "AddSeat",
    "Change",
    "Claim",
    "EndGame",
    "ErrorCode",
    "FinalTotal",
    "Pause",
    "RecordMove",
    "Refusal",
    "RemoveSeat",
    "ReplaceSeat",
    "RoomStatus",
    "RoundScore",
    "Seat",
    "Reopen",
    "SetHost",
    "SetLobby",
    "StartGame",
    "Table",
    "WrongStatus",
    "Write",
    "clean_text",
]
