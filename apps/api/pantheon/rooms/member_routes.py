"""Sharing routes: a room's members (``rooms.members``); thin translation only."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Response, status

from pantheon.deps import UoWDep, UserIdDep
from pantheon.rooms.members import MemberRepository, MemberService
from pantheon.rooms.schemas import MemberList, MemberPut, MemberRead

router = APIRouter(prefix="/v1/rooms/{room_id}/members", tags=["sharing"])


def _service(uow: UoWDep) -> MemberService:
    return MemberService(MemberRepository(uow))


ServiceDep = Annotated[MemberService, Depends(_service)]


@router.get("")
async def list_members(room_id: str, service: ServiceDep, user: UserIdDep) -> MemberList:
    """The room's owner and the people it is shared with (any member may look)."""
    return await service.listing(user, room_id)


@router.put("/{user_id}")
async def put_member(
    room_id: str, user_id: str, data: MemberPut, service: ServiceDep, user: UserIdDep
) -> MemberRead:
    """Share the room with a person as viewer or editor, or change their role (owner only)."""
    return await service.put(user, room_id, user_id, data.role)


@router.delete("/{user_id}", status_code=status.HTTP_204_NO_CONTENT)
async def remove_member(
    room_id: str, user_id: str, service: ServiceDep, user: UserIdDep
) -> Response:
    """Stop sharing the room with a person (the owner; or a member leaving)."""
    await service.remove(user, room_id, user_id)
    return Response(status_code=status.HTTP_204_NO_CONTENT)
