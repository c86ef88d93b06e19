"""The reads a turn's preflight makes, as few and as cheap as they can be.

One statement answers everything known from the session alone: the session (if it is live
and the caller's), its agent or room, its newest turn and whether that turn still waits
for a decision, the turn an Idempotency-Key names, the owner's model allowlist and whether
the owner has any budget. A room's roster is a second one. Both are built once, with bound
parameters, and read columns rather than ORM objects: every turn runs them, and building
and loading cost more than the queries themselves (docs/benchmarks.md).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Row, and_, bindparam, exists, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from pantheon.db.models import Agent, Budget, ChatSession, Room, RoomAgent, Turn, TurnDecision, User
from pantheon.engine.snapshot import AgentSnapshot, SessionSummary
from pantheon.rooms.repository import visible_to

_s, _r, _a = ChatSession.__table__.c, Room.__table__.c, Agent.__table__.c
_m = RoomAgent.__table__.c
_Row = Row[*tuple[Any, ...]]
_t, _u, _b = Turn.__table__.c, User.__table__.c, Budget.__table__.c
_keyed, _latest = Turn.__table__.alias("keyed"), Turn.__table__.alias("latest")
_decided = TurnDecision.__table__.alias("decided")
_newest_turn = (
    select(_t.id)
    .where(_t.session_id == _s.id)
    .order_by(_t.created_at.desc(), _t.id.desc())
    .limit(1)
    .scalar_subquery()
)
_OWNER = bindparam("owner_id", type_=_s.owner_id.type)
# The room is still the caller's to see (owned, or shared with them): a member who was
# removed cannot run turns in the sessions they opened while they were one.
_VISIBLE = visible_to(_OWNER)
_FACTS_COLUMNS = (
    _s.id, _s.title, _s.room_id, _s.agent_id, _s.parent_id, _s.fork_turn_id, _s.summary,
    _s.summary_through_turn_id, _s.summary_through_at, _s.summary_messages,
    _s.summary_updated_at,
    _a.key.label("agent_key"), _a.name.label("agent_name"), _a.role_prompt, _a.model, _a.tools,
    _r.mode.label("room_mode"), _r.manager_model, _r.description.label("room_description"),
    _latest.c.id.label("latest_id"), _latest.c.status.label("latest_status"),
    _decided.c.turn_id.label("decided_id"),
    _keyed.c.id.label("existing_id"), _keyed.c.request_hash.label("existing_hash"),
    select(_u.allowed_models).where(_u.id == _OWNER).scalar_subquery().label("allowlist"),
    exists(select(_b.id).where(_b.user_id == _OWNER)).label("budgeted"),
)  # fmt: skip
_FACTS = (
    select(*_FACTS_COLUMNS)
    .select_from(ChatSession.__table__)
    .outerjoin(Room.__table__, _r.id == _s.room_id)
    .outerjoin(Agent.__table__, _a.id == _s.agent_id)
    .outerjoin(_latest, _latest.c.id == _newest_turn)
    .outerjoin(_decided, _decided.c.turn_id == _latest.c.id)
    .outerjoin(
        _keyed,
        and_(_keyed.c.session_id == _s.id, _keyed.c.idempotency_key == bindparam("key")),
    )
    .where(
        _s.id == bindparam("session_id"),
        _s.owner_id == _OWNER,
        _s.deleted_at.is_(None),
        or_(
            and_(_s.room_id.is_not(None), _r.deleted_at.is_(None), _VISIBLE),
            and_(_s.agent_id.is_not(None), _a.deleted_at.is_(None)),
        ),
    )
)
_ROSTER_COLUMNS = (
    _m.position, _a.id, _a.key.label("agent_key"), _a.name.label("agent_name"),
    _a.role_prompt, _a.model, _a.tools,
)  # fmt: skip
_ROSTER = (
    select(*_ROSTER_COLUMNS)
    .select_from(RoomAgent.__table__)
    .join(Agent.__table__, _a.id == _m.agent_id)
    .where(_m.room_id == bindparam("room_id"), _a.deleted_at.is_(None))
    .order_by(_m.position)
)


@dataclass(frozen=True, slots=True)
class RoomFacts:
    """What a turn needs of a session's room (its roster is read separately)."""

    id: uuid.UUID
    mode: str
    manager_model: str | None
    description: str


@dataclass(frozen=True, slots=True)
class SessionFacts:
    """What a turn's preflight knows after its first read (see the module docstring).

    ``waiting_turn_id``: the newest turn, when it waits for a decision nobody claimed yet
    (a decided turn no longer waits, even if its continuation was never recorded);
    ``existing``: the id and request digest of the turn the Idempotency-Key names;
    ``allowlist``: the owner's model allowlist (``None``: every alias); ``budgeted``:
    whether the owner has any budget (without one, no turn of theirs has limits);
    ``untitled``: no title and no turn yet, so the first message will name the session."""

    id: uuid.UUID
    parent_id: uuid.UUID | None
    fork_turn_id: uuid.UUID | None
    summary: SessionSummary | None
    agent: AgentSnapshot | None
    room: RoomFacts | None
    waiting_turn_id: uuid.UUID | None
    existing: tuple[uuid.UUID, str | None] | None
    allowlist: list[str] | None
    budgeted: bool
    untitled: bool = False


def _facts(row: _Row) -> SessionFacts:
    waiting = row.latest_status == "awaiting_approval" and row.decided_id is None
    return SessionFacts(
        id=row.id,
        parent_id=row.parent_id,
        fork_turn_id=row.fork_turn_id,
        summary=_summary(row),
        agent=None if row.agent_id is None else _snapshot(row.agent_id, row, 0),
        room=None
        if row.room_id is None
        else RoomFacts(row.room_id, row.room_mode, row.manager_model, row.room_description),
        waiting_turn_id=row.latest_id if waiting else None,
        existing=None if row.existing_id is None else (row.existing_id, row.existing_hash),
        allowlist=row.allowlist,
        budgeted=bool(row.budgeted),
        untitled=not row.title and row.latest_id is None,
    )


def _summary(row: _Row) -> SessionSummary | None:
    """The session's stored summary, if it has one."""
    if row.summary is None or row.summary_through_at is None:
        return None
    return SessionSummary(
        text=row.summary,
        through_turn_id=str(row.summary_through_turn_id),
        through_at=row.summary_through_at,
        messages=row.summary_messages,
        updated_at=row.summary_updated_at or row.summary_through_at,
    )


def _snapshot(ident: uuid.UUID, row: _Row, position: int) -> AgentSnapshot:
    return AgentSnapshot(
        id=str(ident),
        key=row.agent_key,
        name=row.agent_name,
        role_prompt=row.role_prompt,
        model=row.model,
        position=position,
        tools=tuple(row.tools or ()),
    )


async def session_facts(
    db: AsyncSession, owner_id: uuid.UUID, session_id: uuid.UUID, key: str | None
) -> SessionFacts | None:
    """The facts of the caller's live session ``session_id`` (``None``: no such session);
    ``key``: the request's Idempotency-Key, if any."""
    params = {"owner_id": owner_id, "session_id": session_id, "key": key}
    row = (await db.execute(_FACTS, params)).first()
    return None if row is None else _facts(row)


async def live_roster(db: AsyncSession, room_id: uuid.UUID) -> list[AgentSnapshot]:
    """The room's live agents, by position."""
    rows = (await db.execute(_ROSTER, {"room_id": room_id})).all()
    return [_snapshot(row.id, row, row.position) for row in rows]
