"""Eval use cases: store datasets, start runs in the background, read, cancel, report.

Like ``TurnService`` it opens its own short units of work: a run row is committed before
its background job starts, so the job never looks for a run that is not there yet.
"""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass

from pantheon.db.base import utcnow
from pantheon.db.engine import Database
from pantheon.db.eval_models import EvalDataset, EvalResult, EvalRun
from pantheon.db.uow import unit_of_work
from pantheon.errors import Conflict, NotFound, Unprocessable, not_found
from pantheon.evals import report
from pantheon.evals.cases import Case
from pantheon.evals.datasets import DatasetError, check_cases, parse_jsonl
from pantheon.evals.repository import EvalRepository, RunFigures
from pantheon.evals.runner import EvalRunner, Job
from pantheon.evals.schemas import (
    DatasetCreate,
    DatasetRead,
    DatasetSummary,
    EvalCreate,
    EvalRead,
    ReportRead,
    ResultRead,
    TargetRead,
)
from pantheon.evals.targets import resolve_targets
from pantheon.evals.views import dataset_cases, eval_read, run_targets
from pantheon.llm.registry import ModelRegistry
from pantheon.schemas import Page, PageParams


@dataclass
class EvalService:
    db: Database
    runner: EvalRunner
    registry: ModelRegistry

    async def create_dataset(self, owner_id: uuid.UUID, data: DatasetCreate) -> DatasetRead:
        """Validate and store a dataset (422 naming the line or case and field)."""
        try:
            if data.jsonl is not None:
                cases = await asyncio.to_thread(parse_jsonl, data.jsonl)
            else:
                cases = data.cases or []
                check_cases(cases)
        except DatasetError as exc:
            raise Unprocessable(str(exc)) from exc
        stored = [case.model_dump(mode="json", by_alias=True, exclude_none=True) for case in cases]
        row = EvalDataset(
            owner_id=owner_id, name=data.name.strip(), cases=stored, created_at=utcnow()
        )
        async with unit_of_work(self.db, write=True) as session:
            EvalRepository(session).add(row)
        return DatasetRead(id=row.id, name=row.name, cases=cases, created_at=row.created_at)

    async def dataset(self, owner_id: uuid.UUID, dataset_id: str) -> DatasetRead:
        async with unit_of_work(self.db, write=False) as session:
            row = await EvalRepository(session).dataset(owner_id, dataset_id)
        if row is None:
            raise not_found("dataset", dataset_id)
        return DatasetRead(
            id=row.id, name=row.name, cases=dataset_cases(row), created_at=row.created_at
        )

    async def datasets(self, owner_id: uuid.UUID, page: PageParams) -> Page[DatasetSummary]:
        async with unit_of_work(self.db, write=False) as session:
            rows, total = await EvalRepository(session).datasets(
                owner_id, limit=page.limit, offset=page.offset
            )
        items = [
            DatasetSummary(id=r.id, name=r.name, case_count=len(r.cases), created_at=r.created_at)
            for r in rows
        ]
        return Page[DatasetSummary](items=items, total=total, limit=page.limit, offset=page.offset)

    async def create(self, owner_id: uuid.UUID, data: EvalCreate) -> EvalRead:
        """Store the run, then start it in the background (its progress: ``get``)."""
        async with unit_of_work(self.db, write=True) as session:
            repo = EvalRepository(session)
            dataset = await repo.dataset(owner_id, data.dataset_id)
            if dataset is None:
                raise NotFound(f"dataset_id: dataset {data.dataset_id} not found")
            cases = dataset_cases(dataset)
            self._check_judges(cases)
            targets = await resolve_targets(session, owner_id, data.targets)
            run = EvalRun(
                owner_id=owner_id,
                dataset_id=dataset.id,
                name=data.name.strip() or dataset.name,
                status="running",
                targets=[target.model_dump(mode="json") for target in targets],
                total=len(cases) * len(targets),
                concurrency=data.concurrency,
                deadline_s=data.deadline_s,
                seed=data.seed,
                created_at=utcnow(),
                heartbeat_at=utcnow(),
            )
            repo.add(run)
            await session.flush()
        job = Job(run.id, owner_id, run.name, cases, targets, run.concurrency, run.deadline_s)
        self.runner.start(job)
        return eval_read(run, RunFigures())

    def _check_judges(self, cases: list[Case]) -> None:
        for case in cases:
            for check in case.judges():
                if check.model is not None and check.model not in self.registry:
                    names = ", ".join(self.registry.names()) or "none"
                    raise Unprocessable(
                        f"case '{case.id}': judge model '{check.model}' is not configured "
                        f"(configured: {names})"
                    )

    async def get(self, owner_id: uuid.UUID, run_id: str) -> EvalRead:
        async with unit_of_work(self.db, write=False) as session:
            repo = EvalRepository(session)
            run = await self._run(repo, owner_id, run_id)
            figures = (await repo.figures([run.id]))[run.id]
        return eval_read(run, figures)

    async def runs(self, owner_id: uuid.UUID, page: PageParams) -> Page[EvalRead]:
        async with unit_of_work(self.db, write=False) as session:
            repo = EvalRepository(session)
            rows, total = await repo.runs(owner_id, limit=page.limit, offset=page.offset)
            figures = await repo.figures([row.id for row in rows])
        items = [eval_read(row, figures[row.id]) for row in rows]
        return Page[EvalRead](items=items, total=total, limit=page.limit, offset=page.offset)

    async def results(self, owner_id: uuid.UUID, run_id: str) -> list[ResultRead]:
        async with unit_of_work(self.db, write=False) as session:
            repo = EvalRepository(session)
            run = await self._run(repo, owner_id, run_id)
            rows = await repo.results(run.id)
        return [ResultRead.model_validate(row) for row in rows]

    async def report(self, owner_id: uuid.UUID, run_id: str, compare: str | None) -> ReportRead:
        """The comparison of the run's targets; with ``compare``, the cases that flipped."""
        async with unit_of_work(self.db, write=False) as session:
            repo = EvalRepository(session)
            run = await self._run(repo, owner_id, run_id)
            rows = await repo.results(run.id)
            other: tuple[list[TargetRead], list[EvalResult]] | None = None
            if compare is not None:
                base = await self._run(repo, owner_id, compare)
                other = (run_targets(base), await repo.results(base.id))
        targets = run_targets(run)
        built = await asyncio.to_thread(report.build_targets, targets, rows, run.seed)
        flipped = report.flips(other, (targets, rows)) if other is not None else []
        return ReportRead(
            run_id=run.id,
            status=run.status,
            targets=built,
            compared_with=uuid.UUID(compare) if compare else None,
            flips=flipped,
        )

    async def cancel(self, owner_id: uuid.UUID, run_id: str) -> EvalRead:
        """Stop a running run and its turns (409 when it has ended already)."""
        async with unit_of_work(self.db, write=True) as session:
            repo = EvalRepository(session)
            run = await self._run(repo, owner_id, run_id)
            if run.status != "running":
                raise Conflict(f"eval run {run_id} already ended with status '{run.status}'")
        if self.runner.running_here(run.id):
            await self.runner.stop(run.id, "cancelled", "cancelled by request")
        else:  # run by another process: its next case sees the status; stop its turns now
            await self._cancel_elsewhere(owner_id, run.id)
        return await self.get(owner_id, run_id)

    async def _cancel_elsewhere(self, owner_id: uuid.UUID, run_id: uuid.UUID) -> None:
        async with unit_of_work(self.db, write=True) as session:
            repo = EvalRepository(session)
            await repo.finish(run_id, "cancelled", "cancelled by request")
            turn_ids = await repo.unfinished_turns(run_id)
        for turn_id in turn_ids:
            await self.runner.cancel_turn(owner_id, turn_id)

    @staticmethod
    async def _run(repo: EvalRepository, owner_id: uuid.UUID, run_id: str) -> EvalRun:
        run = await repo.run(owner_id, run_id)
        if run is None:
            raise not_found("eval run", run_id)
        return run
