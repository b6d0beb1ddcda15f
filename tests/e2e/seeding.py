"""Games the browser tests need played before they look: a person playing over the WebSocket from Python
(reading only its own view) against a bot, to the game's end or past round 1. The worker's server lifts the
per-socket message rate for them (tests/security tests the limit), so they play as fast as the server
answers."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

from tests.api.test_history import quick_move
from tests.api.wsclient import Client, create_room


async def play_with_a_bot(server: str, name: str, *, finish: bool) -> tuple[str, int]:
    """As tests.api.test_history.play_with_a_bot: ``name`` and a bot; the room's code and the game's id."""
    created = await create_room(server, name, seats=2, bots=["normal"])
    client = await Client.connect(server, created["code"])
    await client.hello(created["token"])
    await client.send({"type": "start"})
    state = await client.until(lambda m: m["type"] == "state" and m["game"] is not None)
    game_id = state["room"]["game_id"]
    while True:
        view = client.state["game"] if client.state else None
        if view is not None and (view["phase"] == "game_over" or (not finish and view["round"] > 1)):
            break
        if view is not None and view["turn"] == view["seat"] and view["legal"]:
            answer = await client.act(quick_move(view), version=client.state["version"])
            if answer["type"] == "ack":
                await client.wait_version(answer["version"])
            continue
        await client.next("state", timeout=20)
    await client.close()
    return created["code"], game_id


def finish_with_a_bot(server: str, name: str, *, finish: bool = True) -> tuple[str, int]:
    """``play_with_a_bot`` in its own thread: Playwright's sync API holds this thread's event loop."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, play_with_a_bot(server, name, finish=finish)).result(timeout=240)


async def play_with_a_friend_taking_over(server: str) -> tuple[str, str]:
    """Sam takes over a bot's seat from round 2 (``friend_asks_for_a_bots_seat``) and plays it to the end
    beside Ann. The room's code and the game's id."""
    from tests.api.test_seat_records import friend_asks_for_a_bots_seat, play_to_the_end

    code, game_id, ann, sam = await friend_asks_for_a_bots_seat(server)
    await play_to_the_end([ann, sam])
    for client in (ann, sam):
        await client.close()
    return code, game_id


def finish_with_a_friend_taking_over(server: str) -> tuple[str, str]:
    """``play_with_a_friend_taking_over`` in its own thread (Playwright's sync API holds this thread's
    loop)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, play_with_a_friend_taking_over(server)).result(timeout=240)
