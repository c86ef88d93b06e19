"""Eval queries: datasets, runs and results, scoped to their owner."""

from __future__ import annotations

import uuid
from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Select, case, func, select, update

from pantheon.db.base import utcnow
from pantheon.db.eval_models import EvalDataset, EvalResult, EvalRun
from pantheon.db.repository import Repository, as_uuid
from pantheon.evals.values import EvalStatus

RUNNING: EvalStatus = "running"
INTERRUPTED: EvalStatus = "interrupted"


@dataclass(frozen=True, slots=True)
class RunFigures:
    done: int = 0
    passed: int = 0
    cost_usd: float = 0.0


class EvalRepository(Repository):
    async def dataset(self, owner_id: uuid.UUID, dataset_id: str | uuid.UUID) -> EvalDataset | None:
        ident = as_uuid(dataset_id)
        if ident is None:
            return None
        query = select(EvalDataset).where(EvalDataset.id == ident, EvalDataset.owner_id == owner_id)
        return await self.session.scalar(query)

    async def datasets(
        self, owner_id: uuid.UUID, *, limit: int, offset: int
    ) -> tuple[list[EvalDataset], int]:
        query = (
            select(EvalDataset)
            .where(EvalDataset.owner_id == owner_id)
            .order_by(EvalDataset.created_at.desc(), EvalDataset.id)
        )
        return await self.page(query, limit=limit, offset=offset)

    async def run(self, owner_id: uuid.UUID, run_id: str | uuid.UUID) -> EvalRun | None:
        ident = as_uuid(run_id)
        if ident is None:
            return None
        query = select(EvalRun).where(EvalRun.id == ident, EvalRun.owner_id == owner_id)
        return await self.session.scalar(query)

    async def runs(
        self, owner_id: uuid.UUID, *, limit: int, offset: int
    ) -> tuple[list[EvalRun], int]:
        query: Select[Any] = (
            select(EvalRun)
            .where(EvalRun.owner_id == owner_id)
            .order_by(EvalRun.created_at.desc(), EvalRun.id)
        )
        return await self.page(query, limit=limit, offset=offset)

    async def figures(self, run_ids: list[uuid.UUID]) -> dict[uuid.UUID, RunFigures]:
        """Finished cases, passes and the targets' cost of each run."""
        finished = EvalResult.finished_at.is_not(None)
        query = (
            select(
                EvalResult.run_id,
                func.count().filter(finished),
                func.sum(case((EvalResult.passed.is_(True), 1), else_=0)),
                func.coalesce(func.sum(EvalResult.cost_usd), 0.0),
            )
            .where(EvalResult.run_id.in_(run_ids))
            .group_by(EvalResult.run_id)
        )
        rows = (await self.session.execute(query)).all()
        found = {row[0]: RunFigures(int(row[1]), int(row[2] or 0), float(row[3])) for row in rows}
        return {rid: found.get(rid, RunFigures()) for rid in run_ids}

    async def results(self, run_id: uuid.UUID) -> list[EvalResult]:
        query = (
            select(EvalResult)
            .where(EvalResult.run_id == run_id)
            .order_by(EvalResult.case_index, EvalResult.target_index)
        )
        return list((await self.session.scalars(query)).all())

    async def result(self, result_id: uuid.UUID) -> EvalResult | None:
        return await self.session.get(EvalResult, result_id)

    async def unfinished_turns(self, run_id: uuid.UUID) -> list[uuid.UUID]:
        """The turns of the run's cases still under way."""
        query = select(EvalResult.turn_id).where(
            EvalResult.run_id == run_id,
            EvalResult.finished_at.is_(None),
            EvalResult.turn_id.is_not(None),
        )
        return [tid for tid in (await self.session.scalars(query)).all() if tid is not None]

    async def status(self, run_id: uuid.UUID) -> str | None:
        return await self.session.scalar(select(EvalRun.status).where(EvalRun.id == run_id))

    async def finish(self, run_id: uuid.UUID, status: EvalStatus, error: str | None) -> bool:
        """End a running run with ``status``; False when it had ended already (first wins)."""
        query = (
            update(EvalRun)
            .where(EvalRun.id == run_id, EvalRun.status == RUNNING)
            .values(status=status, error=error, finished_at=utcnow())
        )
        result = await self.session.execute(query)
        return bool(getattr(result, "rowcount", 0))

    async def interrupt_running(self, reason: str) -> int:
        """Mark every run still ``running`` as interrupted (no process runs it any more)."""
        query = (
            update(EvalRun)
            .where(EvalRun.status == RUNNING)
            .values(status=INTERRUPTED, error=reason, finished_at=utcnow())
        )
        result = await self.session.execute(query)
        return int(getattr(result, "rowcount", 0))

    async def beat(self, run_ids: Collection[uuid.UUID]) -> None:
        """Mark this process's running runs alive now."""
        query = (
            update(EvalRun)
            .where(EvalRun.id.in_(run_ids), EvalRun.status == RUNNING)
            .values(heartbeat_at=utcnow())
        )
        await self.session.execute(query)

    async def interrupt_stale(
        self, older_than: datetime, ours: Collection[uuid.UUID], reason: str
    ) -> int:
        """Interrupt the running runs, not ``ours``, last marked alive before ``older_than``."""
        alive_at = func.coalesce(EvalRun.heartbeat_at, EvalRun.created_at)
        query = (
            update(EvalRun)
            .where(EvalRun.status == RUNNING, alive_at < older_than, EvalRun.id.not_in(ours))
            .values(status=INTERRUPTED, error=reason, finished_at=utcnow())
        )
        result = await self.session.execute(query)
        return int(getattr(result, "rowcount", 0))

    def add(self, row: EvalDataset | EvalRun | EvalResult) -> None:
        self.session.add(row)
