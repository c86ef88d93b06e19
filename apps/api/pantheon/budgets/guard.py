"""The database's spend guard: the engine's ``SpendGuard`` over the spend ledger.

Each reservation and each settlement is a unit of work of its own, a few statements
long, outside the turn's one commit (docs/adr/0013): the money must be set aside before
the call starts and be visible to every other turn at once, which a commit at the end
of the turn cannot do. A reservation takes the call's maximum, or what the tightest limit
has left when that is less but covers the call's floor (the engine then cuts the call's
answer to it); the read of what is left is only a guess, the conditional ``take`` still
decides, so a race can refuse but never overspend. A refused reservation rolls back
whole, so no counter keeps a partial take. A hold outlives neither its call nor
``ttl_s``: after a crash, the next reservation that would be refused first releases the
expired holds and tries again.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from pantheon.budgets.ledger import LedgerRepository, Limit
from pantheon.budgets.periods import to_micros, to_usd
from pantheon.db.base import utcnow
from pantheon.db.engine import Database
from pantheon.db.uow import unit_of_work
from pantheon.engine.spending import FreeHold, SpendHold

log = logging.getLogger(__name__)


# A hold must outlive its call: no call outlives its turn's deadline plus the backstop.
HOLD_MARGIN_S = 60.0


def hold_ttl_s(turn_timeout_s: float) -> float:
    """How long a hold lives: the turn deadline (``PANTHEON_TURNS__TIMEOUT_S``) + 60 s."""
    return turn_timeout_s + HOLD_MARGIN_S


class _Refused(Exception):
    """A limit would be exceeded: roll the reservation's unit back."""


@dataclass(frozen=True, slots=True)
class LedgerHold:
    """One call's reservation: the same id and amount on each counter it holds money on."""

    db: Database
    hold_id: uuid.UUID
    counter_ids: tuple[uuid.UUID, ...]
    amount_micros: int

    @property
    def granted_usd(self) -> float:
        return to_usd(self.amount_micros)

    async def settle(self, cost_usd: float) -> None:
        cost = to_micros(cost_usd)
        async with unit_of_work(self.db, write=True) as session:
            ledger = LedgerRepository(session)
            for counter_id in self.counter_ids:  # sorted: the lock order of every unit
                await ledger.settle(self.hold_id, counter_id, cost)


class LedgerGuard:
    """Reserves against every limit of a turn (the user's and, if any, the room's)."""

    def __init__(self, db: Database, limits: Sequence[Limit], ttl_s: float) -> None:
        self.db = db
        self.limits = tuple(limits)
        self.ttl = timedelta(seconds=ttl_s)

    async def reserve(
        self, max_cost_usd: float, min_cost_usd: float | None = None
    ) -> SpendHold | None:
        most = to_micros(max_cost_usd)
        if most == 0:  # an unpriced alias costs nothing: no budget stops it (docs/budgets.md)
            return FreeHold(0.0)
        least = most if min_cost_usd is None else min(most, to_micros(min_cost_usd))
        hold = await self._try(most, least)
        if hold is None and await self._expire():
            hold = await self._try(most, least)
        return hold

    async def _try(self, most: int, least: int) -> LedgerHold | None:
        """One attempt, in one unit of work: all counters or none."""
        now = utcnow()
        try:
            async with unit_of_work(self.db, write=True) as session:
                ledger = LedgerRepository(session)
                counters = [(await ledger.open_counter(lim, now), lim) for lim in self.limits]
                counters.sort(key=lambda pair: pair[0])  # one lock order: no deadlocks
                amount = most
                for counter_id, limit in counters:  # what every limit has left, at most
                    amount = min(amount, await ledger.headroom(counter_id, limit.limit_micros))
                if amount < least:
                    raise _Refused
                return await self._take_all(ledger, counters, amount, now)
        except _Refused:
            return None

    async def _expire(self) -> int:
        """Release the holds on these counters that outlived their calls (a crash, a lost
        settlement), in a unit of its own so its locks never interleave with takes; only
        on the refusal path, so the common path stays one short unit."""
        now = utcnow()
        async with unit_of_work(self.db, write=True) as session:
            ledger = LedgerRepository(session)
            ids = sorted([await ledger.open_counter(lim, now) for lim in self.limits])
            released = await ledger.expire(ids, now)
        if released:
            log.warning("released %d expired spend hold(s)", released)
        return released

    async def _take_all(
        self,
        ledger: LedgerRepository,
        counters: list[tuple[uuid.UUID, Limit]],
        amount: int,
        now: datetime,
    ) -> LedgerHold:
        """Take ``amount`` on every counter, or raise ``_Refused`` (the unit rolls back)."""
        hold_id = uuid.uuid4()
        for counter_id, limit in counters:
            if not await ledger.take(counter_id, amount, limit.limit_micros):
                raise _Refused
            ledger.hold(hold_id, counter_id, amount, now + self.ttl)
        return LedgerHold(self.db, hold_id, tuple(c for c, _ in counters), amount)
