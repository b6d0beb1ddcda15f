"""The bots: each level's choices on chosen hands, determinism, legality over whole games, and that the
hard bot decides from public information only."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace

import pytest

from app.engine import (
    Card,
    Discard,
    Draw,
    Event,
    GameState,
    GoOut,
    IllegalAction,
    Options,
    apply,
    legal_actions,
    make_shoe,
    min_penalty,
    new_game,
)
from app.engine.bots import (
    Knowledge,
    _after,
    _Hard,
    _pen,
    _without,
    choose_action,
    read_round_log,
)

LEVELS = ("random", "easy", "normal", "hard")


def cards(text: str) -> tuple[Card, ...]:
    return tuple(sorted(Card.parse(word) for word in text.split()))


def table(
    round_number: int,
    hand: str,
    pile: str,
    phase: str = "draw",
    players: int = 4,
    options: Options | None = None,
    went_out: int | None = None,
    final_turns: int = 0,
) -> GameState:
    """Seat 0 to play ``hand`` in round ``round_number``; the other hands and the stock are dealt from the
    rest of the shoe (seeded), ``pile`` is the discard pile (last = top)."""
    options = options or Options()
    base = new_game(players, options, seed=7)
    mine, discard = cards(hand), tuple(Card.parse(w) for w in pile.split())
    shoe = make_shoe(options.deck_count(players), options.jokers)
    for card in (*mine, *discard):
        shoe.remove(card)
    random.Random(1).shuffle(shoe)
    dealt = round_number + 2
    others = [tuple(sorted(shoe.pop() for _ in range(dealt))) for _ in range(players - 1)]
    return replace(
        base,
        round=round_number,
        dealer=players - 1,
        turn=0,
        phase=phase,  # type: ignore[arg-type]
        hands=(mine, *others),
        stock=tuple(shoe),
        discard=discard,
        went_out=went_out,
        final_turns=final_turns,
    )


def picks(state: GameState, seat: int, text: str) -> GameState:
    """``state`` with a round log in which ``seat`` took each of these cards from the discard pile and threw
    something else."""
    log: list[tuple[int, str, Card | None]] = []
    for word in text.split():
        card = Card.parse(word)
        log += [
            ((seat - 1) % 4, "discard", card),
            (seat, "draw_discard", card),
            (seat, "discard", Card.parse("2S")),
        ]
    return replace(state, round_log=tuple(log))


def knowledge_from_events(events: list[Event], seat: int, players: int) -> Knowledge:
    """An independent fold of the game's events, as ``seat`` may see them (``Event.for_seat``), into what it
    knows of the current round: what the round log in the state must give the bots too."""
    know = Knowledge()

    def reset() -> None:
        know.picked = [[] for _ in range(players)]
        know.thrown = [[] for _ in range(players)]
        know.held = [Counter() for _ in range(players)]

    reset()
    for event in events:
        data = event.for_seat(seat)
        if data["kind"] in ("round_start", "round_end"):
            reset()
        elif data["kind"] == "draw" and data.get("source") == "discard":
            card = Card.parse(str(data["card"]))
            know.picked[int(data["seat"])].append(card)
            know.held[int(data["seat"])][card] += 1
        elif data["kind"] in ("discard", "go_out"):
            card, who = Card.parse(str(data["card"])), int(data["seat"])
            know.thrown[who].append(card)
            if know.held[who][card] > 0:
                know.held[who][card] -= 1
    return know


# ------------------------------------------------------------------------------------------ the solver glue


@pytest.mark.parametrize(
    "options",
    [
        pytest.param(Options(), id="default"),  # in the quick subset; the other two in the whole suite
        pytest.param(Options(jokers=True, ace_high_low=True), id="jokers-ace", marks=pytest.mark.slow),
        pytest.param(Options(face_values="rank"), id="rank-values", marks=pytest.mark.slow),
    ],
)
def test_after_throw_penalty_matches_throwing_each_card(options: Options) -> None:
    rng = random.Random(3)
    shoe = make_shoe(2, options.jokers)
    for _ in range(400):
        hand = tuple(sorted(rng.sample(shoe, rng.randint(2, 14))))
        wild = rng.randint(3, 13)
        brute = min(min_penalty(hand[:i] + hand[i + 1 :], wild, options) for i in range(len(hand)))
        assert _after(hand, wild, options) == brute
        assert _pen(hand, wild, options) == min_penalty(hand, wild, options)
        holder = replace(new_game(2, options, seed=1), round=wild - 2, hands=(hand, ()))
        left = _Hard(holder, 0, read_round_log(holder, 0)).throws(hand)
        assert set(left) == set(hand)
        for card, penalty in left.items():
            assert penalty == min_penalty(_without(hand, card), wild, options)


# ----------------------------------------------------------------------------------------------- levels


def test_unknown_level_and_no_turn_are_refused() -> None:
    state = new_game(4, seed=1)
    with pytest.raises(IllegalAction, match="bot level"):
        choose_action(state, state.turn, "genius")
    with pytest.raises(IllegalAction, match="nothing to do"):
        choose_action(state, (state.turn + 1) % 4, "normal")


def test_random_is_uniform_over_legal_actions_and_seeded() -> None:
    state = table(2, "3C 3H 9D KH KS", "7D", phase="discard")
    legal = legal_actions(state, 0)
    chosen = [choose_action(state, 0, "random", seed) for seed in range(400)]
    assert set(chosen) == set(legal)
    assert chosen == [choose_action(state, 0, "random", seed) for seed in range(400)]


def test_easy_draws_stock_throws_its_dearest_loose_card_and_goes_out() -> None:
    assert choose_action(table(3, "AH 2H 3H 9C KD", "KS"), 0, "easy") == Draw("stock")
    # the pair of 9s and the 6-7 of hearts are kept; the king is the dearest loose card
    state = table(3, "9C 9D 6H 7H KD 2S", "4S", "discard")
    assert choose_action(state, 0, "easy") == Discard(Card.parse("KD"))
    state = table(1, "9C 9D 9S KD", "4S", "discard")
    assert choose_action(state, 0, "easy") == GoOut(Card.parse("KD"))


def test_normal_takes_a_discard_that_melds_and_refuses_one_that_does_not() -> None:
    # 9C 9D + 9H on the pile: a set, the penalty drops
    assert choose_action(table(3, "9C 9D 2S KD QS", "9H"), 0, "normal") == Draw("discard")
    # a king melds nothing and lowers nothing: draw blind
    assert choose_action(table(3, "9C 9D 2S 4D QS", "KH"), 0, "normal") == Draw("stock")
    # a low card lowers the penalty (throw the queen, keep the ace): normal takes it
    assert choose_action(table(3, "9C 9D 2S 4D QS", "AH"), 0, "normal") == Draw("discard")


def test_normal_throws_the_card_that_keeps_the_lowest_penalty_and_goes_out() -> None:
    # throwing the 10H leaves 9H 9S 2C 3D = 23, anything else leaves more
    state = table(2, "9H 10H 9S 2C 3D", "7D", "discard")
    assert choose_action(state, 0, "normal") == Discard(Card.parse("10H"))
    state = table(4, "2H 3H 4H KS KD KC 9C", "7D", "discard")  # round 4: six cards, 6s wild
    assert choose_action(state, 0, "normal") == GoOut(Card.parse("9C"))


def test_hard_goes_out_when_it_can_and_takes_the_card_that_lets_it() -> None:
    state = table(4, "2H 3H 4H KS KD KC QC", "7D", "discard")
    assert choose_action(state, 0, "hard") == GoOut(Card.parse("QC"))
    # round 2 (4s wild): the 8H completes 5H-8H, the king goes: take it, whatever a blind draw might bring
    assert choose_action(table(2, "5H 6H 7H KS", "8H"), 0, "hard") == Draw("discard")


def test_hard_keeps_flexible_partial_melds() -> None:
    # round 2 (4s wild): normal throws a king (25 left), hard throws the 9 (26 left) and keeps two pairs,
    # each a set with any of the many threes, kings and wilds still unseen
    state = table(2, "3C 3H 9D KH KS", "7D", "discard")
    assert choose_action(state, 0, "normal") == Discard(Card.parse("KH"))
    assert choose_action(state, 0, "hard") == Discard(Card.parse("9D"))
    # round 3 (5s wild): keep the 6D _ 8D gap and the pair of 2s, throw the 7 of hearts
    state = table(3, "AD 2C 2D 6D 7H 8D", "QS", "discard")
    assert choose_action(state, 0, "normal") == Discard(Card.parse("8D"))
    assert choose_action(state, 0, "hard") == Discard(Card.parse("7H"))


def test_hard_counts_the_cards_it_has_seen() -> None:
    # two decks: a pair of jacks whose other six copies are all in the discard pile is dead, a pair of
    # queens is alive; the hard bot breaks the dead pair
    dead_jacks = table(3, "JC JD QC QD 2S 3S", "JS JH JC JD JS JH 9D", "discard")
    assert choose_action(dead_jacks, 0, "hard") in (Discard(Card.parse("JC")), Discard(Card.parse("JD")))
    dead_queens = table(3, "JC JD QC QD 2S 3S", "QS QH QC QD QS QH 9D", "discard")
    assert choose_action(dead_queens, 0, "hard") in (Discard(Card.parse("QC")), Discard(Card.parse("QD")))


def test_hard_avoids_feeding_what_the_next_player_collects() -> None:
    # 10S or JD: the same 10 points and no partner either way
    state = table(5, "2C 3C 4C 8H 8D 8S 10S JD", "5D", "discard")
    assert choose_action(picks(state, 1, "JH"), 0, "hard") == Discard(Card.parse("10S"))
    assert choose_action(picks(state, 1, "10H"), 0, "hard") == Discard(Card.parse("JD"))
    # what the player after next collects does not matter as much as the penalty
    far = choose_action(picks(state, 2, "JH"), 0, "hard")
    assert far == choose_action(state, 0, "hard")


def test_hard_reads_the_round_log_in_the_state() -> None:
    state = table(5, "2C 3C 4C 8H 8D 8S 10S JD", "5D", "discard")
    log = ((1, "draw_discard", Card.parse("JH")), (1, "discard", Card.parse("2S")), (2, "draw_stock", None))
    assert choose_action(replace(state, round_log=log), 0, "hard") == Discard(Card.parse("10S"))


def test_round_log_and_events_give_the_same_knowledge() -> None:
    state = new_game(4, seed=8)
    events: list[Event] = []
    while state.round < 4:
        for seat in range(4):
            assert read_round_log(state, seat) == knowledge_from_events(events, seat, 4)
        action = choose_action(state, state.turn, "normal")
        state, new = apply(state, state.turn, action)
        events.extend(new)


def test_hard_plays_the_final_turn_for_the_lowest_penalty() -> None:
    # someone went out: no more building, throw the card that leaves the least (the king, not a 3)
    state = table(2, "3C 3H 9D KH KS", "7D", "discard", went_out=2, final_turns=2)
    assert choose_action(state, 0, "hard") == Discard(Card.parse("KH"))


# ------------------------------------------------------------------------------------ whole games, secrecy


def play(levels: tuple[str, ...], seed: int, options: Options | None = None) -> tuple[GameState, list]:
    state = new_game(len(levels), options, seed=seed)
    events: list[Event] = []
    log = []
    while not state.is_over:
        seat = state.turn
        action = choose_action(state, seat, levels[seat], seed=seed)
        assert action in legal_actions(state, seat)
        log.append((seat, action))
        state, new = apply(state, seat, action)
        events.extend(new)
    return state, log


@pytest.mark.parametrize(
    ("levels", "options"),
    [
        (("hard", "normal", "easy", "random"), Options()),
        (("random", "hard"), Options(jokers=True, ace_high_low=True)),
        (("easy", "normal", "hard"), Options(face_values="rank", jokers=True, natural_in_every_meld=True)),
    ],
)
def test_every_level_plays_only_legal_actions_and_is_deterministic(
    levels: tuple[str, ...], options: Options
) -> None:
    first, log = play(levels, 11, options)
    again, log_again = play(levels, 11, options)
    assert log == log_again and first.totals() == again.totals()
    assert len(first.results) == 11


def test_the_levels_are_ordered_over_a_few_games() -> None:
    totals = dict.fromkeys(LEVELS, 0)
    for game in range(2):
        levels = tuple(LEVELS[(seat + game) % 4] for seat in range(4))
        state, _ = play(levels, 100 + game)
        for seat, total in enumerate(state.totals()):
            totals[levels[seat]] += total
    assert totals["hard"] < totals["easy"] < totals["random"]
    assert totals["normal"] < totals["easy"]


def _hide_differently(state: GameState, seat: int, rng: random.Random) -> GameState:
    """The same table as ``seat`` sees it, with every hidden card (other hands, stock order) redealt."""
    hidden = [c for other, hand in enumerate(state.hands) if other != seat for c in hand] + list(state.stock)
    rng.shuffle(hidden)
    hands = []
    for other, hand in enumerate(state.hands):
        if other == seat:
            hands.append(hand)
        else:
            hands.append(tuple(sorted(hidden[: len(hand)])))
            del hidden[: len(hand)]
    return replace(state, hands=tuple(hands), stock=tuple(hidden))


def test_the_bots_do_not_read_hidden_cards() -> None:
    rng = random.Random(5)
    levels = ("hard", "normal", "easy", "random")
    state = new_game(4, seed=21)
    events: list[Event] = []
    checked = 0
    while not state.is_over and state.round <= 6:
        seat = state.turn
        action = choose_action(state, seat, levels[seat], seed=3)  # knowledge from state.round_log
        if levels[seat] != "random" or checked % 5 == 0:
            for _ in range(2):
                other = _hide_differently(state, seat, rng)
                assert choose_action(other, seat, levels[seat], seed=3) == action
            checked += 1
        state, new = apply(state, seat, action)
        events.extend(new)
    assert checked > 100
