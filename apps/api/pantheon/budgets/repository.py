"""Budget rows: one per user and scope (all turns, or one room's)."""

from __future__ import annotations

import uuid

from sqlalchemy import delete, select

from pantheon.db.models import Budget, SpendCounter, SpendHoldRow
from pantheon.db.repository import Repository

ALL_ROOMS = "all"


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

    async def for_turn(self, user_id: uuid.UUID, room_id: uuid.UUID | None) -> list[Budget]:
        """The budgets a turn of the user (in the room, if any) counts against."""
        scopes = {ALL_ROOMS, scope_of(room_id)}
        query = (
            select(Budget)
            .where(Budget.user_id == user_id, Budget.scope.in_(scopes))
            .order_by(Budget.scope)
        )
        return list(await self.session.scalars(query))

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
