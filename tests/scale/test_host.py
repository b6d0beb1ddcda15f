"""The host role across processes: handed over through one process and heard through another, and passed
on by whichever process drives the table once the host's last socket (on another process) is gone."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.api.wsclient import Client, create_room, join_room

from .cluster import running_cluster

pytestmark = [pytest.mark.scale, pytest.mark.postgres, pytest.mark.xdist_group("scale")]


def host_is(seat: int) -> Any:
    return lambda m: m["type"] in ("state", "presence") and m["room"]["host_seat"] == seat


async def test_the_host_role_moves_across_processes(tmp_path: Path) -> None:
    async with running_cluster(tmp_path, processes=2, HOST_AWAY_SECONDS="1") as (cluster, store):
        created = await create_room(cluster.base, "Ann", seats=3)
        code = created["code"]
        bob_token = (await join_room(cluster.base, code, "Bob"))["token"]
        ann = await Client.connect(cluster.direct(0), code)
        bob = await Client.connect(cluster.direct(1), code)
        await ann.hello(created["token"])
        await bob.hello(bob_token)

        # By choice: Ann (process 0) hands it to Bob, who hears it on process 1 and hands it back.
        await ann.send({"type": "make_host", "seat": 1})
        await bob.until(host_is(1))
        await bob.send({"type": "make_host", "seat": 0})
        await ann.until(host_is(0))
        await bob.until(host_is(0))

        # Ann goes: a second later the process Bob is on (the one with sockets) makes Bob the host.
        await ann.close()
        await bob.until(host_is(1), timeout=15)
        loaded = await store.load_table(code)
        assert loaded is not None and loaded.table.host_seat == 1
        await bob.send({"type": "start"})
        await bob.until(lambda m: m["type"] == "state" and m["room"]["status"] == "playing")
        await bob.close()
