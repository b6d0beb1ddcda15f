"""A socket's outbox (``app.rooms.connection.Outbox``): its writer waits for texts and gets them in order,
then None once the socket is to be closed; the room never waits on it."""

from __future__ import annotations

import asyncio

from app.rooms.connection import Connection, Outbox


async def test_the_writer_waits_and_gets_every_text_in_order_then_the_close() -> None:
    box = Outbox()
    got: list[str | None] = []

    async def writer() -> None:
        while True:
            item = await box.get()
            got.append(item)
            if item is None:
                return

    task = asyncio.create_task(writer())
    await asyncio.sleep(0)  # the writer is waiting on an empty box
    assert got == [] and not task.done()
    box.put("a")
    box.put("b")  # two before the writer runs again: both, in order
    await asyncio.sleep(0)
    box.put("c")
    box.put(None)
    await asyncio.wait_for(task, timeout=1)
    assert got == ["a", "b", "c", None]
    assert len(box) == 0


async def test_a_closed_connection_delivers_what_was_queued_then_none() -> None:
    conn = Connection(max_queue=10)
    conn.send_text("one")
    conn.send_text("two")
    conn.close()
    conn.send_text("after the close")  # dropped
    assert [await conn.next_outgoing() for _ in range(3)] == ["one", "two", None]


async def test_a_writer_that_is_cancelled_leaves_the_box_usable() -> None:
    box = Outbox()
    waiting = asyncio.create_task(box.get())
    await asyncio.sleep(0)
    waiting.cancel()
    await asyncio.sleep(0)
    assert waiting.cancelled()
    box.put("later")
    assert await asyncio.wait_for(box.get(), timeout=1) == "later"
