"""Tasks are turns: a task is read from Pantheon's live backend while its turn runs and
from its record once it ends, so any replica answers, and a task outlives the process
that started it. A decision on a paused task continues the same task (ADR 0023).
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass

from a2a.server.context import ServerCallContext
from a2a.types.a2a_pb2 import GetTaskRequest, ListTasksRequest, SendMessageConfiguration, Task
from a2a.utils.errors import InvalidParamsError

from pantheon.db.models import Turn
from pantheon.db.uow import unit_of_work
from pantheon.deps import Services
from pantheon.live.backend import LiveView
from pantheon.live.streamed import typed
from pantheon.protocols.a2a.fold import TaskFold
from pantheon.sessions.repository import SessionRepository
from pantheon.turns.repository import TurnRepository
from pantheon.users.auth import Principal

CALLER = "pantheon.caller"


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
    """A task of the caller's room: its newest turn ``turn_id``, running (``live``) or
    recorded (``turn``); both ``None`` only for a claimed continuation not yet seen.
    ``requests``: the user's message, then what each decision said (ADR 0023)."""

    task_id: str
    turn_id: str
    session_id: str
    live: LiveView | None = None
    turn: Turn | None = None
    requests: tuple[str, ...] = ()
    message_id: str = ""  # the client's id of the first message (``client_message_id``)

    @property
    def decided(self) -> bool:
        """Whether a decision continued the task's first turn."""
        return self.turn_id != self.task_id


async def _in_room(caller: Caller, session_id: str | uuid.UUID) -> bool:
    async with unit_of_work(caller.services.db, write=False) as db:
        chat = await SessionRepository(db).get(caller.owner_id, session_id)
    return chat is not None and chat.room_id == caller.room_id


async def _continued(caller: Caller, found: Found) -> Found:
    """``found``'s recorded turn followed through each decision to the newest turn."""
    while found.turn is not None:
        async with unit_of_work(caller.services.db, write=False) as db:
            decision = await TurnRepository(db).decision(found.turn.id)
            if decision is None:
                return found
            turn_id = str(decision.continuation_id)
            turn = await TurnRepository(db).get(caller.owner_id, turn_id)
        live = None if turn is not None else await caller.services.turns.live_turn(
            caller.owner_id, turn_id
        )  # fmt: skip
        requests = (*found.requests, decision.note)
        found = Found(
            found.task_id, turn_id, found.session_id, live, turn, requests, found.message_id
        )
    return found


async def find(caller: Caller, task_id: str) -> Found | None:
    """The caller's task ``task_id`` of this room, else ``None`` (another user's or room's
    task is not found either)."""
    live = await caller.services.turns.live_turn(caller.owner_id, task_id)
    if live is not None:
        if not await _in_room(caller, live.session_id):
            return None
        return Found(live.turn_id, live.turn_id, live.session_id, live=live)
    async with unit_of_work(caller.services.db, write=False) as db:
        turn = await TurnRepository(db).get(caller.owner_id, task_id)
    if turn is None or not await _in_room(caller, turn.session_id):
        return None
    head = Found(
        str(turn.id), str(turn.id), str(turn.session_id), turn=turn, requests=(turn.message,),
        message_id=client_message_id(turn),
    )  # fmt: skip
    return await _continued(caller, head)


def client_message_id(turn: Turn) -> str:
    """The id the client gave the turn's message (kept in its snapshot), else ``""``."""
    try:
        kept = json.loads(turn.snapshot or "{}").get("client_message_id")
    except (ValueError, AttributeError):
        return ""
    return kept if isinstance(kept, str) else ""


async def recorded_task(caller: Caller, turn: Turn, found: Found | None = None) -> Task:
    """A recorded turn as its task (``found``: the task it is the newest turn of, when not
    its own): its events folded again, its status from the record."""
    if found is None:
        found = Found(
            str(turn.id), str(turn.id), str(turn.session_id), turn=turn,
            requests=(turn.message,), message_id=client_message_id(turn),
        )  # fmt: skip
    fold = TaskFold(
        found.task_id, str(turn.session_id), requests=found.requests, message_id=found.message_id
    )
    async for event in typed(await caller.services.turns.events(caller.owner_id, str(turn.id), 0)):
        fold.feed(event)
    if not fold.transcript.finished:  # recorded without its final event (interrupted)
        fold.transcript.status = turn.status
        fold.transcript.error_code = turn.error_code
    return fold.task()


HistoryAsked = GetTaskRequest | ListTasksRequest | SendMessageConfiguration


def history_length(params: HistoryAsked) -> int | None:
    """How many of a task's newest history messages a request wants (``None``: all)."""
    if not params.HasField("history_length"):
        return None
    if params.history_length < 0:
        raise InvalidParamsError(f"historyLength must be 0 or more, not {params.history_length}")
    return params.history_length


def trim_history(task: Task, params: HistoryAsked) -> Task:
    """``task`` with only the newest ``historyLength`` messages of its history."""
    keep = history_length(params)
    if keep is not None:
        del task.history[: max(len(task.history) - keep, 0)]
    return task
