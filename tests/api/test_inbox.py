"""``Inbox``: the messages uvicorn's protocol hands the app, in order, waking the one waiting for them, in
a fraction of an ``asyncio.Queue``'s memory (it is kept for a socket's whole life)."""

from __future__ import annotations

import asyncio
import tracemalloc

from app.api.ws_deflate import Inbox


async def test_messages_come_in_order_and_wake_the_waiting_receiver() -> None:
    inbox = Inbox()
    assert inbox.empty()
    waiting = asyncio.ensure_future(inbox.get())
    await asyncio.sleep(0)
    assert not waiting.done()
    inbox.put_nowait({"type": "websocket.connect"})
    inbox.put_nowait({"type": "websocket.receive", "text": "1"})
    assert await asyncio.wait_for(waiting, 1) == {"type": "websocket.connect"}
    assert not inbox.empty()
    assert await inbox.get() == {"type": "websocket.receive", "text": "1"}
    assert inbox.empty()


async def test_a_cancelled_receive_loses_no_message() -> None:
    inbox = Inbox()
    cancelled = asyncio.ensure_future(inbox.get())
    await asyncio.sleep(0)
    inbox.put_nowait({"type": "websocket.receive", "text": "kept"})
    cancelled.cancel()  # woken, but cancelled before it ran: the message stays for the next receive
    await asyncio.sleep(0)
    assert await asyncio.wait_for(inbox.get(), 1) == {"type": "websocket.receive", "text": "kept"}


def test_an_inbox_holds_a_fraction_of_a_queue() -> None:
    def per_item(make: type) -> float:
        tracemalloc.start()
        try:
            kept = [make() for _ in range(200)]
            size, _peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert len(kept) == 200
        return size / 200

    inbox, queue = per_item(Inbox), per_item(asyncio.Queue)
    assert inbox < 300 < 2000 < queue, (inbox, queue)
