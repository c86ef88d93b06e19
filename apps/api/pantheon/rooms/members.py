"""Sharing a room: its owner adds, changes and removes members (``room_members``).

Only the owner changes who a room is shared with; a member may remove themselves (leave).
Sharing names an active account: an unknown id and a pending or disabled account get the
same 404 ("no such user"), so the route tells nobody which ids exist. The owner is never a
member of their own room (422).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from sqlalchemy import delete, select

from pantheon.db.base import utcnow
from pantheon.db.models import RoomRole, User
from pantheon.db.repository import Repository, as_uuid
from pantheon.db.sharing_models import RoomMember
from pantheon.errors import NotFound, Unprocessable
from pantheon.rooms.access import require, room_for
from pantheon.rooms.schemas import MemberList, MemberRead
from pantheon.users.people import PeopleRepository, person

NO_SUCH_USER = "no such user"


class MemberRepository(Repository):
    async def listed(self, room_id: uuid.UUID) -> list[tuple[RoomMember, User]]:
        """The room's members with their accounts, in the order they were added."""
        query = (
            select(RoomMember, User)
            .join(User, User.id == RoomMember.user_id)
            .where(RoomMember.room_id == room_id)
            .order_by(RoomMember.added_at, User.login)
        )
        return [(member, user) for member, user in await self.session.execute(query)]

    async def get(self, room_id: uuid.UUID, user_id: uuid.UUID) -> RoomMember | None:
        return await self.session.get(RoomMember, (room_id, user_id))

    async def remove(self, room_id: uuid.UUID, user_id: uuid.UUID) -> None:
        await self.session.execute(
            delete(RoomMember).where(RoomMember.room_id == room_id, RoomMember.user_id == user_id)
        )

    def add(self, row: RoomMember) -> None:
        self.session.add(row)


def member_read(member: RoomMember, user: User) -> MemberRead:
    """The one place a member row becomes its read schema."""
    face = person(user)
    return MemberRead(**face.model_dump(), role=member.role, added_at=member.added_at)


@dataclass
class MemberService:
    repo: MemberRepository

    async def listing(self, caller: uuid.UUID, room_id: str) -> MemberList:
        """The owner and the members; any member may see who else the room is shared with."""
        found = await room_for(self.repo.session, caller, room_id)
        owner = await self.repo.session.get(User, found.room.owner_id)
        assert owner is not None  # rooms.owner_id is a foreign key
        rows = await self.repo.listed(found.room.id)
        return MemberList(owner=person(owner), items=[member_read(m, u) for m, u in rows])

    async def put(
        self, caller: uuid.UUID, room_id: str, user_id: str, role: RoomRole
    ) -> MemberRead:
        """Share the room with ``user_id`` as ``role``, or change their role (owner only)."""
        room = (await room_for(self.repo.session, caller, room_id, "own")).room
        user = await PeopleRepository(self.repo.session).active(user_id)
        if user is None:
            raise NotFound(NO_SUCH_USER)
        if user.id == room.owner_id:
            raise Unprocessable(f"you own room {room.id}; share it with someone else")
        member = await self.repo.get(room.id, user.id)
        if member is None:
            member = RoomMember(
                room_id=room.id, user_id=user.id, role=role, added_at=utcnow(), added_by=caller
            )
            self.repo.add(member)
        else:
            member.role = role
        await self.repo.session.flush()
        return member_read(member, user)

    async def remove(self, caller: uuid.UUID, room_id: str, user_id: str) -> None:
        """Stop sharing with ``user_id``: the owner removes anyone, a member themselves."""
        found = await room_for(self.repo.session, caller, room_id)
        ident = as_uuid(user_id)
        if ident != caller:
            require(found, "own")
        member = None if ident is None else await self.repo.get(found.room.id, ident)
        if member is None:
            raise NotFound(f"user {user_id} is not a member of room {found.room.id}")
        await self.repo.remove(found.room.id, member.user_id)
