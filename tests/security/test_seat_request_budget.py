"""Issue 23: the budget of seat requests at one table (``SeatRequestGuard``): per table, per client address,
the cool-down after a decline, and since when a request has had nobody behind it."""

from __future__ import annotations

import pytest

from app.rooms.limits import SeatRequestGuard
from app.table import Refusal
from app.table import commands as c
from tests.rooms.fakes import ManualClock


def guard(clock: ManualClock) -> SeatRequestGuard:
    return SeatRequestGuard(per_table=5, per_address=2, cool_down=30, clock=clock)


def refused(check: SeatRequestGuard, address: str, token: str | None = None) -> str:
    with pytest.raises(Refusal) as caught:
        check.check(address, token)
    return caught.value.message


def test_a_table_takes_so_many_requests_in_all_and_from_one_address_per_window() -> None:
    clock = ManualClock()
    budget = guard(clock)
    for n in range(2):
        budget.check("a")
        budget.spent("a", f"a{n}")
    assert "your address" in refused(budget, "a")
    for n in range(3):  # other addresses fill the table's budget
        budget.check(f"b{n}")
        budget.spent(f"b{n}", f"b{n}")
    assert "this table" in refused(budget, "c")
    clock.t += 10.5  # the window moved on
    budget.check("a")
    budget.check("c")


def test_a_declined_asker_cools_down_by_address_and_token_but_a_former_player_does_not() -> None:
    clock = ManualClock()
    budget = guard(clock)
    budget.spent("a", "tok")
    budget.declined("tok")
    assert "said no" in refused(budget, "a")
    assert "said no" in refused(budget, "elsewhere", "tok")
    budget.check("a", awaits_host=False)  # taking back one's own seat needs no answer
    budget.check("b")
    clock.t += 30.5
    budget.check("a", "tok")


def test_a_pending_request_is_unattended_from_when_nobody_is_behind_it() -> None:
    clock = ManualClock()
    budget = guard(clock)
    table = c.new_table(
        code="ABCD2345",
        host="H",
        token_hash="h",
        bots=["easy", "easy"],
        seat_count=3,
        options={},
        now=clock.now(),
    )
    table = c.request_seat(table, index=1, name="Eve", token_hash="e", at=clock.now()).table  # type: ignore[union-attr]
    table = c.request_seat(table, index=2, name="Fay", token_hash="f", at=clock.now()).table  # type: ignore[union-attr]
    first_seen = clock.now()
    assert budget.waiting(table, attended={1, 2}, now=first_seen) == {}
    clock.t += 5
    budget.unattended("e", clock.now())
    assert budget.waiting(table, attended={2}, now=clock.now()) == {1: clock.now()}
    assert budget.waiting(table, attended=set(), now=clock.now()) == {1: clock.now(), 2: first_seen}
    approved = c.approve_seat(table, index=1, at=clock.now()).table
    assert budget.waiting(approved, attended={2}, now=clock.now()) == {}
