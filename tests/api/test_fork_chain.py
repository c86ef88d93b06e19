"""A long chain of forks of forks keeps all of its history: the lineage is one recursive
query with no cap on hops (it used to stop at 64 and drop the oldest turns silently); what
a prompt sends of it is cut by the history budget only (docs/context.md).

The chain is written to the database directly (a turn and a fork through the API per hop
would take a minute); everything is read back through the API."""

from __future__ import annotations

import uuid
from datetime import timedelta

import httpx
from fastapi import FastAPI
from sqlalchemy.ext.asyncio import AsyncSession

from pantheon.db.base import utcnow
from pantheon.db.engine import Database
from pantheon.db.models import ChatSession, Message, Turn
from pantheon.llm.providers.scripted import ScriptedProvider
from tests.factories import create_room, create_session

HOPS = 70  # past the 64 hops the lineage used to stop at


async def _write_chain(db: Database, session_id: str) -> tuple[str, str]:
    """Turn "m0" in ``session_id``, then ``HOPS`` forks of forks, each forked at the
    previous one's only turn and holding one turn "m<hop>": the last fork and turn m0."""
    start = utcnow() - timedelta(hours=1)  # older than any turn the API posts next
    async with AsyncSession(db.engine) as orm, orm.begin():
        root = await orm.get(ChatSession, uuid.UUID(session_id))
        assert root is not None
        chat, turns = root, list[Turn]()
        for hop in range(HOPS + 1):
            at = start + timedelta(seconds=hop)
            if hop:
                chat = ChatSession(
                    owner_id=root.owner_id, room_id=root.room_id, title=f"hop {hop}",
                    created_at=at, parent_id=chat.id, fork_turn_id=turns[-1].id,
                )  # fmt: skip
                orm.add(chat)
                await orm.flush()
            turn = Turn(
                session_id=chat.id, mode="orchestrator", status="completed",
                message=f"m{hop}", output=f"a: m{hop}", created_at=at,
            )  # fmt: skip
            orm.add(turn)
            await orm.flush()
            for seq, (role, text) in enumerate((("user", f"m{hop}"), ("assistant", f"a: m{hop}"))):
                orm.add(
                    Message(
                        session_id=chat.id, turn_id=turn.id, seq=seq, role=role,
                        agent_key="a" if seq else None, content=text, created_at=at,
                    )
                )  # fmt: skip
            turns.append(turn)
        return str(chat.id), str(turns[0].id)


async def _history_messages(client: httpx.AsyncClient, session_id: str) -> list[str]:
    """The user's messages of every turn of the session's history, paged back to the first."""
    texts: list[str] = []
    before: str | None = None
    while True:
        params = {"limit": "50", **({"before": before} if before else {})}
        page = (await client.get(f"/v1/sessions/{session_id}/history", params=params)).json()
        texts = [
            m["content"] for t in page["items"] for m in t["messages"] if m["role"] == "user"
        ] + texts
        if not page["has_more"]:
            return texts
        before = page["before"]


def _user_prompt(scripted: ScriptedProvider) -> list[str]:
    return [m.content for m in scripted.requests[-1].request.messages if m.role == "user"]


async def test_a_fork_chain_past_64_hops_keeps_all_its_history(
    app: FastAPI, client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    room = await create_room(client, ["a"])
    root = str((await create_session(client, room["id"]))["id"])
    last, first_turn = await _write_chain(app.state.services.db, root)
    expected = [f"m{hop}" for hop in range(HOPS + 1)]
    assert await _history_messages(client, last) == expected
    answer = await client.post(f"/v1/sessions/{last}/turns", json={"message": "next"})
    assert answer.status_code == 201, answer.text
    assert _user_prompt(scripted) == [*expected, "next"]
    # The oldest turn, 70 hops up, is in the fork's history: a fork can be made at it.
    oldest = await client.post(f"/v1/sessions/{last}/fork", json={"turn_id": first_turn})
    assert oldest.status_code == 201, oldest.text
    assert oldest.json()["parent_id"] == root
    again = await client.post(f"/v1/sessions/{oldest.json()['id']}/turns", json={"message": "x"})
    assert again.status_code == 201, again.text
    assert _user_prompt(scripted) == ["m0", "x"]
