"""Each completion is a turn of a session of its own, or of the X-Pantheon-Session one;
the client's history and system message reach every agent's prompt."""

from __future__ import annotations

import httpx
import openai
import pytest

from pantheon.llm.providers.scripted import ScriptedProvider
from tests.facade.conftest import room_model, user
from tests.factories import create_agent


def _prompt(scripted: ScriptedProvider, agent: str, call: int = 0) -> list[tuple[str, str]]:
    return [(m.role, m.content) for m in scripted.calls(agent=agent)[call].request.messages]


async def test_each_completion_is_a_turn_in_a_new_session_visible_in_the_api(
    client: httpx.AsyncClient, oai: openai.AsyncOpenAI
) -> None:
    model = await room_model(client, ["alpha"], "roundtable")
    room_id = model.removeprefix("room-")
    first = await oai.chat.completions.with_raw_response.create(
        model=model, messages=[user("hello there\nsecond line")]
    )
    await oai.chat.completions.create(model=model, messages=[user("again")])
    sessions = (await client.get(f"/v1/rooms/{room_id}/sessions")).json()
    assert sessions["total"] == 2
    session_id = first.headers["x-pantheon-session"]
    session = (await client.get(f"/v1/sessions/{session_id}")).json()
    assert session["title"] == "OpenAI API: hello there"
    messages = (await client.get(f"/v1/sessions/{session_id}/messages")).json()["items"]
    assert [(m["role"], m["content"]) for m in messages] == [
        ("user", "hello there\nsecond line"),
        ("assistant", "alpha: hello there second line"),
    ]
    turns = (await client.get(f"/v1/sessions/{session_id}/turns")).json()
    assert [t["id"] for t in turns["items"]] == [first.headers["x-pantheon-turn"]]


async def test_history_and_system_message_reach_every_agent(
    client: httpx.AsyncClient, oai: openai.AsyncOpenAI, scripted: ScriptedProvider
) -> None:
    model = await room_model(client, ["alpha", "beta"], "roundtable")
    await oai.chat.completions.create(
        model=model,
        messages=[
            {"role": "system", "content": "Answer in French."},
            user("first question"),
            {"role": "assistant", "content": "an earlier answer"},
            {"role": "developer", "content": [{"type": "text", "text": "Be brief."}]},
            user("second question"),
        ],
    )
    for agent in ("alpha", "beta"):
        prompt = _prompt(scripted, agent)
        assert prompt[0][0] == "system"
        assert prompt[0][1].endswith("The user's instructions:\nAnswer in French.\n\nBe brief.")
        assert prompt[1] == ("user", "first question")
        assert prompt[2][0] == "assistant"
        assert "an earlier answer" in prompt[2][1]
        assert prompt[-1][0] == "user"
        assert prompt[-1][1].startswith("second question")
    assert len((await client.get(f"/v1/rooms/{model[5:]}/sessions")).json()["items"]) == 1


async def test_pantheon_session_header_continues_a_session_with_its_own_history(
    client: httpx.AsyncClient, oai: openai.AsyncOpenAI, scripted: ScriptedProvider
) -> None:
    model = await room_model(client, ["alpha"], "roundtable")
    first = await oai.chat.completions.with_raw_response.create(
        model=model, messages=[user("remember the word kiwi")]
    )
    session_id = first.headers["x-pantheon-session"]
    second = await oai.chat.completions.with_raw_response.create(
        model=model,
        messages=[user("client-side history is ignored"), user("which word?")],
        extra_headers={"X-Pantheon-Session": session_id},
    )
    assert second.headers["x-pantheon-session"] == session_id
    prompt = " ".join(text for _, text in _prompt(scripted, "alpha", call=1))
    assert "remember the word kiwi" in prompt
    assert "client-side history is ignored" not in prompt
    turns = (await client.get(f"/v1/sessions/{session_id}/turns")).json()
    assert turns["total"] == 2
    assert (await client.get(f"/v1/rooms/{model[5:]}/sessions")).json()["total"] == 1


async def test_session_header_must_belong_to_the_model(
    client: httpx.AsyncClient, oai: openai.AsyncOpenAI, scripted: ScriptedProvider
) -> None:
    model = await room_model(client, ["alpha"], "roundtable")
    other = await room_model(client, ["beta"], "roundtable")
    first = await oai.chat.completions.with_raw_response.create(model=other, messages=[user("x")])
    foreign = first.headers["x-pantheon-session"]
    with pytest.raises(openai.BadRequestError) as wrong_room:
        await oai.chat.completions.create(
            model=model, messages=[user("hi")], extra_headers={"X-Pantheon-Session": foreign}
        )
    assert f"session {foreign} (X-Pantheon-Session) belongs to room" in wrong_room.value.message
    await create_agent(client, "solo")
    with pytest.raises(openai.BadRequestError):
        await oai.chat.completions.create(
            model="agent-solo", messages=[user("hi")], extra_headers={"X-Pantheon-Session": foreign}
        )
    with pytest.raises(openai.NotFoundError) as unknown:
        await oai.chat.completions.create(
            model=model, messages=[user("hi")], extra_headers={"X-Pantheon-Session": "nope"}
        )
    assert "session nope (X-Pantheon-Session) not found" in unknown.value.message
    assert len(scripted.requests) == 1  # only the first, valid call reached an LLM


async def test_a_turn_that_cannot_start_leaves_no_session(
    client: httpx.AsyncClient, oai: openai.AsyncOpenAI, scripted: ScriptedProvider
) -> None:
    model = await room_model(client, ["alpha", "beta"], "manual")
    with pytest.raises(openai.BadRequestError) as raised:
        await oai.chat.completions.create(model=model, messages=[user("nobody tagged")])
    assert raised.value.status_code == 400
    assert raised.value.code == "invalid_request"
    assert "@alpha, @beta" in raised.value.message
    assert (await client.get(f"/v1/rooms/{model[5:]}/sessions")).json()["total"] == 0
    assert scripted.requests == []
