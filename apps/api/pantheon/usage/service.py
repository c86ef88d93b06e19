"""Usage reports of a session or a room, for their owner only (others get 404)."""

from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from pantheon.errors import not_found
from pantheon.rooms.access import room_for
from pantheon.sessions.repository import SessionRepository
from pantheon.usage.repository import UsageRepository
from pantheon.usage.schemas import AgentUsage, ModelUsage, TurnUsage, UsageFigures, UsageReport


def _figures(row: Any) -> dict[str, Any]:
    ttft = row.ttft_ms_avg
    return {
        "calls": int(row.calls),
        "input_tokens": int(row.input_tokens),
        "output_tokens": int(row.output_tokens),
        "cost_usd": float(row.cost_usd),
        "latency_ms_avg": round(float(row.latency_ms_avg), 1),
        "latency_ms_max": int(row.latency_ms_max),
        "ttft_ms_avg": None if ttft is None else round(float(ttft), 1),
    }


def _turn(row: Any) -> TurnUsage:
    return TurnUsage(
        turn_id=row.turn_id,
        session_id=row.session_id,
        status=row.status,
        message=row.message,
        created_at=row.created_at,
        **_figures(row),
    )


class UsageService:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def of_session(self, owner_id: uuid.UUID, session_id: str, limit: int) -> UsageReport:
        chat = await SessionRepository(self.session).get(owner_id, session_id)
        if chat is None:
            raise not_found("session", session_id)
        return await self._report(UsageRepository.of_session(self.session, chat.id), limit)

    async def of_room(self, owner_id: uuid.UUID, room_id: str, limit: int) -> UsageReport:
        room = (await room_for(self.session, owner_id, room_id)).room
        return await self._report(UsageRepository.of_room(self.session, room.id, owner_id), limit)

    async def _report(self, repo: UsageRepository, limit: int) -> UsageReport:
        costliest = await repo.costliest_turn()
        return UsageReport(
            total=UsageFigures(**_figures(await repo.total())),
            by_agent=[
                AgentUsage(agent_key=r.agent_key, **_figures(r)) for r in await repo.by_agent()
            ],
            by_model=[ModelUsage(model=r.model, **_figures(r)) for r in await repo.by_model()],
            by_turn=[_turn(r) for r in await repo.by_turn(limit)],
            turns=await repo.turn_count(),
            turn_limit=limit,
            costliest_turn=None if costliest is None else _turn(costliest),
        )
