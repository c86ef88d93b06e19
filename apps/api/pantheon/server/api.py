"""Mounts the domain routers behind authentication, plus health, readiness and models.

Only ``/health``, ``/ready``, ``POST /auth/login``, ``GET /auth/providers``, the OIDC
sign-in routes ``/auth/oidc/{name}/login`` and ``/callback``, a share link's snapshot
(``GET /v1/shared/{token}``, its page ``/share/{token}``) and FastAPI's docs are public:
every other router is included with the authentication dependency, so a new route is
authenticated by default (tests/auth walks the OpenAPI schema to keep it so).
"""

from __future__ import annotations

from collections.abc import Sequence

from fastapi import APIRouter, Depends, FastAPI
from pydantic import BaseModel, Field

from pantheon.agents.pin_routes import router as pins_router
from pantheon.agents.routes import router as agents_router
from pantheon.agents.tool_routes import router as tools_router
from pantheon.budgets.routes import router as budgets_router
from pantheon.db.migrations import schema_is_current
from pantheon.deps import (
    PrincipalDep,
    RegistryDep,
    ServicesDep,
    SettingsDep,
    UoWDep,
    current_principal,
)
from pantheon.engine.modes.specs import (
    MODE_SPECS,
    AnswerSource,
    Mode,
    ModeSpec,
    OutputShape,
    SessionKind,
)
from pantheon.error_codes import ErrorCode
from pantheon.errors import ErrorShapes, ServiceUnavailable, error_responses
from pantheon.evals.routes import router as evals_router
from pantheon.knowledge.routes import KNOWLEDGE_ERRORS
from pantheon.knowledge.routes import router as knowledge_router
from pantheon.knowledge.status import KnowledgeStatus, knowledge_status
from pantheon.protocols.doors import Door, mount_doors
from pantheon.rooms.member_routes import router as members_router
from pantheon.rooms.routes import router as rooms_router
from pantheon.server.metrics_routes import router as metrics_router
from pantheon.sessions.routes import router as sessions_router
from pantheon.sessions.share_routes import public_router as shared_router
from pantheon.sessions.share_routes import router as share_router
from pantheon.turns.routes import router as turns_router
from pantheon.usage.routes import router as usage_router
from pantheon.users.access import allowed_aliases, user_allowlist
from pantheon.users.connections_routes import callback_router as connection_callback_router
from pantheon.users.connections_routes import router as connections_router
from pantheon.users.invites import invite_router
from pantheon.users.oidc_routes import oidc_router
from pantheon.users.people import router as people_router
from pantheon.users.routes import router as admin_router
from pantheon.users.signin import me_router, signin_router

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
async def ready(services: ServicesDep) -> Ready:
    """The database answers, its schema is at the latest migration, and the live-turn
    store answers (Redis, when ``PANTHEON_REDIS_URL`` shares running turns)."""
    db = services.db
    try:
        current = await schema_is_current(db.engine)
    except Exception as exc:
        raise ServiceUnavailable(f"database unreachable: {type(exc).__name__}") from exc
    if not current:
        raise ServiceUnavailable("database schema is not at the latest migration; run migrate")
    await services.live_backend.check()
    knowledge = services.knowledge
    return Ready(
        status="ready",
        live_turns=services.live_backend.name,
        knowledge=knowledge_status(knowledge.embedder, db, knowledge.detection),
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


class ModeConstraints(BaseModel):
    session: SessionKind = Field(description="where its turns run: a room's session or an agent's")
    min_agents: int = Field(description="fewest agents the room must have")
    needs_mentions: bool = Field(description="the message must @mention who answers")
    uses_manager: bool = Field(description="a manager model routes and writes the answer")
    can_pause: bool = Field(description="an approval-gated tool call pauses the turn")
    can_rerun: bool = Field(description="a later turn may re-run from one of its stages")


class ModeRead(BaseModel):
    name: Mode
    label: str
    description: str
    hint: str | None = Field(description="how to use it, for where a message is written")
    output: OutputShape = Field(description="how the turn's output text is laid out")
    answer: AnswerSource = Field(description="which text a person reads as the answer")
    constraints: ModeConstraints


class ModeList(BaseModel):
    items: list[ModeRead]
    total: int
    limit: int
    offset: int


def _mode_read(spec: ModeSpec) -> ModeRead:
    return ModeRead(
        name=spec.name,
        label=spec.label,
        description=spec.description,
        hint=spec.hint,
        output=spec.output,
        answer=spec.answer,
        constraints=ModeConstraints(
            session=spec.session,
            min_agents=spec.min_agents,
            needs_mentions=spec.needs_mentions,
            uses_manager=spec.uses_manager,
            can_pause=spec.can_pause,
            can_rerun=spec.can_rerun,
        ),
    )


@models.get("/v1/modes")
async def list_modes() -> ModeList:
    """The turn modes: what each does and what it needs (the page builds its pickers here)."""
    items = [_mode_read(spec) for spec in MODE_SPECS]
    return ModeList(items=items, total=len(items), limit=len(items), offset=0)


class ErrorCodeRead(BaseModel):
    code: str = Field(description="as in agent_failed.code, error.code, summary.code ...")
    sentence: str = Field(description="what happened, for a person (the page shows it)")


class ErrorCodeList(BaseModel):
    items: list[ErrorCodeRead]
    total: int
    limit: int
    offset: int


@models.get("/v1/error-codes")
async def list_error_codes() -> ErrorCodeList:
    """Every error code a turn can carry, with its sentence (the page shows these)."""
    items = [ErrorCodeRead(code=code, sentence=code.sentence) for code in ErrorCode]
    return ErrorCodeList(items=items, total=len(items), limit=len(items), offset=0)


class ServerDefaults(BaseModel):
    default_model: str = Field(
        description="the model alias an agent or a room's manager gets when none is chosen"
    )
    max_message_chars: int = Field(
        description="the longest message a turn accepts (PANTHEON_TURNS__MAX_MESSAGE_CHARS)"
    )


@models.get("/v1/defaults")
async def server_defaults(settings: SettingsDep) -> ServerDefaults:
    """What the server fills in or enforces, for clients to show before they ask."""
    return ServerDefaults(
        default_model=settings.default_model,
        max_message_chars=settings.turns.max_message_chars,
    )


def mount_routers(app: FastAPI, shapes: ErrorShapes, doors: Sequence[Door]) -> None:
    """Include every router; all but ``ops`` require an authenticated caller. Then the
    protocol ``doors``, each registering its error shapes in ``shapes``."""
    auth = [Depends(current_principal)]
    app.include_router(ops)
    app.include_router(signin_router, responses=error_responses(401, 404, 422, 429))
    app.include_router(oidc_router, responses=error_responses(404, 422))  # public too
    app.include_router(invite_router, responses=error_responses(400, 404, 422))
    app.include_router(me_router, dependencies=auth, responses=error_responses(401, 403, 422, 429))
    app.include_router(models, dependencies=auth, responses=error_responses(401))
    crud = error_responses(401, 403, 404, 409, 413, 422)
    app.include_router(rooms_router, dependencies=auth, responses=crud)
    app.include_router(members_router, dependencies=auth, responses=crud)
    app.include_router(people_router, dependencies=auth, responses=error_responses(401, 422))
    app.include_router(agents_router, dependencies=auth, responses=crud)
    app.include_router(
        sessions_router, dependencies=auth, responses=error_responses(401, 404, 413, 422)
    )
    app.include_router(share_router, dependencies=auth, responses=error_responses(401, 404))
    app.include_router(shared_router, responses=error_responses(404, 422))  # public (ADR 0042)
    app.include_router(usage_router, dependencies=auth, responses=error_responses(401, 404, 422))
    app.include_router(tools_router, dependencies=auth, responses=error_responses(401, 422))
    app.include_router(
        connections_router, dependencies=auth, responses=error_responses(401, 404, 503)
    )
    app.include_router(connection_callback_router, responses=error_responses(404))  # public
    turns = error_responses(401, 402, 404, 409, 413, 422, 429, 503)
    app.include_router(turns_router, dependencies=auth, responses=turns)
    app.include_router(knowledge_router, dependencies=auth, responses=KNOWLEDGE_ERRORS)
    admin = error_responses(401, 403, 404, 422)
    app.include_router(
        admin_router, dependencies=auth, responses=error_responses(401, 403, 404, 409, 422)
    )
    app.include_router(budgets_router, dependencies=auth, responses=admin)
    app.include_router(
        pins_router, dependencies=auth, responses=error_responses(401, 403, 404, 409, 422)
    )
    app.include_router(evals_router, dependencies=auth, responses=error_responses(401, 422))
    app.include_router(metrics_router, dependencies=auth)  # admins only (observability/)
    # The protocol doors, from their one list (protocols/doors.py).
    mount_doors(app, shapes, doors, auth)
