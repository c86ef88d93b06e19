"""Admin routes for budgets: a user's USD limits per day and month, overall or per room."""

from __future__ import annotations

import uuid
from typing import Annotated

from fastapi import APIRouter, Depends, Query, Response

from pantheon.budgets.schemas import BudgetRead, BudgetSet
from pantheon.budgets.service import BudgetService
from pantheon.db.models import User
from pantheon.deps import AdminDep, UoWDep
from pantheon.errors import not_found
from pantheon.schemas import Page
from pantheon.users.repository import UserRepository

router = APIRouter(prefix="/v1/admin/users/{user_id}/budgets", tags=["admin"])


def _service(uow: UoWDep) -> BudgetService:
    return BudgetService(uow)


ServiceDep = Annotated[BudgetService, Depends(_service)]


async def _user(service: BudgetService, user_id: str) -> User:
    user = await UserRepository(service.session).get(user_id)
    if user is None:
        raise not_found("user", user_id)
    return user


@router.get("")
async def list_budgets(user_id: str, service: ServiceDep, _admin: AdminDep) -> Page[BudgetRead]:
    """The user's budgets with what is spent and held in the current windows."""
    items = await service.of_user(await _user(service, user_id))
    return Page[BudgetRead](items=items, total=len(items), limit=len(items), offset=0)


@router.put("")
async def set_budget(
    user_id: str, data: BudgetSet, service: ServiceDep, _admin: AdminDep
) -> BudgetRead:
    """Set the user's daily and/or monthly USD limit, overall or for one of their rooms."""
    return await service.set(await _user(service, user_id), data)


@router.delete("", status_code=204)
async def clear_budget(
    user_id: str,
    service: ServiceDep,
    _admin: AdminDep,
    room_id: Annotated[uuid.UUID | None, Query(description="The room's budget")] = None,
) -> Response:
    """Lift the user's budget (overall, or the room's)."""
    await service.clear(await _user(service, user_id), room_id)
    return Response(status_code=204)
