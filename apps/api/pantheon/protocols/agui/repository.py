"""The queries AG-UI threads need beyond the session and turn repositories: whether any
session has an id (whoever owns it), and the tool calls of a thread's messages."""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from pantheon.db.models import ChatSession, ToolCallRow


class ThreadRepository:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def taken(self, thread: uuid.UUID) -> bool:
        """Whether a session has this id, any user's, deleted or not."""
        return await self.session.get(ChatSession, thread) is not None

    async def tool_calls(self, message_ids: Sequence[uuid.UUID]) -> list[ToolCallRow]:
        """The tool calls made in these messages, in each turn's announcement order."""
        if not message_ids:
            return []
        query = (
            select(ToolCallRow)
            .where(ToolCallRow.message_id.in_(message_ids))
            .order_by(ToolCallRow.turn_id, ToolCallRow.seq)
        )
        return list((await self.session.scalars(query)).all())
