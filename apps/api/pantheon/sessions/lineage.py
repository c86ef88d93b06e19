"""A session's lineage: itself, then each session it was forked from, cut at the fork turn.

A fork copies nothing (docs/adr/0024): its history is its own turns after its parent's
turns up to and including the fork turn, and so on up the chain. Turns of a session never
overlap and a fork is made after its fork turn ended, so turn time orders the whole
lineage, as it orders one session.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import ColumnElement, and_, bindparam, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from pantheon.db.models import ChatSession, Message, Turn

# Forks of forks of ...: each hop is one small read; past this the chain is cut (and the
# oldest history left out, as a long history is anyway).
MAX_DEPTH = 64
_sessions, _turns = ChatSession.__table__.c, Turn.__table__.c
# One hop up: the parent's own parent and fork turn, and when the child's fork turn began.
_HOP = select(
    _sessions.parent_id,
    _sessions.fork_turn_id,
    select(_turns.created_at)
    .where(_turns.id == bindparam("fork_turn_id", type_=_turns.id.type))
    .scalar_subquery()
    .label("forked_at"),
).where(_sessions.id == bindparam("parent_id", type_=_sessions.id.type))


@dataclass(frozen=True, slots=True)
class Segment:
    """The turns of ``session_id`` that belong to the lineage: all of them (``through_at``
    None) or those up to and including the turn at (``through_at``, ``through_id``)."""

    session_id: uuid.UUID
    through_at: datetime | None = None
    through_id: uuid.UUID | None = None

    def turns(self) -> ColumnElement[bool]:
        """The SQL condition on ``Turn`` rows of this segment."""
        own = Turn.session_id == self.session_id
        if self.through_at is None or self.through_id is None:
            return own
        before = or_(
            Turn.created_at < self.through_at,
            and_(Turn.created_at == self.through_at, Turn.id <= self.through_id),
        )
        return and_(own, before)

    def messages(self) -> ColumnElement[bool]:
        """The SQL condition on ``Message`` rows of this segment."""
        own = Message.session_id == self.session_id
        if self.through_at is None:
            return own
        return and_(own, Message.turn_id.in_(select(Turn.id).where(self.turns())))

    def holds(self, turn: Turn) -> bool:
        """Whether ``turn`` is one of this segment's turns."""
        if turn.session_id != self.session_id:
            return False
        if self.through_at is None or self.through_id is None:
            return True
        return (turn.created_at, turn.id) <= (self.through_at, self.through_id)


async def lineage(db: AsyncSession, chat: ChatSession) -> list[Segment]:
    """``chat`` and its ancestors, newest first (deleted ancestors included: a fork keeps
    the history it was made with)."""
    return await lineage_of(db, chat.id, chat.parent_id, chat.fork_turn_id)


async def lineage_of(
    db: AsyncSession,
    session_id: uuid.UUID,
    parent_id: uuid.UUID | None,
    fork_turn_id: uuid.UUID | None,
) -> list[Segment]:
    """``lineage`` of the session with these columns: no read at all when it is no fork."""
    segments = [Segment(session_id)]
    while parent_id is not None and fork_turn_id is not None and len(segments) < MAX_DEPTH:
        params = {"parent_id": parent_id, "fork_turn_id": fork_turn_id}
        hop = (await db.execute(_HOP, params)).first()
        if hop is None or hop.forked_at is None:
            break
        segments.append(Segment(parent_id, hop.forked_at, fork_turn_id))
        parent_id, fork_turn_id = hop.parent_id, hop.fork_turn_id
    return segments


def turns_of(segments: list[Segment]) -> ColumnElement[bool]:
    """The SQL condition on ``Turn`` rows of the whole lineage."""
    return or_(*(segment.turns() for segment in segments))


def messages_of(segments: list[Segment]) -> ColumnElement[bool]:
    """The SQL condition on ``Message`` rows of the whole lineage."""
    return or_(*(segment.messages() for segment in segments))
