"""What players say at a table that changes nothing in it, answered: chat lines and reactions (said to
everyone; the room keeps each in the store before it publishes it, ``kept_chat``), and hints (to the asker
only). Values only; the room sends them."""

from __future__ import annotations

from datetime import datetime

from app.engine.hints import DrawHint
from app.engine.hints import hint as best_move
from app.protocol import ChatIn, ChatOut, HintOut, ReactIn, ReactionOut
from app.table import Refusal, Table, clean_text

from .outcomes import Asker, Reply, Said
from .render import iso


def chat_line(table: Table, seat: int | None, message: ChatIn, *, now: datetime, max_length: int) -> ChatOut:
    """A seated person's chat line, its text checked by the rules every player text follows."""
    if seat is None:
        raise Refusal("not_seated", "only players at the table can chat")
    text = clean_text(message.text, max_length=max_length, what="chat line")
    return ChatOut(seat=seat, name=table.seats[seat].name, text=text, at=iso(now))


def reaction(seat: int | None, message: ReactIn, *, now: datetime) -> ReactionOut:
    """A quick reaction from a seated person, at ``now`` (a page marks what it has read by the time)."""
    if seat is None:
        raise Refusal("not_seated", "only players at the table can react")
    return ReactionOut(seat=seat, emoji=message.emoji, at=iso(now))


def hint(table: Table, seat: int | None) -> HintOut:
    """The best move for a seated person with a game in play: the pile to draw from, then the discard that
    leaves the fewest points. Where the table has hints on, every player may ask; a seat played for practice
    (left out of the standings) may ask at any table, so a newcomer's coach works wherever they practise."""
    if seat is None:
        raise Refusal("not_seated", "only players at the table get hints")
    game = table.playing
    if game is None:
        raise Refusal("wrong_status", "there is no game in play to give a hint for")
    found = best_move(game, seat, allowed=game.options.hints or table.seats[seat].practice)
    if isinstance(found, DrawHint):
        card = None if found.card is None else str(found.card)
        return HintOut(draw=found.source, card=card, go_out=found.go_out, penalty=found.penalty)
    return HintOut(card=str(found.card), go_out=found.go_out, penalty=found.penalty)


def chat(table: Table, message: ChatIn, asker: Asker, *, now: datetime, max_length: int) -> Said:
    """A chat line to everyone at the table, counted against the seat's chat."""
    line = chat_line(table, asker.seat, message, now=now, max_length=max_length)
    return Said("chat", line, limit=("chat", line.seat))


def react(message: ReactIn, asker: Asker, *, now: datetime) -> Said:
    """A quick reaction to everyone at the table, counted with the seat's chat lines."""
    said = reaction(asker.seat, message, now=now)
    return Said("reaction", said, limit=("chat", said.seat))


class Hints:
    """The hint of each seat at one version of the table (and one game state: a reload may bring another
    at the same version): one search per seat and version however often asked."""

    def __init__(self) -> None:
        self.version, self._game = -1, object()
        self._hints: dict[int, HintOut] = {}

    def of(self, table: Table, seat: int | None) -> Reply:
        """The best move, to the asker only (see ``hint``)."""
        if table.version != self.version or table.game is not self._game:
            self.version, self._game = table.version, table.game
            self._hints.clear()
        found = self._hints.get(seat) if seat is not None else None
        if found is None:
            found = hint(table, seat)
            self._hints[seat] = found  # type: ignore[index]  # hint refused a spectator
        return Reply(found)
