"""Share links (docs/adr/0042): a read-only snapshot of a session, reached by a token.

Apart from ``models.py`` only for size; it registers on the same metadata, and
``alembic/env.py`` imports it. Only the SHA-256 of a link's token is stored.
"""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column

from pantheon.db.base import Base


class SessionShare(Base):
    """A session's live share link (at most one: a new link replaces it, revoking deletes
    it). The snapshot is the session's recorded history up to and including the turn at
    (``through_at``, ``through_turn_id``), the newest recorded when the link was made (both
    None: nothing was recorded yet); ``title`` is the session's title then."""

    __tablename__ = "session_shares"
    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    session_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("sessions.id"), unique=True)
    owner_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("users.id"), index=True)
    title: Mapped[str] = mapped_column(String(200))
    through_at: Mapped[datetime | None] = mapped_column(default=None)
    through_turn_id: Mapped[uuid.UUID | None] = mapped_column(default=None)
    created_at: Mapped[datetime] = mapped_column()
