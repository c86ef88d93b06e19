"""Application errors: each carries an HTTP status and a short code; one handler renders them.

Bodies are ``{"detail": "<message naming the problem>", "code": "<code>"}``.
"""

from __future__ import annotations

import re
from typing import Any

from fastapi import FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ConfigDict
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import compile_path

from pantheon.error_codes import ErrorCode
from pantheon.text import clean_json


class AppError(Exception):
    status_code = 400
    code: str = ErrorCode.BAD_REQUEST

    def __init__(self, message: str, *, headers: dict[str, str] | None = None, **extra: Any):
        super().__init__(message)
        self.message = message
        self.headers = headers
        self.extra = extra


class NotFound(AppError):
    status_code = 404
    code = "not_found"


class Conflict(AppError):
    status_code = 409
    code = "conflict"


class Unprocessable(AppError):
    status_code = 422
    code = "unprocessable"


class PaymentRequired(AppError):
    """402: a spend limit is reached (docs/budgets.md); the body names it and its reset."""

    status_code = 402
    code: str = ErrorCode.BUDGET_EXCEEDED


class Forbidden(AppError):
    status_code = 403
    code = "forbidden"


class Unauthorized(AppError):
    status_code = 401
    code = "unauthorized"


class TooLarge(AppError):
    status_code = 413
    code = "too_large"


class TooManyRequests(AppError):
    status_code = 429
    code: str = ErrorCode.RATE_LIMITED


class ServiceUnavailable(AppError):
    status_code = 503
    code: str = ErrorCode.UNAVAILABLE


class ErrorBody(BaseModel):
    """Every error body: a message (or FastAPI's list of validation errors) and a code."""

    model_config = ConfigDict(extra="allow")
    detail: str | list[Any]
    code: str | None = None


_DESCRIPTIONS = {
    401: "missing, invalid or revoked API key (header WWW-Authenticate: Bearer)",
    402: "a spend limit is reached: the body names it and when it resets",
    403: "the route needs an admin API key",
    404: "not found, or not yours",
    409: "conflicts with the resource's current state",
    413: "request body over PANTHEON_LIMITS__MAX_BODY_BYTES",
    422: "invalid request: the message names the field or limit",
    429: "rate limited; wait Retry-After seconds",
    503: "shutting down or the database is unavailable",
}


def error_responses(*codes: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI ``responses`` entries for these error statuses, all ``ErrorBody``."""
    return {code: {"model": ErrorBody, "description": _DESCRIPTIONS[code]} for code in codes}


def not_found(kind: str, ident: object) -> NotFound:
    return NotFound(f"{kind} {ident} not found")


async def _render(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, AppError)
    body = {"detail": exc.message, "code": exc.code, **exc.extra}
    return JSONResponse(body, status_code=exc.status_code, headers=exc.headers)


async def _render_validation(_request: Request, exc: Exception) -> JSONResponse:
    """FastAPI's 422 body, with the echoed input made encodable (it may hold lone
    surrogates or NUL, which would otherwise turn a 422 into a 500)."""
    assert isinstance(exc, RequestValidationError)
    errors = clean_json(jsonable_encoder(exc.errors()))
    return JSONResponse({"detail": errors, "code": "unprocessable"}, status_code=422)


def _allowed_methods(request: Request) -> list[str]:
    """Every method some route serves at this path (Starlette names only the first route's),
    read from the OpenAPI paths, the one public list of every route and its methods."""
    state = request.app.state
    index: list[tuple[re.Pattern[str], set[str]]] | None = getattr(state, "allow_index", None)
    if index is None:
        paths: dict[str, dict[str, Any]] = request.app.openapi()["paths"]
        index = [(compile_path(p)[0], {m.upper() for m in ops}) for p, ops in paths.items()]
        state.allow_index = index
    methods = {"OPTIONS"}
    for pattern, served in index:
        if pattern.match(request.url.path):
            methods |= served | ({"HEAD"} if "GET" in served else set())
    return sorted(methods)


async def _render_http(request: Request, exc: Exception) -> Response:
    """Starlette's HTTP errors in our shape, with three corrections: OPTIONS is answered
    (204 with ``Allow``), a 405's ``Allow`` lists every method of the path, and a body
    FastAPI could not decode is the documented 422, not an undocumented 400."""
    assert isinstance(exc, StarletteHTTPException)
    if exc.status_code == 405:
        allow = {"Allow": ", ".join(_allowed_methods(request))}
        if request.method == "OPTIONS":
            return Response(status_code=204, headers=allow)
        body = {"detail": f"method {request.method} is not allowed here", "code": "not_allowed"}
        return JSONResponse(body, status_code=405, headers=allow)
    if exc.status_code == 400 and isinstance(exc.__cause__, ValueError):
        body = {"detail": "request body is not valid UTF-8 JSON", "code": "unprocessable"}
        return JSONResponse(body, status_code=422)
    body = {"detail": exc.detail, "code": _HTTP_CODES.get(exc.status_code, "error")}
    return JSONResponse(body, status_code=exc.status_code, headers=exc.headers)


_HTTP_CODES = {404: "not_found", 408: "request_timeout", 413: "too_large"}


def install_error_handlers(app: FastAPI) -> None:
    app.add_exception_handler(AppError, _render)
    app.add_exception_handler(RequestValidationError, _render_validation)
    app.add_exception_handler(StarletteHTTPException, _render_http)
