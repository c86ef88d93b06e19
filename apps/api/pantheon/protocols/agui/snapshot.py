"""A thread's ``MESSAGES_SNAPSHOT``, sent when a client posts a run again (reconnect): the
thread's messages before that run's turn, as the runs streamed them, then the run's user
message. Ids follow ids.py; an agent's message carries the tool calls it made (each
announced once, as in the stream) and its results follow it as tool messages."""

from __future__ import annotations

import uuid
from collections import defaultdict

from ag_ui.core import (
    AssistantMessage,
    FunctionCall,
    Message,
    MessagesSnapshotEvent,
    ToolCall,
    ToolMessage,
    UserMessage,
)

from pantheon.db.engine import Database
from pantheon.db.models import Message as MessageRow
from pantheon.db.models import ToolCallRow
from pantheon.db.uow import unit_of_work
from pantheon.protocols.agui.ids import message_id, subagent_run_id, tool_message_id
from pantheon.protocols.agui.repository import ThreadRepository
from pantheon.sessions.repository import SessionRepository

SNAPSHOT_MESSAGES = 1000  # a snapshot holds the thread's newest messages, at most this many


def _message(row: MessageRow, calls: list[ToolCall]) -> Message:
    turn = str(row.turn_id)
    ident = message_id(turn, row.seq)
    if row.role == "user":
        return UserMessage(id=ident, content=row.content)
    attributed = (
        {} if row.role == "manager" else {"subagent_run_id": subagent_run_id(turn, row.seq)}
    )
    return AssistantMessage(
        id=ident, content=row.content, name=row.agent_name, tool_calls=calls or None, **attributed
    )


async def _rows(db: Database, thread: uuid.UUID) -> tuple[list[MessageRow], list[ToolCallRow]]:
    async with unit_of_work(db, write=False) as session:
        repo = SessionRepository(session)
        rows, total = await repo.messages(thread, limit=SNAPSHOT_MESSAGES, offset=0)
        if total > SNAPSHOT_MESSAGES:
            rows, _ = await repo.messages(
                thread, limit=SNAPSHOT_MESSAGES, offset=total - SNAPSHOT_MESSAGES
            )
        calls = await ThreadRepository(session).tool_calls([row.id for row in rows])
    return rows, calls


async def snapshot(
    db: Database, thread: uuid.UUID, turn_id: str, message: str | None
) -> MessagesSnapshotEvent:
    """The thread's messages before turn ``turn_id`` (its newest ``SNAPSHOT_MESSAGES``),
    then that turn's user ``message`` (the turn's own answers follow as its events)."""
    rows, calls = await _rows(db, thread)
    by_message: dict[uuid.UUID, list[ToolCallRow]] = defaultdict(list)
    for call in calls:
        by_message[call.message_id].append(call)
    announced: set[str] = set()  # a continuation's decided calls were announced before
    kept: list[Message] = []
    for row in rows:
        if str(row.turn_id) == turn_id:
            break
        made = by_message.get(row.id, [])
        new = [c for c in made if c.call_id not in announced]
        announced.update(c.call_id for c in made)
        kept.append(_message(row, [_call(c) for c in new]))
        kept += [_result(c) for c in made if c.approval != "pending"]
    if message is not None:
        kept.append(UserMessage(id=message_id(turn_id, 0), content=message))
    return MessagesSnapshotEvent(messages=kept)


def _call(row: ToolCallRow) -> ToolCall:
    return ToolCall(id=row.call_id, function=FunctionCall(name=row.name, arguments=row.arguments))


def _result(row: ToolCallRow) -> ToolMessage:
    ident = tool_message_id(str(row.turn_id), row.call_id)
    return ToolMessage(id=ident, tool_call_id=row.call_id, content=row.result)
