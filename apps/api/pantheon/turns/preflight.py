"""Everything checked before a turn may start, and the snapshot it runs on.

All of it happens in one read-only unit whose connection is released before any LLM call.
Bad input becomes a plain HTTP error here, with nothing persisted.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass, replace

from sqlalchemy.ext.asyncio import AsyncSession

from pantheon.db.models import Agent, ChatSession, RoomAgent, Turn
from pantheon.engine.mentions import NoValidMention, require_mentions
from pantheon.engine.modes.specs import mode_spec
from pantheon.engine.snapshot import (
    MODES,
    AgentSnapshot,
    ClientContext,
    HistoryEntry,
    HistoryRole,
    Mode,
    SessionSummary,
    TurnSnapshot,
)
from pantheon.errors import Unprocessable, not_found
from pantheon.rooms.repository import RoomRepository
from pantheon.sessions.lineage import lineage
from pantheon.sessions.repository import SessionRepository
from pantheon.settings import Settings
from pantheon.turns.approvals import awaiting_conflict
from pantheon.turns.idempotency import ensure_same_request, request_hash
from pantheon.turns.repository import HistoryMessage, TurnRepository
from pantheon.turns.rerun import reused_stages
from pantheon.turns.schemas import TurnCreate
from pantheon.users.access import check_allowlisted, user_allowlist


@dataclass(frozen=True, slots=True)
class Preflight:
    """A started turn's snapshot, or the finished turn an idempotent retry refers to."""

    snapshot: TurnSnapshot | None
    existing: Turn | None = None


def _agent_snapshot(agent: Agent, position: int) -> AgentSnapshot:
    return AgentSnapshot(
        id=str(agent.id),
        key=agent.key,
        name=agent.name,
        role_prompt=agent.role_prompt,
        model=agent.model,
        position=position,
        tools=tuple(agent.tools or ()),
    )


# Stored strings back to the snapshot's literal types (the recorder writes only these).
_HISTORY_ROLES: dict[str, HistoryRole] = {r: r for r in ("user", "assistant", "manager")}
_MODES: dict[str, Mode] = {m: m for m in MODES}
# The one mode a session opened on an agent runs (the spec whose session is "agent").
_AGENT_SESSION_MODE = next(m for m in MODES if mode_spec(m).session == "agent")
# The mode a one-agent turn (``agent``, a retry) runs in when none is given: the first room
# mode in which each agent answers for itself and no mention is needed.
_ONE_AGENT_MODE = next(
    m
    for m in MODES
    if (spec := mode_spec(m)).session == "room"
    and spec.answer == "each_agent"
    and not spec.needs_mentions
)


def _history_entry(message: HistoryMessage) -> HistoryEntry:
    role = _HISTORY_ROLES[message.role]
    return HistoryEntry(
        role,
        message.content,
        message.agent_key,
        message.agent_name,
        turn_id=str(message.turn_id),
        at=message.created_at,
    )


def session_summary(chat: ChatSession) -> SessionSummary | None:
    """The session's stored summary, if it has one."""
    if chat.summary is None or chat.summary_through_at is None:
        return None
    return SessionSummary(
        text=chat.summary,
        through_turn_id=str(chat.summary_through_turn_id),
        through_at=chat.summary_through_at,
        messages=chat.summary_messages,
        updated_at=chat.summary_updated_at or chat.summary_through_at,
    )


async def _stored_history(
    turns: TurnRepository, chat: ChatSession, summary: SessionSummary | None, limit: int
) -> tuple[list[HistoryEntry], bool]:
    """The messages after the summary (at most ``limit``) and whether more were unread."""
    after = summary.through_at if summary is not None else None
    segments = await lineage(turns.session, chat)
    rows, truncated = await turns.history(segments, limit, after=after)
    return [_history_entry(m) for m in rows], truncated


def _count(number: int) -> str:
    words = ("no", "one", "two", "three", "four", "five")
    return words[number] if number < len(words) else str(number)


@dataclass(frozen=True, slots=True)
class _Cast:
    """Who a turn runs with: its mode, roster, manager model and the room's purpose."""

    mode: Mode
    roster: tuple[AgentSnapshot, ...]
    manager_model: str | None = None
    description: str = ""


async def _roster_and_mode(
    db: AsyncSession, owner_id: uuid.UUID, chat: ChatSession, data: TurnCreate
) -> _Cast:
    if chat.agent_id is not None:
        if data.agent is not None:
            raise Unprocessable(
                "'agent' picks one agent of a room's roster; this session is opened on one "
                "agent: send the message again instead"
            )
        mode = data.mode or _AGENT_SESSION_MODE
        if mode_spec(mode).session != "agent":
            raise Unprocessable(
                f"a session opened on an agent only runs '{_AGENT_SESSION_MODE}' turns, "
                f"not '{mode}'"
            )
        agent = await db.get(Agent, chat.agent_id)
        assert agent is not None  # the session query only returns sessions of live agents
        return _Cast(mode, (_agent_snapshot(agent, 0),))
    assert chat.room_id is not None  # a session belongs to an agent or to a room
    rooms = RoomRepository(db)
    room = await rooms.get(owner_id, chat.room_id)
    assert room is not None  # likewise for live rooms
    mode = data.mode or (_ONE_AGENT_MODE if data.agent else _MODES[room.mode])
    spec = mode_spec(mode)
    if spec.session != "room":
        raise Unprocessable(f"'{mode}' turns need a session opened on one agent, not a room")
    members = (await rooms.roster([room.id]))[room.id]
    if not members:
        raise Unprocessable(
            f"room {room.id} has no agents; add one with POST /v1/rooms/{{id}}/agents"
        )
    if data.agent is not None:
        members = _only(members, data.agent)
    if len(members) < spec.min_agents:
        raise Unprocessable(
            f"a {mode} turn needs at least {_count(spec.min_agents)} agents in room {room.id} "
            f"({spec.description}); it has {len(members)}"
        )
    roster = tuple(_agent_snapshot(agent, member.position) for member, agent in members)
    return _Cast(mode, roster, room.manager_model, room.description)


def _only(members: Sequence[tuple[RoomAgent, Agent]], key: str) -> list[tuple[RoomAgent, Agent]]:
    """The one roster entry of agent ``key`` (``agent`` in the request), else 422."""
    chosen = [(member, agent) for member, agent in members if agent.key == key]
    if not chosen:
        keys = [agent.key for _, agent in members]
        raise Unprocessable(
            f"agent '{key}' is not in this room's roster (its agents: {', '.join(keys)})",
            room_keys=keys,
        )
    return chosen


async def _check_models(
    db: AsyncSession,
    owner_id: uuid.UUID,
    speakers: Sequence[AgentSnapshot],
    manager_model: str | None,
) -> None:
    """422 when an agent that may speak, or the manager, uses a model the owner may not."""
    allowlist = await user_allowlist(db, owner_id)
    for agent in speakers:
        check_allowlisted(agent.model, allowlist, what=f"agent '{agent.key}'")
    if manager_model is not None:
        check_allowlisted(manager_model, allowlist, what="manager")


def _with_instructions(
    roster: tuple[AgentSnapshot, ...], context: ClientContext | None
) -> tuple[AgentSnapshot, ...]:
    """Every agent carries the client's instructions, when it sent some (facade)."""
    if context is None or not context.instructions:
        return roster
    return tuple(replace(agent, instructions=context.instructions) for agent in roster)


async def prepare_turn(
    db: AsyncSession,
    settings: Settings,
    owner_id: uuid.UUID,
    session_id: str,
    data: TurnCreate,
    idempotency_key: str | None,
    context: ClientContext | None = None,
) -> Preflight:
    """Validate the request and freeze what the turn will see (``context``: what an
    external client supplies instead of the session's history, see ``ClientContext``)."""
    chat = await SessionRepository(db).get(owner_id, session_id)
    if chat is None:
        raise not_found("session", session_id)
    turns = TurnRepository(db)
    if idempotency_key is not None:
        existing = await turns.by_idempotency_key(chat.id, idempotency_key)
        if existing is not None:
            ensure_same_request(existing.request_hash, request_hash(data))
            return Preflight(None, existing)
    latest = await turns.latest(chat.id)
    # A decided turn no longer waits, even if its continuation was never recorded.
    if (
        latest is not None
        and latest.status == "awaiting_approval"
        and await turns.decision(latest.id) is None
    ):
        raise awaiting_conflict(latest)
    limit = settings.turns.max_message_chars
    if len(data.message) > limit:
        raise Unprocessable(
            f"message is {len(data.message)} characters; the limit is {limit} "
            "(PANTHEON_TURNS__MAX_MESSAGE_CHARS)",
            limit=limit,
        )
    if data.agent is not None and data.rerun_from is not None:
        raise Unprocessable(
            "'agent' runs one agent afresh; it cannot be combined with 'rerun_from'"
        )
    cast = await _roster_and_mode(db, owner_id, chat, data)
    mode, roster = cast.mode, _with_instructions(cast.roster, context)
    reuse = await reused_stages(turns, chat.id, mode, data.rerun_from, roster)
    speakers: Sequence[AgentSnapshot] = roster
    spec = mode_spec(mode)
    if spec.needs_mentions:
        try:
            speakers = require_mentions(data.message, roster)
        except NoValidMention as exc:
            raise Unprocessable(str(exc), room_keys=exc.keys) from exc
    manager_model = cast.manager_model or settings.default_model
    await _check_models(db, owner_id, speakers, manager_model if spec.uses_manager else None)
    stored = context is None or context.history is None
    summary = session_summary(chat) if stored else None
    truncated = False
    if context is not None and context.history is not None:
        history: Sequence[HistoryEntry] = context.history
    else:
        limit = settings.turns.history_messages
        history, truncated = await _stored_history(turns, chat, summary, limit)
    snapshot = TurnSnapshot(
        turn_id=str(uuid.uuid4()),
        session_id=str(chat.id),
        mode=mode,
        message=data.message,
        roster=roster,
        manager_model=manager_model,
        history=tuple(history),
        orchestrator=settings.orchestrator,
        tool_limits=settings.tools,
        owner_id=str(owner_id),
        room_id=str(chat.room_id) if chat.room_id is not None else None,
        room_description=cast.description,
        review=settings.review,
        reuse=reuse,
        summary=summary,
        stored_history=stored,
        history_truncated=truncated,
        context=settings.context,
    )
    return Preflight(snapshot)
