"""examples/bot.py plays a whole 11-round game against a real server process, by its link alone, and
resumes after the server is killed and restarted mid-game."""

from __future__ import annotations

import asyncio
import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import jsonschema_rs
import pytest

from app.protocol.schema import definition_schema, protocol_schema
from tests.api.wsclient import Client, create_room, free_port
from tests.server_process import ROOT, start_server_process, stop

KILL_IN_ROUND = 4


def load_example() -> ModuleType:
    spec = importlib.util.spec_from_file_location("example_bot", ROOT / "examples" / "bot.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


async def wait_for_seats(base: str, code: str, taken: int) -> None:
    async with httpx.AsyncClient(base_url=base) as http:
        for _ in range(500):
            if len((await http.get(f"/api/rooms/{code}")).json()["seats"]) >= taken:
                return
            await asyncio.sleep(0.02)
    raise TimeoutError(f"fewer than {taken} seats were taken at {code}")


@pytest.mark.slow
async def test_the_example_bot_plays_a_whole_game_and_resumes_after_a_drop(tmp_path: Path) -> None:
    example = load_example()
    server_messages = jsonschema_rs.validator_for(definition_schema(protocol_schema(), "ServerMessage"))
    url, port, log = f"sqlite+aiosqlite:///{tmp_path / 'bot.db'}", free_port(), tmp_path / "server.log"
    base = f"http://127.0.0.1:{port}"
    env = {"GRACE_SECONDS": "0"}  # the host leaves after starting: the server plays the host's seat
    proc = await asyncio.to_thread(start_server_process, url, port, log, **env)
    invalid: list[str] = []
    in_round = asyncio.Event()
    answers = {"in_state": 0, "ack": 0}  # its moves' acks: inside states, or as ack messages

    class WatchedBot(example.Bot):  # type: ignore[name-defined,misc]
        def on_message(self, message: dict[str, Any]) -> None:
            if not server_messages.is_valid(message):
                invalid.append(f"{message['type']}: {next(server_messages.iter_errors(message))}")
            if message["type"] == "state" and "ack" in message:
                answers["in_state"] += 1
            elif message["type"] == "ack":
                answers["ack"] += 1
            game = message.get("game")
            if message["type"] == "state" and game and game["round"] >= KILL_IN_ROUND:
                in_round.set()

    try:
        created = await create_room(base, "Host", seats=3, bots=["normal"])
        code = created["code"]
        bot = WatchedBot(f"{base}/r/{code}", name="Robo")
        playing = asyncio.create_task(bot.run())
        await wait_for_seats(base, code, 3)
        host = await Client.connect(base, code)
        await host.hello(created["token"])
        await host.send({"type": "start"})
        await host.until(lambda m: m["type"] == "state" and m["room"]["status"] == "playing")
        await host.close()

        await asyncio.wait_for(in_round.wait(), 60)
        stop(proc)  # SIGKILL mid-game: the bot's socket drops
        proc = await asyncio.to_thread(start_server_process, url, port, log, **env)
        final = await asyncio.wait_for(playing, 300)
        async with httpx.AsyncClient(base_url=base) as http:
            record = (await http.get(f"/api/games/{final['room']['game_id']}")).json()
    finally:
        stop(proc)

    assert bot.reconnects >= 1, "the server was killed, yet the bot never reconnected"
    # The bot asked for its acks inside the states: each of its moves was answered so, bar a move resent
    # after the drop (an ack message, if it had been made before the server was killed).
    assert answers["in_state"] >= 20 and answers["ack"] <= bot.reconnects, answers
    assert not invalid, "messages the schema does not describe:\n" + "\n".join(invalid[:5])
    game = final["game"]
    assert final["room"]["status"] == "finished" and game["phase"] == "game_over"
    assert game["round"] == 11 and len(game["scores"]) == 11 and game["seat"] == 2
    assert final["room"]["seats"][2]["program"] is True, "the table shows the bot's seat as a program"
    assert (record["status"], record["rounds_played"]) == ("finished", 11)
    robo = record["players"][2]
    assert (robo["seat"], robo["name"], robo["bot"], robo["counted"]) == (2, "Robo", False, False), robo
    assert robo["holders"] == [{"from_round": 1, "name": "Robo", "bot": False}]  # a program, not the server's
    assert "Traceback" not in log.read_text(), log.read_text()[-3000:]
