"""The live part: one Room per table (lock, seats, sockets, bots, broadcast) and the RoomManager."""

from .broadcast import Broadcaster, InProcessBroadcaster, Notice
from .clock import Clock, SystemClock
from .connection import Connection, ConnectionState
from .kept_names import kept_from
from .manager import RoomManager
from .room import Room
from .tokens import CODE_ALPHABET, hash_token, new_room_code, normalize_code

__all__ = [
    "CODE_ALPHABET",
    "Broadcaster",
    "Clock",
    "Connection",
    "ConnectionState",
    "InProcessBroadcaster",
    "Notice",
    "Room",
    "RoomManager",
    "SystemClock",
    "hash_token",
    "kept_from",
    "new_room_code",
    "normalize_code",
]
