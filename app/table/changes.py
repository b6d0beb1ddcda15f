"""What a command produces: the next table, the one write that makes it durable, and what to publish.

Writes are plain values; the store (the only place with SQL) turns each into statements, moving the room from
``table.version - 1`` to ``table.version`` or refusing a stale version.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime

from app.engine import Action, Event, GameState, Options

from .table import Seat, Table


@dataclass(frozen=True, slots=True)
class RoundScore:
    round: int
    seat: int
    name: str
    penalty: int
    went_out: bool = False  # this seat went out first in the round
    bot: bool = False  # a bot played the seat at the round's end (handed over, left, or a bot's seat)


@dataclass(frozen=True, slots=True)
class FinalTotal:
    """A seat's total at the game's end and how it did (the engine says who won: the lowest totals, a tie
    sharing the win). ``place``: 1 + the seats with a lower total; ``win``: the seat's share of the win (1/k
    of k tied winners, else 0); ``rounds_out_first``: rounds it went out first; ``perfect``: every one."""

    seat: int
    total: int
    won: bool
    win: float = 0.0
    place: int = 1
    rounds_out_first: int = 0
    perfect: bool = False


def final_totals(game: GameState) -> tuple[FinalTotal, ...]:
    """Every seat's ``FinalTotal`` of a finished game."""
    totals, winners = game.totals(), game.winners()
    outs = [sum(1 for r in game.results if r.went_out == seat) for seat in range(game.players)]
    return tuple(
        FinalTotal(
            seat,
            total,
            seat in winners,
            win=1 / len(winners) if seat in winners else 0.0,
            place=1 + sum(1 for other in totals if other < total),
            rounds_out_first=outs[seat],
            perfect=bool(game.results) and outs[seat] == len(game.results),
        )
        for seat, total in enumerate(totals)
    )


@dataclass(frozen=True, slots=True)
class AddSeat:
    seat: Seat


@dataclass(frozen=True, slots=True)
class ReplaceSeat:
    """Someone else sits at ``seat.index`` (a person handed to a bot, a bot's seat taken by a person).
    ``handed``: the host handed a person's seat to a bot during a game (that game then counts for nobody at
    that seat; a person who leaves of their own accord is not ``handed``)."""

    seat: Seat
    handed: bool = False


@dataclass(frozen=True, slots=True)
class RemoveSeat:
    """The seat goes; the seats above it move down by one (a game needs seats 0..n-1)."""

    index: int


@dataclass(frozen=True, slots=True)
class SetHost:
    """The host role moves to ``seat`` (handed over by the host, or because the host was gone)."""

    seat: int


@dataclass(frozen=True, slots=True)
class SetLobby:
    options: Options
    seat_count: int


@dataclass(frozen=True, slots=True)
class Reopen:
    """A finished table goes back to the lobby (the same seats and rules, for the host to change before the
    next game); the finished game stays in the history."""


@dataclass(frozen=True, slots=True)
class StartGame:
    """A new game becomes the room's current one; the store gives it its id."""

    number: int
    seed: int
    options: Options
    players: tuple[Seat, ...]
    state: GameState
    public_id: str  # the game's id in public URLs: random, drawn outside the pure core like the seed


@dataclass(frozen=True, slots=True)
class RecordMove:
    """One accepted move: its log row, the game's snapshot, the round scores it settled, the totals."""

    game_id: int
    seat: int
    action: Action
    client_id: str | None
    state: GameState
    round_scores: tuple[RoundScore, ...] = ()
    final_totals: tuple[FinalTotal, ...] = ()  # set when the move ended the game
    # Seats that change with this move: approved hand-overs at a new round (or the game's end), and
    # requests dropped when the game ends.
    seats: tuple[Seat, ...] = ()


@dataclass(frozen=True, slots=True)
class EndGame:
    """The host ended the game being played before it was over: it is recorded as ended (no totals, no
    winners, never in the standings) and the table goes back to the lobby with the same seats. ``seats``:
    approved hand-overs, which pass now as at a game's end."""

    game_id: int
    seats: tuple[Seat, ...] = ()


Write = AddSeat | ReplaceSeat | RemoveSeat | SetHost | SetLobby | Reopen | StartGame | RecordMove | EndGame


@dataclass(frozen=True, slots=True)
class Change:
    """The table after a command (version + 1), its write, and what every socket must hear about."""

    table: Table
    write: Write
    at: datetime
    events: tuple[Event, ...] = ()
    # old seat -> new seat (None: that seat's sockets now watch), for seats that moved or left
    seat_moves: Mapping[int, int | None] = field(default_factory=dict)
    auto: bool = False  # the server played this move for a person (their turn timer ran out, or away)

    @property
    def from_version(self) -> int:
        return self.table.version - 1

    @property
    def seats_taken(self) -> tuple[int, ...]:
        """The seats this change gave to a person (added, a bot's seat passed to an approved request, or one
        handed over at a new round)."""
        write = self.write
        if isinstance(write, AddSeat):
            return (write.seat.index,)
        if isinstance(write, ReplaceSeat):
            return () if write.seat.is_bot else (write.seat.index,)
        if isinstance(write, RecordMove | EndGame):
            return tuple(s.index for s in write.seats if not s.is_bot)
        return ()
