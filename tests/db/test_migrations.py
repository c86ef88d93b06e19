"""Migrations on both databases: upgrade from empty, no drift from the models, downgrade."""

from __future__ import annotations

from typing import Any

from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import Connection, inspect

from pantheon.db.engine import create_engine
from pantheon.db.migrations import downgrade, upgrade
from pantheon.db.tables import METADATA
from pantheon.knowledge.keyword import include_name

TABLES = {
    "users", "api_keys", "rooms", "agents", "room_agents", "sessions",
    "turns", "messages", "llm_calls", "tool_calls", "turn_event_logs", "documents", "chunks",
    "budgets", "spend_counters", "spend_holds", "turn_decisions",
    "eval_datasets", "eval_runs", "eval_results", "response_requests", "login_sessions",
    "oidc_identities", "oidc_logins", "session_shares", "invites", "room_members", "mcp_tool_pins",
    "mcp_connections", "mcp_connects",
}  # fmt: skip


def _diff(connection: Connection) -> list[Any]:
    context = MigrationContext.configure(
        connection, opts={"compare_type": True, "include_name": include_name}
    )
    return list(compare_metadata(context, METADATA))


def _tables(connection: Connection) -> set[str]:
    names = set(inspect(connection).get_table_names()) - {"alembic_version"}
    return {name for name in names if include_name(name, "table", {})}


async def test_upgrade_matches_models_then_downgrade_to_base(db_url: str) -> None:
    await upgrade(db_url)
    engine = create_engine(db_url)
    try:
        async with engine.connect() as conn:
            assert await conn.run_sync(_tables) == TABLES
            assert await conn.run_sync(_diff) == []
        await downgrade(db_url, "base")
        async with engine.connect() as conn:
            assert await conn.run_sync(_tables) == set()
        await upgrade(db_url)
    finally:
        await engine.dispose()
