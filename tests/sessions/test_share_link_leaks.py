"""What a share link must not show (docs/adr/0042, docs/security.md): no id of any object,
no key, no usage or cost, no model, no tool call's name, arguments, result or call id
beyond what an answer's own text says; approval decisions read as the page reads them."""

from __future__ import annotations

import json
import re
from typing import Any

from sqlalchemy import select

from pantheon.db.models import Message, User
from pantheon.db.uow import unit_of_work
from pantheon.llm.providers.scripted import ScriptedProvider
from tests.auth.conftest import Clients
from tests.auth.signin_helpers import database
from tests.engine.toolbox import TestTools, calculator, use_tools
from tests.factories import create_room, create_session
from tests.scripted_turns import script_orchestrator
from tests.sessions.share_helpers import share, snapshot
from tests.turns_api.approvals_helpers import agent_session, decide, decisions, echo, gated_agent

# Whatever the API names an object by, and the figures a turn carries.
ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
FIGURES = ("usage", "cost", "token", "model", "latency", "tool", "call_id", "round", "mode")


def _keys_of(value: Any) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in _keys_of(v)}
    if isinstance(value, list):
        return {k for v in value for k in _keys_of(v)}
    return set()


async def _ids_of(users: Clients, session_id: str) -> set[str]:
    async with unit_of_work(database(users.app), write=False) as db:
        users_ids = (await db.scalars(select(User.id))).all()
        rows = (await db.execute(select(Message.id, Message.turn_id))).all()
    return {str(i) for i in users_ids} | {str(i) for row in rows for i in row} | {session_id}


async def test_a_room_turn_shows_speakers_and_answers_only(
    users: Clients, scripted: ScriptedProvider
) -> None:
    room = await create_room(users.alice, ["alpha", "beta"], mode="orchestrator")
    session = await create_session(users.alice, room["id"])
    script_orchestrator(scripted)
    turn = await users.alice.post(
        f"/v1/sessions/{session['id']}/turns", json={"message": "plan it"}
    )
    assert turn.status_code == 201, turn.text
    token = await share(users.alice, session["id"])
    response = await users.anon.get(f"/v1/shared/{token}")
    body = response.json()

    [shared] = body["turns"]
    speakers = [(a["speaker"], a["role"], a["content"]) for a in shared["answers"]]
    assert ("Alpha", "assistant", "a") in speakers
    assert ("Beta", "assistant", "b") in speakers
    assert ("Manager", "manager", "the final answer") in speakers
    assert _keys_of(body) == {
        "title", "shared_at", "turns", "total", "limit", "offset",
        "kind", "message", "answers", "speaker", "role", "content", "status",
    }  # fmt: skip
    text = response.text
    assert ID.findall(text) == [], "an object id is in the snapshot"
    secrets = {*await _ids_of(users, session["id"]), room["id"], *users.keys.values()}
    secrets |= {a["agent_id"] for a in room["agents"]} | {"cheap", "scripted"}
    assert [s for s in secrets if s in text] == []
    assert not any(word in key for key in _keys_of(body) for word in FIGURES)


async def test_approval_decisions_show_without_the_tool_calls(
    users: Clients, scripted: ScriptedProvider
) -> None:
    use_tools(users.app, TestTools({"calculator": calculator, "echo": echo}))
    scripted.script(gated_agent, agent="calc")
    session_id = await agent_session(users.alice, ["calculator!", "echo"])
    paused = await users.alice.post(
        f"/v1/sessions/{session_id}/turns", json={"message": "multiply, please"}
    )
    assert paused.json()["status"] == "awaiting_approval", paused.text
    body = decisions(("c-calc", False, "not now"))
    decided = await decide(users.alice, paused.json()["id"], body)
    assert decided.status_code in (200, 201), decided.text

    token = await share(users.alice, session_id)
    shared = await snapshot(users.anon, token)
    kinds = [(t["kind"], t["message"]) for t in shared["turns"]]
    assert kinds == [("message", "multiply, please"), ("decisions", "Rejected calculator: not now")]
    first = shared["turns"][0]["answers"]
    assert [(a["speaker"], a["content"], a["status"]) for a in first] == [
        ("Calc", "Checking. ", "awaiting_approval")
    ]
    # The continuation's answer says what the tools gave: that is its own text.
    [(speaker, content)] = [(a["speaker"], a["content"]) for a in shared["turns"][1]["answers"]]
    assert (speaker, content.startswith("Result: ")) == ("Calc", True)
    text = json.dumps(shared)
    for internal in ("c-calc", "c-echo", "17*23", "expression", "arguments"):
        assert internal not in text, internal
