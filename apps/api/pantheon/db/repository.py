"""Repository base: the shared query helpers, owner scoping and pagination."""

from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy import Select, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from pantheon.errors import Unprocessable


class Repository:
    """Holds the session; subclasses add the queries of one aggregate."""

    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def page(self, query: Select[Any], *, limit: int, offset: int) -> tuple[list[Any], int]:
        """One page of ``query`` plus the total row count of the unpaginated query."""
        total_query = select(func.count()).select_from(query.order_by(None).subquery())
        total = (await self.session.execute(total_query)).scalar_one()
        rows = (await self.session.execute(query.limit(limit).offset(offset))).scalars().all()
        return list(rows), int(total)


def as_uuid(value: str | uuid.UUID) -> uuid.UUID | None:
    """Parse an id from a path; ``None`` for malformed ids so they become 404, not 422."""
    if isinstance(value, uuid.UUID):
        return value
    try:
        return uuid.UUID(value)
    except ValueError:
        return None


def apply_patch(
    row: object, changes: dict[str, Any], *, nullable: frozenset[str] = frozenset()
) -> None:
    """Set the PATCH fields a client sent on ``row``; null only where the column allows it."""
    for field, value in changes.items():
        if value is None and field not in nullable:
            raise Unprocessable(f"'{field}' cannot be null")
        setattr(row, field, value)
