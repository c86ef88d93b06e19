"""``POST /agui/rooms/{room_id}``: a ``RunAgentInput`` in, the run's AG-UI events out over
SSE (docs/ag-ui.md). Before the stream starts, a request that is no run gets a 4xx in
Pantheon's JSON shape (401 no key, 404 unknown room or thread, 422 an unreadable body,
429 the turn rate); once it starts, every failure is the run's ``RUN_ERROR``."""

from __future__ import annotations

from collections.abc import AsyncIterator

from fastapi import APIRouter, Request, Response

from pantheon.db.uow import unit_of_work
from pantheon.deps import PrincipalDep, ServicesDep, limit_turn_rate
from pantheon.errors import error_responses, not_found
from pantheon.event_stream import SSE_HEADERS, Event, EventStream
from pantheon.observability.metrics import sse_listener
from pantheon.protocols.agui.request import parse_run
from pantheon.protocols.agui.runs import RoomCaller, start_run
from pantheon.protocols.agui.stream import run_events
from pantheon.rooms.access import room_access

AGUI_PREFIX = "/agui"
router = APIRouter(prefix=AGUI_PREFIX, tags=["ag-ui"])
RUN_BODY = {
    "required": True,
    "content": {
        "application/json": {
            "schema": {
                "type": "object",
                "description": "An AG-UI 1.0 RunAgentInput (threadId, runId, messages, resume)",
                "required": ["threadId", "runId", "messages"],
            }
        }
    },
}


@router.post(
    "/rooms/{room_id}",
    response_model=None,
    openapi_extra={"requestBody": RUN_BODY},
    responses={
        200: {"content": {"text/event-stream": {}}, "description": "The run's AG-UI events"},
        **error_responses(401, 404, 413, 422, 429),
    },
)
async def run_room(
    room_id: str, request: Request, services: ServicesDep, principal: PrincipalDep
) -> Response:
    """Run the room as an AG-UI agent: threadId is the session, runId the turn."""
    async with unit_of_work(services.db, write=False) as db:
        found = await room_access(db, principal.user_id, room_id)
    if found is None:
        raise not_found("room", room_id[:64])
    room = found.room
    run = parse_run(await request.body())
    await limit_turn_rate(principal, services)
    caller = RoomCaller(services, principal, room.id)
    started = await start_run(caller, run)

    async def messages() -> AsyncIterator[Event]:
        with sse_listener("agui"):
            async for data in run_events(caller, started):
                yield Event(data=data)

    headers = {**SSE_HEADERS, "X-Pantheon-Session": str(run.thread_id)}
    if started.turn_id:
        headers["X-Pantheon-Turn"] = started.turn_id
    keepalive = services.settings.sse.keepalive_s
    return EventStream(messages(), ping=keepalive, headers=headers)
