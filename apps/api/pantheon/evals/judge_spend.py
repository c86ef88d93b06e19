"""A judge's call is spent like a turn's: reserved on the user's budgets (and the target
room's) before it starts and settled at its cost after, so an eval's judges can never
spend past a limit that stops its turns. A spent limit raises ``PaymentRequired``, which
ends the run ``budget_exceeded`` exactly as a refused turn does."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from pantheon.budgets.guard import LedgerGuard, hold_ttl_s
from pantheon.budgets.service import BudgetService
from pantheon.db.engine import Database
from pantheon.db.uow import unit_of_work
from pantheon.engine.spending import FreeHold, SpendHold, call_cost
from pantheon.errors import PaymentRequired
from pantheon.llm.gateway import LLMGateway
from pantheon.llm.types import LLMRequest


@dataclass(frozen=True, slots=True)
class JudgeSpend:
    """Reserves each judge call of one case on its owner's limits."""

    db: Database
    gateway: LLMGateway
    owner_id: uuid.UUID
    room_id: uuid.UUID | None
    turn_timeout_s: float

    async def reserve(self, request: LLMRequest) -> SpendHold:
        """The call's hold; ``PaymentRequired`` when a limit has no room left for it."""
        cost = call_cost(request, self.gateway.registry.get(request.model))
        async with unit_of_work(self.db, write=False) as session:
            budgets = BudgetService(session)
            limits = await budgets.turn_limits(self.owner_id, self.room_id, cost.max_usd > 0)
        if not limits:
            return FreeHold(float("inf"))
        guard = LedgerGuard(self.db, limits, hold_ttl_s(self.turn_timeout_s))
        hold = await guard.reserve(cost.max_usd, cost.floor_usd)
        if hold is None:
            raise PaymentRequired(
                "a spend limit has no room left for the judge's call; the run stops here"
            )
        return hold
