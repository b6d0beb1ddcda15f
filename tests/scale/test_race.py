"""Two processes race on one table: the database decides, exactly one move per version."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path

import pytest

from tests.api.wsclient import Client, create_room, join_room, pick_move, stored_game
from tests.reads import list_actions

from .cluster import running_cluster

pytestmark = [pytest.mark.scale, pytest.mark.postgres, pytest.mark.xdist_group("scale")]

RACES = 30


async def test_two_processes_racing_on_one_table_make_exactly_one_move_per_version(tmp_path: Path) -> None:
    async with running_cluster(tmp_path, processes=2) as (cluster, store):
        created = await create_room(cluster.base, "Ann", seats=2)
        code = created["code"]
        tokens = {0: created["token"], 1: (await join_room(cluster.base, code, "Bob"))["token"]}
        # Each seat has a tab on each process; both tabs of the seat to play send a move at once.
        tabs: dict[int, list[Client]] = {}
        for seat, token in tokens.items():
            tabs[seat] = [await Client.connect(cluster.direct(p), code) for p in (0, 1)]
            for tab in tabs[seat]:
                await tab.hello(token)
        await tabs[0][0].send({"type": "start"})
        started = await tabs[0][0].until(lambda m: m["type"] == "state" and m["room"]["status"] == "playing")
        game_id = started["room"]["game_id"]
        acked: dict[int, str] = {}  # version -> the action id acknowledged there
        for _ in range(RACES):
            version, state = await stored_game(store, game_id)
            move = pick_move(state)
            ids = [uuid.uuid4().hex, uuid.uuid4().hex]
            answers = await asyncio.gather(
                *(
                    tab.act(move, version=version, action_id=i)
                    for tab, i in zip(tabs[state.turn], ids, strict=True)
                )
            )
            won = [a for a in answers if a["type"] == "ack"]
            lost = [a for a in answers if a["type"] == "error"]
            assert len(won) == 1 and len(lost) == 1, answers
            assert won[0]["version"] == version + 1
            assert lost[0]["code"] == "stale_version", lost
            acked[won[0]["version"]] = won[0]["id"]
        actions = await list_actions(store, game_id)
        assert len(actions) == RACES
        assert {a.version: a.client_id for a in actions} == acked
        for tab in (t for seat_tabs in tabs.values() for t in seat_tabs):
            await tab.close()
