"""The A2A routes: the SDK's JSON-RPC and HTTP+JSON bindings for ``/a2a/rooms/{room_id}``,
each behind a guard that authenticates the caller (an API key as Bearer in ``keys``
mode) and finds the room among theirs, and each room's agent card. Errors the guard
answers (401 missing key, 404 unknown room) and unknown paths take A2A's shapes."""

from __future__ import annotations

import hashlib
import json
import re
import uuid
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from a2a.server.context import ServerCallContext
from a2a.server.jsonrpc_models import JSONParseError
from a2a.server.request_handlers.response_helpers import agent_card_to_dict, build_error_response
from a2a.server.routes import (
    DefaultServerCallContextBuilder,
    create_jsonrpc_routes,
    create_rest_routes,
)
from a2a.utils.constants import AGENT_CARD_WELL_KNOWN_PATH, VERSION_HEADER
from a2a.utils.error_handlers import build_rest_error_payload
from a2a.utils.errors import (
    A2AError,
    InvalidParamsError,
    InvalidRequestError,
    TaskNotFoundError,
)
from fastapi import FastAPI
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Mount, Route, Router

from pantheon.db.models import Agent, Room
from pantheon.db.uow import unit_of_work
from pantheon.deps import Services, services_of
from pantheon.errors import Unauthorized
from pantheon.protocols.a2a.card import A2A_PREFIX, CARD_MAX_AGE_S, room_card
from pantheon.protocols.a2a.handler import TurnRequestHandler
from pantheon.protocols.a2a.requests import Problem, spec_status, unreadable, version_of
from pantheon.protocols.a2a.tasks import CALLER, Caller
from pantheon.rooms.access import room_access
from pantheon.rooms.repository import RoomRepository
from pantheon.users.auth import Principal, authenticate, bearer_scheme

ROOM = "/rooms/{room_id}"
RPC_PATH = re.compile(r"^/a2a/rooms/[^/]+/?$")
Endpoint = Callable[[Request], Awaitable[Response]]


class CallerContextBuilder(DefaultServerCallContextBuilder):
    """The SDK's call context, plus who calls which room (the guard found them)."""

    def build(self, request: Request) -> ServerCallContext:
        context = super().build(request)
        context.state[CALLER] = request.state.a2a_caller
        if (version := version_of(request)) is not None:
            context.state["headers"][VERSION_HEADER.lower()] = version
        return context


def _error(
    rpc: bool, status: int, error: Problem, headers: dict[str, str] | None = None,
    ident: object = None,
) -> Response:  # fmt: skip
    """``error`` in the binding's shape: JSON-RPC's, or HTTP+JSON's (``google.rpc.Status``)."""
    request_id = ident if isinstance(ident, str | int) else None
    if rpc:
        return JSONResponse(build_error_response(request_id, error), status, headers)
    body = build_rest_error_payload(
        error if isinstance(error, A2AError) else InvalidParamsError(error.message)
    )
    body["error"]["code"] = status
    return spec_status(JSONResponse(body, status_code=status, headers=headers))


async def _principal(services: Services, request: Request) -> Principal:
    if services.settings.auth_mode == "local":
        return services.local_principal
    return await authenticate(services.db, await bearer_scheme(request), request)


async def _room(
    services: Services, owner_id: uuid.UUID, room_id: str
) -> tuple[Room, list[Agent]] | None:
    async with unit_of_work(services.db, write=False) as db:
        found = await room_access(db, owner_id, room_id)
        if found is None:
            return None
        room = found.room
        roster = await RoomRepository(db).roster([room.id])
        return room, [agent for _member, agent in roster[room.id]]


def _guarded(endpoint: Endpoint, *, rpc: bool) -> Endpoint:
    """``endpoint`` for an authenticated caller of one of their own rooms."""

    async def guarded(request: Request) -> Response:
        services = services_of(request.app)
        assert services is not None  # routes are served only after the lifespan started
        try:
            principal = await _principal(services, request)
        except Unauthorized as exc:
            challenge = {"WWW-Authenticate": 'Bearer realm="pantheon"'}
            return _error(rpc, 401, InvalidRequestError(exc.message), challenge)
        room_id = str(request.path_params["room_id"])
        found = await _room(services, principal.user_id, room_id)
        if found is None:
            return _error(rpc, 404, TaskNotFoundError(f"room {room_id[:64]} not found"))
        if (problem := await unreadable(request, rpc)) is not None:
            return _error(rpc, 200 if rpc else 400, problem[0], ident=problem[1])
        request.state.a2a_caller = Caller(services, principal, found[0].id)
        request.state.a2a_room = found
        response = await endpoint(request)
        return response if rpc else spec_status(response)

    return guarded


async def _card(request: Request) -> Response:
    """The room's card, cacheable by its caller only (``keys`` mode: it is the owner's),
    revalidated by its ``ETag`` (304 while the room and roster are unchanged)."""
    services = services_of(request.app)
    assert services is not None
    room, roster = request.state.a2a_room
    base = str(request.base_url).rstrip("/")
    keys = services.settings.auth_mode == "keys"
    card = room_card(room, roster, base, keys, request.app.version)
    body = json.dumps(agent_card_to_dict(card), separators=(",", ":")).encode()
    tag = f'"{hashlib.sha256(body).hexdigest()[:32]}"'
    headers = {"ETag": tag, "Cache-Control": f"private, max-age={CARD_MAX_AGE_S}"}
    if _matches(request.headers.get("if-none-match", ""), tag):
        return Response(status_code=304, headers=headers)
    return Response(body, media_type="application/json", headers=headers)


def _matches(if_none_match: str, tag: str) -> bool:
    """Whether ``If-None-Match`` names ``tag`` (weakly, as RFC 9110 compares for GET)."""
    given = {t.strip().removeprefix("W/") for t in if_none_match.split(",")}
    return "*" in given or tag in given


def _wrap(routes: Sequence[BaseRoute], *, rpc: bool) -> list[BaseRoute]:
    """The SDK's routes behind the guard (its per-tenant copies left out: no tenants); the
    JSON-RPC URL also with a trailing slash, as a client may join it."""
    return [
        Route(path, _guarded(r.endpoint, rpc=rpc), methods=list(r.methods or []))
        for r in routes
        if isinstance(r, Route)
        for path in ([r.path, r.path + "/"] if rpc else [r.path])
    ]


def a2a_shape(status: int, message: str, code: str) -> tuple[int, dict[str, Any]]:
    """Errors answered outside the A2A routes (unknown path, body too large or too deep) in
    the HTTP+JSON binding's shape; a body refused before parsing is the spec's 400."""
    reason = {404: "NOT_FOUND", 405: "UNIMPLEMENTED", 413: "INVALID_ARGUMENT"}
    status = 400 if status == 422 else status
    body = {
        "error": {
            "code": status,
            "status": reason.get(status, "INVALID_ARGUMENT"),
            "message": message,
        }
    }
    return status, body


def a2a_rpc_shape(status: int, message: str, code: str) -> tuple[int, dict[str, Any]]:
    """The JSON-RPC URL's answer to a body refused before any parser saw it (nested too
    deep): JSON-RPC's parse error; other refusals keep the HTTP+JSON shape."""
    if status != 422:
        return a2a_shape(status, message, code)
    error = {"code": JSONParseError().code, "message": message}
    return 200, {"jsonrpc": "2.0", "id": None, "error": error}


def mount_a2a(app: FastAPI) -> None:
    """Serve every room as an A2A agent under ``/a2a/rooms/{room_id}`` (its error shapes:
    ``a2a_rpc_shape`` on ``RPC_PATH``, else ``a2a_shape``; protocols/doors.py)."""
    handler = TurnRequestHandler()
    context = CallerContextBuilder()
    jsonrpc = create_jsonrpc_routes(handler, rpc_url=ROOM, context_builder=context)
    rest = create_rest_routes(handler, context_builder=context, path_prefix=ROOM)
    card = [
        Route(
            ROOM + AGENT_CARD_WELL_KNOWN_PATH + slash, _guarded(_card, rpc=False), methods=["GET"]
        )
        for slash in ("", "/")
    ]
    routes = [*card, *_wrap(jsonrpc, rpc=True), *_wrap(rest, rpc=False)]
    app.router.routes.append(Mount(A2A_PREFIX, app=Router(routes)))
