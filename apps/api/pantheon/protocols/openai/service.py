"""Chat completions as Pantheon turns: pick the room or agent, open a session, start the
turn through ``TurnService`` and read its typed events back.

Each completion is a real turn: owned by the key's user, recorded in one commit like any
other, in a session of its own (opened here, in its own short commit, and deleted again
when the turn cannot start) or in the session named by ``X-Pantheon-Session``, whose
stored history then replaces the client's. The request's model settles which:
``room-<id>`` runs the room's mode, ``agent-<key>`` a standalone turn.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import AsyncGenerator
from dataclasses import dataclass, replace

from pantheon.db.models import Agent, ChatSession, Room
from pantheon.db.uow import unit_of_work
from pantheon.engine.events import TurnEvent
from pantheon.engine.narration import Narration
from pantheon.error_codes import ErrorCode
from pantheon.errors import AppError, Conflict, ServiceUnavailable
from pantheon.live.streamed import typed
from pantheon.protocols.openai.errors import (
    InvalidRequest,
    ModelNotFound,
    QuotaExhausted,
    SessionBusy,
    TurnBroken,
    TurnFailed,
)
from pantheon.protocols.openai.models import card, list_models, resolve
from pantheon.protocols.openai.repository import FacadeRepository
from pantheon.protocols.openai.request import TurnRequest, to_turn
from pantheon.protocols.openai.schemas import ChatCompletionCreate, ModelCard, ModelList
from pantheon.sessions.repository import SessionRepository
from pantheon.sessions.schemas import SessionCreate
from pantheon.sessions.service import SessionService, titled_by
from pantheon.turns.schemas import TurnCreate
from pantheon.turns.service import StartedTurn, TurnService


@dataclass(frozen=True, slots=True)
class Completion:
    """A started completion: its turn, session, and what the client asked for."""

    model: str
    request: TurnRequest
    turn: StartedTurn
    session_id: str
    created: int

    @property
    def id(self) -> str:
        return f"chatcmpl-{self.turn.turn_id}"

    def cancel(self) -> None:
        """Stop the turn (the client went away); it still records itself, ``cancelled``."""
        if self.turn.live is not None:
            self.turn.live.cancel()


def _check_session(chat: ChatSession, target: Room | Agent, model: str) -> None:
    owner_id = chat.room_id if isinstance(target, Room) else chat.agent_id
    if owner_id != target.id:
        place = f"room {chat.room_id}" if chat.room_id else f"agent {chat.agent_id}"
        raise InvalidRequest(
            f"session {chat.id} (X-Pantheon-Session) belongs to {place}, not to model '{model}'"
        )


@dataclass
class FacadeService:
    turns: TurnService

    async def models(self, owner_id: uuid.UUID) -> ModelList:
        async with unit_of_work(self.turns.db, write=False) as db:
            return ModelList(data=await list_models(db, owner_id))

    async def model(self, owner_id: uuid.UUID, model_id: str) -> ModelCard:
        async with unit_of_work(self.turns.db, write=False) as db:
            return await card(db, owner_id, model_id)

    async def _named_session(self, owner_id: uuid.UUID, model: str, named: str) -> str:
        """The X-Pantheon-Session session, checked against the model (read-only)."""
        async with unit_of_work(self.turns.db, write=False) as db:
            target = await resolve(db, owner_id, model)
            chat = await SessionRepository(db).get(owner_id, named)
            if chat is None:
                raise ModelNotFound(f"session {named} (X-Pantheon-Session) not found")
            _check_session(chat, target, model)
            return str(chat.id)

    async def _new_session(self, owner_id: uuid.UUID, model: str, message: str) -> str:
        """A session of its own for this completion, in the room or on the agent."""
        async with unit_of_work(self.turns.db, write=True) as db:
            target = await resolve(db, owner_id, model)
            sessions = SessionService(SessionRepository(db))
            data = SessionCreate(title=titled_by("OpenAI API", message))
            if isinstance(target, Room):
                chat = await sessions.create_in_room(owner_id, str(target.id), data)
            else:
                chat = await sessions.create_standalone(owner_id, str(target.id), data)
            return str(chat.id)

    async def start(
        self, owner_id: uuid.UUID, body: ChatCompletionCreate, named_session: str | None
    ) -> Completion:
        """Validate the request and start its turn; errors before the turn starts raise."""
        request = to_turn(body, self.turns.settings.turns)
        opened = named_session is None
        if named_session is None:
            session_id = await self._new_session(owner_id, body.model, request.message)
        else:  # the session's stored history, not the client's
            request = replace(request, context=replace(request.context, history=None))
            session_id = await self._named_session(owner_id, body.model, named_session)
        try:
            started = await self.turns.start(
                owner_id, session_id, TurnCreate(message=request.message), None, request.context
            )
        except AppError as exc:
            if opened:
                await self._forget(session_id)
            if isinstance(exc, Conflict):
                raise SessionBusy(exc.message, headers=exc.headers) from exc
            raise
        return Completion(body.model, request, started, session_id, int(time.time()))

    async def _forget(self, session_id: str) -> None:
        async with unit_of_work(self.turns.db, write=True) as db:
            await FacadeRepository(db).delete_unused_session(uuid.UUID(session_id))

    async def events(
        self, owner_id: uuid.UUID, completion: Completion
    ) -> AsyncGenerator[TurnEvent, None]:
        """The turn's typed events from the first."""
        async for event in typed(await self.turns.events(owner_id, completion.turn.turn_id, 0)):
            yield event


def outcome_error(transcript: Narration, turn_id: str) -> AppError | None:
    """The error a finished turn's client gets instead of an answer, if any."""
    if transcript.error is not None:
        code, message = transcript.error
        if code == ErrorCode.PERSISTENCE_FAILED:
            return ServiceUnavailable(f"turn {turn_id}: {message}")
        return TurnBroken(f"turn {turn_id}: {message}")
    if transcript.status is None:
        return TurnBroken(f"turn {turn_id} ended without an outcome")
    spent = transcript.error_code == ErrorCode.BUDGET_EXCEEDED
    if spent and (transcript.status == "failed" or not transcript.answered):
        return QuotaExhausted(
            f"turn {turn_id} stopped: a spend limit could not cover its next LLM call; "
            "no more is spent until the limit resets (UTC day or month) or is raised"
        )
    if transcript.status == "failed":
        reasons = "; ".join(transcript.failures) or "no agent could answer"
        return TurnFailed(f"turn {turn_id} failed: {reasons}")
    return None
