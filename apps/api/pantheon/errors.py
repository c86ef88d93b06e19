"""Application errors: each carries an HTTP status and a short code; one handler renders them.

Bodies are ``{"detail": "<message naming the problem>", "code": "<code>"}``.
"""

from __future__ import annotations

import math
import re
import weakref
from collections.abc import Callable, Mapping
from typing import Any

from fastapi import FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ConfigDict
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.formparsers import MultiPartException
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
    400: "the request names something not (or no longer) valid, e.g. an invitation link",
    401: "missing, invalid or revoked API key (header WWW-Authenticate: Bearer)",
    402: "a spend limit is reached: the body names it and when it resets",
    403: "the route needs an admin API key, or a room role you do not have",
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


def finite_json(value: Any) -> Any:
    """``value`` with every non-finite float (``NaN``, ``Infinity``, a ``1e400`` the JSON
    parser read as infinity) replaced by its JSON spelling as a string."""
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, dict):
        return {k: finite_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [finite_json(v) for v in value]
    return value


async def _render_validation(_request: Request, exc: Exception) -> JSONResponse:
    """FastAPI's 422 body, with the echoed input made encodable: it may hold lone
    surrogates, NUL or non-finite numbers, any of which would turn a 422 into a 500."""
    assert isinstance(exc, RequestValidationError)
    errors = finite_json(clean_json(jsonable_encoder(exc.errors())))
    return JSONResponse({"detail": errors, "code": "unprocessable"}, status_code=422)


# Each app's paths and their methods, read once from its OpenAPI schema.
_ALLOW_INDEX: weakref.WeakKeyDictionary[Any, list[tuple[re.Pattern[str], set[str]]]]
_ALLOW_INDEX = weakref.WeakKeyDictionary()


def allowed_methods(request: Request) -> list[str]:
    """Every method some route serves at this path (Starlette names only the first route's),
    read from the OpenAPI paths, the one public list of every route and its methods; only
    ``OPTIONS`` when no documented route serves the path."""
    index = _ALLOW_INDEX.get(request.app)
    if index is None:
        paths: dict[str, dict[str, Any]] = request.app.openapi()["paths"]
        index = [(compile_path(p)[0], {m.upper() for m in ops}) for p, ops in paths.items()]
        _ALLOW_INDEX[request.app] = index
    methods = {"OPTIONS"}
    for pattern, served in index:
        if pattern.match(request.url.path):
            methods |= served | ({"HEAD"} if "GET" in served else set())
    return sorted(methods)


def body_error(exc: StarletteHTTPException) -> str | None:
    """What was wrong with the body, when ``exc`` is FastAPI's or Starlette's undocumented
    400 for a body it could not parse; ``None`` for any other error."""
    if exc.status_code != 400:
        return None
    cause = exc.__cause__
    if isinstance(cause, RecursionError):
        return "request body JSON is nested too deeply"
    if isinstance(cause, ValueError):  # UnicodeDecodeError and friends
        return "request body is not valid UTF-8 JSON"
    if cause is not None:
        return f"request body could not be parsed ({type(cause).__name__})"
    if isinstance(exc.__context__, MultiPartException):  # raised inside its except block
        return f"multipart body is malformed: {exc.detail}"
    return None


ErrorShaper = Callable[[int, str, str], tuple[int, dict[str, Any]]]
"""``(status, message, code)`` -> the status and JSON body of an error in some protocol's
shape (OpenAI's answers a 422 as a 400, for one)."""


def native_shape(status: int, message: str, code: str) -> tuple[int, dict[str, Any]]:
    """Pantheon's own ``{"detail", "code"}``."""
    return status, {"detail": message, "code": code}


class ErrorShapes:
    """Which shape an error answered outside a route takes, by path prefix: the native one
    unless a protocol mounted under the prefix registered its own (``protocols/doors.py``).
    The error handlers and the body-limit middleware ask it, so neither imports a protocol."""

    def __init__(self) -> None:
        self._shapers: list[tuple[str | re.Pattern[str], ErrorShaper]] = []

    def register(self, prefix: str | re.Pattern[str], shaper: ErrorShaper) -> None:
        """``prefix``: a path prefix, or a pattern the path must match (first one wins)."""
        self._shapers.append((prefix, shaper))

    def shape(self, path: str, status: int, message: str, code: str) -> tuple[int, dict[str, Any]]:
        for prefix, shaper in self._shapers:
            hit = prefix.match(path) if isinstance(prefix, re.Pattern) else path.startswith(prefix)
            if hit:
                return shaper(status, message, code)
        return native_shape(status, message, code)

    def response(
        self, request: Request, status: int, message: str, code: str,
        headers: Mapping[str, str] | None,
    ) -> JSONResponse:  # fmt: skip
        status, body = self.shape(request.url.path, status, message, code)
        return JSONResponse(body, status_code=status, headers=headers)


async def _render_http(shapes: ErrorShapes, request: Request, exc: Exception) -> Response:
    """Starlette's HTTP errors in the path's shape (``ErrorShapes``), with three
    corrections: OPTIONS is answered (204 with ``Allow``), a 405's ``Allow`` lists every
    method of the path, and a body that could not be parsed is the documented 422 naming
    the problem, not an undocumented 400."""
    assert isinstance(exc, StarletteHTTPException)
    if exc.status_code == 405:
        # The web client's files name their own methods (GET, HEAD); routes are looked up.
        own = (exc.headers or {}).get("Allow")
        methods = {"OPTIONS", *own.split(", ")} if own else allowed_methods(request)
        allow = {"Allow": ", ".join(sorted(methods))}
        if request.method == "OPTIONS":
            return Response(status_code=204, headers=allow)
        message = f"method {request.method} is not allowed here (allowed: {allow['Allow']})"
        return shapes.response(request, 405, message, "not_allowed", allow)
    problem = body_error(exc)
    if problem is not None:
        return shapes.response(request, 422, problem, "unprocessable", None)
    code = _HTTP_CODES.get(exc.status_code, "error")
    return shapes.response(request, exc.status_code, str(exc.detail), code, exc.headers)


_HTTP_CODES = {404: "not_found", 408: "request_timeout", 413: "too_large", 422: "unprocessable"}


def install_error_handlers(app: FastAPI, shapes: ErrorShapes) -> None:
    """Render ``AppError``, validation errors and Starlette's HTTP errors; the last in the
    shape ``shapes`` gives their path."""

    async def render_http(request: Request, exc: Exception) -> Response:
        return await _render_http(shapes, request, exc)

    app.add_exception_handler(AppError, _render)
    app.add_exception_handler(RequestValidationError, _render_validation)
    app.add_exception_handler(StarletteHTTPException, render_http)
