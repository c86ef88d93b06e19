"""A page of a session's history for a reader (the web page): the turns of its lineage,
newest page first, each with its recorded events and figures, in five queries a page."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections import defaultdict
from typing import Any

from pydantic import BaseModel, Field
from sqlalchemy import and_, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from pantheon.db.models import ChatSession, LLMCall, Message, ToolCallRow, Turn, TurnEventLog
from pantheon.errors import Unprocessable
from pantheon.live import event_log
from pantheon.sessions.lineage import Lineage
from pantheon.turns.schemas import TurnDetail
from pantheon.turns.views import turn_detail

DEFAULT_LIMIT = 20
MAX_LIMIT = 50


class HistoryTurn(TurnDetail):
    events: list[dict[str, Any]] = Field(
        description="The turn's events as they were streamed (empty if none were recorded)"
    )


class HistoryPage(BaseModel):
    items: list[HistoryTurn] = Field(description="Turns of this page, oldest first")
    has_more: bool = Field(description="Older turns exist: ask again with ``before``")
    before: uuid.UUID | None = Field(
        description="The cursor for the next older page (this page's oldest turn), if any"
    )


async def history_page(
    db: AsyncSession,
    chat: ChatSession,
    before: uuid.UUID | None,
    limit: int,
    *,
    through: uuid.UUID | None = None,
) -> HistoryPage:
    """The newest ``limit`` recorded turns of ``chat``'s lineage older than turn ``before``
    (or up to and including turn ``through``: the history a fork made there would have)."""
    condition = Lineage.of(chat).turns()
    query = select(Turn).where(condition)
    for name, turn_id in (("before", before), ("through", through)):
        if turn_id is None:
            continue
        cursor = await db.scalar(select(Turn).where(condition, Turn.id == turn_id))
        if cursor is None:
            raise Unprocessable(f"{name}: turn {turn_id} is not in this session's history")
        newest = Turn.id < cursor.id if name == "before" else Turn.id <= cursor.id
        query = query.where(
            or_(
                Turn.created_at < cursor.created_at,
                and_(Turn.created_at == cursor.created_at, newest),
            )
        )
    query = query.order_by(Turn.created_at.desc(), Turn.id.desc()).limit(limit + 1)
    newest_first = list((await db.scalars(query)).all())
    turns = list(reversed(newest_first[:limit]))
    more = len(newest_first) > limit
    items = await _details(db, turns)
    return HistoryPage(items=items, has_more=more, before=turns[0].id if more else None)


async def _details(db: AsyncSession, turns: list[Turn]) -> list[HistoryTurn]:
    ids = [t.id for t in turns]
    if not ids:
        return []
    messages = await _by_turn(db, Message, ids, Message.seq)
    calls = await _by_turn(db, LLMCall, ids, LLMCall.seq)
    tools = await _by_turn(db, ToolCallRow, ids, ToolCallRow.seq)
    logs = await db.execute(
        select(TurnEventLog.turn_id, TurnEventLog.data).where(TurnEventLog.turn_id.in_(ids))
    )
    events = await asyncio.to_thread(_parse_logs, {row[0]: row[1] for row in logs.all()})
    return [
        HistoryTurn.model_validate(
            {
                **dict(turn_detail(t, messages[t.id], calls[t.id], tools[t.id])),
                "events": events.get(t.id, []),
            }
        )
        for t in turns
    ]


async def _by_turn(
    db: AsyncSession, model: type[Any], ids: list[uuid.UUID], order: Any
) -> defaultdict[uuid.UUID, list[Any]]:
    rows = (await db.scalars(select(model).where(model.turn_id.in_(ids)).order_by(order))).all()
    grouped: defaultdict[uuid.UUID, list[Any]] = defaultdict(list)
    for row in rows:
        grouped[row.turn_id].append(row)
    return grouped


def _parse_logs(logs: dict[uuid.UUID, bytes]) -> dict[uuid.UUID, list[dict[str, Any]]]:
    """Decompress and parse a page's event logs (in a worker thread: CPU work)."""
    return {
        turn: [json.loads(text) for text in event_log.decode(data)] for turn, data in logs.items()
    }
