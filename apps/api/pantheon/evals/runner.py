"""Runs eval runs in the background of the process that created them.

A run is one task: every (case, target) pair is a child task in a task group, at most
``concurrency`` at a time, all under the run's deadline. Whatever ends a run early
(cancel, a budget, shutdown) says why in ``Job.stop`` and cancels the run's task; the
task group cancels the children, each child cancels its turn and waits for it to end,
and the run's status is written once, if it is still ``running`` (a cancel made through
another replica's database write wins). Each child checks the stored status before it
starts a turn, so a cancel from another replica stops the run at its next case.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from dataclasses import dataclass, field

from pantheon.db.engine import Database
from pantheon.db.uow import unit_of_work
from pantheon.error_codes import ErrorCode
from pantheon.errors import AppError, PaymentRequired
from pantheon.evals.case_run import CaseRun, open_session, run_case
from pantheon.evals.cases import Case
from pantheon.evals.judge_spend import JudgeSpend
from pantheon.evals.liveness import keep_runs_alive
from pantheon.evals.repository import EvalRepository
from pantheon.evals.results import ResultWriter, score_case
from pantheon.evals.schemas import TargetRead
from pantheon.evals.values import EVAL_STATUSES, EvalStatus
from pantheon.llm.gateway import LLMGateway
from pantheon.settings import EvalSettings
from pantheon.turns.service import TurnService

log = logging.getLogger("pantheon.evals")
STOP_WAIT_S = 60.0  # how long a cancel waits for the run's turns to end before answering


@dataclass
class Job:
    run_id: uuid.UUID
    owner_id: uuid.UUID
    name: str
    cases: list[Case]
    targets: list[TargetRead]
    concurrency: int
    deadline_s: int
    stop: tuple[EvalStatus, str] | None = None  # (status, reason) that ends the run early
    task: asyncio.Task[None] | None = field(default=None, repr=False)


@dataclass
class EvalRunner:
    db: Database
    turns: TurnService
    gateway: LLMGateway
    _jobs: dict[uuid.UUID, Job] = field(default_factory=dict)
    _heartbeat: asyncio.Task[None] | None = field(default=None, repr=False)

    def start_heartbeat(self, settings: EvalSettings) -> None:
        """Keep this process's runs marked alive and end dead processes' runs (liveness.py)."""
        beats = keep_runs_alive(self.db, self._jobs.keys, settings)
        self._heartbeat = asyncio.create_task(beats, name="eval-heartbeat")

    def start(self, job: Job) -> None:
        """Run ``job`` in the background; it writes its own results and final status."""
        job.task = asyncio.create_task(self._run(job), name=f"eval-{job.run_id}")
        self._jobs[job.run_id] = job
        job.task.add_done_callback(lambda _t: self._jobs.pop(job.run_id, None))

    def running_here(self, run_id: uuid.UUID) -> bool:
        return run_id in self._jobs

    async def stop(self, run_id: uuid.UUID, status: EvalStatus, reason: str) -> None:
        """End a run of this process early and wait (bounded) until its turns ended."""
        job = self._jobs.get(run_id)
        if job is None or job.task is None:
            return
        self._halt(job, status, reason)
        await asyncio.wait({job.task}, timeout=STOP_WAIT_S)

    async def shutdown(self) -> None:
        """Stop every run of this process (the server is stopping): status interrupted."""
        if self._heartbeat is not None:
            self._heartbeat.cancel()
        jobs = [job for job in self._jobs.values() if job.task is not None]
        for job in jobs:
            self._halt(job, "interrupted", "the server stopped before the run finished")
        if jobs:
            await asyncio.wait({job.task for job in jobs if job.task}, timeout=STOP_WAIT_S)

    async def cancel_turn(self, owner_id: uuid.UUID, turn_id: uuid.UUID) -> None:
        """Cancel one of a run's turns wherever it runs (ended already: nothing to do)."""
        with contextlib.suppress(AppError):
            await self.turns.cancel(owner_id, str(turn_id))

    @staticmethod
    def _halt(job: Job, status: EvalStatus, reason: str) -> None:
        if job.stop is None:
            job.stop = (status, reason)
        if job.task is not None:
            job.task.cancel()

    async def _run(self, job: Job) -> None:
        status: EvalStatus = "completed"
        reason: str | None = None
        try:
            async with asyncio.timeout(job.deadline_s):
                await self._grid(job)
        except TimeoutError:
            status, reason = "timed_out", f"the run's deadline of {job.deadline_s} s passed"
        except asyncio.CancelledError:
            status, reason = job.stop or ("cancelled", "cancelled")
        except Exception:  # a broken run must still end with a status, not stay "running"
            log.exception("eval run %s failed", job.run_id)
            status, reason = "failed", "the run failed; see the server log"
        async with unit_of_work(self.db, write=True) as session:
            await EvalRepository(session).finish(job.run_id, status, reason)

    async def _grid(self, job: Job) -> None:
        limit = asyncio.Semaphore(job.concurrency)
        async with asyncio.TaskGroup() as group:
            for case_index, case in enumerate(job.cases):
                for target in job.targets:
                    group.create_task(self._one(job, limit, case_index, case, target))

    async def _one(
        self, job: Job, limit: asyncio.Semaphore, case_index: int, case: Case, target: TargetRead
    ) -> None:
        async with limit:
            if not await self._still_running(job):
                return
            writer = ResultWriter(self.db, job.run_id, case_index, case.id, target.index)
            try:
                run = await self._case(job, case, target, writer)
            except PaymentRequired as exc:
                await writer.failed(exc.message, passed=None)
                self._halt(job, "budget_exceeded", exc.message)
                return
            except AppError as exc:  # the turn was refused (a roster or model changed since)
                await writer.failed(exc.message, passed=False)
                return
            except asyncio.CancelledError:
                await asyncio.shield(writer.failed("the run stopped before this case ended", None))
                raise
            if run.detail.error_code == ErrorCode.BUDGET_EXCEEDED:
                self._halt(job, "budget_exceeded", "a spend limit cut a turn short")

    async def _case(
        self, job: Job, case: Case, target: TargetRead, writer: ResultWriter
    ) -> CaseRun:
        """Run, score and record one case (its session, its turn, its checks)."""
        title = f"eval {job.name}: {case.id}"[:200]
        session_id = await open_session(self.db, job.owner_id, target, title)
        run = await run_case(self.turns, job.owner_id, target, case, session_id, writer.started)
        settings = self.turns.settings
        spend = JudgeSpend(
            self.db, self.gateway, job.owner_id, target.room_id, settings.turns.timeout_s
        )
        scored = await score_case(self.gateway, case, run.outcome, settings.default_model, spend)
        await writer.finished(run, scored)
        return run

    async def _still_running(self, job: Job) -> bool:
        async with unit_of_work(self.db, write=False) as session:
            status = await EvalRepository(session).status(job.run_id)
        if status == "running":
            return True
        # Ended through another replica (its status is already written) or deleted.
        ended: EvalStatus = next((known for known in EVAL_STATUSES if known == status), "cancelled")
        self._halt(job, ended, "ended elsewhere")
        return False


async def interrupt_orphaned_runs(db: Database) -> int:
    """At start-up of a lone process: runs still ``running`` lost their process; say so."""
    async with unit_of_work(db, write=True) as session:
        return await EvalRepository(session).interrupt_running(
            "the server running it stopped; found at the next start"
        )
