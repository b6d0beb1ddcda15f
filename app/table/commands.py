"""Everything a table can do, as pure functions: each takes a table and returns one ``Change`` (or raises a
``Refusal`` / the engine's ``GameError``, whose codes go on the wire). No clock, no randomness of its own:
the time and a new game's seed come in as arguments."""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from dataclasses import replace
from datetime import datetime

from app.engine import Action, Draw, Options, apply, new_game
from app.engine.options import MAX_PLAYERS, MIN_PLAYERS

from .avatars import AVATARS
from .changes import (
    AddSeat,
    Change,
    EndGame,
    FinalTotal,
    RecordMove,
    RemoveSeat,
    Reopen,
    ReplaceSeat,
    RoundScore,
    SetHost,
    SetLobby,
    StartGame,
    Write,
    final_totals,
)
from .errors import Refusal
from .origins import origin_of
from .schedule import host_successor
from .table import AUTO_LEVEL, NO_PAUSE, TRANSITIONS, Claim, RoomStatus, Seat, Table, same_token
from .text import name_skeleton


class WrongStatus(Refusal):
    """A command in the wrong lifecycle status; the message names what was expected and what is."""

    def __init__(self, doing: str, expected: RoomStatus, actual: RoomStatus) -> None:
        super().__init__(
            "wrong_status",
            f"cannot {doing} while the room is {actual.value}; the room must be {expected.value}",
        )
        self.expected, self.actual = expected, actual


def _expect(table: Table, doing: str, expected: RoomStatus) -> None:
    if table.status is not expected:
        raise WrongStatus(doing, expected, table.status)


def _next(table: Table, write: Write, at: datetime, **changes: object) -> Change:
    """The one place a table's next version is computed. In the lobby, a change of who sits where starts
    the ready check afresh (``pause.ready``). A game's start and each move are what a move is made against
    (``Table.play_version``); nothing else makes a move stale."""
    if isinstance(write, StartGame | RecordMove):
        changes["play_version"] = table.version + 1
    after = replace(table, version=table.version + 1, **changes)  # type: ignore[arg-type]
    if after.status is RoomStatus.LOBBY and _sitting(after.seats) != _sitting(table.seats):
        after = replace(after, pause=NO_PAUSE)
    return Change(after, write, at)


def _sitting(seats: tuple[Seat, ...]) -> tuple[Seat, ...]:
    """Who sits where, faces aside: a new avatar is no reason to ask everyone whether they are ready again."""
    return tuple(replace(s, avatar=None) for s in seats)


def _seat_index(table: Table, index: int, code: str = "bad_message") -> Seat:
    if not 0 <= index < len(table.seats):
        raise Refusal(code, f"there is no seat {index}")
    return table.seats[index]


def _with_seat(table: Table, seat: Seat) -> tuple[Seat, ...]:
    return tuple(seat if s.index == seat.index else s for s in table.seats)


# ----- seats -------------------------------------------------------------------------------------------


def has_open_seat(table: Table) -> bool:
    """A newcomer gets a seat (in the lobby, while one is free); otherwise they watch."""
    return table.status is RoomStatus.LOBBY and len(table.seats) < table.seat_count


def refuse_kept(name: str, *, kept: bool) -> None:
    """Refuse a name kept with a passkey (or a look-alike of one) to anyone not signed in as it. Whether it is
    (``kept``) is the store's fact, found by the room layer (``app.rooms.kept_names``) and passed in: before
    a REST join or a new table, and into ``request_seat`` for a spectator's request on a socket."""
    if kept:
        raise Refusal(
            "name_kept",
            f"{name!r} is kept by its holder with a passkey; sign in as it, or play under another name",
        )


def _name_free(table: Table, name: str, *, own: int | None = None) -> None:
    """Refuse ``name`` when it reads as the name of a seat or of a request for one (case, digits, invisible
    characters and look-alikes of other scripts folded: ``name_skeleton``), so nobody passes for a player.
    ``own``: the seat of the asker's own former player (a bot plays it under their name)."""
    skeleton = name_skeleton(name)
    for seat in table.seats:
        taken = [seat.claim.name] if seat.claim is not None else []
        if seat.index != own:
            taken.append(seat.name)
        if any(name_skeleton(other) == skeleton for other in taken):
            raise Refusal("name_taken", f"{name!r} reads as the name of someone at this table; pick another")


def seat_person(
    table: Table,
    *,
    name: str,
    token_hash: str,
    at: datetime,
    program: bool = False,
    origin: str | None = None,
) -> Change:
    """A person (or a person's program) takes the next open seat (``origin``: where they joined from)."""
    _expect(table, "take a seat", RoomStatus.LOBBY)
    if not has_open_seat(table):
        raise Refusal("seats_full", "every seat is taken")
    _name_free(table, name)
    seat = Seat(len(table.seats), name, token_hash=token_hash, is_program=program, origin=origin)
    return _next(table, AddSeat(seat), at, seats=(*table.seats, seat))


def add_bot(table: Table, *, level: str, at: datetime) -> Change:
    _expect(table, "add a bot", RoomStatus.LOBBY)
    if len(table.seats) >= table.seat_count:
        raise Refusal("seats_full", "every seat is taken; raise the seat count first")
    index = len(table.seats)
    seat = Seat(index, f"Bot {index + 1}", True, level)
    return _next(table, AddSeat(seat), at, seats=(*table.seats, seat))


def join(
    table: Table,
    *,
    name: str,
    token_hash: str,
    at: datetime,
    program: bool = False,
    origin: str | None = None,
) -> Change | None:
    """A newcomer takes the next open seat; None: they watch (a bot's seat is asked for: ``request_seat``)."""
    if not has_open_seat(table):
        return None
    return seat_person(table, name=name, token_hash=token_hash, at=at, program=program, origin=origin)


def _person(seat: Seat, claim: Claim) -> Seat:
    """The bot's seat as the claimant's (name, token, origin); the bot's former player is forgotten."""
    return Seat(seat.index, claim.name, token_hash=claim.token_hash, origin=claim.origin)


def _claimed(table: Table, seat: Seat, claim: Claim | None, at: datetime) -> Change:
    """The seat with ``claim`` (None: no request); an approved one passes at once if the rules allow now."""
    if claim is not None and claim.approved and table.between_rounds():
        return _next(
            table, ReplaceSeat(_person(seat, claim)), at, seats=_with_seat(table, _person(seat, claim))
        )
    updated = replace(seat, claim=claim)
    return _next(table, ReplaceSeat(updated), at, seats=_with_seat(table, updated))


def request_seat(
    table: Table,
    *,
    index: int,
    name: str | None,
    token_hash: str,
    at: datetime,
    origin: str | None = None,
    kept: bool = False,
) -> Change | None:
    """A spectator asks for a bot's seat, at any time. The seat's own former player needs no approval; anyone
    else waits for the host's. The seat passes at the next moment the rules allow. None: asked already."""
    seat = _seat_index(table, index, "bad_request")
    if not seat.is_bot:
        raise Refusal("not_allowed", f"seat {index} is a person's; only a bot's seat can be asked for")
    if (held := table.holder(token_hash)) is not None:
        raise Refusal("already_seated", f"you play seat {held.index} already; one person holds one seat")
    if (asked := table.claim_of(token_hash)) is not None:
        if asked.index == index:
            return None
        raise Refusal("already_requested", f"you asked for seat {asked.index} already; one seat at a time")
    if seat.claim is not None:
        raise Refusal("seat_requested", f"someone has asked for seat {index} already; wait for the host")
    former = seat.former_token_hash == token_hash
    if name is None and not former:
        raise Refusal("bad_message", "say the name you will play under")
    if name is not None:
        refuse_kept(name, kept=kept)
        _name_free(table, name, own=index if former else None)
    claim = Claim(seat.name if name is None else name, token_hash, approved=former, origin=origin)
    return _claimed(table, seat, claim, at)


def _pending(table: Table, index: int) -> Seat:
    seat = _seat_index(table, index)
    if seat.claim is None or seat.claim.approved:
        raise Refusal("no_request", f"nobody is waiting for the host's answer about seat {index}")
    return seat


def approve_seat(table: Table, *, index: int, at: datetime) -> Change:
    """The host lets the request for seat ``index`` stand: the seat passes now, or at the next round."""
    seat = _pending(table, index)
    assert seat.claim is not None
    return _claimed(table, seat, replace(seat.claim, approved=True), at)


def decline_seat(table: Table, *, index: int, at: datetime) -> Change:
    """The host says no: the request is gone (the bot plays on)."""
    return _claimed(table, _pending(table, index), None, at)


def drop_request(table: Table, *, index: int, at: datetime) -> Change:
    """A pending request nobody has been behind for a while goes (``schedule.unanswered_requests``)."""
    return _claimed(table, _pending(table, index), None, at)


def withdraw_request(table: Table, *, token_hash: str, at: datetime) -> Change | None:
    """The requester left (or changed their mind): their pending request is gone. An approved hand-over stays:
    the seat is theirs from the next round, and an absent person's seat is played as any other's."""
    seat = table.claim_of(token_hash)
    if seat is None or seat.claim is None or seat.claim.approved:
        return None
    return _claimed(table, seat, None, at)


def settle_claims(table: Table, seats: tuple[Seat, ...]) -> tuple[Seat, ...]:
    """The seats that change now that the rules allow a hand-over (a new round, or the game's end): approved
    claims pass to their people; once the game is over, pending requests are dropped too."""
    game_over = table.game is not None and table.game.is_over
    changed = []
    for seat in seats:
        if seat.claim is None:
            continue
        if seat.claim.approved:
            changed.append(_person(seat, seat.claim))
        elif game_over:
            changed.append(replace(seat, claim=None))
    return tuple(changed)


def hand_to_bot(table: Table, *, index: int, level: str, at: datetime) -> Change:
    """A bot plays this seat from now on; the person's token no longer opens it (their tabs now watch)."""
    old = _seat_index(table, index)
    if index == table.host_seat:
        raise Refusal("not_allowed", "the host's seat cannot be handed to a bot")
    # The person's token is kept (hashed) as the seat's former one: they may take it back without asking.
    former = old.former_token_hash if old.is_bot else old.token_hash
    seat = Seat(
        index, old.name, True, level, None, former_token_hash=former, claim=old.claim if old.is_bot else None
    )
    handed = not old.is_bot and table.status is RoomStatus.PLAYING
    change = _next(table, ReplaceSeat(seat, handed=handed), at, seats=_with_seat(table, seat))
    return replace(change, seat_moves={index: None})


ONLY_PERSON = "you are the only person at this table: nobody could take the host role; close the tab instead"


def leave(table: Table, *, index: int, at: datetime, away: Mapping[int, datetime]) -> Change:
    """The person at ``index`` leaves the table (any status): a bot plays their seat from now on, under their
    name, and their tabs watch (they may take the seat back without asking, as after ``hand_to_bot``). The
    host's role passes at once, in the same write, to the person who would take it were the host gone
    (``schedule.host_successor``; anyone else when nobody else is present). The only person at a table
    cannot leave it: a table of bots would have nobody to start a game or answer a request."""
    old = _seat_index(table, index)
    if old.is_bot:
        raise Refusal("not_allowed", f"seat {index} is a bot's already")
    host = table.host_seat
    if index == host:
        successor = host_successor(table, away)
        if successor is None:
            others = [s for s in table.seats if not s.is_bot and s.index != index]
            if not others:
                raise Refusal("not_allowed", ONLY_PERSON)
            successor = others[0].index
        host = successor
    returns_to = None if _holds(old, table.host_returns_to) else table.host_returns_to
    seat = Seat(index, old.name, True, AUTO_LEVEL, former_token_hash=old.token_hash)
    change = _next(
        table,
        ReplaceSeat(seat),
        at,
        seats=_with_seat(table, seat),
        host_seat=host,
        host_returns_to=returns_to,
    )
    return replace(change, seat_moves={index: None})


def missed_turn(
    table: Table, *, index: int, at: datetime, away: Mapping[int, datetime], limit: int
) -> Change | None:
    """At a paced table the server just played a person's whole turn because their time ran out: one more
    turn missed in a row. At ``limit`` a bot plays the seat from now on, as if its person had left (the game
    still counts for them, the host role passes on; they take the seat back without asking when they are
    back); the only person at a table keeps counting instead. None: not a person's seat."""
    seat = _seat_index(table, index)
    if seat.is_bot:
        return None
    missed = seat.missed + 1
    if missed >= limit:
        with contextlib.suppress(Refusal):
            return leave(table, index=index, at=at, away=away)
    counted = replace(seat, missed=missed)
    return _next(table, ReplaceSeat(counted), at, seats=_with_seat(table, counted))


def kept_turn(table: Table, *, index: int, at: datetime) -> Change | None:
    """The person at ``index`` made a move of their own: their turns missed in a row start again from none.
    None when there were none (nothing to write)."""
    seat = _seat_index(table, index)
    if seat.is_bot or not seat.missed:
        return None
    counted = replace(seat, missed=0)
    return _next(table, ReplaceSeat(counted), at, seats=_with_seat(table, counted))


def remove_seat(table: Table, *, index: int, at: datetime) -> Change:
    _expect(table, "remove a seat", RoomStatus.LOBBY)
    seat = _seat_index(table, index)
    if index == table.host_seat:
        raise Refusal("not_allowed", "the host's seat cannot be removed")
    if _holds(seat, table.host_returns_to):
        raise Refusal("not_allowed", RETURNING_HOST)
    seats = tuple(
        s if s.index < index else replace(s, index=s.index - 1) for s in table.seats if s.index != index
    )
    moves: Mapping[int, int | None] = {
        s.index: (None if s.index == index else s.index - 1) for s in table.seats if s.index >= index
    }
    host = table.host_seat - 1 if table.host_seat > index else table.host_seat  # the host moves down too
    return replace(_next(table, RemoveSeat(index), at, seats=seats, host_seat=host), seat_moves=moves)


# ----- the host --------------------------------------------------------------------------------------------


def can_host(seat: Seat) -> bool:
    """Only a person's seat can hold the host role (a bot cannot start a game or approve anything)."""
    return not seat.is_bot


RETURNING_HOST = "that seat is the host's who stepped away: the role returns to them when they are back"


def _holds(seat: Seat, token_hash: str | None) -> bool:
    return token_hash is not None and not seat.is_bot and same_token(seat.token_hash, token_hash)


def make_host(table: Table, *, index: int, at: datetime, handover: bool = False) -> Change:
    """The host role moves to the person at ``index``: by the host's choice, or because the host was gone
    (``handover``: ``schedule.host_handover``). Any status: a rematch needs a host as much as the lobby does.

    A host who was gone is remembered (``Table.host_returns_to``) until the role is theirs again: a host made
    by hand-over, or by that host's choice, acts for them and cannot remove their seat."""
    seat = _seat_index(table, index)
    if index == table.host_seat:
        raise Refusal("not_allowed", f"seat {index} is the host already")
    if not can_host(seat):
        raise Refusal("not_allowed", f"seat {index} is a bot's; only a person can be the host")
    returns_to = table.host_returns_to
    if handover and returns_to is None:
        returns_to = (
            table.seats[table.host_seat].token_hash if 0 <= table.host_seat < len(table.seats) else None
        )
    if _holds(seat, returns_to):  # the role is theirs again
        returns_to = None
    return _next(table, SetHost(index), at, host_seat=index, host_returns_to=returns_to)


# ----- lobby and games ---------------------------------------------------------------------------------


def set_options(
    table: Table, *, options: Mapping[str, object] | None, seats: int | None, at: datetime
) -> Change | None:
    """New house rules or seat count for the lobby; None when they are the ones in force already."""
    _expect(table, "change the options", RoomStatus.LOBBY)
    checked = Options.from_dict({**table.options.to_dict(), **(options or {})})
    seat_count = seats if seats is not None else table.seat_count
    if seat_count < len(table.seats):
        raise Refusal("not_allowed", f"{len(table.seats)} seats are taken; remove some first")
    checked.deck_count(seat_count)  # refuse decks that could not deal round 11 to a full table
    if checked == table.options and seat_count == table.seat_count:
        return None
    return _next(table, SetLobby(checked, seat_count), at, options=checked, seat_count=seat_count)


def set_practice(table: Table, *, index: int, on: bool, at: datetime) -> Change | None:
    """A person plays their seat for practice (its games are left out of the standings), or not. Chosen
    before a game starts (in the lobby, or once a game is over for a rematch), fixed while it is played;
    None when it is so already."""
    if table.status is RoomStatus.PLAYING:
        raise Refusal("wrong_status", "practice is chosen before a game starts, not during it")
    seat = _seat_index(table, index)
    if seat.is_bot:
        raise Refusal("not_allowed", "a bot's games are never counted; practice is for people")
    if seat.practice == on:
        return None
    changed = replace(seat, practice=on)
    return _next(table, ReplaceSeat(changed), at, seats=_with_seat(table, changed))


def set_avatar(table: Table, *, index: int, avatar: str, at: datetime) -> Change | None:
    """A person shows ``avatar`` (one of ``AVATARS``) at their own seat, at any time (it changes nothing of
    the game); None when it shows it already. A bot's seat always shows ``BOT_AVATAR``; when a seat changes
    hands the face goes with its person (a new holder's seat starts with none until they pick one)."""
    seat = _seat_index(table, index)
    if avatar not in AVATARS:
        raise Refusal("bad_message", f"{avatar!r} is not an avatar; pick one of: {', '.join(AVATARS)}")
    if seat.is_bot:
        raise Refusal("not_allowed", "a bot's seat shows the robot; avatars are for people")
    if seat.avatar == avatar:
        return None
    changed = replace(seat, avatar=avatar)
    return _next(table, ReplaceSeat(changed), at, seats=_with_seat(table, changed))


def start_game(table: Table, *, seed: int, public_id: str, at: datetime, rematch: bool = False) -> Change:
    """Deal a new game (from the lobby, or a rematch once a game is finished). The store gives its id."""
    doing, expected = (
        ("start a rematch", RoomStatus.FINISHED) if rematch else ("start the game", RoomStatus.LOBBY)
    )
    _expect(table, doing, expected)
    if len(table.seats) < MIN_PLAYERS:
        raise Refusal("not_allowed", f"a game needs at least {MIN_PLAYERS} seats taken")
    assert RoomStatus.PLAYING in TRANSITIONS[expected]
    state = new_game(len(table.seats), table.options, seed)
    number = (table.game_number or 0) + 1
    write = StartGame(number, seed, table.options, table.seats, state, public_id)
    return _next(
        table,
        write,
        at,
        status=RoomStatus.PLAYING,
        game=state,
        game_id=None,
        game_number=number,
        game_seed=seed,
        game_public_id=public_id,
        seat_count=len(table.seats),
        turn_started=at,
        last_move_at=at,
        pause=NO_PAUSE,
    )


def reopen(table: Table, *, at: datetime) -> Change:
    """After a game, back to the lobby with the same people, bots and rules: the host may change seats, bots
    and house rules before starting the next game (a rematch as it is needs no lobby: ``start_game``). The
    finished game stays the table's last one (its number goes on; the lobby shows no game)."""
    _expect(table, "change the table for the next game", RoomStatus.FINISHED)
    assert RoomStatus.LOBBY in TRANSITIONS[table.status]
    return _next(table, Reopen(), at, status=RoomStatus.LOBBY, pause=NO_PAUSE)


def end_game(table: Table, *, at: datetime) -> Change:
    """The host ends the game being played, for everyone: it is recorded as ended, not won (no totals, no
    winners, left out of the standings), and the table goes back to the lobby with the same seats and rules
    (``Table.game_ended``). Approved hand-overs pass now, as at a game's end; pending requests stay for the
    host to answer in the lobby."""
    _expect(table, "end the game", RoomStatus.PLAYING)
    if table.game is None or table.game_id is None:
        raise Refusal("game_not_started", "the game has not started yet")
    assert RoomStatus.LOBBY in TRANSITIONS[table.status]
    lobby = replace(table, status=RoomStatus.LOBBY)
    handed = settle_claims(lobby, lobby.seats)
    seats = tuple(next((h for h in handed if h.index == s.index), s) for s in table.seats)
    write = EndGame(table.game_id, handed)
    return _next(table, write, at, status=RoomStatus.LOBBY, seats=seats, pause=NO_PAUSE)


def with_game_id(change: Change, game_id: int) -> Change:
    """A started game's change, once the store has given the game its id."""
    return replace(change, table=replace(change.table, game_id=game_id))


# ----- moves --------------------------------------------------------------------------------------------


def play(
    table: Table,
    *,
    seat: int,
    action: Action,
    at: datetime,
    client_id: str | None = None,
    version: int | None = None,
) -> Change:
    """A seat's move: the engine judges it; the change records it (and the round's scores, the totals)."""
    if table.game is None or table.game_id is None or table.status is RoomStatus.LOBBY:
        raise Refusal("game_not_started", "the game has not started yet")
    if version is not None and not table.play_version <= version <= table.version:
        raise Refusal(
            "stale_version",
            f"this move was made against version {version}; the table is at version {table.version}"
            f" and its game last changed at version {table.play_version}",
        )
    before = table.game
    after, events = apply(before, seat, action)
    scores = tuple(
        RoundScore(result.round, s, table.seats[s].name, penalty, result.went_out == s, table.seats[s].is_bot)
        for result in after.results[len(before.results) :]
        for s, penalty in enumerate(result.penalties)
    )
    finals: tuple[FinalTotal, ...] = ()
    status = table.status
    if after.is_over:
        assert RoomStatus.FINISHED in TRANSITIONS[table.status]
        status = RoomStatus.FINISHED
        finals = final_totals(after)
    # A discard (or going out) hands the turn on; a draw does not.
    turn_started = table.turn_started if isinstance(action, Draw) else at
    moved = replace(table, game=after, status=status)
    # A new round was just dealt (no move in it yet), or the game ended: approved seats pass now, in this
    # same change, so no bot ever makes the first move of a round whose seat is already someone's.
    handed = settle_claims(moved, moved.seats) if moved.between_rounds() or after.is_over else ()
    seats = tuple(next((h for h in handed if h.index == s.index), s) for s in table.seats)
    write = RecordMove(table.game_id, seat, action, client_id, after, scores, finals, handed)
    # A round that ends starts the pause before the next one afresh (``pause.py``).
    pause = NO_PAUSE if len(after.results) != len(before.results) else table.pause
    change = _next(
        table,
        write,
        at,
        game=after,
        status=status,
        turn_started=turn_started,
        last_move_at=at,
        seats=seats,
        pause=pause,
    )
    return replace(change, events=tuple(events))


# ----- a new table ---------------------------------------------------------------------------------------


def new_table(
    *,
    code: str,
    host: str,
    token_hash: str,
    bots: list[str],
    seat_count: int,
    options: Mapping[str, object],
    now: datetime,
    salt: str | None = None,
    address: str = "",
) -> Table:
    """A room in the lobby at version 1: the host in seat 0 (who made it from ``address``) and ``bots``
    after it. ``salt``: the table's secret for origins (``origins.new_salt``, made by the caller)."""
    if not MIN_PLAYERS <= seat_count <= MAX_PLAYERS:
        raise Refusal("bad_request", f"a table has {MIN_PLAYERS} to {MAX_PLAYERS} seats")
    if 1 + len(bots) > seat_count:
        raise Refusal("bad_request", f"{len(bots)} bots and the host do not fit in {seat_count} seats")
    checked = Options.from_dict(dict(options))
    checked.deck_count(seat_count)
    seats = (Seat(0, host, token_hash=token_hash, origin=origin_of(salt, address)),) + tuple(
        Seat(i + 1, f"Bot {i + 2}", True, level) for i, level in enumerate(bots)
    )
    return Table(
        code=code,
        status=RoomStatus.LOBBY,
        version=1,
        host_seat=0,
        seat_count=seat_count,
        options=checked,
        seats=seats,
        turn_started=now,
        last_move_at=now,
        origin_salt=salt,
    )
