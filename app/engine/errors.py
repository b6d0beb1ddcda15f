"""The engine's typed errors: every refusal is a GameError whose message says what was expected."""

from __future__ import annotations


class GameError(Exception):
    """Base of every error the engine raises on bad input; ``code`` is stable and goes on the wire."""

    code = "game_error"


class CardParseError(GameError, ValueError):
    code = "bad_card"


class OptionsError(GameError, ValueError):
    code = "bad_options"


class IllegalAction(GameError):
    code = "illegal_action"


class NotYourTurn(IllegalAction):
    code = "not_your_turn"


class WrongPhase(IllegalAction):
    code = "wrong_phase"


class CardNotInHand(IllegalAction):
    code = "card_not_in_hand"


class CannotGoOut(IllegalAction):
    code = "cannot_go_out"


class GameOver(IllegalAction):
    code = "game_over"
