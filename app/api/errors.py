"""REST errors: every refusal is JSON ``{code, message}`` with a stable code (wire codes, one mapping)."""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from starlette.exceptions import HTTPException as StarletteHTTPException

from app.engine import GameError
from app.protocol import ProtocolError, wire_error

HTTP_STATUS = {
    "room_not_found": 404,
    "game_not_found": 404,
    "not_found": 404,
    "round_not_finished": 409,
    "game_not_finished": 409,
    "bad_request": 422,
    "bad_options": 422,
    "rate_limited": 429,
    "internal_error": 500,
}


class ErrorPublic(BaseModel):
    code: str
    message: str


def error_response(exc: Exception) -> JSONResponse:
    error = wire_error(exc)
    return JSONResponse(
        {"code": error.code, "message": error.message}, status_code=HTTP_STATUS.get(error.code, 400)
    )


def install_error_handlers(app: FastAPI) -> None:
    async def on_refusal(_request: Request, exc: Exception) -> JSONResponse:
        return error_response(exc)

    async def on_validation(_request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError)
        parts = [
            f"{'.'.join(str(p) for p in err['loc'] if p != 'body')}: {err['msg']}" for err in exc.errors()[:3]
        ]
        return JSONResponse({"code": "bad_request", "message": "; ".join(parts)}, status_code=422)

    async def on_http(_request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, StarletteHTTPException)
        code = "not_found" if exc.status_code == 404 else "bad_request"
        return JSONResponse({"code": code, "message": str(exc.detail)}, status_code=exc.status_code)

    app.add_exception_handler(Exception, on_refusal)  # bugs: logged by wire_error, answered as internal_error
    app.add_exception_handler(ProtocolError, on_refusal)
    app.add_exception_handler(GameError, on_refusal)
    app.add_exception_handler(RequestValidationError, on_validation)
    app.add_exception_handler(StarletteHTTPException, on_http)
