"""A closed room let go: its driver, follower and presence throttle point back at it, a reference cycle that
the server's collector, freezing whatever lives a while (``app.runtime``), would free only at its hourly deep
clean (in the 30-minute soak every evicted room stayed, with its game, acks and chat). Once the room is
closed they hold it weakly, so it goes as soon as nothing else holds it (a socket or a request in flight
still may, and then everything works as before)."""

from __future__ import annotations

import weakref
from typing import Any


def let_parts_go(room: Any) -> None:
    """Make the closed ``room``'s own parts hold it weakly."""
    held = weakref.proxy(room)
    room.driver.room = room.follower.room = held

    async def publish_presence() -> None:
        await held.publish_presence()

    room.presence_news.action = publish_presence
