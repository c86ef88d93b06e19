"""Turn routes: POST a turn (JSON or SSE, one code path), read, follow events, cancel, and
a session's history a page at a time."""

from __future__ import annotations

import re
import uuid
from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import APIRouter, Depends, Header, Query, Request, Response, status

from pantheon.deps import ServicesDep, UoWDep, UserIdDep, limit_turn_rate
from pantheon.errors import Unprocessable, not_found
from pantheon.event_stream import SEP, SSE_HEADERS, Event, EventStream
from pantheon.live.streamed import StreamedEvent
from pantheon.observability.metrics import sse_listener
from pantheon.schemas import Page, PageDep
from pantheon.sessions.repository import SessionRepository
from pantheon.turns.history import DEFAULT_LIMIT, MAX_LIMIT, HistoryPage, history_page
from pantheon.turns.repository import TurnRepository
from pantheon.turns.schemas import (
    ApprovalCreate,
    ReplayCreate,
    RetryCreate,
    TurnCreate,
    TurnDetail,
    TurnRead,
)
from pantheon.turns.service import TurnService
from pantheon.turns.views import turn_read

router = APIRouter(tags=["turns"])


def _service(services: ServicesDep) -> TurnService:
    return services.turns


ServiceDep = Annotated[TurnService, Depends(_service)]


def _wants_stream(request: Request, stream: bool) -> bool:
    return stream or "text/event-stream" in request.headers.get("accept", "")


def sse_frame(seq: int, data: str) -> bytes:
    """One event's SSE frame, byte for byte what ``Event(data, id).encode()`` gives for
    one-line data (event JSON never holds a raw line break), built without the
    object and its line splitting: it runs once per delta per listener."""
    if "\n" in data or "\r" in data:
        return Event(data=data, id=str(seq)).encode()
    return f"id: {seq}{SEP}data: {data}{SEP}{SEP}".encode()


def _sse(events: AsyncIterator[StreamedEvent], keepalive_s: float) -> EventStream:
    async def messages() -> AsyncIterator[bytes]:
        with sse_listener("turns"):
            async for streamed in events:
                yield sse_frame(streamed.seq, streamed.data)

    return EventStream(messages(), ping=keepalive_s, headers=SSE_HEADERS)


# Event numbers are 32-bit in the event log; a resume point past that names no event.
MAX_EVENT_SEQ = 2**31 - 1
_EVENT_NUMBER = re.compile(r"[0-9]{1,10}")


def _after(last_event_id: str | None, after: int | None) -> int:
    if after is not None:
        return after
    if last_event_id is None or last_event_id == "":
        return 0
    if not _EVENT_NUMBER.fullmatch(last_event_id) or int(last_event_id) > MAX_EVENT_SEQ:
        raise Unprocessable(
            f"Last-Event-ID must be an event number from 0 to {MAX_EVENT_SEQ}, "
            f"got {last_event_id[:40]!r}"
        )
    return int(last_event_id)


@router.post(
    "/v1/sessions/{session_id}/turns",
    status_code=status.HTTP_201_CREATED,
    response_model=TurnDetail,
    dependencies=[Depends(limit_turn_rate)],  # before preflight: JSON and SSE alike
    responses={200: {"content": {"text/event-stream": {}}, "description": "SSE stream"}},
)
async def create_turn(
    session_id: str,
    data: TurnCreate,
    request: Request,
    service: ServiceDep,
    user: UserIdDep,
    stream: Annotated[bool, Query(description="Stream the turn as SSE")] = False,
    idempotency_key: Annotated[str | None, Header(max_length=200)] = None,
) -> object:
    """Run a turn; JSON waits for the whole turn, SSE streams it as it happens."""
    started = await service.start(user, session_id, data, idempotency_key)
    if _wants_stream(request, stream):
        events = await service.events(user, started.turn_id, 0)
        return _sse(events, service.settings.sse.keepalive_s)
    return await service.wait_for_detail(user, started)


@router.post(
    "/v1/turns/{turn_id}/approvals",
    status_code=status.HTTP_201_CREATED,
    response_model=TurnDetail,
    dependencies=[Depends(limit_turn_rate)],
    responses={200: {"content": {"text/event-stream": {}}, "description": "SSE stream"}},
)
async def decide_turn(
    turn_id: str,
    data: ApprovalCreate,
    request: Request,
    service: ServiceDep,
    user: UserIdDep,
    stream: Annotated[bool, Query(description="Stream the continuation as SSE")] = False,
) -> object:
    """Approve or reject a paused turn's pending tool calls; runs the continuation turn."""
    started = await service.decide(user, turn_id, data)
    if _wants_stream(request, stream):
        events = await service.events(user, started.turn_id, 0)
        return _sse(events, service.settings.sse.keepalive_s)
    return await service.wait_for_detail(user, started)


@router.post(
    "/v1/turns/{turn_id}/replay",
    status_code=status.HTTP_201_CREATED,
    response_model=TurnDetail,
    dependencies=[Depends(limit_turn_rate)],
    responses={200: {"content": {"text/event-stream": {}}, "description": "SSE stream"}},
)
async def replay_turn(
    turn_id: str,
    request: Request,
    service: ServiceDep,
    user: UserIdDep,
    data: ReplayCreate | None = None,
    stream: Annotated[bool, Query(description="Stream the replay as SSE")] = False,
) -> object:
    """Re-run a finished turn on its recorded call outputs in a new session (docs/replay.md);
    with changes, only the calls whose inputs changed are paid."""
    started = await service.replay(user, turn_id, data or ReplayCreate())
    if _wants_stream(request, stream):
        events = await service.events(user, started.turn_id, 0)
        return _sse(events, service.settings.sse.keepalive_s)
    return await service.wait_for_detail(user, started)


@router.post(
    "/v1/turns/{turn_id}/retry",
    status_code=status.HTTP_201_CREATED,
    response_model=TurnDetail,
    dependencies=[Depends(limit_turn_rate)],
    responses={200: {"content": {"text/event-stream": {}}, "description": "SSE stream"}},
)
async def retry_turn(
    turn_id: str,
    request: Request,
    service: ServiceDep,
    user: UserIdDep,
    data: RetryCreate | None = None,
    stream: Annotated[bool, Query(description="Stream the retry as SSE")] = False,
) -> object:
    """Run an orchestrator turn's failed agents again (or its synthesis alone), then a
    synthesis that includes them, as a new turn of its session (README "Retry")."""
    started = await service.retry(user, turn_id, data or RetryCreate())
    if _wants_stream(request, stream):
        events = await service.events(user, started.turn_id, 0)
        return _sse(events, service.settings.sse.keepalive_s)
    return await service.wait_for_detail(user, started)


@router.get("/v1/sessions/{session_id}/turns")
async def list_session_turns(
    session_id: str, uow: UoWDep, user: UserIdDep, page: PageDep
) -> Page[TurnRead]:
    """The session's finished turns, oldest first."""
    chat = await SessionRepository(uow).get(user, session_id)
    if chat is None:
        raise not_found("session", session_id)
    rows, total = await TurnRepository(uow).list_for_session(
        chat.id, limit=page.limit, offset=page.offset
    )
    items = [turn_read(row) for row in rows]
    return Page[TurnRead](items=items, total=total, limit=page.limit, offset=page.offset)


@router.get("/v1/sessions/{session_id}/history")
async def session_history(
    session_id: str,
    uow: UoWDep,
    user: UserIdDep,
    before: Annotated[
        uuid.UUID | None, Query(description="A turn id: only turns older than it")
    ] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_LIMIT)] = DEFAULT_LIMIT,
    through: Annotated[
        uuid.UUID | None,
        Query(description="A turn id: only turns up to and including it (a fork made there)"),
    ] = None,
) -> HistoryPage:
    """A page of the session's recorded turns (a fork's inherited ones included), newest
    page first, each with its events and figures: what a reader needs to show them."""
    chat = await SessionRepository(uow).get(user, session_id)
    if chat is None:
        raise not_found("session", session_id)
    if before is not None and through is not None:
        raise Unprocessable("give before or through, not both")
    return await history_page(uow, chat, before, limit, through=through)


@router.get("/v1/turns/{turn_id}")
async def get_turn(turn_id: str, service: ServiceDep, user: UserIdDep) -> TurnDetail:
    """A finished turn with its messages and LLM calls (409 while it is still running)."""
    return await service.detail(user, turn_id)


@router.get(
    "/v1/turns/{turn_id}/events",
    response_class=Response,
    responses={200: {"content": {"text/event-stream": {}}, "description": "SSE stream"}},
)
async def turn_events(
    turn_id: str,
    service: ServiceDep,
    user: UserIdDep,
    last_event_id: Annotated[str | None, Header()] = None,
    after: Annotated[
        int | None, Query(ge=0, le=MAX_EVENT_SEQ, description="Resume after this event")
    ] = None,
) -> EventStream:
    """Replay and follow a turn's events; resume with Last-Event-ID or ?after=n."""
    events = await service.events(user, turn_id, _after(last_event_id, after))
    return _sse(events, service.settings.sse.keepalive_s)


@router.post("/v1/turns/{turn_id}/cancel")
async def cancel_turn(turn_id: str, service: ServiceDep, user: UserIdDep) -> TurnRead:
    """Stop a running turn; what it produced so far is kept (409 once it has finished)."""
    return await service.cancel(user, turn_id)
