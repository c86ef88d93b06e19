"""Mounts the domain routers, plus health, readiness and the model list."""

from __future__ import annotations

from fastapi import APIRouter, FastAPI
from pydantic import BaseModel

from pantheon.agents.routes import router as agents_router
from pantheon.db.migrations import schema_is_current
from pantheon.deps import DatabaseDep, RegistryDep, UserIdDep
from pantheon.errors import ServiceUnavailable
from pantheon.rooms.routes import router as rooms_router
from pantheon.sessions.routes import router as sessions_router
from pantheon.turns.routes import router as turns_router

ops = APIRouter(tags=["operations"])


class Health(BaseModel):
    status: str


class ModelRead(BaseModel):
    name: str
    provider: str
    model: str
    context_window: int
    input_price_per_mtok: float
    output_price_per_mtok: float


class ModelList(BaseModel):
    items: list[ModelRead]
    total: int
    limit: int
    offset: int


@ops.get("/health")
async def health() -> Health:
    """The process is up."""
    return Health(status="ok")


@ops.get("/ready", responses={503: {"description": "database unreachable or schema behind"}})
async def ready(db: DatabaseDep) -> Health:
    """The database answers and its schema is at the latest migration."""
    try:
        current = await schema_is_current(db.engine)
    except Exception as exc:
        raise ServiceUnavailable(f"database unreachable: {type(exc).__name__}") from exc
    if not current:
        raise ServiceUnavailable("database schema is not at the latest migration; run migrate")
    return Health(status="ready")


@ops.get("/v1/models", tags=["models"])
async def list_models(registry: RegistryDep, _user: UserIdDep) -> ModelList:
    """The configured model aliases (no provider URLs or keys)."""
    items = [
        ModelRead(
            name=a.name,
            provider=a.provider,
            model=a.model or a.name,
            context_window=a.context_window,
            input_price_per_mtok=a.input_price_per_mtok,
            output_price_per_mtok=a.output_price_per_mtok,
        )
        for a in registry.all()
    ]
    return ModelList(items=items, total=len(items), limit=len(items), offset=0)


def mount_routers(app: FastAPI) -> None:
    app.include_router(ops)
    app.include_router(rooms_router)
    app.include_router(agents_router)
    app.include_router(sessions_router)
    app.include_router(turns_router)
