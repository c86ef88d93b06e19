"""Admin routes: users (list, invite, change), their API keys and their usage. Non-admin
callers get 403 here, and only here. The rules of a change are ``users/admin.py``'s."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Query, Response

from pantheon.db.models import UserStatus
from pantheon.deps import AdminDep, SettingsDep, UoWDep
from pantheon.schemas import Page, PageDep
from pantheon.users.admin import UserAdmin
from pantheon.users.repository import UserRepository
from pantheon.users.schemas import (
    InviteRead,
    KeyCreated,
    KeyRead,
    UsageRead,
    UserCreate,
    UserRead,
    UserUpdate,
)
from pantheon.users.service import UserService

router = APIRouter(prefix="/v1/admin", tags=["admin"])


def _service(uow: UoWDep) -> UserService:
    return UserService(UserRepository(uow))


def _user_admin(uow: UoWDep, settings: SettingsDep) -> UserAdmin:
    return UserAdmin(UserRepository(uow), settings.auth.invite_ttl_s)


ServiceDep = Annotated[UserService, Depends(_service)]
UserAdminDep = Annotated[UserAdmin, Depends(_user_admin)]


@router.get("/users")
async def list_users(
    service: ServiceDep,
    _admin: AdminDep,
    page: PageDep,
    status: Annotated[UserStatus | None, Query(description="Only users with this status")] = None,
) -> Page[UserRead]:
    """Every user (or those with ``status``) with their key prefixes (admins only)."""
    users, total = await service.repo.list_page(limit=page.limit, offset=page.offset, status=status)
    items = await service.read(users)
    return Page[UserRead](items=items, total=total, limit=page.limit, offset=page.offset)


@router.post("/users", status_code=201)
async def invite_user(
    body: UserCreate, admin: UserAdminDep, service: ServiceDep, caller: AdminDep
) -> InviteRead:
    """A new person: an active user with no password, and the one-time link
    (``invite_url``) that lets them set one (admins only; shown once)."""
    user, url = await admin.invite(body, caller)
    return InviteRead(user=(await service.read([user]))[0], invite_url=url)


@router.post("/users/{user_id}/invite", status_code=201)
async def reinvite_user(
    user_id: str, admin: UserAdminDep, service: ServiceDep, caller: AdminDep
) -> InviteRead:
    """A new invitation link for an active user; their earlier link stops working."""
    user, url = await admin.reinvite(user_id, caller)
    return InviteRead(user=(await service.read([user]))[0], invite_url=url)


@router.patch("/users/{user_id}")
async def update_user(
    user_id: str, body: UserUpdate, admin: UserAdminDep, service: ServiceDep, caller: AdminDep
) -> UserRead:
    """Approve (``status: active``), disable or re-enable a user, change their role or
    display name. The last active admin stays one; nobody disables themselves (409)."""
    user = await admin.update(user_id, body, caller)
    return (await service.read([user]))[0]


@router.get("/users/{user_id}/keys")
async def list_keys(user_id: str, service: ServiceDep, _admin: AdminDep) -> Page[KeyRead]:
    """The user's API keys, oldest first, revoked ones included: prefixes only."""
    items = [KeyRead.model_validate(k) for k in await service.keys_of(user_id)]
    return Page[KeyRead](items=items, total=len(items), limit=len(items), offset=0)


@router.post("/users/{user_id}/keys", status_code=201)
async def create_key(user_id: str, service: ServiceDep, _admin: AdminDep) -> KeyCreated:
    """A new API key for the user (as ``pantheon keys create``). The whole ``key`` is in
    this answer only: the server keeps its hash. Hand it over, then forget it."""
    key, row = await service.add_key(user_id)
    return KeyCreated(key=key, **KeyRead.model_validate(row).model_dump())


@router.delete("/users/{user_id}/keys/{key_id}", status_code=204)
async def revoke_key(user_id: str, key_id: str, service: ServiceDep, _admin: AdminDep) -> Response:
    """Revoke one of the user's keys: it stops working on the next request. Revoking a
    revoked key is a no-op (204); a key that is not this user's is 404."""
    await service.revoke_key_of(user_id, key_id)
    return Response(status_code=204)


@router.get("/users/{user_id}/usage")
async def user_usage(
    user_id: str,
    service: ServiceDep,
    _admin: AdminDep,
    days: Annotated[int, Query(ge=1, le=366, description="Days back, today included")] = 30,
) -> UsageRead:
    """A user's tokens and cost per model and per day, in UTC days (admin keys only)."""
    return await service.usage(user_id, days)
