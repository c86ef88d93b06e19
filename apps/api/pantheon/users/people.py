"""People: who a signed-in caller can name when sharing (``GET /v1/people?q=``).

A ``Person`` is the public face of an account: id, login and display name, nothing else
(no email, role or status). Only active accounts are found, so a pending or disabled login
is as unknown here as one that does not exist.
"""

from __future__ import annotations

import uuid
from typing import Annotated

from fastapi import APIRouter, Query
from pydantic import BaseModel
from sqlalchemy import func, or_, select

from pantheon.db.models import User
from pantheon.db.repository import Repository, as_uuid
from pantheon.deps import UoWDep, UserIdDep
from pantheon.schemas import ReadSchema

PEOPLE_LIMIT = 20  # the Share dialog's picker: a few names, never the directory

router = APIRouter(prefix="/v1/people", tags=["people"])


class Person(ReadSchema):
    id: uuid.UUID
    login: str
    display_name: str


class PeopleList(BaseModel):
    items: list[Person]


def person(user: User) -> Person:
    return Person(id=user.id, login=user.login, display_name=user.display_name)


class PeopleRepository(Repository):
    async def active(self, user_id: str | uuid.UUID) -> User | None:
        """The active account ``user_id`` (``None`` for unknown, pending and disabled alike)."""
        ident = as_uuid(user_id)
        if ident is None:
            return None
        query = select(User).where(User.id == ident, User.status == "active")
        return await self.session.scalar(query)

    async def search(self, text: str, limit: int) -> list[User]:
        """Active accounts whose login or display name contains ``text`` (any case)."""
        pattern = (
            "%" + text.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        )
        matches = or_(
            func.lower(User.login).like(pattern, escape="\\"),
            func.lower(User.display_name).like(pattern, escape="\\"),
        )
        query = (
            select(User).where(User.status == "active", matches).order_by(User.login).limit(limit)
        )
        return list(await self.session.scalars(query))


@router.get("")
async def find_people(
    uow: UoWDep,
    _user: UserIdDep,
    q: Annotated[str, Query(min_length=1, max_length=100, description="Part of a login or name")],
) -> PeopleList:
    """Active people whose login or display name contains ``q`` (at most 20), to share with."""
    users = await PeopleRepository(uow).search(q.strip(), PEOPLE_LIMIT)
    return PeopleList(items=[person(user) for user in users])
