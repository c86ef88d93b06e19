"""Who is calling. ``local`` mode: everything belongs to one built-in local user."""

from __future__ import annotations

import uuid

from fastapi import Request
from sqlalchemy import select

from pantheon.db.engine import Database
from pantheon.db.models import User
from pantheon.db.uow import unit_of_work

LOCAL_USER_NAME = "local"


async def ensure_local_user(db: Database) -> uuid.UUID:
    """The built-in owner of everything until API keys are in use; created once."""
    async with unit_of_work(db, write=True) as session:
        found = await session.scalar(select(User).where(User.name == LOCAL_USER_NAME))
        if found is None:
            found = User(name=LOCAL_USER_NAME, is_admin=True)
            session.add(found)
            await session.flush()
        return found.id


async def authenticate(request: Request) -> uuid.UUID:
    """The caller's user id."""
    user_id: uuid.UUID = request.app.state.local_user_id
    return user_id
