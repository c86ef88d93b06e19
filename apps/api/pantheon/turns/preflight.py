"""Everything checked before a turn may start, and the snapshot it runs on.

All of it happens in one read-only unit whose connection is released before any LLM call.
Bad input becomes a plain HTTP error here, with nothing persisted.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass, replace

from sqlalchemy.ext.asyncio import AsyncSession

from pantheon.db.repository import as_uuid
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
from pantheon.sessions.lineage import Lineage
from pantheon.sessions.schemas import auto_title
from pantheon.settings import Settings
from pantheon.turns.approvals import awaiting_conflict
from pantheon.turns.idempotency import ensure_same_request, request_hash
from pantheon.turns.preflight_read import SessionFacts, live_roster, session_facts
from pantheon.turns.repository import HistoryMessage, TurnRepository
from pantheon.turns.rerun import reused_stages
from pantheon.turns.schemas import TurnCreate
from pantheon.users.access import check_allowlisted


@dataclass(frozen=True, slots=True)
class Preflight:
    """A started turn's snapshot, or the finished turn an idempotent retry refers to
    (``budgeted``: whether the owner has any budget whose limits may apply; ``title``: the
    title the first message gives an untitled session, else ``None``)."""

    snapshot: TurnSnapshot | None
    existing: uuid.UUID | None = None
    budgeted: bool = True
    title: str | None = None


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


async def _stored_history(
    turns: TurnRepository, chat: SessionFacts, summary: SessionSummary | None, limit: int
) -> tuple[list[HistoryEntry], bool]:
    """The messages after the summary (at most ``limit``) and whether more were unread."""
    after = summary.through_at if summary is not None else None
    lineage = Lineage(chat.id, chat.parent_id, chat.fork_turn_id)
    rows, truncated = await turns.history(lineage, limit, after=after)
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


async def _roster_and_mode(db: AsyncSession, chat: SessionFacts, data: TurnCreate) -> _Cast:
    if chat.agent is not None:
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
        return _Cast(mode, (chat.agent,))
    room = chat.room
    assert room is not None  # a session belongs to an agent or to a room
    mode = data.mode or (_ONE_AGENT_MODE if data.agent else _MODES[room.mode])
    spec = mode_spec(mode)
    if spec.session != "room":
        raise Unprocessable(f"'{mode}' turns need a session opened on one agent, not a room")
    members = await live_roster(db, room.id)
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
    return _Cast(mode, tuple(members), room.manager_model, room.description)


def _only(members: Sequence[AgentSnapshot], key: str) -> list[AgentSnapshot]:
    """The one roster entry of agent ``key`` (``agent`` in the request), else 422."""
    chosen = [agent for agent in members if agent.key == key]
    if not chosen:
        keys = [agent.key for agent in members]
        raise Unprocessable(
            f"agent '{key}' is not in this room's roster (its agents: {', '.join(keys)})",
            room_keys=keys,
        )
    return chosen


def _check_models(
    allowlist: list[str] | None, speakers: Sequence[AgentSnapshot], manager_model: str | None
) -> None:
    """422 when an agent that may speak, or the manager, uses a model the owner may not."""
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
    ident = as_uuid(session_id)
    chat = None if ident is None else await session_facts(db, owner_id, ident, idempotency_key)
    if chat is None:
        raise not_found("session", session_id)
    if chat.existing is not None:
        existing_id, existing_hash = chat.existing
        ensure_same_request(existing_hash, request_hash(data))
        return Preflight(None, existing_id)
    if chat.waiting_turn_id is not None:
        raise awaiting_conflict(chat.waiting_turn_id)
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
    cast = await _roster_and_mode(db, chat, data)
    mode, roster = cast.mode, _with_instructions(cast.roster, context)
    turns = TurnRepository(db)
    reuse = await reused_stages(turns, chat.id, mode, data.rerun_from, roster)
    speakers: Sequence[AgentSnapshot] = roster
    spec = mode_spec(mode)
    if spec.needs_mentions:
        try:
            speakers = require_mentions(data.message, roster)
        except NoValidMention as exc:
            raise Unprocessable(str(exc), room_keys=exc.keys) from exc
    manager_model = cast.manager_model or settings.default_model
    _check_models(chat.allowlist, speakers, manager_model if spec.uses_manager else None)
    stored = context is None or context.history is None
    summary = chat.summary if stored else None
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
        room_id=str(chat.room.id) if chat.room is not None else None,
        room_description=cast.description,
        review=settings.review,
        reuse=reuse,
        summary=summary,
        stored_history=stored,
        history_truncated=truncated,
        context=settings.context,
        client_message_id=context.message_id if context is not None else None,
    )
    title = auto_title(data.message) if chat.untitled else None
    return Preflight(snapshot, budgeted=chat.budgeted, title=title or None)
