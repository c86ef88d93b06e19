"""A session's lineage: itself, then each session it was forked from, cut at the fork turn.

A fork copies nothing (docs/adr/0024): its history is its own turns after its parent's
turns up to and including the fork turn, and so on up the chain. Turns of a session never
overlap and a fork is made after its fork turn ended, so turn time orders the whole
lineage, as it orders one session.

The chain of ancestors is one recursive query (``WITH RECURSIVE``), however deep: a fork
of a fork of ... keeps all of its history, and what a prompt sends of it is cut by the
history and token budgets (docs/context.md), not by the number of hops.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import CTE, ColumnElement, Select, and_, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from pantheon.db.models import ChatSession, Message, Turn

_sessions, _turns = ChatSession.__table__, Turn.__table__


@dataclass(frozen=True, slots=True)
class Segment:
    """The turns of ``session_id`` that belong to the lineage: all of them (``through_at``
    None) or those up to and including the turn at (``through_at``, ``through_id``)."""

    session_id: uuid.UUID
    through_at: datetime | None = None
    through_id: uuid.UUID | None = None

    def holds(self, turn: Turn) -> bool:
        """Whether ``turn`` is one of this segment's turns."""
        if turn.session_id != self.session_id:
            return False
        if self.through_at is None or self.through_id is None:
            return True
        return (turn.created_at, turn.id) <= (self.through_at, self.through_id)


@dataclass(frozen=True, slots=True)
class Lineage:
    """The session ``session_id`` (forked from ``parent_id`` at ``fork_turn_id``, if a
    fork) and its ancestors, as SQL conditions: no read until a query uses them."""

    session_id: uuid.UUID
    parent_id: uuid.UUID | None = None
    fork_turn_id: uuid.UUID | None = None

    @classmethod
    def of(cls, chat: ChatSession) -> Lineage:
        """The lineage of a loaded session."""
        return cls(chat.id, chat.parent_id, chat.fork_turn_id)

    @property
    def is_fork(self) -> bool:
        """Whether any turn of another session belongs to this lineage."""
        return self.parent_id is not None and self.fork_turn_id is not None

    def ancestors(self) -> CTE:
        """One row per ancestor segment: ``session_id``, ``through_at``, ``through_id``.

        ``UNION`` (not ``UNION ALL``) ends the recursion even on a cycle, which forking
        cannot make (a parent exists before its fork) but a hand-edited database could."""
        fork_turn = _turns.alias("fork_turn")
        start = (
            select(
                _sessions.c.id.label("session_id"),
                fork_turn.c.created_at.label("through_at"),
                fork_turn.c.id.label("through_id"),
                _sessions.c.parent_id.label("parent_id"),
                _sessions.c.fork_turn_id.label("fork_turn_id"),
            )
            .join_from(_sessions, fork_turn, fork_turn.c.id == self.fork_turn_id)
            .where(_sessions.c.id == self.parent_id)
            .cte("lineage", recursive=True)
        )
        up, up_turn = _sessions.alias("up"), _turns.alias("up_turn")
        hop = (
            select(up.c.id, up_turn.c.created_at, up_turn.c.id, up.c.parent_id, up.c.fork_turn_id)
            .join_from(start, up, up.c.id == start.c.parent_id)
            .join(up_turn, up_turn.c.id == start.c.fork_turn_id)
        )
        return start.union(hop)

    def _inherited_ids(self) -> Select[tuple[uuid.UUID]]:
        """The ids of the turns inherited from ancestors: a join of the ancestors with
        their turns, which the index on ``turns.session_id`` serves."""
        chain, turn = self.ancestors(), _turns.alias("inherited")
        return (
            select(turn.c.id)
            .join_from(chain, turn, turn.c.session_id == chain.c.session_id)
            .where(
                or_(
                    turn.c.created_at < chain.c.through_at,
                    and_(turn.c.created_at == chain.c.through_at, turn.c.id <= chain.c.through_id),
                )
            )
        )

    def turns(self) -> ColumnElement[bool]:
        """The SQL condition on ``Turn`` rows of the whole lineage."""
        own = Turn.session_id == self.session_id
        if not self.is_fork:
            return own
        return or_(own, Turn.id.in_(self._inherited_ids()))

    def messages(self) -> ColumnElement[bool]:
        """The SQL condition on ``Message`` rows of the whole lineage."""
        own = Message.session_id == self.session_id
        if not self.is_fork:
            return own
        return or_(own, Message.turn_id.in_(self._inherited_ids()))


async def segments(db: AsyncSession, lineage: Lineage) -> list[Segment]:
    """``lineage`` as its segments, the session's own first, then its ancestors newest
    first (deleted ancestors included: a fork keeps the history it was made with)."""
    own = Segment(lineage.session_id)
    if not lineage.is_fork:
        return [own]
    chain = lineage.ancestors()
    query = select(chain.c.session_id, chain.c.through_at, chain.c.through_id).order_by(
        chain.c.through_at.desc(), chain.c.through_id.desc()
    )
    return [own, *(Segment(*row) for row in (await db.execute(query)).all())]
