"""A session's share link, for its owner: make (or replace), read, revoke (docs/adr/0042).

A link is ``/share/<token>``: 256 random bits, URL-safe. Only the token's SHA-256 is
stored, so the database never holds a working link and the owner sees the token once, in
the answer that made it (``GET`` tells that a link exists and since when, without its
URL). A link freezes the session's recorded history as it was: the newest recorded turn
of its lineage then bounds it. A running turn has no row until it is recorded, so it is
not part of the snapshot, nor is anything said after the link was made.
"""

from __future__ import annotations

import uuid
from datetime import datetime

from pydantic import BaseModel, Field
from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncSession

from pantheon.db.base import utcnow
from pantheon.db.models import ChatSession, Turn
from pantheon.db.share_models import SessionShare
from pantheon.errors import NotFound
from pantheon.secret_tokens import new_token, token_digest
from pantheon.sessions.lineage import Lineage
from pantheon.sessions.repository import SessionRepository
from pantheon.sessions.schemas import auto_title
from pantheon.sessions.service import SessionService

SHARE_PATH = "/share/"


class ShareLinkRead(BaseModel):
    url: str | None = Field(
        description="The link, ``/share/<token>``: only in the answer that made it (only "
        "the token's hash is stored, so it cannot be shown again); null when read back"
    )
    created_at: datetime = Field(description="When the link was made: its snapshot's moment")


class ShareLinks:
    """The owner's side of share links; every method answers 404 for a session that is not
    the caller's live session, as every session route does."""

    def __init__(self, db: AsyncSession) -> None:
        self.db = db
        self.sessions = SessionService(SessionRepository(db))

    async def share(self, owner_id: uuid.UUID, session_id: str) -> ShareLinkRead:
        """A new link to the session as it is now; the session's previous link stops working."""
        chat = await self.sessions.get(owner_id, session_id)
        # One link per session (unique session_id): lock the session row so two requests
        # at once replace in turn instead of colliding (PostgreSQL; SQLite writes serially).
        await self.db.execute(
            select(ChatSession.id).where(ChatSession.id == chat.id).with_for_update()
        )
        await self.db.execute(delete(SessionShare).where(SessionShare.session_id == chat.id))
        newest = await self._newest_turn(chat)
        token = new_token()
        row = SessionShare(
            token_hash=token_digest(token),
            session_id=chat.id,
            owner_id=owner_id,
            title=await self._title(chat),
            through_at=None if newest is None else newest.created_at,
            through_turn_id=None if newest is None else newest.id,
            created_at=utcnow(),
        )
        self.db.add(row)
        await self.db.flush()
        return ShareLinkRead(url=SHARE_PATH + token, created_at=row.created_at)

    async def current(self, owner_id: uuid.UUID, session_id: str) -> ShareLinkRead:
        """The session's live link (without its URL), or 404."""
        row = await self._link(owner_id, session_id)
        return ShareLinkRead(url=None, created_at=row.created_at)

    async def revoke(self, owner_id: uuid.UUID, session_id: str) -> None:
        """Delete the session's link: its token answers 404 from now on."""
        row = await self._link(owner_id, session_id)
        await self.db.delete(row)

    async def _link(self, owner_id: uuid.UUID, session_id: str) -> SessionShare:
        chat = await self.sessions.get(owner_id, session_id)
        row = await self.db.scalar(select(SessionShare).where(SessionShare.session_id == chat.id))
        if row is None:
            raise NotFound(f"session {session_id} has no share link")
        return row

    async def _newest_turn(self, chat: ChatSession) -> Turn | None:
        query = (
            select(Turn)
            .where(Lineage.of(chat).turns())
            .order_by(Turn.created_at.desc(), Turn.id.desc())
            .limit(1)
        )
        newest: Turn | None = await self.db.scalar(query)
        return newest

    async def _title(self, chat: ChatSession) -> str:
        """The session's title as its reads show it (given, else from its first message)."""
        return chat.title or auto_title((await self.sessions.repo.figures(chat)).first_message)
