"""Which model aliases a user may use: ``users.allowed_models`` (null: every alias).

Every place that stores or runs an alias asks here: agent create/update, a room's
manager model, and turn preflight. Errors are 422s naming the aliases the caller may use.
"""

from __future__ import annotations

import uuid

from sqlalchemy.ext.asyncio import AsyncSession

from pantheon.db.models import User
from pantheon.errors import Unprocessable
from pantheon.llm.registry import ModelRegistry


def allowed_aliases(registry: ModelRegistry, allowlist: list[str] | None) -> list[str]:
    """The configured aliases the allowlist permits, sorted."""
    names = registry.names()
    return names if allowlist is None else [n for n in names if n in set(allowlist)]


async def user_allowlist(session: AsyncSession, user_id: uuid.UUID) -> list[str] | None:
    """The user's allowlist as stored (``None``: every configured alias)."""
    user = await session.get(User, user_id)
    return None if user is None else user.allowed_models


def check_alias(
    registry: ModelRegistry, alias: str, allowlist: list[str] | None, *, what: str = "model"
) -> str:
    """``alias`` if configured and allowed, else 422 naming the caller's aliases."""
    allowed = allowed_aliases(registry, allowlist)
    listed = ", ".join(allowed) or "none"
    if alias not in registry:
        raise Unprocessable(
            f"unknown model alias '{alias}' for {what}; known aliases: {listed}",
            allowed_models=allowed,
        )
    if alias not in allowed:
        raise Unprocessable(
            f"model alias '{alias}' ({what}) is not allowed for this user; allowed: {listed}",
            allowed_models=allowed,
        )
    return alias


async def require_alias(
    session: AsyncSession,
    registry: ModelRegistry,
    user_id: uuid.UUID,
    alias: str,
    *,
    what: str = "model",
) -> str:
    """``check_alias`` against the user's stored allowlist."""
    return check_alias(registry, alias, await user_allowlist(session, user_id), what=what)


def check_allowlisted(alias: str, allowlist: list[str] | None, *, what: str) -> None:
    """422 unless the allowlist permits ``alias`` (used where no registry is at hand)."""
    if allowlist is not None and alias not in allowlist:
        listed = ", ".join(sorted(allowlist)) or "none"
        raise Unprocessable(
            f"model alias '{alias}' ({what}) is not allowed for this user; allowed: {listed}",
            allowed_models=sorted(allowlist),
        )
