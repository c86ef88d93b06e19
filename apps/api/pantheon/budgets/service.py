"""Budget use cases: admins set and lift limits; a turn learns its limits, or gets a 402.

Never commits (see ``db/uow``). Spend is read from the ledger's counter of the current
window, or, before the window's first reservation, summed from the recorded calls.
"""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from pantheon.budgets.ledger import LedgerRepository, Limit
from pantheon.budgets.periods import resets_at, to_micros, to_usd, window_start
from pantheon.budgets.repository import BudgetRepository, BudgetStanding, scope_of
from pantheon.budgets.schemas import BudgetRead, BudgetSet, PeriodSpend
from pantheon.db.base import utcnow
from pantheon.db.models import Budget, User
from pantheon.engine.values import BudgetPeriod
from pantheon.errors import NotFound, PaymentRequired, not_found
from pantheon.observability import metrics
from pantheon.rooms.access import room_access

_WHAT = {"day": "daily", "month": "monthly"}


def limits_of(budget: Budget | BudgetStanding) -> list[Limit]:
    """The budget's limits, daily before monthly."""
    pairs: list[tuple[BudgetPeriod, float | None]] = [
        ("day", budget.daily_usd),
        ("month", budget.monthly_usd),
    ]
    return [
        Limit(budget.id, budget.user_id, budget.room_id, period, to_micros(usd))
        for period, usd in pairs
        if usd is not None
    ]


class BudgetService:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session
        self.repo = BudgetRepository(session)
        self.ledger = LedgerRepository(session)

    async def set(self, user: User, data: BudgetSet) -> BudgetRead:
        """Create or replace the user's budget of that scope; 404 for a room they cannot see
        (owned or shared with them: a member spends their own budget in a shared room)."""
        if (
            data.room_id is not None
            and await room_access(self.session, user.id, data.room_id) is None
        ):
            raise not_found("room", data.room_id)
        budget = await self.repo.get(user.id, data.room_id)
        if budget is None:
            budget = Budget(user_id=user.id, room_id=data.room_id, scope=scope_of(data.room_id))
            self.repo.add(budget)
        else:
            budget.updated_at = utcnow()
        budget.daily_usd, budget.monthly_usd = data.daily_usd, data.monthly_usd
        await self.session.flush()
        return await self.read(budget)

    async def of_user(self, user: User) -> list[BudgetRead]:
        return [await self.read(b) for b in await self.repo.of_user(user.id)]

    async def clear(self, user: User, room_id: uuid.UUID | None) -> None:
        """Lift the budget of that scope; 404 when there is none."""
        budget = await self.repo.get(user.id, room_id)
        if budget is None:
            where = "" if room_id is None else f" in room {room_id}"
            raise NotFound(f"user {user.id} has no budget{where}")
        await self.repo.remove(budget)

    async def read(self, budget: Budget) -> BudgetRead:
        now = utcnow()
        spend = []
        for limit in limits_of(budget):
            spent, reserved = await self._standing(limit, now)
            spend.append(
                PeriodSpend(
                    period=limit.period,
                    limit_usd=to_usd(limit.limit_micros),
                    spent_usd=to_usd(spent),
                    reserved_usd=to_usd(reserved),
                    resets_at=resets_at(limit.period, now),
                )
            )
        return BudgetRead(
            id=budget.id,
            user_id=budget.user_id,
            room_id=budget.room_id,
            daily_usd=budget.daily_usd,
            monthly_usd=budget.monthly_usd,
            created_at=budget.created_at,
            updated_at=budget.updated_at,
            spend=spend,
        )

    async def turn_limits(
        self, user_id: uuid.UUID, room_id: uuid.UUID | None, priced: bool = True
    ) -> list[Limit]:
        """The limits a new turn counts against; 402 when one is spent already and the
        turn may call a priced model (``priced``: an unpriced one is never stopped)."""
        now = utcnow()
        budgets = await self.repo.for_turn(user_id, room_id, now)
        limits = [(b, limit) for b in budgets for limit in limits_of(b)]
        for budget, limit in limits if priced else ():
            spent = budget.spent.get(limit.period)
            if spent is None:  # the window's first turn: no counter yet
                start = window_start(limit.period, now)
                spent = await self.ledger.spent_since(limit.user_id, limit.room_id, start)
            if spent >= limit.limit_micros:
                metrics.BUDGET_REFUSALS.labels(stage="turn").inc()
                raise _over(limit, spent, now)
        return [limit for _budget, limit in limits]

    async def _standing(self, limit: Limit, now: datetime) -> tuple[int, int]:
        """(spent, reserved) micro-dollars of the limit's current window."""
        counter = await self.ledger.counter(limit, now)
        if counter is not None:
            return counter.spent_micros, counter.reserved_micros
        start = window_start(limit.period, now)
        return await self.ledger.spent_since(limit.user_id, limit.room_id, start), 0


def _over(limit: Limit, spent: int, now: datetime) -> PaymentRequired:
    what = _WHAT[limit.period]
    where = "" if limit.room_id is None else f" in room {limit.room_id}"
    reset = resets_at(limit.period, now)
    return PaymentRequired(
        f"the {what} budget of ${to_usd(limit.limit_micros):.2f}{where} is spent "
        f"(${to_usd(spent):.2f}); it resets at {reset:%Y-%m-%d %H:%M} UTC",
        period=limit.period,
        limit_usd=to_usd(limit.limit_micros),
        spent_usd=to_usd(spent),
        room_id=None if limit.room_id is None else str(limit.room_id),
        resets_at=reset.isoformat(),
    )
