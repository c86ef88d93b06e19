"""Eval runs' heartbeat: each process marks its running runs alive, and any process ends
the runs nobody has marked for a while (their process crashed or was killed), so a run
never shows ``running`` forever when several replicas share the database."""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Callable, Collection
from datetime import timedelta

from pantheon.db.base import utcnow
from pantheon.db.engine import Database
from pantheon.db.uow import unit_of_work
from pantheon.evals.repository import EvalRepository
from pantheon.settings import EvalSettings

log = logging.getLogger("pantheon.evals")


def stale_reason(stale_s: float) -> str:
    return f"the server running it stopped (not marked alive for {stale_s:g} s)"


async def beat_and_sweep(db: Database, ours: Collection[uuid.UUID], stale_s: float) -> int:
    """Mark ``ours`` alive, then interrupt the other stale runs; returns how many."""
    async with unit_of_work(db, write=True) as session:
        repo = EvalRepository(session)
        if ours:
            await repo.beat(ours)
        older_than = utcnow() - timedelta(seconds=stale_s)
        return await repo.interrupt_stale(older_than, ours, stale_reason(stale_s))


async def keep_runs_alive(
    db: Database, ours: Callable[[], Collection[uuid.UUID]], settings: EvalSettings
) -> None:
    """Forever (cancel to stop): every ``heartbeat_s``, one beat and sweep, bounded by it."""
    while True:
        await asyncio.sleep(settings.heartbeat_s)
        try:
            async with asyncio.timeout(settings.heartbeat_s):
                swept = await beat_and_sweep(db, list(ours()), settings.stale_s)
        except Exception:  # the database is away: the next beat tries again
            log.warning("eval runs' heartbeat failed; next try in %g s", settings.heartbeat_s,
                        exc_info=True)  # fmt: skip
            continue
        if swept:
            log.warning("interrupted %d eval run(s) whose server stopped marking them", swept)
