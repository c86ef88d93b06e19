"""``pantheon serve --workers N`` on a new database: every worker makes sure the local
user exists at startup, at the same moment. The one that loses the race must read the
winner's user, not fail to start (B9 saw a worker exit on the unique name)."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import delete

from pantheon.db.engine import Database
from pantheon.db.models import User
from pantheon.db.uow import unit_of_work
from pantheon.users.auth import LOCAL_USER_NAME, ensure_local_user


@pytest.mark.parametrize("backend", ["postgres"], indirect=True)
async def test_workers_creating_the_local_user_at_once_all_get_it(migrated_db_url: str) -> None:
    workers = [Database.from_url(migrated_db_url) for _ in range(4)]
    try:
        for _ in range(5):  # the race is not certain on any one try
            ids = await asyncio.gather(*(ensure_local_user(db) for db in workers))
            assert len(set(ids)) == 1
            async with unit_of_work(workers[0], write=True) as session:
                await session.execute(delete(User).where(User.login == LOCAL_USER_NAME))
    finally:
        for db in workers:
            await db.dispose()
