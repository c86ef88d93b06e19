"""Budget periods: the UTC windows that spend is counted in (``engine.values.BudgetPeriod``),
and money as integers.

Money in the ledger is integer micro-dollars (``MICROS`` per USD): the conditional
``spent + reserved + amount <= limit`` must compare exactly on SQLite and PostgreSQL,
which floats would not. Amounts are rounded up, so a reservation never undercounts.
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta

from pantheon.engine.values import BudgetPeriod

MICROS = 1_000_000


def to_micros(usd: float) -> int:
    """USD as micro-dollars, rounded up (0 stays 0)."""
    return max(0, math.ceil(round(usd * MICROS, 6)))


def to_usd(micros: int) -> float:
    return micros / MICROS


def window_start(period: BudgetPeriod, now: datetime) -> datetime:
    """The start of the UTC day or month that ``now`` (tz-aware, UTC) falls in."""
    day = now.replace(hour=0, minute=0, second=0, microsecond=0)
    return day if period == "day" else day.replace(day=1)


def resets_at(period: BudgetPeriod, now: datetime) -> datetime:
    """When the window that ``now`` falls in ends and its spend starts from zero again."""
    start = window_start(period, now)
    if period == "day":
        return start + timedelta(days=1)
    return (start + timedelta(days=32)).replace(day=1)
