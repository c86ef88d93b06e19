"""Mounts the domain routers behind authentication, plus health, readiness and models.

Only ``/health`` and ``/ready`` (and FastAPI's docs) are public: every other router is
included with the authentication dependency, so a new route is authenticated by default
(tests/auth walks the OpenAPI schema to keep it so).
"""

from __future__ import annotations

from fastapi import APIRouter, Depends, FastAPI, Request
from pydantic import BaseModel, Field

from pantheon.agents.routes import router as agents_router
from pantheon.budgets.routes import router as budgets_router
from pantheon.db.migrations import schema_is_current
from pantheon.deps import DatabaseDep, PrincipalDep, RegistryDep, UoWDep, current_principal
from pantheon.errors import ServiceUnavailable, error_responses
from pantheon.facade.routes import router as openai_router
from pantheon.knowledge.routes import KNOWLEDGE_ERRORS
from pantheon.knowledge.routes import router as knowledge_router
from pantheon.knowledge.status import KnowledgeStatus, knowledge_status
from pantheon.rooms.routes import router as rooms_router
from pantheon.sessions.routes import router as sessions_router
from pantheon.tools.routes import router as tools_router
from pantheon.turns.backend import LiveBackend
from pantheon.turns.routes import router as turns_router
from pantheon.usage.routes import router as usage_router
from pantheon.users.access import allowed_aliases, user_allowlist
from pantheon.users.routes import router as admin_router

ops = APIRouter(tags=["operations"])
models = APIRouter(tags=["models"])


class Health(BaseModel):
    status: str


class Ready(BaseModel):
    status: str
    live_turns: str = Field(description="where running turns live: in-process | redis")
    knowledge: KnowledgeStatus


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


@ops.get("/ready", responses=error_responses(503))
async def ready(db: DatabaseDep, request: Request) -> Ready:
    """The database answers, its schema is at the latest migration, and the live-turn
    store answers (Redis, when ``PANTHEON_REDIS_URL`` shares running turns)."""
    try:
        current = await schema_is_current(db.engine)
    except Exception as exc:
        raise ServiceUnavailable(f"database unreachable: {type(exc).__name__}") from exc
    if not current:
        raise ServiceUnavailable("database schema is not at the latest migration; run migrate")
    live: LiveBackend = request.app.state.live_backend
    await live.check()
    return Ready(
        status="ready",
        live_turns=live.name,
        knowledge=knowledge_status(
            request.app.state.embedder, db, request.app.state.vector_detection
        ),
    )


@models.get("/v1/models")
async def list_models(registry: RegistryDep, principal: PrincipalDep, uow: UoWDep) -> ModelList:
    """The model aliases you may use (no provider URLs or keys)."""
    allowed = set(allowed_aliases(registry, await user_allowlist(uow, principal.user_id)))
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
        if a.name in allowed
    ]
    return ModelList(items=items, total=len(items), limit=len(items), offset=0)


def mount_routers(app: FastAPI) -> None:
    """Include every router; all but ``ops`` require an authenticated caller."""
    auth = [Depends(current_principal)]
    app.include_router(ops)
    app.include_router(models, dependencies=auth, responses=error_responses(401))
    crud = error_responses(401, 404, 409, 413, 422)
    app.include_router(rooms_router, dependencies=auth, responses=crud)
    app.include_router(agents_router, dependencies=auth, responses=crud)
    app.include_router(
        sessions_router, dependencies=auth, responses=error_responses(401, 404, 413, 422)
    )
    app.include_router(usage_router, dependencies=auth, responses=error_responses(401, 404, 422))
    app.include_router(tools_router, dependencies=auth, responses=error_responses(401, 422))
    turns = error_responses(401, 402, 404, 409, 413, 422, 429, 503)
    app.include_router(turns_router, dependencies=auth, responses=turns)
    app.include_router(knowledge_router, dependencies=auth, responses=KNOWLEDGE_ERRORS)
    admin = error_responses(401, 403, 404, 422)
    app.include_router(admin_router, dependencies=auth, responses=admin)
    app.include_router(budgets_router, dependencies=auth, responses=admin)
    # OpenAI-compatible facade: same keys and limits, errors in OpenAI's shape (facade/).
    app.include_router(openai_router, dependencies=auth)
