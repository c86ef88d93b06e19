"""The spend ledger's SQL: counters per budget and window, holds of calls in flight.

Every function runs inside a caller's short unit of work of its own (never a turn's
commit, docs/adr/0013). The one rule that keeps concurrent turns from overspending is
``take``: a single conditional ``UPDATE ... WHERE spent + reserved + amount <= limit``,
atomic on SQLite (one writer at a time) and on PostgreSQL (the row lock, and the WHERE
re-checked on the locked row under READ COMMITTED).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import delete, func, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from pantheon.budgets.periods import to_micros, window_start
from pantheon.db.models import ChatSession, LLMCall, SpendCounter, SpendHoldRow, Turn, charged_usd
from pantheon.db.repository import Repository
from pantheon.engine.values import BudgetPeriod


@dataclass(frozen=True, slots=True)
class Limit:
    """One limit that applies to a turn: a budget's daily or monthly cap."""

    budget_id: uuid.UUID
    user_id: uuid.UUID
    room_id: uuid.UUID | None
    period: BudgetPeriod
    limit_micros: int


class LedgerRepository(Repository):
    async def spent_since(
        self, user_id: uuid.UUID, room_id: uuid.UUID | None, since: datetime
    ) -> int:
        """What the user's recorded calls (in the room, if given) cost since ``since``."""
        query = (
            select(func.coalesce(func.sum(charged_usd()), 0.0))
            .join(Turn, Turn.id == LLMCall.turn_id)
            .join(ChatSession, ChatSession.id == Turn.session_id)
            .where(ChatSession.owner_id == user_id, LLMCall.started_at >= since)
        )
        if room_id is not None:
            query = query.where(ChatSession.room_id == room_id)
        return to_micros(float(await self.session.scalar(query) or 0.0))

    async def counter(self, limit: Limit, now: datetime) -> SpendCounter | None:
        query = select(SpendCounter).where(
            SpendCounter.budget_id == limit.budget_id,
            SpendCounter.period == limit.period,
            SpendCounter.window_start == window_start(limit.period, now),
        )
        return await self.session.scalar(query)

    async def open_counter(self, limit: Limit, now: datetime) -> uuid.UUID:
        """The id of the limit's counter for the window of ``now``; a new window's counter
        starts from what the recorded calls of that window already cost."""
        found = await self.counter(limit, now)
        if found is not None:
            return found.id
        start = window_start(limit.period, now)
        values = {
            "id": uuid.uuid4(),
            "budget_id": limit.budget_id,
            "period": limit.period,
            "window_start": start,
            "spent_micros": await self.spent_since(limit.user_id, limit.room_id, start),
            "reserved_micros": 0,
        }
        insert: Any = pg_insert if self._dialect() == "postgresql" else sqlite_insert
        await self.session.execute(insert(SpendCounter).values(values).on_conflict_do_nothing())
        created = await self.counter(limit, now)
        assert created is not None  # inserted now, or by a concurrent unit just before
        return created.id

    async def take(self, counter_id: uuid.UUID, amount: int, limit_micros: int) -> bool:
        """Reserve ``amount`` on the counter if it still fits under the limit (atomic)."""
        c = SpendCounter
        result: Any = await self.session.execute(
            update(c)
            .where(c.id == counter_id, c.spent_micros + c.reserved_micros + amount <= limit_micros)
            .values(reserved_micros=c.reserved_micros + amount)
        )
        return int(result.rowcount) == 1

    async def headroom(self, counter_id: uuid.UUID, limit_micros: int) -> int:
        """What the limit has left on the counter (never negative): a guess for ``take``."""
        c = SpendCounter
        row = (
            await self.session.execute(
                select(c.spent_micros, c.reserved_micros).where(c.id == counter_id)
            )
        ).one()
        return max(0, limit_micros - int(row.spent_micros) - int(row.reserved_micros))

    def hold(
        self, hold_id: uuid.UUID, counter_id: uuid.UUID, amount: int, expires: datetime
    ) -> None:
        self.session.add(
            SpendHoldRow(
                id=hold_id, counter_id=counter_id, amount_micros=amount, expires_at=expires
            )
        )

    async def settle(self, hold_id: uuid.UUID, counter_id: uuid.UUID, cost: int) -> None:
        """Charge ``cost`` and drop the hold; an expired hold was released already, so only
        the charge is left to do (the DELETE decides which, so it happens once)."""
        amount = await self._drop_hold(hold_id, counter_id)
        c = SpendCounter
        await self.session.execute(
            update(c)
            .where(c.id == counter_id)
            .values(spent_micros=c.spent_micros + cost, reserved_micros=c.reserved_micros - amount)
        )

    async def expire(self, counter_ids: list[uuid.UUID], now: datetime) -> int:
        """Release the holds on these counters whose calls outlived them (a crash, a lost
        settlement); how many were released."""
        query = (
            select(SpendHoldRow.id, SpendHoldRow.counter_id)
            .where(SpendHoldRow.counter_id.in_(counter_ids), SpendHoldRow.expires_at < now)
            .order_by(SpendHoldRow.counter_id)
        )
        released = 0
        for hold_id, counter_id in (await self.session.execute(query)).all():
            amount = await self._drop_hold(hold_id, counter_id)
            if amount:
                c = SpendCounter
                await self.session.execute(
                    update(c)
                    .where(c.id == counter_id)
                    .values(reserved_micros=c.reserved_micros - amount)
                )
                released += 1
        return released

    async def _drop_hold(self, hold_id: uuid.UUID, counter_id: uuid.UUID) -> int:
        """Delete the hold; its amount, or 0 when it was gone already."""
        result = await self.session.execute(
            delete(SpendHoldRow)
            .where(SpendHoldRow.id == hold_id, SpendHoldRow.counter_id == counter_id)
            .returning(SpendHoldRow.amount_micros)
        )
        amount = result.scalar_one_or_none()
        return 0 if amount is None else int(amount)

    def _dialect(self) -> str:
        return self.session.get_bind().dialect.name
