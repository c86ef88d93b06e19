"""Tasks are turns: a ``TaskStore`` that reads them from Pantheon's live backend while
they run and from their record once they end, so any replica answers, and a task outlives
the process that started it. Only a turn writes its task: ``save`` and ``delete`` refuse.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass

from a2a.server.context import ServerCallContext
from a2a.server.tasks.task_store import TaskStore
from a2a.types.a2a_pb2 import (
    ListTasksRequest,
    ListTasksResponse,
    Task,
    TaskState,
    TaskStatus,
)
from a2a.utils.errors import InvalidParamsError, UnsupportedOperationError
from sqlalchemy import Select, func, select

from pantheon.auth import Principal
from pantheon.db.models import ChatSession, Turn
from pantheon.db.uow import unit_of_work
from pantheon.deps import Services
from pantheon.live.backend import LiveView
from pantheon.protocols.a2a.fold import STATES, TaskFold, task_state
from pantheon.sessions.repository import SessionRepository
from pantheon.turns.repository import TurnRepository

CALLER = "pantheon.caller"
PAGE_SIZE, MAX_PAGE_SIZE = 50, 100


@dataclass(frozen=True, slots=True)
class Caller:
    """Who calls which room's agent (set by the routes' guard, read by the handler)."""

    services: Services
    principal: Principal
    room_id: uuid.UUID

    @property
    def owner_id(self) -> uuid.UUID:
        return self.principal.user_id


def caller_of(context: ServerCallContext) -> Caller:
    caller = context.state[CALLER]
    assert isinstance(caller, Caller)
    return caller


@dataclass(frozen=True, slots=True)
class Found:
    """A task of the caller's room: running (``live``) or recorded (``turn``)."""

    session_id: str
    live: LiveView | None = None
    turn: Turn | None = None


async def _in_room(caller: Caller, session_id: str | uuid.UUID) -> bool:
    async with unit_of_work(caller.services.db, write=False) as db:
        chat = await SessionRepository(db).get(caller.owner_id, session_id)
    return chat is not None and chat.room_id == caller.room_id


async def find(caller: Caller, task_id: str) -> Found | None:
    """The caller's task ``task_id`` of this room, else ``None`` (another user's or room's
    task is not found either)."""
    live = await caller.services.turns.live_turn(caller.owner_id, task_id)
    if live is not None:
        return (
            Found(live.session_id, live=live) if await _in_room(caller, live.session_id) else None
        )
    async with unit_of_work(caller.services.db, write=False) as db:
        turn = await TurnRepository(db).get(caller.owner_id, task_id)
    if turn is None or not await _in_room(caller, turn.session_id):
        return None
    return Found(str(turn.session_id), turn=turn)


async def recorded_task(caller: Caller, turn: Turn) -> Task:
    """A recorded turn as its task: its events folded again, its status from the record."""
    fold = TaskFold(str(turn.id), str(turn.session_id), request=turn.message)
    async for _seq, data in await caller.services.turns.events(caller.owner_id, str(turn.id), 0):
        fold.feed(json.loads(data))
    if not fold.transcript.finished:  # recorded without its final event (interrupted)
        fold.transcript.status = turn.status
        fold.transcript.error_code = turn.error_code
    return fold.task()


def _summary(turn: Turn) -> Task:
    """A recorded turn as a task without its artifacts (no event log read)."""
    status = TaskStatus(state=task_state(turn.status))
    if turn.finished_at is not None:
        status.timestamp.FromDatetime(turn.finished_at)
    return Task(id=str(turn.id), context_id=str(turn.session_id), status=status)


def _page(params: ListTasksRequest) -> tuple[int, int]:
    size = params.page_size or PAGE_SIZE
    if not 1 <= size <= MAX_PAGE_SIZE:
        raise InvalidParamsError(f"pageSize must be between 1 and {MAX_PAGE_SIZE}, not {size}")
    token = params.page_token or "0"
    if not token.isdigit():
        raise InvalidParamsError(f"pageToken '{token[:40]}' is not one this server gave")
    return size, int(token)


def _query(caller: Caller, params: ListTasksRequest) -> Select[Turn]:
    query = (
        select(Turn)
        .join(ChatSession, ChatSession.id == Turn.session_id)
        .where(
            ChatSession.owner_id == caller.owner_id,
            ChatSession.room_id == caller.room_id,
            ChatSession.deleted_at.is_(None),
        )
    )
    if params.context_id:
        try:
            query = query.where(Turn.session_id == uuid.UUID(params.context_id))
        except ValueError as exc:
            raise InvalidParamsError(
                f"contextId '{params.context_id[:40]}' is no session id"
            ) from exc
    if params.status:
        statuses = [name for name, state in STATES.items() if state == params.status]
        query = query.where(Turn.status.in_(statuses))
    if params.HasField("status_timestamp_after"):
        query = query.where(Turn.finished_at > params.status_timestamp_after.ToDatetime())
    return query


class TurnTaskStore(TaskStore):
    """The caller's tasks of one room (``Caller`` in the call context's state)."""

    async def get(self, task_id: str, context: ServerCallContext) -> Task | None:
        caller = caller_of(context)
        found = await find(caller, task_id)
        if found is None:
            return None
        if found.turn is not None:
            return await recorded_task(caller, found.turn)
        return Task(
            id=task_id,
            context_id=found.session_id,
            status=TaskStatus(state=TaskState.TASK_STATE_WORKING),
        )

    async def list(self, params: ListTasksRequest, context: ServerCallContext) -> ListTasksResponse:
        """Recorded tasks, newest first; a running turn is listed once it is recorded."""
        caller = caller_of(context)
        size, offset = _page(params)
        query = _query(caller, params)
        async with unit_of_work(caller.services.db, write=False) as db:
            total = await db.scalar(select(func.count()).select_from(query.subquery())) or 0
            ordered = query.order_by(Turn.created_at.desc(), Turn.id.desc())
            turns = list((await db.scalars(ordered.limit(size).offset(offset))).all())
        if params.include_artifacts:
            tasks = [await recorded_task(caller, turn) for turn in turns]
        else:
            tasks = [_summary(turn) for turn in turns]
        more = offset + len(turns) < total
        return ListTasksResponse(
            tasks=tasks, next_page_token=str(offset + size) if more else "",
            page_size=size, total_size=total,
        )  # fmt: skip

    async def save(self, task: Task, context: ServerCallContext) -> None:
        raise UnsupportedOperationError("a task is a Pantheon turn: only its turn writes it")

    async def delete(self, task_id: str, context: ServerCallContext) -> None:
        raise UnsupportedOperationError("a task is a Pantheon turn: it is kept with its session")
