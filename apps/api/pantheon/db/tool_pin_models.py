"""Pinned MCP tool definitions (docs/adr/0045): one row per (server, tool name).

Apart from ``models.py`` only for size; it registers on the same metadata, and
``alembic/env.py`` imports it. A definition is stored as canonical JSON (the exact text
its SHA-256 is taken of). A row is quarantined while ``pending_definition`` is set: the
listed definition differs from the accepted one (``change = "changed"``), or the tool is
new under a name whose content (description and schema) a pinned tool already had
(``"renamed"``; such a row has no accepted definition until an admin accepts it).
"""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import ForeignKey, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from pantheon.db.base import Base, UUIDPrimaryKey
from pantheon.engine.values import one_of

PIN_CHANGES = ("changed", "renamed")


class McpToolPin(UUIDPrimaryKey, Base):
    """A tool of a configured MCP server, as it was first seen or last accepted."""

    __tablename__ = "mcp_tool_pins"
    __table_args__ = (UniqueConstraint("server", "tool"),)
    server: Mapped[str] = mapped_column(String(32))
    tool: Mapped[str] = mapped_column(String(128))
    definition: Mapped[str | None] = mapped_column(Text, default=None)
    definition_hash: Mapped[str | None] = mapped_column(String(64), default=None)
    content_hash: Mapped[str | None] = mapped_column(String(64), default=None)
    pending_definition: Mapped[str | None] = mapped_column(Text, default=None)
    pending_hash: Mapped[str | None] = mapped_column(String(64), default=None)
    previous_definition: Mapped[str | None] = mapped_column(Text, default=None)
    change: Mapped[str | None] = mapped_column(String(16), default=None, doc=one_of(PIN_CHANGES))
    renamed_from: Mapped[str | None] = mapped_column(String(128), default=None)
    first_seen_at: Mapped[datetime] = mapped_column()
    changed_at: Mapped[datetime | None] = mapped_column(default=None)
    accepted_at: Mapped[datetime | None] = mapped_column(default=None)
    accepted_by: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("users.id"), default=None)

    @property
    def quarantined(self) -> bool:
        return self.pending_definition is not None
