"""The app's services, built once, and the annotated dependencies route handlers ask for.

``Services`` is everything with a lifetime that requests use. The lifespan (main.py)
builds it once and keeps it on ``app.state.services``; this module is the only other one
that reads ``app.state`` (tests/test_house_rules.py), so every route gets what it needs
by type, through ``ServicesDep`` or one of the narrower aliases below.
"""

from __future__ import annotations

import math
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.applications import Starlette

from pantheon.db.engine import Database
from pantheon.db.uow import unit_of_work
from pantheon.errors import Forbidden, TooManyRequests
from pantheon.llm.gateway import LLMGateway
from pantheon.llm.registry import ModelRegistry
from pantheon.settings import Settings
from pantheon.tools.toolbox import ToolBox
from pantheon.users.auth import SAFE_METHODS, Principal, authenticate, bearer_scheme

if TYPE_CHECKING:  # their modules import this one (routes) or are heavy
    from pantheon.evals.runner import EvalRunner
    from pantheon.knowledge.lifecycle import Knowledge
    from pantheon.live.backend import LiveBackend
    from pantheon.live.rate_limit import TurnRateLimiter
    from pantheon.live.registry import LiveTurnRegistry
    from pantheon.turns.service import TurnService
    from pantheon.users.oidc import OidcClients

READ_METHODS = SAFE_METHODS  # one list: the unit of work's and the CSRF check's


@dataclass(frozen=True, slots=True)
class Services:
    """What the lifespan built, for the app's lifetime."""

    settings: Settings
    db: Database
    gateway: LLMGateway
    live_backend: LiveBackend  # where running turns live (in-process or Redis)
    live_turns: LiveTurnRegistry  # this process's own turns (server shutdown drains them)
    rate_limiter: TurnRateLimiter
    local_principal: Principal  # the caller in local mode
    tools: ToolBox
    knowledge: Knowledge
    turns: TurnService  # stateless between calls: one for the turn routes and the facade
    evals: EvalRunner  # this process's eval runs (background tasks)
    oidc: OidcClients  # the [oidc.NAME] providers and their discovery cache

    @property
    def local_user_id(self) -> uuid.UUID:
        return self.local_principal.user_id


def services_of(app: Starlette) -> Services | None:
    """``app``'s services once its lifespan has built them, else ``None``."""
    services: Services | None = getattr(app.state, "services", None)
    return services


def _services(request: Request) -> Services:
    services: Services = request.app.state.services
    return services


ServicesDep = Annotated[Services, Depends(_services)]


def _settings(services: ServicesDep) -> Settings:
    return services.settings


def _database(services: ServicesDep) -> Database:
    return services.db


def _gateway(services: ServicesDep) -> LLMGateway:
    return services.gateway


def _registry(services: ServicesDep) -> ModelRegistry:
    return services.gateway.registry


def _toolbox(services: ServicesDep) -> ToolBox:
    return services.tools


async def _unit_of_work(request: Request, services: ServicesDep) -> AsyncIterator[AsyncSession]:
    # scope="function": the commit happens after the handler returns and before the
    # response is sent, so a client never sees a success that was not committed.
    write = request.method not in READ_METHODS
    async with unit_of_work(services.db, write=write) as session:
        yield session


async def current_principal(
    request: Request,
    services: ServicesDep,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer_scheme)],
) -> Principal:
    """The authenticated caller; 401 in ``keys`` mode without a live key."""
    # Cached per request by FastAPI: the router-level check and the handler share one lookup.
    if services.settings.auth_mode == "local":
        return services.local_principal
    return await authenticate(services.db, credentials, request)


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
ToolBoxDep = Annotated[ToolBox, Depends(_toolbox)]
UoWDep = Annotated[AsyncSession, Depends(_unit_of_work, scope="function")]
UserIdDep = Annotated[uuid.UUID, Depends(_current_user_id)]
PrincipalDep = Annotated[Principal, Depends(current_principal)]
AdminDep = Annotated[Principal, Depends(_admin)]


async def limit_turn_rate(principal: PrincipalDep, services: ServicesDep) -> None:
    """429 with ``Retry-After`` when this key started too many turns in the last minute."""
    per_minute = services.settings.limits.turns_per_minute
    wait = await services.rate_limiter.allow(f"turns:{principal.limit_key}", per_minute)
    if wait is not None:
        retry_after = max(1, math.ceil(wait))
        raise TooManyRequests(
            f"turn rate limit reached: {per_minute} turns per minute per API key "
            f"(PANTHEON_LIMITS__TURNS_PER_MINUTE); retry in {retry_after} s",
            headers={"Retry-After": str(retry_after)},
            limit=per_minute,
        )
