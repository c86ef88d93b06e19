"""The queries AG-UI threads need beyond the session and turn repositories: opening a
thread's session unless a session has its id already (whoever's), and the tool calls of
a thread's messages."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from sqlalchemy import select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncSession

from pantheon.db.models import ChatSession, ToolCallRow


class ThreadRepository:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def open(self, values: dict[str, Any]) -> bool:
        """Insert the session ``values`` describe unless a session has its id already (any
        user's, deleted or not, or one a concurrent unit is inserting: the insert waits for
        it); whether it was inserted. A plain insert would fail on the concurrent one."""
        dialect = self.session.get_bind().dialect.name
        insert: Any = pg_insert if dialect == "postgresql" else sqlite_insert
        query = insert(ChatSession).values(values).on_conflict_do_nothing(index_elements=["id"])
        inserted = await self.session.scalar(query.returning(ChatSession.id))
        return inserted is not None

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
