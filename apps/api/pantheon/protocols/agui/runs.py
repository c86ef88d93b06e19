"""Starting (or finding again) the turn an AG-UI run is, through ``TurnService``: the same
auth, rate limit, budgets, approvals and one commit as every turn.

- A new run is a turn started with the ``runId`` as its Idempotency-Key, so a client
  that posts the same run again (a reconnect) finds that turn, running or finished, and
  gets the thread's ``MESSAGES_SNAPSHOT`` then the turn's events from the first.
- A run with ``resume`` decides the thread's paused turn (``TurnService.decide``, claimed
  once across replicas); posting it again finds the continuation it started.
- Pantheon refusing the turn (409 a turn running or awaiting approval, 402 a spend limit,
  422 no valid mention, unknown interrupt ids ...) is the run's ``RUN_ERROR``, as AG-UI
  asks; a request that cannot be read as a run is a 4xx before any event (routes.py).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from pantheon.db.models import ChatSession
from pantheon.db.uow import unit_of_work
from pantheon.deps import Services
from pantheon.engine.snapshot import ClientContext
from pantheon.errors import AppError, Conflict, NotFound, Unprocessable
from pantheon.protocols.agui.request import RunRequest
from pantheon.protocols.agui.threads import drop_unused, open_thread
from pantheon.sessions.repository import SessionRepository
from pantheon.turns.repository import TurnRepository
from pantheon.users.auth import Principal


@dataclass(frozen=True, slots=True)
class RoomCaller:
    """Who runs which room (the route authenticated them and found the room)."""

    services: Services
    principal: Principal
    room_id: uuid.UUID

    @property
    def owner_id(self) -> uuid.UUID:
        return self.principal.user_id


@dataclass(frozen=True, slots=True)
class Run:
    """The turn a request streams, or why Pantheon refused to start one."""

    request: RunRequest
    turn_id: str = ""
    reconnect: bool = False  # a run posted again: the snapshot first
    resumed_calls: frozenset[str] = frozenset()
    refusal: AppError | None = None


async def _thread(caller: RoomCaller, thread: uuid.UUID) -> ChatSession | None:
    """The caller's session ``thread`` if it is one of this room's (422 another room's)."""
    async with unit_of_work(caller.services.db, write=False) as db:
        chat = await SessionRepository(db).get(caller.owner_id, thread)
    if chat is not None and chat.room_id != caller.room_id:
        raise Unprocessable(f"threadId {thread} is a thread of another room")
    return chat


async def _run_of_key(caller: RoomCaller, thread: uuid.UUID, run_id: str) -> str | None:
    """The turn this run id started on the thread, running or recorded."""
    live = await caller.services.live_backend.find_with_key(caller.owner_id, str(thread), run_id)
    if live is not None:
        return live.turn_id
    async with unit_of_work(caller.services.db, write=False) as db:
        turn = await TurnRepository(db).by_idempotency_key(thread, run_id)
    return None if turn is None else str(turn.id)


async def _running_on(caller: RoomCaller, thread: uuid.UUID) -> bool:
    """Whether one of the caller's turns is running on the thread (on any replica)."""
    running = await caller.services.live_backend.running_of(caller.owner_id)
    return any(meta.session_id == str(thread) for meta in running)


async def start_run(caller: RoomCaller, request: RunRequest) -> Run:
    """The run's turn: started now, or the one this request names again."""
    if request.decisions is not None:
        return await _resume(caller, request)
    assert request.turn is not None
    thread, turns = request.thread_id, caller.services.turns
    known = await _thread(caller, thread)
    if known is not None and (turn_id := await _run_of_key(caller, thread, request.run_id)):
        return Run(request, turn_id, reconnect=True)
    opened = known is None and await open_thread(
        caller.services.db, caller.owner_id, caller.room_id, thread, request.turn.message
    )
    context = ClientContext(instructions=request.instructions) if request.instructions else None
    try:
        started = await turns.start(
            caller.owner_id, str(thread), request.turn, request.run_id, context
        )
    except AppError as exc:
        # A thread opened for a turn that never started is removed again, unless a run
        # posted at the same time runs a turn on it (this one was refused as busy, say).
        if opened and not await _running_on(caller, thread):
            await drop_unused(caller.services.db, thread)
        return Run(request, refusal=exc)
    return Run(request, started.turn_id, reconnect=started.live is None)


async def _resume(caller: RoomCaller, request: RunRequest) -> Run:
    """Decide the thread's paused turn; a resume posted again follows its continuation."""
    assert request.decisions is not None
    thread = request.thread_id
    if await _thread(caller, thread) is None:
        raise NotFound(f"threadId {thread} is not one of your threads")
    calls = frozenset(d.call_id for d in request.decisions.decisions)
    async with unit_of_work(caller.services.db, write=False) as db:
        latest = await TurnRepository(db).latest(thread)
    if latest is None:
        return Run(request, refusal=Conflict(f"thread {thread} has no run to resume"))
    if latest.status != "awaiting_approval" and latest.continues_id is not None:
        return Run(request, str(latest.id), reconnect=True, resumed_calls=calls)
    try:
        started = await caller.services.turns.decide(
            caller.owner_id, str(latest.id), request.decisions
        )
    except Conflict as exc:
        continuation = exc.extra.get("continued_by")
        if continuation is None:
            return Run(request, refusal=exc)
        return Run(request, str(continuation), reconnect=True, resumed_calls=calls)
    except AppError as exc:
        return Run(request, refusal=exc)
    return Run(request, started.turn_id, resumed_calls=calls)
