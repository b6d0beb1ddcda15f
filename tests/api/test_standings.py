"""Standings over REST: several games at several tables, with a rematch, a practice seat, a bot and a
look-alike name; every record and board is checked against the per-game history, from REST answers alone."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from openskill.models import PlackettLuce

from .test_history import get, quick_move
from .wsclient import Client, create_room, join_room


async def play_out(client: Client) -> None:
    """Play this client's seat until the game is over (the others play theirs meanwhile)."""
    while True:
        view = client.state["game"] if client.state else None
        if view is None or client.state is None or client.state["room"]["status"] == "lobby":
            await client.next("state", timeout=30)
            continue
        if view["phase"] == "game_over":
            return
        if view["turn"] == view["seat"] and view["legal"]:
            answer = await client.act(quick_move(view), version=client.state["version"])
            if answer["type"] == "ack":
                await client.wait_version(answer["version"])
            continue
        await client.next("state", timeout=30)


async def new_game(host: Client, *, rematch: bool = False) -> str:
    """Start (or rematch) and return the new game's public id."""
    before = host.state["room"]["game_id"] if host.state else None
    await host.send({"type": "rematch" if rematch else "start"})
    state = await host.until(
        lambda m: m["type"] == "state" and m["game"] is not None and m["room"]["game_id"] != before
    )
    return str(state["room"]["game_id"])


async def practice(client: Client, on: bool) -> None:
    await client.send({"type": "practice", "on": on})
    seat = client.state["game"]["seat"] if client.state and client.state["game"] else None
    await client.until(
        lambda m: (
            m["type"] == "state"
            and any(s["practice"] is on for s in m["room"]["seats"] if seat is None or s["seat"] == seat)
        )
    )


# The names played, folded: who played them.
PEOPLE = {"sara": "Sara", "s\u0251r\u0251": "Sara", "omid": "Omid"}


def expected_records(
    games: list[dict[str, Any]], practice: set[tuple[str, int]]
) -> dict[str, dict[str, Any]]:
    """Each person's record, worked out from the games' REST records (``practice``: (game, seat) left out).
    Names here differ only in case or by look-alike letters, so the key is the person's own name."""
    records: dict[str, dict[str, Any]] = {}
    for game in games:
        totals, winners, went_out = game["totals"], game["winners"], game["went_out"]
        for player in game["players"]:
            seat = player["seat"]
            if player["bot"] or (game["id"], seat) in practice:
                continue
            person = PEOPLE[player["name"].casefold()]
            outs = sum(1 for s in went_out if s == seat)
            record = records.setdefault(
                person, {"games": 0, "wins": 0.0, "sum": 0, "totals": [], "outs": 0, "perfect": 0, "ids": []}
            )
            record["games"] += 1
            record["wins"] += 1 / len(winners) if seat in winners else 0.0
            record["sum"] += totals[seat]
            record["totals"].append((totals[seat], game["id"]))
            record["outs"] += outs
            record["perfect"] += int(outs == len(went_out))
            record["ids"].append(game["id"])
    return records


@pytest.mark.slow
async def test_records_and_boards_agree_with_every_finished_game(server: str) -> None:
    # Table A: Sara hosts, Omid joins, a bot sits; two games (the second, a rematch, Omid plays for practice).
    table_a = await create_room(server, "Sara", seats=3, bots=["normal"], address="192.0.2.1")
    omid_seat = await join_room(server, table_a["code"], "Omid", address="192.0.2.2")  # from another home
    sara = await Client.connect(server, table_a["code"])
    await sara.hello(table_a["token"])
    omid = await Client.connect(server, table_a["code"])
    await omid.hello(omid_seat["token"])
    first = await new_game(sara)
    await asyncio.gather(play_out(sara), play_out(omid))

    refused = await omid.act({"type": "draw", "source": "stock"})  # (the game is over: no move)
    assert refused["type"] == "error"
    await practice(omid, True)
    second = await new_game(sara, rematch=True)
    await omid.send({"type": "practice", "on": False})  # fixed while the game is played
    error = await omid.next("error")
    assert error["code"] == "wrong_status"
    await asyncio.gather(play_out(sara), play_out(omid))
    await sara.close()
    await omid.close()

    # Table B: the same person under a look-alike name (Latin alpha for "a": one script, Unicode's
    # confusables fold it), with a bot.
    table_b = await create_room(server, "S\u0251r\u0251", seats=2, bots=["hard"])
    sara_b = await Client.connect(server, table_b["code"])
    await sara_b.hello(table_b["token"])
    third = await new_game(sara_b)
    await play_out(sara_b)
    await sara_b.close()

    games = [(await get(server, f"/api/games/{gid}")).json() for gid in (first, second, third)]
    assert all(g["status"] == "finished" and len(g["went_out"]) == 11 for g in games)
    for game in games:  # who went out first each round: the round's own record says the same
        for number in (1, 11):
            shown = (await get(server, f"/api/games/{game['id']}/rounds/{number}")).json()
            assert game["went_out"][number - 1] == shown["went_out"]
    omid_index = next(p["seat"] for p in games[1]["players"] if p["name"] == "Omid")
    expected = expected_records(games, {(second, omid_index)})
    assert set(expected) == {"Sara", "Omid"} and expected["Sara"]["games"] == 3

    for person, want in expected.items():
        for asked in (person, person.upper(), "Ѕаrа" if person == "Sara" else person.lower()):
            record = (await get(server, f"/api/players/{asked}")).json()
            assert record["games"] == want["games"], asked
            assert record["wins"] == round(want["wins"], 4)
            assert record["average_total"] == round(want["sum"] / want["games"], 2)
            assert record["rounds_out_first"] == want["outs"]
            assert record["perfect_games"] == want["perfect"]
            low, high = min(t for t, _ in want["totals"]), max(t for t, _ in want["totals"])
            assert (record["best_total"], record["worst_total"]) == (low, high)
            assert record["best"]["total"] == low and (low, record["best"]["game"]) in want["totals"]
            assert record["worst"]["total"] == high and (high, record["worst"]["game"]) in want["totals"]
            assert sorted(g["game"] for g in record["recent"]) == sorted(want["ids"])
            for recent in record["recent"]:
                game = next(g for g in games if g["id"] == recent["game"])
                seat = next(p["seat"] for p in game["players"] if PEOPLE.get(p["name"].casefold()) == person)
                assert recent["total"] == game["totals"][seat]
                assert recent["place"] == 1 + sum(1 for t in game["totals"] if t < game["totals"][seat])
                assert recent["players"] == len(game["players"])

    missing = await get(server, "/api/players/Nobody")
    assert missing.status_code == 404 and missing.json()["code"] == "player_not_found"

    board = (await get(server, "/api/leaderboard", by="games")).json()
    assert board["total"] == 2, "bots and practice-only names never make the board"
    assert [(r["name"], r["games"]) for r in board["items"]] == [
        ("Sara", expected["Sara"]["games"]),  # as first played: a look-alike's spelling never renames it
        ("Omid", expected["Omid"]["games"]),
    ]
    by_wins = (await get(server, "/api/leaderboard", by="wins", min_games=2)).json()
    assert [r["games"] for r in by_wins["items"]] == [3]

    every = sorted(t for want in expected.values() for t, _ in want["totals"])
    fame = (await get(server, "/api/leaderboard/games", order="best")).json()
    shame = (await get(server, "/api/leaderboard/games", order="worst")).json()
    assert fame["total"] == shame["total"] == len(every)
    assert [r["total"] for r in fame["items"]] == every
    assert [r["total"] for r in shame["items"]] == every[::-1]

    # Ratings: only the first game had two counted people (the second, Omid's practice, and the third,
    # against a bot, had one); openskill's Plackett-Luce on their two totals is what REST says.
    totals = {p["name"]: games[0]["totals"][p["seat"]] for p in games[0]["players"] if not p["bot"]}
    rated = PlackettLuce().rate(
        [[PlackettLuce().rating()], [PlackettLuce().rating()]],
        ranks=[1 + (totals["Sara"] > totals["Omid"]), 1 + (totals["Omid"] > totals["Sara"])],
    )
    for person, [after] in zip(("Sara", "Omid"), rated, strict=True):
        record = (await get(server, f"/api/players/{person}")).json()
        assert record["rating"] == {
            "ordinal": round(after.ordinal(), 2),
            "mu": round(after.mu, 2),
            "sigma": round(after.sigma, 2),
            "games": 1,
            "provisional": True,
        }
        assert [(p["game"], p["ordinal"]) for p in record["rating_history"]] == [
            (first, round(after.ordinal(), 2))
        ]
    by_rating = (await get(server, "/api/leaderboard", by="rating")).json()
    ordinals = {p: round(a.ordinal(), 2) for p, [a] in zip(("Sara", "Omid"), rated, strict=True)}
    assert [r["name"] for r in by_rating["items"]] == sorted(
        ordinals, key=lambda p: (-ordinals[p], p != "Omid")
    )
    assert [r["rating"]["ordinal"] for r in by_rating["items"]] == sorted(ordinals.values(), reverse=True)

    series = (await get(server, f"/api/rooms/{table_a['code']}/leaderboard")).json()
    assert all(r["rating"] is None for r in series["items"])  # a table's own series has no rating
    counted_a = expected_records(games[:2], {(second, omid_index)})
    assert {r["name"]: r["games"] for r in series["items"]} == {
        name: len([i for i in want["ids"] if i in (first, second)]) for name, want in counted_a.items()
    }


async def test_practice_is_a_persons_choice_before_the_game(server: str) -> None:
    created = await create_room(server, "Sara", seats=2, bots=["easy"])
    sara = await Client.connect(server, created["code"])
    await sara.hello(created["token"])
    watcher = await Client.connect(server, created["code"])
    await watcher.hello()
    await watcher.send({"type": "practice", "on": True})
    assert (await watcher.next("error"))["code"] == "not_seated"
    await practice(sara, True)
    assert [s["practice"] for s in sara.state["room"]["seats"]] == [True, False]
    version = sara.state["version"]
    await sara.send({"type": "practice", "on": True})  # already so: nothing changes
    await sara.send({"type": "ping"})
    await sara.next("pong")
    assert sara.state["version"] == version
    await sara.close()
    await watcher.close()
