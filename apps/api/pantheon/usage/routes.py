"""Usage reports: tokens, cost, calls and latency of a session's or a room's LLM calls."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from pantheon.deps import UoWDep, UserIdDep
from pantheon.usage.schemas import UsageReport
from pantheon.usage.service import UsageService

router = APIRouter(tags=["usage"])

TurnLimit = Annotated[int, Query(ge=1, le=1000, description="Most recent turns listed in by_turn")]


@router.get("/v1/sessions/{session_id}/usage")
async def session_usage(
    session_id: str, uow: UoWDep, user: UserIdDep, turns: TurnLimit = 100
) -> UsageReport:
    """What the session's turns cost by agent, model and turn; the costliest turn."""
    return await UsageService(uow).of_session(user, session_id, turns)


@router.get("/v1/rooms/{room_id}/usage")
async def room_usage(
    room_id: str, uow: UoWDep, user: UserIdDep, turns: TurnLimit = 100
) -> UsageReport:
    """The same over every session of the room."""
    return await UsageService(uow).of_room(user, room_id, turns)
