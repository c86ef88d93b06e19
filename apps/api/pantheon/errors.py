"""Application errors: each carries an HTTP status and a short code; one handler renders them.

Bodies are ``{"detail": "<message naming the problem>", "code": "<code>"}``.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict


class AppError(Exception):
    status_code = 400
    code = "bad_request"

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


class Forbidden(AppError):
    status_code = 403
    code = "forbidden"


class Unauthorized(AppError):
    status_code = 401
    code = "unauthorized"


class TooManyRequests(AppError):
    status_code = 429
    code = "rate_limited"


class ServiceUnavailable(AppError):
    status_code = 503
    code = "unavailable"


class ErrorBody(BaseModel):
    """Every error body: a message (or FastAPI's list of validation errors) and a code."""

    model_config = ConfigDict(extra="allow")
    detail: str | list[Any]
    code: str | None = None


_DESCRIPTIONS = {
    401: "missing, invalid or revoked API key (header WWW-Authenticate: Bearer)",
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


def install_error_handlers(app: FastAPI) -> None:
    app.add_exception_handler(AppError, _render)
