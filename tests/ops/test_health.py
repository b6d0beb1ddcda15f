"""``/healthz``, ``/readyz`` (down when the database is unreachable) and ``/metrics`` over a real game."""

from __future__ import annotations

import httpx
from prometheus_client.parser import text_string_to_metric_families

from tests.api.wsclient import Client, create_room, running_server, server_settings

# Nothing listens on port 1: connecting is refused at once.
UNREACHABLE_POSTGRES = "postgresql+asyncpg://postgres@127.0.0.1:1/nowhere"


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    found = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            found[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return found


async def scrape(base: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    async with httpx.AsyncClient(base_url=base) as http:
        response = await http.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    return samples(response.text)


async def test_healthz_and_readyz_when_the_database_answers(sqlite_url: str) -> None:
    with running_server(server_settings(sqlite_url)) as base:
        async with httpx.AsyncClient(base_url=base) as http:
            assert (await http.get("/healthz")).json() == {"status": "ok"}
            ready = await http.get("/readyz")
            assert ready.status_code == 200 and ready.json() == {"status": "ok"}
            assert ready.headers["x-request-id"]
            echoed = await http.get("/healthz", headers={"X-Request-ID": "probe-1"})
            assert echoed.headers["x-request-id"] == "probe-1"


async def test_readyz_is_503_when_the_database_is_unreachable() -> None:
    settings = server_settings(UNREACHABLE_POSTGRES, run_migrations=False)
    with running_server(settings) as base:
        async with httpx.AsyncClient(base_url=base) as http:
            assert (await http.get("/healthz")).status_code == 200, "alive, though not ready"
            response = await http.get("/readyz")
    assert response.status_code == 503
    body = response.json()
    assert body["code"] == "not_ready" and "database" in body["message"]
    assert "127.0.0.1:1" not in body["message"], "no connection details leak"


async def test_metrics_move_after_a_game_action(sqlite_url: str) -> None:
    with running_server(server_settings(sqlite_url)) as base:
        before = await scrape(base)
        created = await create_room(base, "Ann", seats=2, bots=["normal"])
        client = await Client.connect(base, created["code"])
        await client.hello(created["token"])
        await client.send({"type": "start"})
        await client.until(lambda m: m["type"] == "state" and m["room"]["status"] == "playing")
        game = client.state["game"]  # type: ignore[index]
        if game["turn"] != 0:  # the bot opens: wait for the human's turn
            await client.until(lambda m: m["type"] == "state" and m["game"]["turn"] == 0)
        assert (await client.act({"type": "draw", "source": "stock"}))["type"] == "ack"
        refused = await client.act({"type": "draw", "source": "stock"})
        assert refused["type"] == "error" and refused["code"] == "wrong_phase"
        during = await scrape(base)
        await client.close()

    def delta(name: str, **labels: str) -> float:
        key = (name, tuple(sorted(labels.items())))
        return during.get(key, 0.0) - before.get(key, 0.0)

    assert delta("threethirteen_actions_applied_total", kind="draw") >= 1
    assert delta("threethirteen_action_latency_seconds_count") >= 1
    assert delta("threethirteen_action_latency_seconds_bucket", le="+Inf") >= 1
    assert delta("threethirteen_errors_total", code="wrong_phase") == 1
    assert during[("threethirteen_open_tables", ())] == 1
    assert during[("threethirteen_open_sockets", ())] == 1
    assert before[("threethirteen_open_tables", ())] == 0
