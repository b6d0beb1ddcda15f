"""GET /api/games/{id}/replay: a finished game frame by frame with every hand open; never a game in play."""

from __future__ import annotations

from app.engine import GameState
from app.engine.options import ROUNDS
from app.protocol.client_config import client_config_script
from app.store import Store
from tests.reads import load_game_state

from .test_history import get, play_with_a_bot


async def test_a_finished_game_replays_frame_by_frame(server: str, store: Store) -> None:
    code, game_id = await play_with_a_bot(server, "Sara")
    response = await get(server, f"/api/games/{game_id}/replay")
    assert response.status_code == 200, response.text
    body = response.json()
    export = (await get(server, f"/api/games/{game_id}/export")).json()

    assert body["game"] == export["game"] and body["game"]["room"] is None  # no record leads to the table
    assert body["players"] == 2 and body["options"] == export["options"]
    steps = body["steps"]
    assert [s["index"] for s in steps] == list(range(len(steps)))
    assert [{"seat": s["seat"], "action": s["action"]} for s in steps if s["action"]] == export["actions"]
    assert sum(s["kind"] == "deal" for s in steps) == ROUNDS
    ends = [s for s in steps if s["kind"] == "round_end"]
    assert [s["round"] for s in ends] == list(range(1, ROUNDS + 1))
    assert [[h["penalty"] for h in s["hands"]] for s in ends] == export["game"]["scores"]

    loaded = await load_game_state(store, game_id)
    assert loaded is not None
    final = GameState.from_dict(loaded[1])
    assert steps[-1]["phase"] == "game_over"
    assert steps[-1]["totals"] == final.totals() == body["game"]["totals"]
    assert steps[-1]["winners"] == final.winners() == body["game"]["winners"]
    # Every hand open, all the way: every frame shows each seat's cards.
    assert all(len(s["hands"]) == 2 and all(h["cards"] for h in s["hands"]) for s in steps)

    schema = (await get(server, "/openapi.json")).json()
    assert "/api/games/{game_id}/replay" in schema["paths"]
    assert "ReplayFrame" in schema["components"]["schemas"]


async def test_a_game_in_play_is_never_replayed_and_unknown_ids_are_404(server: str) -> None:
    _code, game_id = await play_with_a_bot(server, "Omid", finish=False)
    refused = await get(server, f"/api/games/{game_id}/replay")
    assert refused.status_code == 409 and refused.json()["code"] == "game_not_finished"
    assert "hands" not in refused.text and "seed" not in refused.text

    missing = await get(server, "/api/games/999999/replay")
    assert missing.status_code == 404 and missing.json()["code"] == "game_not_found"
    assert (await get(server, "/api/games/0/replay")).status_code == 404


async def test_the_pages_of_history_and_replay_serve_the_client(server: str) -> None:
    for path in ("/r/ABCDE/history", "/r/ABCDE/replay/12"):
        response = await get(server, path)
        assert response.status_code == 200 and "text/html" in response.headers["content-type"], path


async def test_the_standings_pages_and_a_game_by_id_serve_the_client(server: str) -> None:
    home = await get(server, "/")
    for path, view in (
        ("/standings", "standings"),
        ("/standings/Sara", "standings"),
        ("/standings/Sara%2FK%20%DB%8C", "standings"),  # a "/" and a space in a name
        ("/games/abcdefghijkm", "replay"),
    ):
        response = await get(server, path)
        assert response.status_code == 200 and "text/html" in response.headers["content-type"], path
        # The same page as the others (headers, config block), preloading the view it shows first.
        assert response.headers["content-security-policy"] == home.headers["content-security-policy"], path
        assert response.headers["cache-control"] == "no-cache", path
        assert client_config_script() in response.text, path
        assert f'rel="modulepreload" href="/static/js/views/{view}.js?v=' in response.text, path
