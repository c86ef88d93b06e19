"""Scoring a finished case (checks, judges) and writing its result row.

A result row is written when the case's turn has started (so a run in progress shows
its sessions and turns) and completed once the case is scored, or marked with why it
did not finish. Each write is its own short unit of work.
"""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass
from statistics import fmean

from pantheon.db.base import utcnow
from pantheon.db.engine import Database
from pantheon.db.eval_models import EvalResult
from pantheon.db.uow import unit_of_work
from pantheon.evals.case_run import CaseRun
from pantheon.evals.cases import Case
from pantheon.evals.checks import Outcome, run_checks
from pantheon.evals.judge import judge
from pantheon.evals.judge_spend import JudgeSpend
from pantheon.evals.repository import EvalRepository
from pantheon.evals.schemas import CheckOutcome
from pantheon.llm.gateway import LLMGateway

ANSWERED = frozenset({"completed", "partial"})  # turn statuses that produced an answer


@dataclass(frozen=True, slots=True)
class Scored:
    checks: list[CheckOutcome]
    judge_score: float | None  # the mean of the case's judges' scores
    judge_cost_usd: float

    @property
    def passed(self) -> bool:
        return all(check.passed for check in self.checks)


async def score_case(
    gateway: LLMGateway, case: Case, outcome: Outcome, default_model: str, spend: JudgeSpend
) -> Scored:
    """The turn's status, every fact and check, then each judge (in order)."""
    answered = outcome.turn_status in ANSWERED
    checks = [CheckOutcome(type="turn", passed=answered, detail=f"turn {outcome.turn_status}")]
    checks += await asyncio.to_thread(run_checks, case, outcome)
    scores: list[float] = []
    cost = 0.0
    for check in case.judges():
        verdict = await judge(gateway, check, case, outcome.answer, default_model, spend)
        checks.append(verdict.outcome)
        cost += verdict.cost_usd
        if verdict.score is not None:
            scores.append(verdict.score)
    return Scored(checks, fmean(scores) if scores else None, cost)


@dataclass
class ResultWriter:
    db: Database
    run_id: uuid.UUID
    case_index: int
    case_id: str
    target_index: int
    result_id: uuid.UUID | None = None

    async def started(self, session_id: uuid.UUID, turn_id: uuid.UUID) -> None:
        """The case's turn is running: a row naming its session and turn."""
        row = self._row()
        row.session_id, row.turn_id = session_id, turn_id
        # Known before the write: a cancel landing after its commit (while the unit closes)
        # must update this row, not insert a second one.
        self.result_id = row.id
        async with unit_of_work(self.db, write=True) as session:
            EvalRepository(session).add(row)

    def _row(self) -> EvalResult:
        return EvalResult(
            id=uuid.uuid4(),
            run_id=self.run_id,
            case_index=self.case_index,
            case_id=self.case_id,
            target_index=self.target_index,
            checks=[],
            started_at=utcnow(),
        )

    async def _update(self, **values: object) -> None:
        async with unit_of_work(self.db, write=True) as session:
            repo = EvalRepository(session)
            row = await repo.result(self.result_id) if self.result_id else None
            if row is None:
                row = self._row()
                repo.add(row)
            for name, value in values.items():
                setattr(row, name, value)
            row.finished_at = utcnow()

    async def failed(self, error: str, passed: bool | None) -> None:
        """The case did not get scored: why (``passed`` None: not counted in the report)."""
        await self._update(error=error, passed=passed)

    async def finished(self, run: CaseRun, scored: Scored) -> None:
        detail = run.detail
        await self._update(
            turn_status=detail.status,
            passed=scored.passed,
            checks=[check.model_dump() for check in scored.checks],
            judge_score=scored.judge_score,
            judge_cost_usd=scored.judge_cost_usd,
            cost_usd=detail.usage.cost_usd,
            input_tokens=detail.usage.input_tokens,
            output_tokens=detail.usage.output_tokens,
            latency_ms=run.outcome.latency_ms,
            calls=run.calls,
            answer=run.outcome.answer,
        )
