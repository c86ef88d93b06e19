"""``ListTasks``: the caller's tasks of one room, running ones (from the live backend, so
every replica's) first, then recorded ones newest first; offset paging over both.

A task is listed as its newest turn (ADR 0023): a paused turn that was decided is left
out, and a continuation is listed under its first turn's id, in its own state.
"""

from __future__ import annotations

import uuid
from datetime import UTC

from a2a.types.a2a_pb2 import ListTasksRequest, ListTasksResponse, Task, TaskState, TaskStatus
from a2a.utils.errors import InvalidParamsError
from sqlalchemy import Select, exists, func, select

from pantheon.db.models import ChatSession, Turn, TurnDecision
from pantheon.db.uow import unit_of_work
from pantheon.live.meta import TurnMeta
from pantheon.protocols.a2a.fold import STATES, TaskFold, task_state
from pantheon.protocols.a2a.tasks import (
    Caller,
    find,
    history_length,
    recorded_task,
    trim_history,
)
from pantheon.turns.repository import TurnRepository

PAGE_SIZE, MAX_PAGE_SIZE = 50, 100
MAX_OFFSET = 2**31 - 1  # past any page this server gives (and inside every database's integers)
MAX_CHAIN = 64  # decisions one task may take (a bound on walking back to its first turn)


def _page(params: ListTasksRequest) -> tuple[int, int]:
    size = params.page_size if params.HasField("page_size") else PAGE_SIZE
    if not 1 <= size <= MAX_PAGE_SIZE:
        raise InvalidParamsError(f"pageSize must be between 1 and {MAX_PAGE_SIZE}, not {size}")
    token = params.page_token or "0"
    if not (token.isascii() and token.isdigit()) or int(token) > MAX_OFFSET:
        raise InvalidParamsError(f"pageToken '{token[:40]}' is not one this server gave")
    return size, int(token)


def _context(params: ListTasksRequest) -> uuid.UUID | None:
    """The session a ``contextId`` names; callers check ``_no_context`` first."""
    return uuid.UUID(params.context_id) if params.context_id else None


def _no_context(params: ListTasksRequest) -> bool:
    """A ``contextId`` that cannot be a session's: an opaque string no task has."""
    try:
        _context(params)
    except ValueError:
        return True
    return False


def _query(caller: Caller, params: ListTasksRequest, running: list[str]) -> Select[Turn]:
    """Recorded turns that are a task's newest: not decided, not running meanwhile."""
    decided = exists().where(TurnDecision.turn_id == Turn.id)
    query = (
        select(Turn)
        .join(ChatSession, ChatSession.id == Turn.session_id)
        .where(
            ChatSession.owner_id == caller.owner_id,
            ChatSession.room_id == caller.room_id,
            ChatSession.deleted_at.is_(None),
            ~decided,
        )
    )
    if running:
        query = query.where(Turn.id.notin_([uuid.UUID(t) for t in running]))
    if (context := _context(params)) is not None:
        query = query.where(Turn.session_id == context)
    if params.status:
        statuses = [name for name, state in STATES.items() if state == params.status]
        query = query.where(Turn.status.in_(statuses))
    if params.HasField("status_timestamp_after"):
        query = query.where(Turn.finished_at > params.status_timestamp_after.ToDatetime(tzinfo=UTC))
    return query


async def _first_turn(caller: Caller, turn_id: str, continues: str | None) -> str:
    """The id of the task a turn belongs to: walk a continuation back to its first turn."""
    async with unit_of_work(caller.services.db, write=False) as db:
        turns = TurnRepository(db)
        for _ in range(MAX_CHAIN):
            if continues is None:
                return turn_id
            turn_id = continues
            paused = await turns.get(caller.owner_id, turn_id)
            continues = None if paused is None or paused.continues_id is None else str(
                paused.continues_id
            )  # fmt: skip
    return turn_id


def _matches(meta: TurnMeta, params: ListTasksRequest, context: uuid.UUID | None) -> bool:
    if params.status and params.status != TaskState.TASK_STATE_WORKING:
        return False
    if context is not None and meta.session_id != str(context):
        return False
    if params.HasField("status_timestamp_after"):
        return meta.created_at > params.status_timestamp_after.ToDatetime(tzinfo=UTC)
    return True


async def _running(caller: Caller, params: ListTasksRequest) -> list[tuple[TurnMeta, Task]]:
    """The caller's running turns of this room as working tasks, newest first; their
    status time is when they started."""
    context = _context(params)
    metas = await caller.services.turns.registry.running_of(caller.owner_id)
    metas = [meta for meta in metas if _matches(meta, params, context)]
    if not metas:
        return []
    async with unit_of_work(caller.services.db, write=False) as db:
        ids = {uuid.UUID(meta.session_id) for meta in metas}
        in_room = select(ChatSession.id).where(
            ChatSession.id.in_(ids),
            ChatSession.owner_id == caller.owner_id,
            ChatSession.room_id == caller.room_id,
            ChatSession.deleted_at.is_(None),
        )
        sessions = {str(ident) for ident in (await db.scalars(in_room)).all()}
    out: list[tuple[TurnMeta, Task]] = []
    for meta in sorted(metas, key=lambda m: (m.created_at, m.turn_id), reverse=True):
        if meta.session_id in sessions:
            task_id = await _first_turn(caller, meta.turn_id, meta.continues)
            task = TaskFold(task_id, meta.session_id).task()
            task.status.timestamp.FromDatetime(meta.created_at.astimezone(UTC))
            out.append((meta, task))
    return out


async def _recorded(caller: Caller, turn: Turn, params: ListTasksRequest) -> Task:
    """A recorded turn as its task, under its first turn's id; artifacts and history only
    if asked (they need the turn's event log)."""
    continues = None if turn.continues_id is None else str(turn.continues_id)
    task_id = await _first_turn(caller, str(turn.id), continues)
    history = params.HasField("history_length") and params.history_length > 0
    if params.include_artifacts or history:
        found = await find(caller, task_id)
        if found is not None and found.turn is not None:
            task = await recorded_task(caller, found.turn, found)
            if not params.include_artifacts:
                del task.artifacts[:]
            return trim_history(task, params)
    status = TaskStatus(state=task_state(turn.status))
    if turn.finished_at is not None:
        status.timestamp.FromDatetime(turn.finished_at)
    return Task(id=task_id, context_id=str(turn.session_id), status=status)


async def list_tasks(caller: Caller, params: ListTasksRequest) -> ListTasksResponse:
    """One page of the caller's tasks of the room: running first, then recorded."""
    size, offset = _page(params)
    history_length(params)  # refuses a negative one
    if _no_context(params):
        return ListTasksResponse(page_size=size)
    running = await _running(caller, params)
    query = _query(caller, params, [meta.turn_id for meta, _task in running])
    skip = max(offset - len(running), 0)
    tasks = [task for _meta, task in running[offset : offset + size]]
    async with unit_of_work(caller.services.db, write=False) as db:
        recorded = await db.scalar(select(func.count()).select_from(query.subquery())) or 0
        ordered = query.order_by(Turn.created_at.desc(), Turn.id.desc())
        limit = size - len(tasks)
        turns = list((await db.scalars(ordered.limit(limit).offset(skip))).all()) if limit else []
    tasks += [await _recorded(caller, turn, params) for turn in turns]
    total = len(running) + recorded
    more = offset + len(tasks) < total
    return ListTasksResponse(
        tasks=tasks, next_page_token=str(offset + size) if more else "",
        page_size=size, total_size=total,
    )  # fmt: skip
