"""The application factory. Everything with a lifetime is built in the lifespan, not at import."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator

from fastapi import FastAPI

from pantheon.api import mount_routers
from pantheon.auth import Principal, ensure_local_user
from pantheon.db.engine import Database
from pantheon.errors import install_error_handlers
from pantheon.knowledge.lifecycle import start_knowledge
from pantheon.knowledge.tool import make_search_knowledge
from pantheon.limits import BodySizeLimit, upload_limits
from pantheon.live.choice import build_live_turns
from pantheon.live.journal import TurnJournal
from pantheon.live.recovery import recover_journal
from pantheon.llm.factory import build_gateway
from pantheon.llm.http import make_http_client
from pantheon.llm.providers.scripted import ScriptedProvider
from pantheon.settings import Settings
from pantheon.text import CleanQueryStrings
from pantheon.tools.toolbox import open_toolbox
from pantheon.web import mount_web

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

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        db = Database.from_url(settings.resolved_database_url)
        http = make_http_client(settings.llm)
        app.state.settings = settings
        app.state.db = db
        app.state.gateway = build_gateway(settings, http, scripted=scripted)
        # With Redis a dead process's turns are recorded by the other replicas' sweepers
        # (ADR 0010); the crash journal is the single process's way (ADR 0011).
        journal = None if settings.redis_url else _journal(settings)
        chosen = build_live_turns(settings, db, journal)
        live = app.state.live_backend = chosen.backend
        app.state.live_turns = chosen.here  # this process's own turns (server shutdown)
        app.state.rate_limiter = chosen.rate_limiter
        await live.start()
        try:
            app.state.local_user_id = await ensure_local_user(db)
            if journal is not None:  # before serving: an interrupted turn is recorded first
                await recover_journal(db, journal.directory)
            app.state.local_principal = Principal(app.state.local_user_id, is_admin=True)
            if settings.seed_demo:
                from pantheon.seed import seed_demo_room

                await seed_demo_room(db, app.state.local_user_id, settings)
            ingest = await start_knowledge(app, settings, db, http)
            try:
                # MCP connections outlive every turn: they close after running turns finish.
                async with open_toolbox(settings) as toolbox:
                    toolbox.registry.register(
                        make_search_knowledge(
                            db, app.state.embedder, app.state.vector_cache, app.state.pgvector
                        )
                    )
                    app.state.tools = toolbox
                    yield
                    await live.shutdown(settings.turns.shutdown_grace_s)
            finally:
                await ingest.stop()
        finally:
            await http.aclose()
            await db.dispose()

    app = FastAPI(
        title="Pantheon",
        version="0.1.0",
        summary="Self-hosted multi-agent chat: rooms of AI agents, turns streamed over SSE.",
        lifespan=lifespan,
    )
    install_error_handlers(app)
    app.add_middleware(
        BodySizeLimit,
        max_bytes=settings.limits.max_body_bytes,
        timeout_s=settings.limits.body_timeout_s,
        routes=upload_limits(settings.knowledge.max_bytes),
    )
    app.add_middleware(CleanQueryStrings)
    mount_routers(app)
    mount_web(app)
    return app
