"""Who a room is shared with (``room_members``); the roles are ``ROOM_ROLES`` in ``models``.

Apart from ``models.py`` only for size; both register on the same metadata, and
``alembic/env.py`` imports both. The owner is never a row here: ``rooms.owner_id`` says who
owns a room, and sharing with yourself is refused."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column

from pantheon.db.base import Base
from pantheon.db.models import ROOM_ROLES
from pantheon.engine.values import one_of


class RoomMember(Base):
    """A person the room's owner shared it with, as a viewer or an editor."""

    __tablename__ = "room_members"
    room_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("rooms.id"), primary_key=True)
    user_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("users.id"), primary_key=True, index=True)
    role: Mapped[str] = mapped_column(String(16), doc=one_of(ROOM_ROLES))
    added_at: Mapped[datetime] = mapped_column()
    added_by: Mapped[uuid.UUID] = mapped_column(ForeignKey("users.id"))
