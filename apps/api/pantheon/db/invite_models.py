"""Invitations (``users/invites.py``): a one-time link an admin hands to a new person.

Apart from ``models.py`` only for size; it registers on the same metadata, and
``alembic/env.py`` imports it. Only the SHA-256 of the link's token is stored.
"""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column

from pantheon.db.base import Base


class Invite(Base):
    """An open invitation: accepting it sets the user's first password and deletes the row."""

    __tablename__ = "invites"
    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("users.id"), index=True)
    invited_by: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("users.id"), default=None)
    created_at: Mapped[datetime] = mapped_column()
    expires_at: Mapped[datetime] = mapped_column()
