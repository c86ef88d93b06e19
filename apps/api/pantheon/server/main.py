"""The application factory. Everything with a lifetime is built in the lifespan, not at import."""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import AsyncIterator

from fastapi import FastAPI

from pantheon.body_limits import BodySizeLimit, upload_limits
from pantheon.config_file import read_config_file
from pantheon.db.engine import Database
from pantheon.deps import Services
from pantheon.errors import ErrorShapes, install_error_handlers
from pantheon.evals.runner import EvalRunner, interrupt_orphaned_runs
from pantheon.knowledge.lifecycle import start_knowledge
from pantheon.knowledge.tool import make_search_knowledge
from pantheon.live.choice import build_live_turns
from pantheon.live.journal import TurnJournal
from pantheon.live.recovery import recover_journal
from pantheon.llm.factory import build_gateway
from pantheon.llm.http import make_http_client, make_upstream_session
from pantheon.llm.providers.scripted import ScriptedProvider
from pantheon.observability import tracing
from pantheon.observability.http import HttpMetrics
from pantheon.protocols.doors import protocol_doors, serving
from pantheon.server.api import mount_routers
from pantheon.server.gc_freeze import startup_objects_frozen
from pantheon.server.web import mount_web
from pantheon.settings import Settings
from pantheon.text import CleanQueryStrings
from pantheon.tools.mcp.oauth.connections import open_store
from pantheon.tools.toolbox import open_toolbox
from pantheon.turns.service import TurnService
from pantheon.users.auth import Principal, ensure_local_user
from pantheon.users.oidc import OidcClients
from pantheon.users.oidc_config import load_oidc_providers

log = logging.getLogger("pantheon")


def _journal(settings: Settings) -> TurnJournal | None:
    """The crash journal of this process's running turns, unless turned off."""
    if not settings.turns.journal:
        return None
    return TurnJournal(settings.data_dir.resolve() / "journal", settings.turns.journal_flush_s)


def create_app(
    settings: Settings | None = None, *, scripted: ScriptedProvider | None = None
) -> FastAPI:
    """Build the ASGI app. ``scripted`` lets tests and demos drive the fake provider."""
    settings = settings or Settings()
    doors = protocol_doors(settings)
    # [oidc.NAME] providers: a bad table or a missing secret fails here, at startup.
    oidc = OidcClients(
        load_oidc_providers(read_config_file(settings.resolved_config_file)),
        settings.auth.oidc_timeout_s,
    )

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        spans = tracing.install(os.environ)  # off unless the OTEL_* variables name an endpoint
        db = Database.from_url(settings.resolved_database_url)
        http = make_http_client(settings.llm)
        upstream = make_upstream_session(settings.llm)
        gateway = build_gateway(settings, upstream, http, scripted=scripted)
        # With Redis a dead process's turns are recorded by the other replicas' sweepers
        # (ADR 0010); the crash journal is the single process's way (ADR 0011).
        journal = None if settings.redis_url else _journal(settings)
        live = build_live_turns(settings, db, journal)
        await live.backend.start()
        try:
            local_user_id = await ensure_local_user(db)
            if journal is not None:  # before serving: an interrupted turn is recorded first
                await recover_journal(db, journal.directory)
            if not settings.redis_url:  # one process: a run left running has no runner
                await interrupt_orphaned_runs(db)
            if settings.seed_demo:
                from pantheon.server.seed import seed_demo_room

                await seed_demo_room(db, local_user_id, settings)
            knowledge = await start_knowledge(settings, db, http)
            try:
                # MCP connections outlive every turn: they close after running turns finish.
                async with open_toolbox(settings, db=db) as toolbox:
                    secret = settings.secret_key
                    toolbox.per_user.store = open_store(
                        db,
                        secret.get_secret_value() if secret is not None else None,
                        toolbox.per_user.configs,
                        settings.tools.mcp_oauth_timeout_s,
                    )
                    toolbox.registry.register(
                        make_search_knowledge(
                            db, knowledge.embedder, knowledge.vector_cache, knowledge.pgvector
                        )
                    )
                    turns = TurnService(db, gateway, settings, live.backend, toolbox)
                    evals = EvalRunner(db, turns, gateway)
                    evals.start_heartbeat(settings.evals)
                    app.state.services = Services(
                        settings=settings,
                        db=db,
                        gateway=gateway,
                        live_backend=live.backend,
                        live_turns=live.here,
                        rate_limiter=live.rate_limiter,
                        local_principal=Principal(local_user_id, is_admin=True),
                        tools=toolbox,
                        knowledge=knowledge,
                        turns=turns,
                        evals=evals,
                        oidc=oidc,
                    )
                    async with serving(doors):  # MCP requests wait on turns: drained first
                        with startup_objects_frozen():
                            yield
                        await evals.shutdown()  # before the turns drain: it cancels its own
                        await live.backend.shutdown(settings.turns.shutdown_grace_s)
            finally:
                await knowledge.ingest.stop()
        finally:
            await http.aclose()
            await upstream.close()
            await db.dispose()
            # Last: flushes queued spans, within 30 s (nothing else is served by now;
            # awaiting a thread here kept --workers workers from exiting).
            tracing.uninstall(spans)

    app = FastAPI(
        title="Pantheon",
        version="0.1.0",
        summary="Self-hosted multi-agent chat: rooms of AI agents, turns streamed over SSE.",
        lifespan=lifespan,
    )
    shapes = ErrorShapes()  # the routers register their protocols' shapes as they mount
    install_error_handlers(app, shapes)
    app.add_middleware(
        BodySizeLimit,
        max_bytes=settings.limits.max_body_bytes,
        timeout_s=settings.limits.body_timeout_s,
        routes=upload_limits(settings.knowledge.max_bytes),
        shapes=shapes,
        max_depth=settings.limits.max_json_depth,
    )
    app.add_middleware(CleanQueryStrings)
    app.add_middleware(HttpMetrics)  # outermost: it sees every response, refusals too
    mount_routers(app, shapes, doors)  # the protocol doors last (protocols/doors.py)
    mount_web(app)
    return app
