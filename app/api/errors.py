"""REST errors: every refusal is JSON ``{code, message}`` with a stable code (wire codes, one mapping)."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from starlette.exceptions import HTTPException as StarletteHTTPException

from app.engine import GameError
from app.metrics import count_error
from app.protocol import http_status, wire_error
from app.table import Refusal

from .security_headers import SECURITY_HEADERS


class ErrorPublic(BaseModel):
    """Every refusal: a stable ``code`` (docs/protocol.md, Error codes) and a message for people."""

    code: str
    message: str


def refusals(description: str) -> dict[int | str, dict[str, Any]]:
    """The ``responses`` of a router whose routes validate a body or parameters: their 422 is an
    ``ErrorPublic`` (``bad_request``…), not FastAPI's ``{detail: [...]}``."""
    return {422: {"model": ErrorPublic, "description": description}}


def error_response(exc: Exception) -> JSONResponse:
    error = wire_error(exc)
    count_error(error.code)
    return JSONResponse({"code": error.code, "message": error.message}, status_code=http_status(error.code))


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

    async def on_bug(_request: Request, exc: Exception) -> JSONResponse:
        # Answered by Starlette's outermost middleware, outside SecurityHeadersMiddleware: add them here.
        response = error_response(exc)
        response.raw_headers.extend(SECURITY_HEADERS)
        return response

    app.add_exception_handler(Exception, on_bug)  # bugs: logged by wire_error, answered as internal_error
    app.add_exception_handler(Refusal, on_refusal)
    app.add_exception_handler(GameError, on_refusal)
    app.add_exception_handler(RequestValidationError, on_validation)
    app.add_exception_handler(StarletteHTTPException, on_http)
