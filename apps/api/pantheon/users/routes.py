"""Admin routes: users and their usage. Non-admin keys get 403 here, and only here."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Query

from pantheon.deps import AdminDep, UoWDep
from pantheon.schemas import Page, PageDep
from pantheon.users.repository import UserRepository
from pantheon.users.schemas import UsageRead, UserRead
from pantheon.users.service import UserService

router = APIRouter(prefix="/v1/admin", tags=["admin"])


def _service(uow: UoWDep) -> UserService:
    return UserService(UserRepository(uow))


ServiceDep = Annotated[UserService, Depends(_service)]


@router.get("/users")
async def list_users(service: ServiceDep, _admin: AdminDep, page: PageDep) -> Page[UserRead]:
    """Every user with their key prefixes (admin keys only)."""
    users, total = await service.repo.list_page(limit=page.limit, offset=page.offset)
    items = await service.read(users)
    return Page[UserRead](items=items, total=total, limit=page.limit, offset=page.offset)


@router.get("/users/{user_id}/usage")
async def user_usage(
    user_id: str,
    service: ServiceDep,
    _admin: AdminDep,
    days: Annotated[int, Query(ge=1, le=366, description="Days back, today included")] = 30,
) -> UsageRead:
    """A user's tokens and cost per model and per day, in UTC days (admin keys only)."""
    return await service.usage(user_id, days)
