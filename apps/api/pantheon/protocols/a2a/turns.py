"""Starting a room's turn for an A2A message: its text, its session (``contextId``; none:
a new session of the room), and Pantheon's errors as A2A's."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from a2a.types.a2a_pb2 import Message
from a2a.utils.errors import (
    A2AError,
    ContentTypeNotSupportedError,
    InvalidParamsError,
    InvalidRequestError,
)
from pydantic import ValidationError

from pantheon.db.uow import unit_of_work
from pantheon.deps import limit_turn_rate
from pantheon.engine.snapshot import ClientContext
from pantheon.errors import AppError, NotFound, Unprocessable
from pantheon.protocols.a2a.tasks import Caller
from pantheon.protocols.openai.repository import FacadeRepository
from pantheon.sessions.repository import SessionRepository
from pantheon.sessions.schemas import SessionCreate
from pantheon.sessions.service import SessionService, titled_by
from pantheon.turns.schemas import TurnCreate
from pantheon.turns.service import StartedTurn


@dataclass(frozen=True, slots=True)
class Started:
    """A turn started for a message, its context (session) and the task's history; the
    task is the turn, or the paused turn it continues (``task_id``)."""

    turn: StartedTurn
    session_id: str
    requests: tuple[str, ...]
    task_id: str = ""
    message_id: str = ""  # the client's id of the task's first message

    @property
    def task(self) -> str:
        return self.task_id or self.turn.turn_id


def a2a_error(exc: AppError) -> A2AError:
    """A Pantheon error as the A2A error a client gets; its code and status in ``data``."""
    data = {"code": str(exc.code), "http_status": exc.status_code, **exc.extra}
    if isinstance(exc, NotFound | Unprocessable) or exc.status_code in (400, 413, 422):
        return InvalidParamsError(exc.message, data=data)
    return InvalidRequestError(exc.message, data=data)


def message_text(message: Message) -> str:
    """The message's text parts, joined; other kinds of part are refused by name."""
    texts: list[str] = []
    for part in message.parts:
        kind = part.WhichOneof("content")
        if kind != "text":
            raise ContentTypeNotSupportedError(
                f"only text parts are supported, not a '{kind}' part (send the text itself)"
            )
        texts.append(part.text)
    text = "\n".join(texts)
    if not text.strip():
        raise InvalidParamsError("the message has no text: send at least one non-empty text part")
    return text


async def _session(caller: Caller, context_id: str, text: str) -> tuple[str, bool]:
    """The session of ``context_id`` (a session of this room), or a new one; whether new."""
    async with unit_of_work(caller.services.db, write=not context_id) as db:
        sessions = SessionRepository(db)
        if context_id:
            chat = await sessions.get(caller.owner_id, context_id)
            if chat is None or chat.room_id != caller.room_id:
                raise InvalidParamsError(f"contextId {context_id[:64]} is no session of this room")
            return str(chat.id), False
        service = SessionService(sessions)
        data = SessionCreate(title=titled_by("A2A", text))
        created = await service.create_in_room(caller.owner_id, str(caller.room_id), data)
        return str(created.id), True


async def start_turn(caller: Caller, message: Message) -> Started:
    """Start the room's turn for ``message`` through ``TurnService`` (same auth, budgets,
    rate limit and approvals as any turn); errors before it starts raise A2A errors."""
    text = message_text(message)
    try:
        data = TurnCreate(message=text)
    except ValidationError as exc:
        problems = "; ".join(str(error["msg"]) for error in exc.errors())
        raise InvalidParamsError(f"the message cannot start a turn: {problems}") from exc
    try:
        await limit_turn_rate(caller.principal, caller.services)
        session_id, opened = await _session(caller, message.context_id, text)
    except AppError as exc:
        raise a2a_error(exc) from exc
    try:
        context = ClientContext(message_id=message.message_id or None)
        started = await caller.services.turns.start(
            caller.owner_id, session_id, data, None, context
        )
    except AppError as exc:
        if opened:
            async with unit_of_work(caller.services.db, write=True) as db:
                await FacadeRepository(db).delete_unused_session(uuid.UUID(session_id))
        raise a2a_error(exc) from exc
    return Started(started, session_id, (text,), message_id=message.message_id)
