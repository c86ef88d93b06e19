"""The admin's view of people: the listing with account fields and a status filter,
invitations (``POST /v1/admin/users``), and changes (``PATCH /v1/admin/users/{id}``):
approving, disabling (which locks a person out on their very next request, by cookie and
by key), re-enabling, roles, and the rules that keep an admin: never the last one demoted
or disabled, never oneself disabled. Invitations accepted: ``test_invites.py``."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import httpx
import pytest
from sqlalchemy import func, select, text

from pantheon.db.engine import Database
from pantheon.db.models import LoginSession
from pantheon.db.uow import unit_of_work
from pantheon.errors import Conflict
from pantheon.users.admin import UserAdmin
from pantheon.users.auth import Principal
from pantheon.users.repository import UserRepository
from pantheon.users.schemas import UserUpdate
from tests.auth.conftest import Clients, client_for
from tests.auth.signin_helpers import database, set_password, set_status, sign_in

ACCOUNT_FIELDS = {"id", "login", "email", "display_name", "role", "status", "name", "is_admin"}


async def user_id(users: Clients, login: str) -> str:
    listed = (await users.root.get("/v1/admin/users", params={"limit": 200})).json()
    return str(next(u["id"] for u in listed["items"] if u["login"] == login))


async def patch(users: Clients, login: str, **change: Any) -> httpx.Response:
    return await users.root.patch(f"/v1/admin/users/{await user_id(users, login)}", json=change)


async def sessions_of(users: Clients, ident: str) -> int:
    async with unit_of_work(database(users.app), write=False) as session:
        query = select(func.count()).where(LoginSession.user_id == uuid.UUID(ident))
        return int((await session.execute(query)).scalar_one())


async def test_the_listing_has_the_account_fields_and_filters_by_status(users: Clients) -> None:
    await set_status(users.app, "bob", "pending")
    everyone = (await users.root.get("/v1/admin/users")).json()
    assert all(set(u) >= ACCOUNT_FIELDS for u in everyone["items"])
    alice = next(u for u in everyone["items"] if u["login"] == "alice")
    assert {k: alice[k] for k in ("name", "is_admin", "role", "status", "display_name")} == {
        "name": "alice", "is_admin": False, "role": "member", "status": "active",
        "display_name": "alice",
    }  # fmt: skip
    pending = (await users.root.get("/v1/admin/users", params={"status": "pending"})).json()
    assert [u["login"] for u in pending["items"]] == ["bob"]
    assert pending["total"] == 1
    active = (await users.root.get("/v1/admin/users", params={"status": "active"})).json()
    assert "bob" not in {u["login"] for u in active["items"]}
    wrong = await users.root.get("/v1/admin/users", params={"status": "asleep"})
    assert wrong.status_code == 422
    assert "status" in str(wrong.json()["detail"])


async def test_an_invitation_makes_an_active_user_without_a_password(users: Clients) -> None:
    body = {"login": "dana", "email": "dana@example.com", "display_name": "Dana S."}
    made = await users.root.post("/v1/admin/users", json=body)
    assert made.status_code == 201, made.text
    user, url = made.json()["user"], made.json()["invite_url"]
    assert {k: user[k] for k in ("login", "email", "display_name", "role", "status")} == {
        "login": "dana", "email": "dana@example.com", "display_name": "Dana S.",
        "role": "member", "status": "active",
    }  # fmt: skip
    assert user["keys"] == []
    assert url.startswith("/invite/")
    assert len(url.removeprefix("/invite/")) >= 43  # 256 bits, url-safe base64
    signin = {"login": "dana", "password": "anything at all, long"}
    assert (await users.anon.post("/auth/login", json=signin)).status_code == 401
    admin = await users.root.post("/v1/admin/users", json={"login": "erin", "role": "admin"})
    assert admin.json()["user"]["role"] == "admin"
    assert admin.json()["user"]["display_name"] == "erin"
    assert admin.json()["invite_url"] != url


@pytest.mark.parametrize(
    ("body", "status"),
    [
        ({"login": "alice"}, 409),
        ({"login": "dana", "email": "Alice@Example.com"}, 409),
        ({"login": "two words"}, 422),
        ({"login": ""}, 422),
        ({"login": "dana", "email": "not an address"}, 422),
        ({"login": "dana", "role": "owner"}, 422),
        ({"login": "dana", "password": "chosen by the admin"}, 201),  # ignored, never set
    ],
)
async def test_bad_invitations_are_refused(
    users: Clients, body: dict[str, str], status: int
) -> None:
    await patch(users, "alice", display_name="Alice")
    await users.root.post("/v1/admin/users", json={"login": "x", "email": "alice@example.com"})
    response = await users.root.post("/v1/admin/users", json=body)
    assert response.status_code == status, response.text
    if status == 409:
        assert "already exists" in response.json()["detail"]
        assert response.json()["code"] == "conflict"
    if status == 201:
        signin = {"login": "dana", "password": body["password"]}
        assert (await users.anon.post("/auth/login", json=signin)).status_code == 401


async def test_only_admins_invite_or_change_people(users: Clients) -> None:
    alice = await user_id(users, "alice")
    for method, path, body in (
        ("POST", "/v1/admin/users", {"login": "dana"}),
        ("PATCH", f"/v1/admin/users/{alice}", {"status": "disabled"}),
        ("POST", f"/v1/admin/users/{alice}/invite", None),
    ):
        refused = await users.bob.request(method, path, json=body)
        assert refused.status_code == 403, path
        assert "admin" in refused.json()["detail"]
        assert (await users.anon.request(method, path, json=body)).status_code == 401
    listed = (await users.root.get("/v1/admin/users")).json()["items"]
    assert "dana" not in {u["login"] for u in listed}
    assert next(u for u in listed if u["login"] == "alice")["status"] == "active"


async def test_approving_a_pending_user_lets_their_key_in(users: Clients) -> None:
    await set_status(users.app, "bob", "pending")
    assert (await users.bob.get("/v1/me")).status_code == 401
    approved = await patch(users, "bob", status="active")
    assert approved.status_code == 200, approved.text
    assert approved.json()["status"] == "active"
    assert (await users.bob.get("/v1/me")).status_code == 200
    refused = await patch(users, "bob", status="pending")
    assert refused.status_code == 422
    assert "pending" in refused.json()["detail"]


async def test_disabling_locks_out_the_next_request_by_cookie_and_by_key(users: Clients) -> None:
    await set_password(users.app, "alice")
    signed = await sign_in(users.app, "alice")
    alice = await user_id(users, "alice")
    async with signed.http:
        assert (await signed.http.get("/v1/me")).status_code == 200
        assert (await users.alice.get("/v1/me")).status_code == 200
        disabled = await patch(users, "alice", status="disabled")
        assert disabled.status_code == 200, disabled.text
        assert disabled.json()["status"] == "disabled"
        assert (await signed.http.get("/v1/me")).status_code == 401
        assert (await users.alice.get("/v1/rooms")).status_code == 401
        assert await sessions_of(users, alice) == 0  # ended, not only refused
        signin = {"login": "alice", "password": "correct horse battery staple"}
        assert (await users.anon.post("/auth/login", json=signin)).status_code == 401
        enabled = await patch(users, "alice", status="active")
        assert enabled.json()["status"] == "active"
        assert (await users.alice.get("/v1/me")).status_code == 200  # keys come back
        assert (await signed.http.get("/v1/me")).status_code == 401  # that session ended


async def test_a_role_change_holds_on_the_next_request(users: Clients) -> None:
    promoted = await patch(users, "alice", role="admin", display_name="Alice A.")
    assert promoted.status_code == 200
    assert {k: promoted.json()[k] for k in ("role", "is_admin", "display_name")} == {
        "role": "admin", "is_admin": True, "display_name": "Alice A.",
    }  # fmt: skip
    assert (await users.alice.get("/v1/admin/users")).status_code == 200
    demoted = await users.alice.patch(
        f"/v1/admin/users/{await user_id(users, 'root')}", json={"role": "member"}
    )
    assert demoted.status_code == 200, demoted.text
    assert (await users.root.get("/v1/admin/users")).status_code == 403
    assert (await users.alice.patch("/v1/admin/users/x", json={})).status_code == 404


async def test_the_last_active_admin_is_never_demoted(users: Clients) -> None:
    # The built-in local user is an admin no one can sign in as: it does not count.
    refused = await patch(users, "root", role="member")
    assert refused.status_code == 409
    assert "last active admin" in refused.json()["detail"]
    await patch(users, "alice", role="admin")
    await set_status(users.app, "alice", "disabled")  # a disabled admin does not count
    assert (await patch(users, "root", role="member")).status_code == 409
    await patch(users, "alice", status="active")
    assert (await patch(users, "root", role="member")).status_code == 200
    listed = (await users.alice.get("/v1/admin/users", params={"limit": 200})).json()
    roles = {u["login"]: u["role"] for u in listed["items"]}
    assert (roles["root"], roles["alice"]) == ("member", "admin")


@pytest.mark.parametrize("change", [{"role": "member"}, {"status": "disabled"}])
async def test_two_admins_removing_each_other_at_once_leave_one(
    users: Clients, change: dict[str, str]
) -> None:
    await patch(users, "alice", role="admin")
    root, alice = await user_id(users, "root"), await user_id(users, "alice")
    answers = await asyncio.gather(
        users.root.patch(f"/v1/admin/users/{alice}", json=change),
        users.alice.patch(f"/v1/admin/users/{root}", json=change),
    )
    # The loser is refused by the last-admin rule, or (if it authenticated after the
    # winner committed) as no longer an admin.
    assert sorted(a.status_code for a in answers)[0] == 200
    assert sorted(a.status_code for a in answers)[1] in (403, 409, 401)
    assert len(await active_admins(users)) == 1


async def test_the_last_admin_check_waits_for_a_concurrent_change(users: Clients) -> None:
    """Both changes past authentication, the first not yet committed: the second waits
    for it (PostgreSQL row locks; SQLite's one writer) and then refuses."""
    await patch(users, "alice", role="admin")
    root, alice = await user_id(users, "root"), await user_id(users, "alice")
    db = database(users.app)
    as_root = Principal(user_id=uuid.UUID(root), is_admin=True)
    as_alice = Principal(user_id=uuid.UUID(alice), is_admin=True)

    async def demote(target: str, by: Principal) -> None:
        async with unit_of_work(db, write=True) as session:
            admin = UserAdmin(UserRepository(session), invite_ttl_s=60)
            await admin.update(target, UserUpdate(role="member"), by)

    async with unit_of_work(db, write=True) as first:
        await UserAdmin(UserRepository(first), 60).update(alice, UserUpdate(role="member"), as_root)
        second = asyncio.create_task(demote(root, as_alice))
        await _until_waiting(db)
        assert not second.done()  # held by the first change's locks
    with pytest.raises(Conflict, match="last active admin"):
        await second
    assert [u["login"] for u in await active_admins(users)] == ["root"]


async def _until_waiting(db: Database) -> None:
    """Return once a second writer waits: for SQLite's one writer (the app's write lock),
    or for a PostgreSQL row lock; fail after a bounded number of looks."""
    waiting = text(
        "SELECT count(*) FROM pg_stat_activity"
        " WHERE datname = current_database() AND wait_event_type = 'Lock'"
    )
    for _ in range(1000):
        if db.write_lock is not None:
            if db.write_lock._waiters:  # asyncio.Lock keeps no public count of its waiters
                return
        else:
            async with db.engine.connect() as conn:
                if await conn.scalar(waiting):
                    return
        await asyncio.sleep(0.01)
    raise AssertionError("the second change never waited for the first")


async def active_admins(users: Clients) -> list[dict[str, Any]]:
    async with client_for(users.app, users.keys["root"]) as root:
        listed = (await root.get("/v1/admin/users", params={"limit": 200})).json()
    if not listed.get("items"):  # root lost: ask as alice
        listed = (await users.alice.get("/v1/admin/users", params={"limit": 200})).json()
    return [
        u for u in listed["items"]
        if u["role"] == "admin" and u["status"] == "active" and u["login"] != "local"
    ]  # fmt: skip


async def test_an_admin_cannot_disable_themselves(users: Clients) -> None:
    await patch(users, "alice", role="admin")
    refused = await patch(users, "root", status="disabled")
    assert refused.status_code == 409
    assert "yourself" in refused.json()["detail"]
    assert (await users.root.get("/v1/admin/users")).status_code == 200
    assert (await patch(users, "root", role="member")).status_code == 200  # stepping down


async def test_unknown_users_and_bad_changes(users: Clients) -> None:
    missing = "00000000-0000-0000-0000-000000000000"
    for path in (f"/v1/admin/users/{missing}", "/v1/admin/users/not-an-id"):
        response = await users.root.patch(path, json={"status": "disabled"})
        assert response.status_code == 404
        assert response.json()["code"] == "not_found"
    assert (await users.root.post(f"/v1/admin/users/{missing}/invite")).status_code == 404
    for body in ({"status": "asleep"}, {"role": "owner"}, {"display_name": "x" * 201}):
        assert (await patch(users, "alice", **body)).status_code == 422, body
