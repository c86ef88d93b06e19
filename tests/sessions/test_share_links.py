"""Share links through the public API (docs/adr/0042): the owner makes, reads, replaces and
revokes a session's link; anyone signed out reads the snapshot it froze, and nothing else."""

from __future__ import annotations

import asyncio
import hashlib

from sqlalchemy import select

from pantheon.db.share_models import SessionShare
from pantheon.db.uow import unit_of_work
from pantheon.llm.providers.scripted import ScriptedProvider, ScriptedReply
from pantheon.llm.types import LLMRequest
from tests.auth.conftest import Clients
from tests.auth.signin_helpers import database, set_status
from tests.factories import UNKNOWN_ID
from tests.sessions.share_helpers import (
    Chat,
    assert_dead,
    conversation,
    open_chat,
    say,
    share,
    snapshot,
)


async def test_a_link_shows_the_conversation_to_someone_signed_out(
    users: Clients, scripted: ScriptedProvider
) -> None:
    chat = await open_chat(users.alice)
    await say(users.alice, scripted, chat, "Where to in May?", "**Lisbon**, for the light.")
    await say(users.alice, scripted, chat, "And the food?", "Try $E = mc^2$ pastries.")
    made = await users.alice.post(f"/v1/sessions/{chat.session_id}/share")
    assert made.status_code == 201, made.text
    token = made.json()["url"].removeprefix("/share/")
    assert len(token) >= 43  # 256 bits, URL-safe base64

    body = await snapshot(users.anon, token)
    assert body["title"] == "Trip plans"
    assert body["shared_at"] == made.json()["created_at"]
    assert (body["total"], body["offset"]) == (2, 0)
    assert conversation(body) == [
        ("Where to in May?", [("Alpha", "**Lisbon**, for the light.")]),
        ("And the food?", [("Alpha", "Try $E = mc^2$ pastries.")]),
    ]
    answer = body["turns"][0]["answers"][0]
    assert (answer["role"], answer["status"], body["turns"][0]["kind"]) == (
        "assistant", "ok", "message",
    )  # fmt: skip

    page = await users.anon.get(made.json()["url"])
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assert "/js/share/share.js?v=" in page.text
    assert "Content-Security-Policy" in page.text
    for response in (page, await users.anon.get(f"/v1/shared/{token}")):
        assert response.headers["cache-control"] == "no-store"
        assert "noindex" in response.headers["x-robots-tag"]
        assert "set-cookie" not in response.headers


async def test_the_owner_reads_when_the_link_was_made_but_never_its_url_again(
    users: Clients, scripted: ScriptedProvider
) -> None:
    chat = await open_chat(users.alice)
    path = f"/v1/sessions/{chat.session_id}/share"
    none = await users.alice.get(path)
    assert none.status_code == 404
    assert none.json()["detail"] == f"session {chat.session_id} has no share link"
    made = await users.alice.post(path)
    read = await users.alice.get(path)
    assert read.status_code == 200
    assert read.json() == {"url": None, "created_at": made.json()["created_at"]}


async def test_the_snapshot_stops_where_the_link_was_made(
    users: Clients, scripted: ScriptedProvider
) -> None:
    chat = await open_chat(users.alice)
    await say(users.alice, scripted, chat, "before", "said before")
    started = asyncio.Event()

    def slow(request: LLMRequest) -> ScriptedReply:
        started.set()
        return ScriptedReply("said while sharing")

    scripted.script(slow, agent="alpha", times=1, delay_s=0.5)
    url = f"/v1/sessions/{chat.session_id}/turns"
    running = asyncio.create_task(users.alice.post(url, json={"message": "running"}))
    await asyncio.wait_for(started.wait(), timeout=10)
    token = await share(users.alice, chat)  # while "running" runs: it is not recorded yet
    assert (await running).status_code == 201
    await say(users.alice, scripted, chat, "after", "said after")

    assert conversation(await snapshot(users.anon, token)) == [
        ("before", [("Alpha", "said before")])
    ]
    # The session itself goes on: all three turns are in it.
    turns = await users.alice.get(f"/v1/sessions/{chat.session_id}")
    assert turns.json()["turn_count"] == 3


async def test_an_empty_session_shares_an_empty_conversation(users: Clients) -> None:
    chat = await open_chat(users.alice, title="")
    body = await snapshot(users.anon, await share(users.alice, chat))
    assert (body["title"], body["turns"], body["total"]) == ("", [], 0)


async def test_the_snapshot_comes_a_page_at_a_time(
    users: Clients, scripted: ScriptedProvider
) -> None:
    chat = await open_chat(users.alice)
    for n in range(3):
        await say(users.alice, scripted, chat, f"q{n}", f"a{n}")
    token = await share(users.alice, chat)
    page = await snapshot(users.anon, token, limit=2, offset=1)
    assert [t["message"] for t in page["turns"]] == ["q1", "q2"]
    assert (page["total"], page["limit"], page["offset"]) == (3, 2, 1)
    bad = await users.anon.get(f"/v1/shared/{token}", params={"limit": 0})
    assert bad.status_code == 422


async def test_a_new_link_replaces_the_old_one_with_a_new_snapshot(
    users: Clients, scripted: ScriptedProvider
) -> None:
    chat = await open_chat(users.alice)
    await say(users.alice, scripted, chat, "one", "first")
    old = await share(users.alice, chat)
    await say(users.alice, scripted, chat, "two", "second")
    new = await share(users.alice, chat)
    assert new != old
    await assert_dead(users.anon, old)
    assert [t["message"] for t in (await snapshot(users.anon, new))["turns"]] == ["one", "two"]


async def test_a_revoked_link_stops_working(users: Clients, scripted: ScriptedProvider) -> None:
    chat = await open_chat(users.alice)
    await say(users.alice, scripted, chat, "hello", "hi")
    token = await share(users.alice, chat)
    path = f"/v1/sessions/{chat.session_id}/share"
    assert (await users.alice.delete(path)).status_code == 204
    await assert_dead(users.anon, token)
    assert (await users.alice.get(path)).status_code == 404
    again = await users.alice.delete(path)
    assert again.status_code == 404
    assert again.json()["detail"] == f"session {chat.session_id} has no share link"


async def test_unknown_tokens_are_404(users: Clients) -> None:
    for token in ("nope", "x" * 300, "%00", hashlib.sha256(b"guess").hexdigest()):
        await assert_dead(users.anon, token)


async def test_someone_elses_session_is_404_on_every_owner_route(
    users: Clients, scripted: ScriptedProvider
) -> None:
    chat = await open_chat(users.alice)
    token = await share(users.alice, chat)
    for session_id in (chat.session_id, UNKNOWN_ID, "not-an-id"):
        path = f"/v1/sessions/{session_id}/share"
        for method in ("POST", "GET", "DELETE"):
            response = await users.bob.request(method, path)
            assert response.status_code == 404, (method, session_id, response.text)
            assert response.json()["detail"] == f"session {session_id} not found"
    await snapshot(users.anon, token)  # bob's attempts changed nothing
    assert (await users.anon.post(f"/v1/sessions/{chat.session_id}/share")).status_code == 401


async def test_deleting_the_session_or_its_agent_kills_the_link(
    users: Clients, scripted: ScriptedProvider
) -> None:
    chat = await open_chat(users.alice)
    token = await share(users.alice, chat)
    assert (await users.alice.delete(f"/v1/sessions/{chat.session_id}")).status_code == 204
    await assert_dead(users.anon, token)
    async with unit_of_work(database(users.app), write=False) as db:
        assert (await db.scalars(select(SessionShare))).all() == []

    other = await open_chat(users.bob)
    token = await share(users.bob, other)
    assert (await users.bob.delete(f"/v1/agents/{other.agent_id}")).status_code == 204
    await assert_dead(users.anon, token)


async def test_a_disabled_owners_links_stop_working_until_enabled_again(
    users: Clients, scripted: ScriptedProvider
) -> None:
    chat = await open_chat(users.alice)
    token = await share(users.alice, chat)
    await set_status(users.app, "alice", "disabled")
    await assert_dead(users.anon, token)
    await set_status(users.app, "alice", "active")
    await snapshot(users.anon, token)


async def test_tokens_are_stored_only_as_their_sha256(
    users: Clients, scripted: ScriptedProvider
) -> None:
    chat = await open_chat(users.alice)
    token = await share(users.alice, chat)
    async with unit_of_work(database(users.app), write=False) as db:
        [row] = (await db.scalars(select(SessionShare))).all()
    assert row.token_hash == hashlib.sha256(token.encode()).hexdigest()
    assert token not in repr([getattr(row, c.key) for c in SessionShare.__table__.columns])


async def test_a_forks_link_shows_the_history_it_inherited(
    users: Clients, scripted: ScriptedProvider
) -> None:
    chat = await open_chat(users.alice)
    first = await say(users.alice, scripted, chat, "one", "first")
    await say(users.alice, scripted, chat, "two", "second")
    fork = await users.alice.post(
        f"/v1/sessions/{chat.session_id}/fork", json={"turn_id": first["id"]}
    )
    assert fork.status_code == 201, fork.text
    forked = Chat(fork.json()["id"], chat.agent_id)
    await say(users.alice, scripted, forked, "three", "third")
    body = await snapshot(users.anon, await share(users.alice, forked))
    assert conversation(body) == [("one", [("Alpha", "first")]), ("three", [("Alpha", "third")])]
