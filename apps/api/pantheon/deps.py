"""Annotated dependency aliases: what route handlers ask for by type."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials
from sqlalchemy.ext.asyncio import AsyncSession

from pantheon.auth import Principal, authenticate, bearer_scheme
from pantheon.db.engine import Database
from pantheon.db.uow import unit_of_work
from pantheon.errors import Forbidden
from pantheon.llm.gateway import LLMGateway
from pantheon.llm.registry import ModelRegistry
from pantheon.settings import Settings

READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def _settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


def _database(request: Request) -> Database:
    db: Database = request.app.state.db
    return db


def _gateway(request: Request) -> LLMGateway:
    gateway: LLMGateway = request.app.state.gateway
    return gateway


def _registry(request: Request) -> ModelRegistry:
    return _gateway(request).registry


async def _unit_of_work(request: Request) -> AsyncIterator[AsyncSession]:
    # scope="function": the commit happens after the handler returns and before the
    # response is sent, so a client never sees a success that was not committed.
    write = request.method not in READ_METHODS
    async with unit_of_work(_database(request), write=write) as session:
        yield session


async def current_principal(
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer_scheme)],
) -> Principal:
    """The authenticated caller; 401 in ``keys`` mode without a live key."""
    # Cached per request by FastAPI: the router-level check and the handler share one lookup.
    return await authenticate(request, credentials)


async def _current_user_id(
    principal: Annotated[Principal, Depends(current_principal)],
) -> uuid.UUID:
    return principal.user_id


async def _admin(principal: Annotated[Principal, Depends(current_principal)]) -> Principal:
    if not principal.is_admin:
        raise Forbidden("this route needs an admin API key")
    return principal


SettingsDep = Annotated[Settings, Depends(_settings)]
DatabaseDep = Annotated[Database, Depends(_database)]
GatewayDep = Annotated[LLMGateway, Depends(_gateway)]
RegistryDep = Annotated[ModelRegistry, Depends(_registry)]
UoWDep = Annotated[AsyncSession, Depends(_unit_of_work, scope="function")]
UserIdDep = Annotated[uuid.UUID, Depends(_current_user_id)]
PrincipalDep = Annotated[Principal, Depends(current_principal)]
AdminDep = Annotated[Principal, Depends(_admin)]
