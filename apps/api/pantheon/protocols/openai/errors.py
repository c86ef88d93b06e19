"""Errors in OpenAI's shape, only under ``/openai/v1``.

OpenAI clients parse ``{"error": {"message", "type", "param", "code"}}``; the native API
keeps ``{"detail", "code"}``. Rather than a global exception handler (which would have to
tell the two apart by path), the facade's routes use ``OpenAIRoute``, which renders every
``AppError``, validation error and ``HTTPException`` raised while handling them, including
those of the authentication and rate-limit dependencies. Native 422s become 400s, as
OpenAI answers invalid requests with 400.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from pydantic import BaseModel
from starlette.exceptions import HTTPException

from pantheon.error_codes import ErrorCode
from pantheon.errors import AppError, Conflict, NotFound, body_error

FACADE_PREFIX = "/openai/v1"

# OpenAI's ``type`` per status, and the ``code`` used when the error names none.
_TYPES: dict[int, tuple[str, str]] = {
    400: ("invalid_request_error", "invalid_request"),
    401: ("authentication_error", "invalid_api_key"),
    402: ("insufficient_quota", "insufficient_quota"),
    403: ("permission_error", "forbidden"),
    404: ("invalid_request_error", "not_found"),
    405: ("invalid_request_error", "method_not_allowed"),
    409: ("invalid_request_error", "conflict"),
    413: ("invalid_request_error", "request_too_large"),
    429: ("rate_limit_error", "rate_limit_exceeded"),
    500: ("server_error", "internal_error"),
    502: ("server_error", "turn_failed"),
    503: ("server_error", "unavailable"),
}
# Pantheon's codes that OpenAI clients know under another name.
_CODES: dict[str, str] = {
    "unprocessable": "invalid_request",
    "unauthorized": "invalid_api_key",
    ErrorCode.RATE_LIMITED: "rate_limit_exceeded",
    "too_large": "request_too_large",
    ErrorCode.BAD_REQUEST: "invalid_request",
    ErrorCode.BUDGET_EXCEEDED: "insufficient_quota",
}


class InvalidRequest(AppError):
    """400: the request cannot be served as sent; the message names the field (and
    ``param=`` names it for OpenAI's ``param``)."""

    status_code = 400
    code = "invalid_request"


class ModelNotFound(NotFound):
    code = "model_not_found"


class SessionBusy(Conflict):
    code = "session_busy"


class QuotaExhausted(AppError):
    """402: a spend limit ran out during the turn, before it had an answer; not a 5xx,
    which OpenAI's SDKs would retry as a new turn (they do not retry 402)."""

    status_code = 402
    code = "insufficient_quota"


class TurnFailed(AppError):
    """502: the turn ran but produced nothing a person could read."""

    status_code = 502
    code = "turn_failed"


class TurnBroken(AppError):
    """500: the turn could not run (its stream ended with an ``error`` event)."""

    status_code = 500
    code: str = ErrorCode.INTERNAL_ERROR


class OpenAIErrorDetail(BaseModel):
    message: str
    type: str
    param: str | None = None
    code: str | None = None


class OpenAIErrorBody(BaseModel):
    """Every error under ``/openai/v1``."""

    error: OpenAIErrorDetail


def error_body(
    status: int, message: str, code: str | None = None, param: str | None = None
) -> dict[str, Any]:
    """``{"error": {...}}`` for ``status``; ``code`` defaults to the status' usual one;
    ``param`` names the offending request field, when there is one."""
    status = 400 if status == 422 else status
    kind, default_code = _TYPES.get(
        status, ("server_error" if status >= 500 else "invalid_request_error", "error")
    )
    chosen = _CODES.get(code, code) if code else default_code
    detail = OpenAIErrorDetail(message=message, type=kind, param=param, code=chosen)
    return {"error": detail.model_dump()}


def openai_shape(status: int, message: str, _code: str) -> tuple[int, dict[str, Any]]:
    """An error answered outside a facade route (a 405, the body limit's 413 ...) in
    OpenAI's shape, with OpenAI's code for the status; registered by protocols/doors.py."""
    status = 400 if status == 422 else status
    return status, error_body(status, message)


def error_response(
    status: int,
    message: str,
    code: str | None = None,
    headers: dict[str, str] | None = None,
    param: str | None = None,
) -> JSONResponse:
    status = 400 if status == 422 else status
    body = error_body(status, message, code, param)
    return JSONResponse(body, status_code=status, headers=headers)


def _where(error: dict[str, Any]) -> str:
    return ".".join(str(part) for part in error.get("loc", ()) if part != "body")


def _validation_response(exc: RequestValidationError) -> JSONResponse:
    errors = list(exc.errors())
    problems = [f"{_where(e) or 'body'}: {e.get('msg', 'invalid')}" for e in errors[:5]]
    message = "invalid request body: " + "; ".join(problems)
    return error_response(400, message, param=(_where(errors[0]) or None) if errors else None)


def render(exc: Exception) -> Response:
    """The OpenAI-shaped response for an error raised while handling a facade request."""
    if isinstance(exc, AppError):
        param = exc.extra.get("param")
        return error_response(exc.status_code, exc.message, exc.code, exc.headers, param)
    if isinstance(exc, RequestValidationError):
        return _validation_response(exc)
    assert isinstance(exc, HTTPException)
    headers = dict(exc.headers) if exc.headers else None
    if (problem := body_error(exc)) is not None:  # a body that could not be parsed
        return error_response(400, problem)
    return error_response(exc.status_code, str(exc.detail), None, headers)


class OpenAIRoute(APIRoute):
    """An ``APIRoute`` whose errors (dependencies included) come out in OpenAI's shape."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def openai_errors(request: Request) -> Response:
            try:
                return await handler(request)
            except (AppError, RequestValidationError, HTTPException) as exc:
                return render(exc)

        return openai_errors


ERROR_DESCRIPTIONS = {
    400: "invalid request (OpenAI: invalid_request_error); the message names the field",
    401: "missing, invalid or revoked API key",
    402: "a spend limit is spent, before the turn or during it (insufficient_quota)",
    404: "unknown model or session, or not yours",
    409: "the session named by X-Pantheon-Session already runs a turn",
    413: "request body over PANTHEON_LIMITS__MAX_BODY_BYTES",
    429: "rate limited; wait Retry-After seconds",
    500: "the turn could not run or could not be saved",
    502: "every agent of the turn failed (the upstream model is down, ...)",
    503: "the server is shutting down",
}


def openai_responses(*codes: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI ``responses`` entries, all ``OpenAIErrorBody``."""
    return {c: {"model": OpenAIErrorBody, "description": ERROR_DESCRIPTIONS[c]} for c in codes}
