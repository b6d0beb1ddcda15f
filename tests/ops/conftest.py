"""Helpers for the operations tests: the server as a real process, a game driven over real sockets."""

from __future__ import annotations

import asyncio
import json
import uuid
from typing import Any

import websockets

from app.store import Store
from tests.api.wsclient import Client, Message, pick_move, stored_game
from tests.server_process import ROOT, server_env, start, stop, wait_ready

__all__ = ["ROOT", "server_env", "start", "stop", "wait_ready"]


async def answer_or_close(client: Client, message: Message, timeout: float = 10) -> Message | None:
    """Send ``message``; its ack or error, or None when the socket closes first."""
    message_id = message["id"]
    try:
        await client.send(message)
    except websockets.ConnectionClosed:
        return None

    async def answer() -> Message:
        while True:
            received = await client.inbox.get()
            if received["type"] in ("ack", "error") and received.get("id") == message_id:
                return received

    answering = asyncio.ensure_future(answer())
    closing = asyncio.ensure_future(client.closed.wait())
    done, pending = await asyncio.wait({answering, closing}, timeout=timeout, return_when="FIRST_COMPLETED")
    for task in pending:
        task.cancel()
    if answering in done:
        return answering.result()
    if closing in done:  # an answer may have arrived together with the close
        while not client.inbox.empty():
            received = client.inbox.get_nowait()
            if received["type"] in ("ack", "error") and received.get("id") == message_id:
                return received
        return None
    raise TimeoutError(f"no answer to {message_id}")


async def play(
    clients: dict[int, Client], store: Store, game_id: int, acked: dict[str, int], *, moves: int = 10**9
) -> None:
    """People play what a bot would, until ``moves`` were acknowledged or a socket stops answering.
    ``acked``: action id -> the version its ack carried."""
    for _ in range(moves):
        version, state = await stored_game(store, game_id)
        if state.is_over:
            return
        action_id = uuid.uuid4().hex
        message = {"type": "action", "id": action_id, "action": pick_move(state), "version": version}
        answer = await answer_or_close(clients[state.turn], message)
        if answer is None or answer["type"] != "ack":
            return
        acked[action_id] = answer["version"]


def json_lines(text: str) -> list[dict[str, Any]]:
    """Every non-empty line parsed as a JSON object (fails on any line that is not one)."""
    entries = []
    for line in text.splitlines():
        if line.strip():
            entry = json.loads(line)
            assert isinstance(entry, dict), line
            entries.append(entry)
    return entries
