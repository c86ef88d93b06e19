"""Budget rows: one per user and scope (all turns, or one room's)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Select, and_, bindparam, delete, select

from pantheon.budgets.periods import window_start
from pantheon.db.models import Budget, SpendCounter, SpendHoldRow
from pantheon.db.repository import Repository
from pantheon.engine.values import BUDGET_PERIODS, BudgetPeriod

ALL_ROOMS = "all"


@dataclass(frozen=True, slots=True)
class BudgetStanding:
    """A budget a turn counts against, with what each of its counters of the current
    windows has spent (a period missing: its window has no counter yet)."""

    id: uuid.UUID
    user_id: uuid.UUID
    room_id: uuid.UUID | None
    daily_usd: float | None
    monthly_usd: float | None
    spent: dict[BudgetPeriod, int]


def _standing_query() -> Select[*tuple[Any, ...]]:
    """Budgets of ``:user_id`` in ``:scopes``, each joined to its counter of the window
    starting at ``:<period>_start`` for every period: one read, built once."""
    b = Budget.__table__
    query = select(b.c.id, b.c.user_id, b.c.room_id, b.c.daily_usd, b.c.monthly_usd)
    for period in BUDGET_PERIODS:
        counter = SpendCounter.__table__.alias(f"{period}_counter")
        start = bindparam(f"{period}_start", type_=counter.c.window_start.type)
        on = and_(
            counter.c.budget_id == b.c.id,
            counter.c.period == period,
            counter.c.window_start == start,
        )
        query = query.add_columns(counter.c.spent_micros.label(f"{period}_spent"))
        query = query.outerjoin_from(b, counter, on)
    scopes = bindparam("scopes", type_=b.c.scope.type, expanding=True)
    return query.where(b.c.user_id == bindparam("user_id"), b.c.scope.in_(scopes)).order_by(
        b.c.scope
    )


_STANDING = _standing_query()


def scope_of(room_id: uuid.UUID | None) -> str:
    """The ``scope`` column: ``all``, or ``room:<id>``."""
    return ALL_ROOMS if room_id is None else f"room:{room_id}"


class BudgetRepository(Repository):
    async def get(self, user_id: uuid.UUID, room_id: uuid.UUID | None) -> Budget | None:
        query = select(Budget).where(Budget.user_id == user_id, Budget.scope == scope_of(room_id))
        return await self.session.scalar(query)

    async def of_user(self, user_id: uuid.UUID) -> list[Budget]:
        query = select(Budget).where(Budget.user_id == user_id).order_by(Budget.scope)
        return list(await self.session.scalars(query))

    async def for_turn(
        self, user_id: uuid.UUID, room_id: uuid.UUID | None, now: datetime
    ) -> list[BudgetStanding]:
        """The budgets a turn of the user (in the room, if any) counts against, with the
        spend of their counters of the windows ``now`` falls in."""
        params: dict[str, Any] = {f"{p}_start": window_start(p, now) for p in BUDGET_PERIODS}
        params.update(user_id=user_id, scopes=sorted({ALL_ROOMS, scope_of(room_id)}))
        rows = (await self.session.execute(_STANDING, params)).mappings().all()
        return [
            BudgetStanding(
                row["id"], row["user_id"], row["room_id"], row["daily_usd"], row["monthly_usd"],
                {p: row[f"{p}_spent"] for p in BUDGET_PERIODS if row[f"{p}_spent"] is not None},
            )
            for row in rows
        ]  # fmt: skip

    def add(self, row: Budget) -> None:
        self.session.add(row)

    async def remove(self, budget: Budget) -> None:
        """Delete the budget with its counters and their holds (children first)."""
        counters = select(SpendCounter.id).where(SpendCounter.budget_id == budget.id)
        await self.session.execute(
            delete(SpendHoldRow).where(SpendHoldRow.counter_id.in_(counters))
        )
        await self.session.execute(delete(SpendCounter).where(SpendCounter.budget_id == budget.id))
        await self.session.delete(budget)
