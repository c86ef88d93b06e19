"""One MCP tool call is one Pantheon turn: the session, the start through ``TurnService``
(same auth, rate limit, budgets, approvals and one commit as every turn), the turn's
events read back as progress, and the result.

The answer text is the narration of the typed events (``engine/narration.py``: the mode's
answer, ``ModeSpec.answer``); progress messages are its ``reasoning_content`` (rounds, the
manager's routing, each agent's start and output, tool calls and results). The
structured result is the turn as recorded. Every refusal of Pantheon's (404, 409, 402,
422, 429 ...) is a tool result with ``isError`` naming it, so the calling model can read
it; the MCP client never sees a server error for a request it can correct.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from mcp_types import CallToolResult, InputRequiredResult, InputResponses, TextContent
from pydantic import ValidationError

from pantheon.db.models import ChatSession
from pantheon.db.uow import unit_of_work
from pantheon.deps import Services, limit_turn_rate
from pantheon.engine.events import AgentCompletedEvent, AgentStartedEvent, TurnEvent
from pantheon.engine.narration import Narration
from pantheon.errors import AppError, NotFound, Unprocessable
from pantheon.live.streamed import typed
from pantheon.protocols.mcp_server.approvals import approval_request, decisions
from pantheon.protocols.mcp_server.catalogue import (
    AgentArguments,
    AgentOutput,
    RoomArguments,
    Target,
    ToolOutcome,
    arguments_model,
)
from pantheon.protocols.openai.repository import FacadeRepository
from pantheon.protocols.openai.service import outcome_error
from pantheon.sessions.repository import SessionRepository
from pantheon.sessions.schemas import SessionCreate
from pantheon.sessions.service import SessionService, titled_by
from pantheon.turns.schemas import TurnCreate, TurnDetail
from pantheon.turns.service import StartedTurn
from pantheon.users.auth import Principal

Progress = Callable[[str], Awaitable[None]]
Outcome = CallToolResult | InputRequiredResult


def error_result(message: str) -> CallToolResult:
    """A tool result the calling model reads as a failure (``isError``)."""
    return CallToolResult(content=[TextContent(text=message)], is_error=True)


def _refusal(exc: AppError) -> CallToolResult:
    return error_result(f"{exc.message} ({exc.status_code} {exc.code})")


def _invalid(exc: ValidationError) -> CallToolResult:
    problems = "; ".join(
        f"{'.'.join(str(p) for p in err['loc']) or 'arguments'}: {err['msg']}"
        for err in exc.errors()
    )
    return error_result(f"invalid arguments: {problems}")


def _outputs(detail: TurnDetail) -> list[AgentOutput]:
    return [
        AgentOutput(
            agent_key=m.agent_key,
            agent_name=m.agent_name,
            role=m.role,
            round=m.round,
            status=m.status,
            text=m.content,
        )
        for m in detail.messages
        if m.role != "user"
    ]


def _narration(transcript: Narration, event: TurnEvent) -> tuple[str, str]:
    """Fold one event: the answer text it adds and what progress says about it."""
    pieces = transcript.feed(event)
    answer = "".join(text for field, text in pieces if field == "content")
    said = " ".join(text.strip() for field, text in pieces if field == "reasoning_content")
    if isinstance(event, AgentStartedEvent):
        said = f"{transcript.names[event.agent_key]} answers. {said}".strip()
    elif isinstance(event, AgentCompletedEvent) and not said:  # its text is the answer: just say so
        said = f"{transcript.names.get(event.agent_key, event.agent_key)} answered."
    return answer, said


@dataclass
class ToolCall:
    """One ``tools/call`` of a room or agent tool, by ``principal``; ``can_ask``: the host
    answers approval requests itself (approvals.py)."""

    services: Services
    principal: Principal
    target: Target
    can_ask: bool = False

    @property
    def owner(self) -> uuid.UUID:
        return self.principal.user_id

    async def run(
        self,
        arguments: dict[str, Any],
        progress: Progress,
        answers: InputResponses | None = None,
        state: str | None = None,
    ) -> Outcome:
        """A new turn, or with ``state`` (an approval round's) the paused turn's continuation."""
        try:
            args = arguments_model(self.target.kind).model_validate(arguments)
        except ValidationError as exc:
            return _invalid(exc)
        try:
            await limit_turn_rate(self.principal, self.services)  # a continuation counts too
            if state is not None:
                started = await self._decide(state, answers)
            else:
                session_id, opened = await self._session(args)
                started = await self._start(session_id, opened, args)
        except AppError as exc:
            return _refusal(exc)
        return await self._follow(started, progress)

    async def _decide(self, state: str, answers: InputResponses | None) -> StartedTurn:
        """The continuation of the caller's paused turn ``state`` names, in this tool's
        room or agent (404 for anyone else's, 422 for another room's or agent's)."""
        turn_id, data = decisions(state, answers)
        paused = await self.services.turns.detail(self.owner, turn_id)
        await self._named_session(str(paused.session_id))
        return await self.services.turns.decide(self.owner, turn_id, data)

    async def _session(self, args: AgentArguments) -> tuple[str, bool]:
        """The session to run in (the one named, checked, or a new one) and whether it is new."""
        if args.session_id is None:
            return await self._new_session(args.message), True
        return await self._named_session(args.session_id), False

    async def _named_session(self, session_id: str) -> str:
        """The caller's session ``session_id`` if it is this tool's, else 404 / 422."""
        async with unit_of_work(self.services.db, write=False) as db:
            chat = await SessionRepository(db).get(self.owner, session_id)
        if chat is None:
            raise NotFound(f"session {session_id} (session_id) not found")
        self._check_session(chat)
        return str(chat.id)

    def _check_session(self, chat: ChatSession) -> None:
        owner_id = chat.room_id if self.target.kind == "room" else chat.agent_id
        if owner_id != self.target.id:
            place = f"room {chat.room_id}" if chat.room_id else f"agent {chat.agent_id}"
            raise Unprocessable(
                f"session {chat.id} (session_id) belongs to {place}, not to {self.target.name}"
            )

    async def _new_session(self, message: str) -> str:
        async with unit_of_work(self.services.db, write=True) as db:
            sessions = SessionService(SessionRepository(db))
            data = SessionCreate(title=titled_by("MCP", message))
            if self.target.kind == "room":
                chat = await sessions.create_in_room(self.owner, str(self.target.id), data)
            else:
                chat = await sessions.create_standalone(self.owner, str(self.target.id), data)
            return str(chat.id)

    async def _start(self, session_id: str, opened: bool, args: AgentArguments) -> StartedTurn:
        mode = args.mode if isinstance(args, RoomArguments) else None
        try:
            return await self.services.turns.start(
                self.owner, session_id, TurnCreate(message=args.message, mode=mode), None
            )
        except AppError:
            if opened:  # a session opened for a turn that never started is removed again
                async with unit_of_work(self.services.db, write=True) as db:
                    await FacadeRepository(db).delete_unused_session(uuid.UUID(session_id))
            raise

    async def _follow(self, started: StartedTurn, progress: Progress) -> Outcome:
        """Read the turn's events to its end: progress as it goes, then the result. A
        caller that goes away (cancel, closed stream) stops the turn, as in the facade."""
        transcript, answer = Narration(), []
        try:
            events = await self.services.turns.events(self.owner, started.turn_id, 0)
            async for event in typed(events):
                text, said = _narration(transcript, event)
                answer.append(text)
                if said:
                    await progress(said)
                if transcript.finished:
                    break
            detail = await self.services.turns.wait_for_detail(self.owner, started)
        except AppError as exc:
            return _refusal(exc)
        except BaseException:
            if started.live is not None:
                started.live.cancel()
            raise
        if detail.status == "awaiting_approval" and self.can_ask:
            asked = approval_request(detail)
            if asked is not None:
                return asked
        return _result(transcript, "".join(answer), detail)


def _result(transcript: Narration, answer: str, detail: TurnDetail) -> CallToolResult:
    session_id = str(detail.session_id)
    outcome = ToolOutcome(
        turn_id=str(detail.id),
        session_id=session_id,
        mode=detail.mode,
        status=detail.status,
        usage=detail.usage,
        outputs=_outputs(detail),
    )
    structured = outcome.model_dump(mode="json")
    failed = outcome_error(transcript, str(detail.id))
    if failed is not None:
        text = f"{failed.message} (session_id {session_id})"
        return CallToolResult(
            content=[TextContent(text=text)], structured_content=structured, is_error=True
        )
    if detail.status == "awaiting_approval":
        answer += (
            f"\n\n(The turn paused: a tool call needs a person's approval. Decide with "
            f"POST /v1/turns/{detail.id}/approvals; session_id {session_id}.)"
        )
    elif detail.status == "cancelled":
        answer += "\n\n(The turn was cancelled.)"
    return CallToolResult(content=[TextContent(text=answer)], structured_content=structured)
