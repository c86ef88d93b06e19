"""What the A2A routes check before and after the SDK's bindings: bodies its parsers would
not refuse cleanly, ``A2A-Version`` given as a query parameter, and the HTTP+JSON statuses
of the A2A 1.0 specification's error table (section 5.4) where the SDK's differ."""

from __future__ import annotations

import json
from typing import Any

from a2a.server.jsonrpc_models import JSONParseError, JSONRPCError
from a2a.types.a2a_pb2 import TaskState
from a2a.utils.constants import VERSION_HEADER
from a2a.utils.errors import (
    A2A_ERROR_REASONS,
    A2AError,
    ContentTypeNotSupportedError,
    InvalidAgentResponseError,
    InvalidParamsError,
    PushNotificationNotSupportedError,
    TaskNotCancelableError,
    UnsupportedOperationError,
    VersionNotSupportedError,
)
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

# The spec's HTTP status and gRPC status of each error whose SDK mapping differs from it.
SPEC_STATUSES: dict[type[A2AError], tuple[int, str]] = {
    TaskNotCancelableError: (409, "FAILED_PRECONDITION"),
    ContentTypeNotSupportedError: (415, "INVALID_ARGUMENT"),
    InvalidAgentResponseError: (502, "INTERNAL"),
    PushNotificationNotSupportedError: (400, "UNIMPLEMENTED"),
    UnsupportedOperationError: (400, "UNIMPLEMENTED"),
    VersionNotSupportedError: (400, "UNIMPLEMENTED"),
}
_BY_REASON = {A2A_ERROR_REASONS[error]: status for error, status in SPEC_STATUSES.items()}
JSON_TYPES = ("application/json", "application/a2a+json")
Problem = A2AError | JSONRPCError  # JSON-RPC's parse error is no A2AError in the SDK


def version_of(request: Request) -> str | None:
    """``A2A-Version`` from the query when no header names it (the spec allows either)."""
    if VERSION_HEADER in request.headers:
        return None
    wanted = VERSION_HEADER.lower()
    return next((v for k, v in request.query_params.items() if k.lower() == wanted), None)


def spec_status(response: Response) -> Response:
    """An HTTP+JSON error answered with the spec's status (409, 415 ...) where the SDK
    answers another (400)."""
    if not isinstance(response, JSONResponse) or response.status_code < 400:
        return response
    try:
        body = json.loads(bytes(response.body))
        reason = body["error"]["details"][0]["reason"]
    except (ValueError, KeyError, IndexError, TypeError):
        return response
    if reason not in _BY_REASON:
        return response
    status, grpc = _BY_REASON[reason]
    body["error"].update(code=status, status=grpc)
    return JSONResponse(body, status_code=status)


def _no_state(status: object) -> A2AError | None:
    if isinstance(status, str) and status and status not in TaskState.keys():  # noqa: SIM118
        states = ", ".join(TaskState.keys())
        return InvalidParamsError(f"status '{status[:40]}' is no task state ({states})")
    return None


def _not_json(request: Request) -> A2AError | None:
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if request.method != "POST" or not kind or kind in JSON_TYPES or kind.endswith("+json"):
        return None
    return ContentTypeNotSupportedError(
        f"Content-Type '{kind[:60]}' is not supported: send application/json"
    )


def _bad_body(rpc: bool, message: str) -> Problem:
    return JSONParseError(message=message) if rpc else InvalidParamsError(message)


async def _parsed(request: Request, rpc: bool) -> tuple[Problem | None, Any]:
    """The body as JSON (``None`` when empty or not JSON: the SDK answers that), or why no
    parser should see it: not UTF-8, or nested past what a parser can recurse into."""
    body = await request.body()
    if not body:
        return None, None
    try:
        body.decode()
    except UnicodeDecodeError:
        return _bad_body(rpc, "the request body is not UTF-8 text"), None
    try:
        # The JSON-RPC binding reads the same parse again (Starlette keeps it).
        return None, await request.json() if rpc else json.loads(body)
    except RecursionError:
        return _bad_body(rpc, "the request body is nested too deeply"), None
    except ValueError:
        return None, None


async def unreadable(request: Request, rpc: bool) -> tuple[Problem, object] | None:
    """What the SDK's parsers would not refuse cleanly, with the JSON-RPC id to answer: a
    body that is not JSON (HTTP+JSON), not UTF-8 or too deeply nested (a 500 there), a
    ``ListTasks`` status that names no task state (ignored there, so all was listed)."""
    if not rpc and (refused := _not_json(request)) is not None:
        return refused, None
    problem, call = await _parsed(request, rpc)
    ident = call.get("id") if isinstance(call, dict) else None
    if problem is not None:
        return problem, ident
    if not rpc:
        problem = _no_state(request.query_params.get("status"))
    elif isinstance(call, dict) and call.get("method") == "ListTasks":
        params = call.get("params")
        problem = _no_state(params.get("status") if isinstance(params, dict) else None)
    return None if problem is None else (problem, ident)
