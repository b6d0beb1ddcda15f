"""What players say at a table that changes nothing in it: chat lines, reactions, and hints (values only;
the room sends them)."""

from __future__ import annotations

from datetime import datetime

from app.engine.hints import hint as best_discard
from app.protocol import ChatIn, ChatOut, HintOut, ReactIn, ReactionOut
from app.table import Refusal, Table, clean_text

from .render import iso


def chat_line(table: Table, seat: int | None, message: ChatIn, *, now: datetime, max_length: int) -> ChatOut:
    """A seated person's chat line, its text checked by the rules every player text follows."""
    if seat is None:
        raise Refusal("not_seated", "only players at the table can chat")
    text = clean_text(message.text, max_length=max_length, what="chat line")
    return ChatOut(seat=seat, name=table.seats[seat].name, text=text, at=iso(now))


def reaction(seat: int | None, message: ReactIn) -> ReactionOut:
    """A quick reaction from a seated person."""
    if seat is None:
        raise Refusal("not_seated", "only players at the table can react")
    return ReactionOut(seat=seat, emoji=message.emoji)


def hint(table: Table, seat: int | None) -> HintOut:
    """The discard that leaves the fewest points, for a seated person with a game in play."""
    if seat is None:
        raise Refusal("not_seated", "only players at the table get hints")
    game = table.playing
    if game is None:
        raise Refusal("wrong_status", "there is no game in play to give a hint for")
    found = best_discard(game, seat)
    return HintOut(card=str(found.card), go_out=found.go_out, penalty=found.penalty)
