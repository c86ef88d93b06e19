"""The pin store's error paths: two replicas pinning the same new tool at once, and pins
that cannot be read (the server's tools are then held back, never offered unchecked)."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy.ext.asyncio import AsyncSession

from pantheon.db.engine import Database
from pantheon.db.tool_pin_models import McpToolPin
from pantheon.db.uow import unit_of_work
from pantheon.engine.tooling import ToolScope
from pantheon.settings import Settings
from pantheon.tools.mcp import pin_store
from pantheon.tools.mcp.convert import McpTool
from pantheon.tools.mcp.pin_store import PinStore
from pantheon.tools.toolbox import open_toolbox
from tests.tools.conftest import write_config
from tests.tools.pin_helpers import RELIST, PinServer

SCOPE = ToolScope(owner_id="u", turn_id="t", agent_id="a", agent_key="k", room_id=None)
TOOLS = [
    McpTool("shop", "lookup", "shop__lookup", "Look up.", {"type": "object"}, "Look up."),
    McpTool("shop", "refund", "shop__refund", "Refund.", {"type": "object"}, "Refund."),
]


async def test_a_replica_that_loses_the_race_to_pin_reads_the_winners_rows(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = Database.from_url(settings.resolved_database_url)
    try:
        store = PinStore(db)
        assert await store.check("shop", TOOLS) == {}  # the other replica pins first
        real = pin_store.server_pins
        stale = 2  # this replica read (and then wrote) before it saw those rows

        async def late(session: AsyncSession, server: str) -> list[McpToolPin]:
            nonlocal stale
            if stale:
                stale -= 1
                return []
            return await real(session, server)

        monkeypatch.setattr(pin_store, "server_pins", late)
        assert await store.check("shop", TOOLS) == {}
        assert stale == 0  # the insert collided, and the retry read the rows
        async with unit_of_work(db, write=False) as session:
            assert sorted(p.tool for p in await real(session, "shop")) == ["lookup", "refund"]
        changed = [TOOLS[0], McpTool("shop", "refund", "shop__refund", "Now x.", {}, "Now x.")]
        held = await store.check("shop", changed)
        assert list(held) == ["refund"]
        assert held["refund"].change == "changed"
    finally:
        await db.dispose()


async def test_unreadable_pins_hold_the_server_back(tmp_path: Path) -> None:
    server = PinServer(tmp_path)
    config = write_config(tmp_path, server.config())
    settings = Settings(data_dir=tmp_path, config_file=config, tools=RELIST)
    db = Database.from_url(f"sqlite+aiosqlite:///{tmp_path / 'unmigrated.db'}")  # no tables
    try:
        async with open_toolbox(settings, db=db) as toolbox:
            assert await toolbox.definitions(["shop.*"]) == []
            result = await toolbox.call("shop__lookup", {}, SCOPE)
            assert result.ok is False
            assert result.content == "MCP server shop is unavailable: its tool pins cannot be read"
            rows = [r for r in await toolbox.catalog() if r.source == "mcp:shop"]
            assert rows
            assert not any(r.available for r in rows)
    finally:
        await db.dispose()
