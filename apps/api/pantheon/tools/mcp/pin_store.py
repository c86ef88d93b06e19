"""Where pins live: the ``mcp_tool_pins`` table, shared by every replica.

``PinStore.check`` runs on every use of a server's listing (offering its tools to a model,
calling one, the catalogue): one read of the server's pins, and a write only when the
listing brought something new. Two replicas pinning the same new tool at once race on
the (server, tool) key: the loser reads again and finds the winner's row.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from pantheon.db.base import utcnow
from pantheon.db.engine import Database
from pantheon.db.tool_pin_models import McpToolPin
from pantheon.db.uow import unit_of_work
from pantheon.tools.mcp.convert import McpTool
from pantheon.tools.mcp.pins import Quarantine, Reconciled, quarantine_of, reconcile


class PinStore:
    """The pins of every configured server."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def check(self, server: str, tools: Sequence[McpTool]) -> dict[str, Quarantine]:
        """Pin what is new, quarantine what changed; the quarantined tools by name."""
        async with unit_of_work(self._db, write=False) as session:
            found = reconcile(server, await server_pins(session, server), tools, utcnow())
        if found.added or found.dirty:
            found = await self._write(server, tools)
        return {name: quarantine_of(pin) for name, pin in found.quarantined.items()}

    async def _write(self, server: str, tools: Sequence[McpTool]) -> Reconciled:
        try:
            return await self._write_once(server, tools)
        except IntegrityError:  # another replica pinned the same new tool first
            return await self._write_once(server, tools)

    async def _write_once(self, server: str, tools: Sequence[McpTool]) -> Reconciled:
        async with unit_of_work(self._db, write=True) as session:
            found = reconcile(server, await server_pins(session, server), tools, utcnow())
            session.add_all(found.added)
        return found


async def server_pins(session: AsyncSession, server: str) -> list[McpToolPin]:
    rows = await session.scalars(select(McpToolPin).where(McpToolPin.server == server))
    return list(rows)


async def list_pins(session: AsyncSession, *, quarantined: bool | None) -> list[McpToolPin]:
    """Every pin (or only the quarantined, or only the released), by server and tool."""
    query = select(McpToolPin).order_by(McpToolPin.server, McpToolPin.tool)
    if quarantined is True:
        query = query.where(McpToolPin.pending_definition.is_not(None))
    elif quarantined is False:
        query = query.where(McpToolPin.pending_definition.is_(None))
    return list(await session.scalars(query))


async def get_pin(session: AsyncSession, pin_id: uuid.UUID) -> McpToolPin | None:
    return await session.get(McpToolPin, pin_id)
