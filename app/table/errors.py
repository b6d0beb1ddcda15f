"""Every refusal the server gives: one registry of wire codes (with their HTTP status), and ``Refusal``.

The engine's codes are read from its ``GameError`` classes, so nothing here repeats them; the wire
protocol, the REST error handler and the documentation test all derive their lists from ``REGISTRY``.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.engine import GameError


@dataclass(frozen=True, slots=True)
class ErrorCode:
    code: str
    http_status: int  # the status a REST answer with this code gets


# code -> HTTP status, for the codes that do not come from the engine.
_SERVER_CODES: dict[str, int] = {
    "bad_message": 400,
    "unknown_type": 400,
    "too_large": 413,
    "rate_limited": 429,
    "room_not_found": 404,
    "bad_token": 400,
    "not_seated": 400,
    "not_host": 400,
    "wrong_status": 400,
    "not_allowed": 400,
    "seats_full": 400,
    "already_seated": 400,
    "already_requested": 400,
    "seat_requested": 400,
    "name_taken": 400,
    "name_for_bots": 422,
    "name_mixes_scripts": 422,
    "name_kept": 403,
    "no_request": 400,
    "game_not_started": 400,
    "stale_version": 400,
    "bad_request": 422,
    "internal_error": 500,
}
_REST_ONLY: dict[str, int] = {
    "not_found": 404,
    "not_ready": 503,
    "game_not_found": 404,
    "player_not_found": 404,
    "round_not_finished": 409,
    "game_not_finished": 409,
    "bad_subscription": 422,
    # Passkeys (app.api.passkeys): the ceremonies, the session, the one-time device codes.
    "not_json": 415,
    "bad_origin": 403,
    "challenge_unknown": 400,
    "challenge_expired": 400,
    "passkey_refused": 400,
    "wrong_passkey": 403,
    "sign_count_backwards": 403,
    "not_signed_in": 401,
    "not_kept": 404,
    "bad_device_code": 400,
    "passkey_not_found": 404,
}
# Engine codes answered over REST (options given when a room is created); the others only reach sockets.
_ENGINE_HTTP = {"bad_options": 422}


def _engine_codes() -> dict[str, int]:
    codes: dict[str, int] = {}
    pending: list[type[GameError]] = [GameError]
    while pending:
        cls = pending.pop()
        pending.extend(cls.__subclasses__())
        if cls is not GameError:
            codes[cls.code] = _ENGINE_HTTP.get(cls.code, 400)
    return codes


REGISTRY: dict[str, ErrorCode] = {
    **{code: ErrorCode(code, status) for code, status in _engine_codes().items()},
    **{code: ErrorCode(code, status) for code, status in _SERVER_CODES.items()},
    **{code: ErrorCode(code, status) for code, status in _REST_ONLY.items()},  # never sent on a socket
}


class Refusal(Exception):
    """A refusal with a stable wire ``code`` (one of ``REGISTRY``) and a message for people."""

    def __init__(self, code: str, message: str) -> None:
        if code not in REGISTRY:
            raise ValueError(f"unregistered error code {code!r}")
        super().__init__(message)
        self.code = code
        self.message = message

    @property
    def http_status(self) -> int:
        return REGISTRY[self.code].http_status
