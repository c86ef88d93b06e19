"""Per-user OAuth connections to ``auth = "oauth"`` MCP servers (docs/adr/0046), and the
connects under way between ``POST /v1/connections/{server}`` and its callback.

Apart from ``models.py`` only for size; registered on the same metadata, imported by
``alembic/env.py``. Token sets are sealed (``tools/mcp/oauth/sealing.py``), never plain."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import JSON, ForeignKey, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from pantheon.db.base import Base, Timestamped, UUIDPrimaryKey


class McpOAuthConnection(UUIDPrimaryKey, Timestamped, Base):
    """One user's tokens for one server: ``sealed_tokens`` is the encrypted token set
    (access, refresh); ``client`` the (non-secret) registration and discovered metadata."""

    __tablename__ = "mcp_connections"
    __table_args__ = (UniqueConstraint("user_id", "server", name="uq_mcp_connections_server"),)
    user_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("users.id"), index=True)
    server: Mapped[str] = mapped_column(String(64))
    sealed_tokens: Mapped[str] = mapped_column(Text)
    scopes: Mapped[str] = mapped_column(Text, default="")
    expires_at: Mapped[datetime | None] = mapped_column(default=None)
    client: Mapped[dict[str, object]] = mapped_column(JSON, default=dict)
    updated_at: Mapped[datetime] = mapped_column()


class McpOAuthConnect(Base):
    """A connect under way, by the SHA-256 of its ``state``: whose it is, the sealed PKCE
    verifier and client registration the callback needs. Used once; expires."""

    __tablename__ = "mcp_connects"
    state_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("users.id"), index=True)
    server: Mapped[str] = mapped_column(String(64))
    sealed_flow: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column()
    expires_at: Mapped[datetime] = mapped_column(index=True)
