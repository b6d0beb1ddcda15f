"""The solver is exactly optimal: RULES.md's worked examples, the shared vectors, and tens of thousands of
seeded hands checked against the independent brute-force oracle in ``oracle.py``."""

from __future__ import annotations

import json
import os
import random
import sys
from collections import Counter
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from oracle import Oracle, meld_kinds, oracle_go_out_discards, run_in_table_order  # noqa: E402

from app.engine.cards import JOKER, RANK_NAMES, SUITS, Card, make_shoe  # noqa: E402
from app.engine.errors import CardParseError, OptionsError  # noqa: E402
from app.engine.options import Options  # noqa: E402
from app.engine.solver import (  # noqa: E402
    arrange_and_go_out,
    best_arrangement,
    go_out_discards,
    min_penalty,
    min_penalty_after_discard,
)

VECTORS = Path(__file__).parents[2].parent / "shared/vectors/min-penalty.json"


def cards(text: str) -> list[Card]:
    return [Card.parse(word) for word in text.split()]


# --------------------------------------------------------------------------- RULES.md worked examples

ACE_HIGH = Options(ace_high_low=True)


@pytest.mark.parametrize(
    ("hand", "wild", "options", "penalty", "melds"),
    [
        ("9H 4D KS", 3, Options(), 23, []),
        ("9C 9H 9D", 3, Options(), 0, [("set", "9C 9H 9D")]),
        ("4C 5C 6C", 3, Options(), 0, [("run", "4C 5C 6C")]),
        ("6H 7H 8H 9H 10H JH", 8, Options(), 0, [("run", "6H 7H 8H 9H 10H JH")]),
        ("QH KH AH", 3, Options(), 21, []),
        ("QH KH AH", 3, ACE_HIGH, 0, [("run", "QH KH AH")]),
        ("QH KH 3S", 3, Options(), 0, [("run", "3S QH KH")]),
        ("5H 3S 9C", 3, Options(), 17, []),
        ("5H 5D 3S 9C 9D", 3, Options(), 10, [("set", "9C 9D 3S")]),
    ],
)
def test_worked_examples(hand: str, wild: int, options: Options, penalty: int, melds: list) -> None:
    arrangement = best_arrangement(cards(hand), wild, options)
    assert arrangement.penalty == penalty
    assert min_penalty(cards(hand), wild, options) == penalty
    assert Oracle(cards(hand), wild, options).best()[0] == penalty
    got = sorted((meld.kind, sorted(meld.cards)) for meld in arrangement.melds)
    assert got == sorted((kind, sorted(cards(text))) for kind, text in melds)
    melded = {card for meld in arrangement.melds for card in meld.cards}
    assert Counter(arrangement.deadwood) == Counter(card for card in cards(hand) if card not in melded)
    for kind, text in melds:
        if kind == "run":  # a run is shown low to high, the wild in the place it fills
            assert [meld.cards for meld in arrangement.melds] == [tuple(cards(text))]


def test_worked_example_wild_as_itself_in_a_run() -> None:
    """The 8H of round 6 is wild, and stands as itself in 6H..JH."""
    (run,) = best_arrangement(cards("JH 8H 10H 6H 9H 7H"), 8, Options()).melds
    assert run.cards == tuple(cards("6H 7H 8H 9H 10H JH"))


# --------------------------------------------------------------------------- shared vectors


def _load_vectors() -> list[dict]:
    if not VECTORS.is_file():
        if os.environ.get("CI"):
            pytest.fail(f"the shared vectors are missing: {VECTORS}")
        pytest.skip(f"no shared vectors at {VECTORS}")
    return json.loads(VECTORS.read_text(encoding="utf-8"))


def _vector_options(raw: dict) -> Options:
    return Options(
        jokers=raw["jokers"],
        ace_high_low=raw["ace_high_low"],
        face_values=raw["face_values"],
        joker_points=raw["joker_points"],
        natural_in_every_meld=raw["natural_in_every_meld"],
    )


def test_shared_min_penalty_vectors() -> None:
    vectors = _load_vectors()
    assert len(vectors) >= 400
    wrong = []
    for number, entry in enumerate(vectors):
        hand = [Card.parse(text) for text in entry["hand"]]
        options = _vector_options(entry["options"])
        expected = entry["min_penalty"]
        solver = min_penalty(hand, entry["wild_rank"], options)
        arranged = best_arrangement(hand, entry["wild_rank"], options).penalty
        oracle = Oracle(hand, entry["wild_rank"], options).best()[0]
        if not solver == arranged == oracle == expected:
            wrong.append((number, entry, solver, arranged, oracle))
    assert not wrong, f"{len(wrong)} vector(s) differ, first: {wrong[0]}"


# --------------------------------------------------------------------------- seeded random hands

COMBOS = [
    (jokers, ace, face, natural)
    for jokers in (False, True)
    for ace in (False, True)
    for face in ("ten", "rank")
    for natural in (False, True)
]


def case_for(seed: int) -> tuple[list[Card], int, Options]:
    """One seeded hand: the seed picks the option combination and the round (so a run of seeds covers
    them all), the rest is drawn; about a third of the hands are built around near-melds and wilds."""
    rng = random.Random(seed)
    jokers, ace, face, natural = COMBOS[seed % len(COMBOS)]
    round_number = (seed // len(COMBOS)) % 11 + 1
    wild = round_number + 2
    size = round_number + 2 + rng.choice((0, 1))
    options = Options(
        decks=rng.randint(1, 4),
        jokers=jokers,
        ace_high_low=ace,
        face_values=face,
        joker_points=rng.choice((15, 15, 0, 25, 50)),
        natural_in_every_meld=natural,
    )
    shoe = make_shoe(options.decks or 1, jokers)
    rng.shuffle(shoe)
    style = rng.random()
    if style < 0.65:
        hand = shoe[:size]
    else:
        hand = _meld_rich(rng, shoe, size, wild, options, many_wilds=style > 0.88)
    rng.shuffle(hand)
    return hand, wild, options


def _take(shoe: list[Card], card: Card) -> bool:
    if card in shoe:
        shoe.remove(card)
        return True
    return False


def _take_wild(rng: random.Random, shoe: list[Card], wild: int) -> Card | None:
    wilds = [card for card in shoe if card.is_joker or card.rank == wild]
    if not wilds:
        return None
    card = rng.choice(wilds)
    shoe.remove(card)
    return card


def _draw_meld(
    rng: random.Random, shoe: list[Card], length: int, wild: int, options: Options, wild_share: float
) -> list[Card]:
    """Cards of one set or run of ``length`` (fewer when the shoe runs out); some places filled by wilds."""
    if rng.random() < 0.4:
        rank = rng.randint(1, 13)
        wanted = [Card(rank, rng.choice(SUITS)) for _ in range(length)]
    else:
        top = 14 if options.ace_high_low else 13
        length = min(length, 13)
        low = rng.randint(1, top - length + 1)
        suit = rng.choice(SUITS)
        wanted = [Card(1 if place == 14 else place, suit) for place in range(low, low + length)]
    got = []
    for card in wanted:
        if rng.random() < wild_share or not _take(shoe, card):
            card = _take_wild(rng, shoe, wild)
            if card is None:
                continue
        got.append(card)
    return got


def _meld_rich(
    rng: random.Random, shoe: list[Card], size: int, wild: int, options: Options, many_wilds: bool
) -> list[Card]:
    hand: list[Card] = []
    if many_wilds:
        if options.jokers and rng.random() < 0.4:  # jokers, no card of the wild rank: the natural rule bites
            shoe[:] = [card for card in shoe if card.rank != wild]
        for _ in range(rng.randint(2, max(2, size // 2 + 1))):
            card = _take_wild(rng, shoe, wild)
            if card is not None:
                hand.append(card)
    while len(hand) < size:
        meld = _draw_meld(rng, shoe, rng.randint(3, 6), wild, options, 0.15)
        if meld and rng.random() < 0.6:
            meld.pop(rng.randrange(len(meld)))  # a near-meld
        hand.extend(meld[: size - len(hand)])
        if (not meld or rng.random() < 0.3) and len(hand) < size:
            hand.append(shoe.pop())
    return hand


def check_arrangement(hand: list[Card], wild: int, options: Options, seed: object) -> None:
    """The solver's answer for one hand against the oracle, and its structural properties."""
    where = f"seed {seed}: hand {' '.join(map(str, hand))} wild {wild} {options}"
    penalty, deadwood_count = Oracle(hand, wild, options).best()
    arrangement = best_arrangement(hand, wild, options)
    assert arrangement.penalty == penalty, where
    assert min_penalty(hand, wild, options) == penalty, where
    # the melds and the deadwood are exactly the hand
    used = [card for meld in arrangement.melds for card in meld.cards] + list(arrangement.deadwood)
    assert Counter(used) == Counter(hand), where
    for meld in arrangement.melds:
        assert meld.kind in meld_kinds(meld.cards, wild, options), f"{where}: bad meld {meld}"
        if meld.kind == "run":
            assert run_in_table_order(meld.cards, wild, options), f"{where}: run out of order {meld}"
    assert arrangement.penalty == sum(options.points(card) for card in arrangement.deadwood), where
    # ties go to more melded cards
    assert len(arrangement.deadwood) == deadwood_count, where
    # the order of the cards does not matter
    shuffled = list(hand)
    random.Random(repr(seed)).shuffle(shuffled)
    assert best_arrangement(shuffled, wild, options) == arrangement, where


def chunks(count: int, quick: int = 1) -> list[object]:
    """A brute-force comparison's chunks of seeds: the first ``quick`` in the quick subset, the others
    ``slow`` (the whole suite runs every one)."""
    return [pytest.param(chunk, marks=[pytest.mark.slow] if chunk >= quick else []) for chunk in range(count)]


CHUNKS = 100
CHUNK_SIZE = 200  # 20,000 hands in all


@pytest.mark.parametrize("chunk", chunks(CHUNKS, quick=10))  # 2,000 hands in the quick subset
def test_solver_matches_oracle(chunk: int) -> None:
    for seed in range(chunk * CHUNK_SIZE, (chunk + 1) * CHUNK_SIZE):
        hand, wild, options = case_for(seed)
        check_arrangement(hand, wild, options, seed)


def test_random_hands_cover_every_round_and_option() -> None:
    """The seeded hands span every round, both hand sizes and every option combination, and a good
    share of them is hard: three or more wilds, most cards melded, or a hand that goes out."""
    seen = set()
    many_wilds = 0
    sample = CHUNKS * CHUNK_SIZE // 5
    for seed in range(sample):
        hand, wild, options = case_for(seed)
        combo = (options.jokers, options.ace_high_low, options.face_values, options.natural_in_every_meld)
        seen.add((wild, len(hand) - wild) + combo)
        many_wilds += sum(1 for card in hand if card.is_joker or card.rank == wild) >= 3
    assert len(seen) == 11 * 2 * len(COMBOS)
    assert many_wilds >= sample // 8
    mostly_melded = zero = 0
    for seed in range(500):
        hand, wild, options = case_for(seed)
        penalty, unmelded = Oracle(hand, wild, options).best()
        mostly_melded += 2 * unmelded <= len(hand)
        zero += penalty == 0
    assert mostly_melded >= 150 and zero >= 50


def test_hard_cases() -> None:
    """Hands picked by hand: many wilds, long runs, the natural-meld rule, ace high, duplicates."""
    both = Options(jokers=True, ace_high_low=True, natural_in_every_meld=True)
    for text, wild, options in [
        ("JK JK JK", 3, Options(jokers=True)),
        ("JK JK JK", 3, Options(jokers=True, natural_in_every_meld=True)),
        ("JK JK 3S", 3, Options(jokers=True, natural_in_every_meld=True)),
        ("JK JK JK JK 5H", 3, Options(jokers=True, natural_in_every_meld=True)),
        ("KS KH KD KC KS KH KD KC JK JK JK JK JK JK", 13, Options(decks=4, jokers=True)),
        ("KS KH KD KC KS KH KD KC JK JK JK JK JK JK", 13, both),
        ("AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH", 3, Options(decks=2, ace_high_low=True)),
        ("AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH", 3, Options(decks=2)),
        ("QH KH AH 2H 3H", 7, Options(ace_high_low=True)),
        ("KH AH 2H JK", 7, Options(jokers=True, ace_high_low=True)),
        ("2H 4H 6H 8H 10H QH JK JK JK JK JK", 3, Options(decks=3, jokers=True)),
        ("5H 5H 5H 6H 6H 6H 7H 7H 7H 8S", 13, Options(decks=3)),
        ("7S 7S 7H 8H 9H 9H 10H JK", 13, both),
        ("AS AS AH AH AD AD 2S 2H 2D 3S 3H 3D KS KH", 12, both),
    ]:
        check_arrangement(cards(text), wild, options, text)


# --------------------------------------------------------------------------- going out


def going_out_hand(seed: int) -> tuple[list[Card], int, Options]:
    """A 14-card hand; two in three are built as 13 melded cards plus one, the rest drawn at random."""
    rng = random.Random(seed)
    jokers, ace, face, natural = COMBOS[seed % len(COMBOS)]
    wild = rng.choice((13, 13, 13) + tuple(range(3, 13)))
    options = Options(
        decks=rng.randint(1, 4),
        jokers=jokers,
        ace_high_low=ace,
        face_values=face,
        joker_points=rng.choice((15, 0, 25)),
        natural_in_every_meld=natural,
    )
    shoe = make_shoe(options.decks or 1, jokers)
    rng.shuffle(shoe)
    if seed % 3 == 0:
        return shoe[:14], wild, options
    hand: list[Card] = []
    left = 13
    while left:
        length = left if left <= 6 else rng.randint(3, min(7, left - 3))
        hand.extend(_draw_meld(rng, shoe, length, wild, options, 0.1))
        left -= length
    while len(hand) < 14:
        hand.append(shoe.pop())
    rng.shuffle(hand)
    return hand, wild, options


GO_OUT_CHUNKS = 8
GO_OUT_CHUNK_SIZE = 250


@pytest.mark.parametrize("chunk", chunks(GO_OUT_CHUNKS))
def test_go_out_discards_match_brute_force(chunk: int) -> None:
    can_go_out = 0
    for seed in range(chunk * GO_OUT_CHUNK_SIZE, (chunk + 1) * GO_OUT_CHUNK_SIZE):
        hand, wild, options = going_out_hand(seed)
        expected = oracle_go_out_discards(hand, wild, options)
        got = go_out_discards(hand, wild, options)
        where = f"seed {seed}: hand {' '.join(map(str, hand))} wild {wild} {options}"
        assert len(got) == len(set(got)), where
        assert set(got) == expected, where
        can_go_out += bool(expected)
    assert can_go_out >= GO_OUT_CHUNK_SIZE // 3  # the constructed hands really exercise going out


@pytest.mark.parametrize("chunk", chunks(4))
def test_one_search_gives_the_arrangement_and_the_go_outs_of_separate_searches(chunk: int) -> None:
    """``arrange_and_go_out`` shares one search between the two answers; each is the separate search's."""
    going_out = 0
    for seed in range(chunk * 150, (chunk + 1) * 150):
        hand, wild, options = going_out_hand(seed)
        arrangement, cards = arrange_and_go_out(hand, wild, options)
        assert arrangement == best_arrangement(hand, wild, options), seed
        assert cards == go_out_discards(hand, wild, options), seed
        going_out += bool(cards)
    assert going_out >= 50  # the hands exercise both answers


@pytest.mark.parametrize("chunk", chunks(2))
def test_min_penalty_after_discard_is_the_best_throw(chunk: int) -> None:
    for seed in range(chunk * 300, (chunk + 1) * 300):
        hand, wild, options = going_out_hand(seed) if seed % 2 else case_for(seed)
        oracle = Oracle(hand, wild, options)
        expected = min(oracle.best(hand[:k] + hand[k + 1 :])[0] for k in range(len(hand)))
        assert min_penalty_after_discard(hand, wild, options) == expected, f"seed {seed}"


# --------------------------------------------------------------------------- cards and options


def test_every_card_round_trips() -> None:
    every = [Card(rank, suit) for suit in SUITS for rank in range(1, 14)] + [JOKER]
    assert len(set(every)) == 53
    for card in every:
        text = str(card)
        assert Card.parse(text) == card
        assert Card.parse(text.lower()) == card
        assert str(Card.parse(text)) == text
    assert [str(Card(rank, "H")) for rank in range(1, 14)] == [name + "H" for name in RANK_NAMES]
    assert str(JOKER) == "JK"


@pytest.mark.parametrize("bad", ["", "1H", "11S", "1OH", "XH", "10X", "J", "JKK", "Z", "AS2", "H10", "10 H"])
def test_card_parse_errors_name_the_text(bad: str) -> None:
    with pytest.raises(CardParseError) as info:
        Card.parse(bad)
    assert repr(bad) in str(info.value)


def test_card_parse_refuses_non_text() -> None:
    with pytest.raises(CardParseError, match="10"):
        Card.parse(10)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("fields", "named"),
    [
        ({"decks": 0}, "decks"),
        ({"decks": 5}, "decks"),
        ({"decks": True}, "decks"),
        ({"decks": "2"}, "decks"),
        ({"jokers": "yes"}, "jokers"),
        ({"ace_high_low": 1}, "ace_high_low"),
        ({"natural_in_every_meld": None}, "natural_in_every_meld"),
        ({"face_values": "royal"}, "face_values"),
        ({"joker_points": -1}, "joker_points"),
        ({"joker_points": 51}, "joker_points"),
        ({"joker_points": True}, "joker_points"),
        ({"joker_points": 1.5}, "joker_points"),
        ({"turn_timer": 45}, "turn_timer"),
    ],
)
def test_options_validation_errors(fields: dict, named: str) -> None:
    with pytest.raises(OptionsError, match=named):
        Options(**fields)
    with pytest.raises(OptionsError, match=named):
        Options.from_dict(fields)


def test_options_refuse_unknown_names() -> None:
    with pytest.raises(OptionsError, match="wild_jacks"):
        Options.from_dict({"wild_jacks": True})
    assert Options.from_dict({}) == Options()
