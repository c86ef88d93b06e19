"""The one place eval rows become read schemas."""

from __future__ import annotations

from pantheon.db.eval_models import EvalDataset, EvalRun
from pantheon.evals.cases import STORED, Case
from pantheon.evals.repository import RunFigures
from pantheon.evals.schemas import EvalRead, TargetRead


def dataset_cases(row: EvalDataset) -> list[Case]:
    """A stored dataset's cases (validated when stored, so they load as they were)."""
    return [Case.model_validate(case, context=STORED) for case in row.cases]


def run_targets(run: EvalRun) -> list[TargetRead]:
    return [TargetRead.model_validate(target) for target in run.targets]


def eval_read(run: EvalRun, figures: RunFigures) -> EvalRead:
    return EvalRead(
        id=run.id,
        name=run.name,
        dataset_id=run.dataset_id,
        status=run.status,
        targets=run_targets(run),
        total=run.total,
        done=figures.done,
        passed=figures.passed,
        cost_usd=figures.cost_usd,
        concurrency=run.concurrency,
        deadline_s=run.deadline_s,
        seed=run.seed,
        error=run.error,
        created_at=run.created_at,
        finished_at=run.finished_at,
    )
