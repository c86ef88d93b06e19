"""Eval routes: thin translation between HTTP and ``EvalService`` (docs/evals.md)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Query, status

from pantheon.deps import ServicesDep, UserIdDep
from pantheon.errors import error_responses
from pantheon.evals.schemas import (
    DatasetCreate,
    DatasetRead,
    DatasetSummary,
    EvalCreate,
    EvalRead,
    ReportRead,
    ResultRead,
)
from pantheon.evals.service import EvalService
from pantheon.schemas import Page, PageDep

router = APIRouter(prefix="/v1/evals", tags=["evals"])


def _service(services: ServicesDep) -> EvalService:
    return EvalService(services.db, services.evals, services.gateway.registry)


ServiceDep = Annotated[EvalService, Depends(_service)]


@router.post("/datasets", status_code=status.HTTP_201_CREATED, responses=error_responses(422))
async def create_dataset(data: DatasetCreate, service: ServiceDep, user: UserIdDep) -> DatasetRead:
    """Store a dataset, given as ``cases`` or as JSONL text; 422 names the bad line/field."""
    return await service.create_dataset(user, data)


@router.get("/datasets")
async def list_datasets(
    service: ServiceDep, user: UserIdDep, page: PageDep
) -> Page[DatasetSummary]:
    """Your datasets, newest first."""
    return await service.datasets(user, page)


@router.get("/datasets/{dataset_id}", responses=error_responses(404))
async def get_dataset(dataset_id: str, service: ServiceDep, user: UserIdDep) -> DatasetRead:
    """One dataset with its cases."""
    return await service.dataset(user, dataset_id)


@router.post("", status_code=status.HTTP_202_ACCEPTED, responses=error_responses(404, 422))
async def create_eval(data: EvalCreate, service: ServiceDep, user: UserIdDep) -> EvalRead:
    """Start a run of a dataset over targets in the background; follow it with GET."""
    return await service.create(user, data)


@router.get("")
async def list_evals(service: ServiceDep, user: UserIdDep, page: PageDep) -> Page[EvalRead]:
    """Your eval runs, newest first, with their progress."""
    return await service.runs(user, page)


@router.get("/{run_id}", responses=error_responses(404))
async def get_eval(run_id: str, service: ServiceDep, user: UserIdDep) -> EvalRead:
    """One run: status and progress (``done`` of ``total``)."""
    return await service.get(user, run_id)


@router.get("/{run_id}/results", responses=error_responses(404))
async def list_results(
    run_id: str, service: ServiceDep, user: UserIdDep, page: PageDep
) -> Page[ResultRead]:
    """Per case and target: checks, judge score, cost, tokens, latency, calls, the turn."""
    rows = await service.results(user, run_id)
    items = rows[page.offset : page.offset + page.limit]
    return Page[ResultRead](items=items, total=len(rows), limit=page.limit, offset=page.offset)


@router.get("/{run_id}/report", responses=error_responses(404))
async def get_report(
    run_id: str,
    service: ServiceDep,
    user: UserIdDep,
    compare: Annotated[
        str | None, Query(description="Another run's id: list flipped cases")
    ] = None,
) -> ReportRead:
    """Targets compared: pass rate with a bootstrap 95% interval, judge score, cost, latency."""
    return await service.report(user, run_id, compare)


@router.post("/{run_id}/cancel", responses=error_responses(404, 409))
async def cancel_eval(run_id: str, service: ServiceDep, user: UserIdDep) -> EvalRead:
    """Stop a running run; its running turns are cancelled. 409 when it already ended."""
    return await service.cancel(user, run_id)
