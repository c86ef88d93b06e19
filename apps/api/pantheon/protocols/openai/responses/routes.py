"""The Responses API under ``/openai/v1/responses``: create, retrieve (or resume its
stream), cancel. Errors in OpenAI's shape (``OpenAIRoute``); auth and limits as the
native API's. Included before the facade's catch-all route."""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Response
from fastapi.responses import JSONResponse

from pantheon.deps import ServicesDep, UserIdDep, limit_turn_rate
from pantheon.event_stream import SSE_HEADERS, Event, EventStream
from pantheon.observability.metrics import sse_listener
from pantheon.protocols.openai.errors import FACADE_PREFIX, OpenAIRoute, openai_responses
from pantheon.protocols.openai.responses.fold import ResponseFold
from pantheon.protocols.openai.responses.schemas import ResponseCreate
from pantheon.protocols.openai.responses.service import ResponsesService, StartedResponse
from pantheon.protocols.openai.service import FacadeService
from pantheon.protocols.run import read_turn, turn_stream

router = APIRouter(prefix=f"{FACADE_PREFIX}/responses", tags=["openai"], route_class=OpenAIRoute)
_STREAMED = {"content": {"text/event-stream": {}}, "description": "the response, or its events"}


def _service(services: ServicesDep) -> ResponsesService:
    return ResponsesService(FacadeService(services.turns))


ServiceDep = Annotated[ResponsesService, Depends(_service)]


def _sse(event: dict[str, Any]) -> Event:
    return Event(data=json.dumps(event, separators=(",", ":")), event=event["type"])


def _event_stream(service: ResponsesService, events: AsyncIterator[Event]) -> Response:
    keepalive = service.facade.turns.settings.sse.keepalive_s
    return EventStream(events, ping=keepalive, headers=SSE_HEADERS)


async def _live(
    service: ResponsesService, user: Any, started: StartedResponse
) -> AsyncIterator[dict[str, Any]]:
    """The response's stream events as its turn runs; a foreground response whose client
    goes away is cancelled (nobody could resume it), a background one runs on."""
    fold = ResponseFold(started.meta)
    completion = started.completion
    for event in fold.start():
        yield event
    stream = await turn_stream(service.facade.turns, user, completion.turn.turn_id)
    abandon = None if started.meta.background else completion.cancel
    async with contextlib.aclosing(read_turn(stream, fold, abandon)) as events:
        async for event in events:
            yield event
    if not started.meta.store:
        await service.forget(user, completion.session_id)


@router.post(
    "",
    response_model=None,
    dependencies=[Depends(limit_turn_rate)],
    responses={200: _STREAMED, **openai_responses(400, 401, 402, 404, 409, 413, 429, 503)},
)
async def create_response(body: ResponseCreate, service: ServiceDep, user: UserIdDep) -> Response:
    """Run one turn of a room (room-<id>) or agent (agent-<key>) as a Responses API response."""
    started = await service.create(user, body)
    headers = {
        "X-Pantheon-Session": started.completion.session_id,
        "X-Pantheon-Turn": started.completion.turn.turn_id,
    }
    if body.stream:

        async def events() -> AsyncIterator[Event]:
            with sse_listener("openai"):
                async for event in _live(service, user, started):
                    yield _sse(event)

        streamed = _event_stream(service, events())
        streamed.headers.update(headers)
        return streamed
    if body.background:
        queued = ResponseFold(started.meta).response(status="queued")
        return JSONResponse(queued, headers=headers)
    last: dict[str, Any] = {}
    async for event in _live(service, user, started):
        last = event
    return JSONResponse(last.get("response", {}), headers=headers)


@router.get(
    "/{response_id}",
    response_model=None,
    responses={200: _STREAMED, **openai_responses(400, 401, 404)},
)
async def retrieve_response(
    response_id: str,
    service: ServiceDep,
    user: UserIdDep,
    stream: bool = False,
    starting_after: Annotated[int | None, Query(ge=-1)] = None,
) -> Response:
    """The response as it stands; with stream=true its events after starting_after, live."""
    if not stream:
        return JSONResponse(await service.snapshot(user, response_id))
    fold = ResponseFold(await service.meta_of(user, response_id))
    turn_events = await service.turn_events(user, response_id)
    after = -1 if starting_after is None else starting_after

    async def events() -> AsyncIterator[Event]:
        with sse_listener("openai"):
            for event in fold.start():
                if event["sequence_number"] > after:
                    yield _sse(event)
            async for turn_event in turn_events:
                for event in fold.feed(turn_event):
                    if event["sequence_number"] > after:
                        yield _sse(event)

    return _event_stream(service, events())


@router.post("/{response_id}/cancel", responses=openai_responses(400, 401, 404))
async def cancel_response(response_id: str, service: ServiceDep, user: UserIdDep) -> dict[str, Any]:
    """Stop the response's turn (on whichever replica runs it); the response as it ends."""
    return await service.cancel(user, response_id)
