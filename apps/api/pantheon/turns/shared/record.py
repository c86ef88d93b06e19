"""Recording an abandoned turn (placeholder until the journal branch's function lands)."""

from __future__ import annotations

from pantheon.db.engine import Database
from pantheon.turns.shared.sweeper import Abandoned


async def record_abandoned(db: Database, abandoned: Abandoned) -> bool:
    raise NotImplementedError("merged from the journal branch")
