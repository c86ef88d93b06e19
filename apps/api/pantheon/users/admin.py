"""What admins do to people: invite them, approve, disable or re-enable them, change their
role. Never commits (see ``uow``).

Two rules keep a server administrable: the last active admin can be neither demoted nor
disabled, and an admin cannot disable themselves (both 409). Disabling deletes the user's
sign-in sessions and open invitations; their API keys stay but stop authenticating, like
the sessions, on the very next request on every replica, since each request reads the
user's status (ADR 0040). Re-enabling brings the keys back; revoke one to end it for good.
"""

from __future__ import annotations

import uuid

from sqlalchemy.exc import IntegrityError

from pantheon.db.base import utcnow
from pantheon.db.models import User
from pantheon.errors import Conflict, Unprocessable, not_found
from pantheon.users.auth import Principal
from pantheon.users.invites import end_invites, open_invite
from pantheon.users.login_sessions import end_other_sessions
from pantheon.users.repository import UserRepository
from pantheon.users.schemas import UserCreate, UserUpdate


class UserAdmin:
    def __init__(self, repo: UserRepository, invite_ttl_s: int) -> None:
        self.repo = repo
        self.invite_ttl_s = invite_ttl_s

    async def invite(self, body: UserCreate, by: Principal) -> tuple[User, str]:
        """A new active user with no password, and their invitation URL; 409 when the
        login or the email address is taken."""
        if await self.repo.by_login(body.login) is not None:
            raise Conflict(f"a user with login '{body.login}' already exists")
        if body.email is not None and await self.repo.by_email(body.email) is not None:
            raise Conflict(f"a user with email '{body.email}' already exists")
        user = User(
            login=body.login,
            email=body.email,
            display_name=body.display_name or body.login,
            role=body.role,
            status="active",
            created_at=utcnow(),
        )
        self.repo.add(user)
        try:
            await self.repo.session.flush()
        except IntegrityError as exc:  # the same login, made by a request just before
            raise Conflict(f"a user with login '{body.login}' already exists") from exc
        return user, await open_invite(self.repo.session, user.id, by.user_id, self.invite_ttl_s)

    async def reinvite(self, user_id: str, by: Principal) -> tuple[User, str]:
        """A new invitation link for an active user (the earlier link stops working)."""
        user = await self._user(user_id)
        if user.status != "active":
            raise Conflict(
                f"'{user.login}' is {user.status}: only an active user can be invited; "
                "set their status to active first"
            )
        return user, await open_invite(self.repo.session, user.id, by.user_id, self.invite_ttl_s)

    async def update(self, user_id: str, change: UserUpdate, by: Principal) -> User:
        """Apply ``change``; 404 for an unknown user, 409 when a rule forbids it."""
        user = await self._user(user_id)
        if change.status == "pending":
            raise Unprocessable(
                "status 'pending' cannot be set: it is where a first sign-in waits; "
                "use 'active' to approve or 'disabled' to refuse"
            )
        if change.status == "disabled" and user.id == by.user_id:
            raise Conflict("you cannot disable yourself: another admin must do it")
        await self._keep_an_admin(user, change)
        if change.display_name is not None:
            user.display_name = change.display_name or user.login
        if change.role is not None:
            user.role = change.role
        if change.status is not None and change.status != user.status:
            user.status = change.status
            if change.status == "disabled":
                await end_other_sessions(self.repo.session, user.id, keep=None)
                await end_invites(self.repo.session, user.id)
        await self.repo.session.flush()
        return user

    async def _keep_an_admin(self, user: User, change: UserUpdate) -> None:
        """409 when ``change`` would leave no active admin."""
        demoted = change.role is not None and change.role != "admin"
        disabled = change.status == "disabled"
        if not (user.role == "admin" and user.status == "active" and (demoted or disabled)):
            return
        if await self.repo.lock_active_admins() == [user.id]:
            raise Conflict(
                f"'{user.login}' is the last active admin: make another user an admin "
                "before demoting or disabling them"
            )

    async def _user(self, user_id: str | uuid.UUID) -> User:
        user = await self.repo.get(user_id)
        if user is None:
            raise not_found("user", user_id)
        return user
