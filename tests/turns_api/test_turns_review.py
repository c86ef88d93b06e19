"""Review mode through the HTTP API: draft, concurrent reviews, revision, and the three
ways the loop stops (approval, the round cap, no score gain), with tolerant verdicts."""

from __future__ import annotations

import json
from typing import Any

import httpx

from pantheon.llm.errors import BadRequest
from pantheon.llm.providers.scripted import ScriptedProvider
from pantheon.settings import ReviewSettings, Settings
from tests.factories import create_room, create_session
from tests.sse_client import Event, stream_turn, types
from tests.turns_api.apps import running_client


def _verdict(approved: bool, score: float, feedback: str = "") -> str:
    return json.dumps({"approved": approved, "score": score, "feedback": feedback})


def _script_rounds(scripted: ScriptedProvider, agent: str, replies: list[str]) -> None:
    """One reply per round for ``agent`` (the newest rule wins: script the last first)."""
    for reply in reversed(replies):
        scripted.script(reply, agent=agent, times=1)


async def _review_session(client: httpx.AsyncClient, keys: list[str]) -> str:
    room = await create_room(client, keys, mode="review")
    return str((await create_session(client, room["id"]))["id"])


def _of(events: list[Event], kind: str) -> list[dict[str, Any]]:
    return [data for _, data in events if data["type"] == kind]


async def _run(client: httpx.AsyncClient, keys: list[str]) -> tuple[list[Event], dict[str, Any]]:
    session_id = await _review_session(client, keys)
    events = await stream_turn(client, session_id, {"message": "write a haiku"})
    turn = (await client.get(f"/v1/turns/{events[-1][1]['turn_id']}")).json()
    return events, turn


async def test_review_stops_when_every_reviewer_approves(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    _script_rounds(scripted, "writer", ["draft one", "draft two"])
    _script_rounds(scripted, "critic", [_verdict(False, 4, "too long"), _verdict(True, 9, "ok")])
    _script_rounds(scripted, "editor", [_verdict(True, 6), _verdict(True, 8)])
    events, turn = await _run(client, ["writer", "critic", "editor"])
    assert types(events)[:3] == ["turn_started", "round_start", "agent_started"]
    reviews = [
        (r["round"], r["agent_key"], r["approved"], r["score"], r["fallback"])
        for r in _of(events, "review")
    ]
    assert reviews == [
        (1, "critic", False, 4, False), (1, "editor", True, 6, False),
        (2, "critic", True, 9, False), (2, "editor", True, 8, False),
    ]  # fmt: skip
    done = _of(events, "review_completed")[0]
    assert done == {**done, "round": 2, "score": 8.5, "reason": "approved", "text": "draft two"}
    assert types(events)[-2:] == ["review_completed", "turn_completed"]
    assert turn["status"] == "completed"
    assert turn["rounds"] == 2
    first_call = turn["llm_calls"][0]
    assert (first_call["purpose"], first_call["agent_key"]) == ("draft", "writer")
    assert sorted(c["purpose"] for c in turn["llm_calls"]) == (
        ["draft", "review", "review", "review", "review", "revision"]
    )
    revision = scripted.calls(purpose="revision")[0].request
    assert "draft one" in revision.messages[-1].content
    assert "too long" in revision.messages[-1].content
    review_request = scripted.calls(purpose="review")[0].request
    assert review_request.response_format is not None
    assert review_request.response_format.name == "review"
    assert turn["output"].endswith(
        "Answer (round 2 draft, score 8.5, stopped: approved):\ndraft two"
    )
    assert turn["output"].startswith("[Round 1]\nWriter: draft one\n\n")
    assert [m["round"] for m in turn["messages"][1:]] == [1, 1, 1, 2, 2, 2]


async def test_review_returns_the_best_draft_after_the_round_cap(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    _script_rounds(scripted, "writer", ["d1", "d2", "d3"])
    _script_rounds(scripted, "critic", [_verdict(False, 5), _verdict(False, 8), _verdict(False, 6)])
    events, turn = await _run(client, ["writer", "critic"])
    done = _of(events, "review_completed")[0]
    assert (done["round"], done["score"], done["reason"], done["text"]) == (
        2, 8, "max_rounds", "d2",
    )  # fmt: skip
    assert turn["rounds"] == 3  # the default review.max_rounds
    assert turn["output"].endswith("Answer (round 2 draft, score 8, stopped: max_rounds):\nd2")


async def test_review_stops_when_the_best_score_has_not_improved_for_two_rounds(
    settings: Settings, scripted: ScriptedProvider
) -> None:
    roomy = settings.model_copy(update={"review": ReviewSettings(max_rounds=5)})
    _script_rounds(scripted, "writer", ["d1", "d2", "d3", "d4"])
    _script_rounds(scripted, "critic", [_verdict(False, 7), _verdict(False, 6), _verdict(False, 7)])
    async with running_client(roomy, scripted) as client:
        events, turn = await _run(client, ["writer", "critic"])
    done = _of(events, "review_completed")[0]
    assert (done["round"], done["reason"], done["text"]) == (1, "no_gain", "d1")
    assert turn["rounds"] == 3
    assert len(scripted.calls(agent="writer")) == 3


async def test_an_unparsable_review_counts_as_not_approved_with_fallback(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    _script_rounds(scripted, "writer", ["d1", "d2"])
    _script_rounds(
        scripted,
        "critic",
        ["Looks fine to me, ship it!", 'Sure: ```json\n{"Approved": "yes", "score": "9/10"}\n```'],
    )
    _script_rounds(scripted, "editor", [_verdict(True, 7), _verdict(True, 8)])
    events, turn = await _run(client, ["writer", "critic", "editor"])
    first = _of(events, "review")[0]
    assert first == {**first, "round": 1, "approved": False, "score": None, "fallback": True}
    tolerant = _of(events, "review")[2]
    assert tolerant == {**tolerant, "round": 2, "approved": True, "score": 9, "fallback": False}
    done = _of(events, "review_completed")[0]
    assert (done["round"], done["reason"]) == (2, "approved")
    assert turn["messages"][2]["content"] == "Looks fine to me, ship it!"
    revision = scripted.calls(purpose="revision")[0].request.messages[-1].content
    assert "(no usable review)" in revision


async def test_an_out_of_range_score_is_a_fallback_not_a_perfect_review(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    _script_rounds(scripted, "writer", ["d1", "d2"])
    _script_rounds(scripted, "critic", ['{"approved": true, "score": 480}', _verdict(True, 7)])
    _script_rounds(
        scripted, "editor", ['{"approved": true, "score": 0.59725E+13}', _verdict(True, 6)]
    )
    events, _ = await _run(client, ["writer", "critic", "editor"])
    first = [(r["approved"], r["score"], r["fallback"]) for r in _of(events, "review")[:2]]
    assert first == [(False, None, True), (False, None, True)]
    done = _of(events, "review_completed")[0]
    assert (done["round"], done["score"], done["reason"], done["text"]) == (
        2, 6.5, "approved", "d2",
    )  # fmt: skip


async def test_a_failed_first_draft_fails_the_turn(
    client: httpx.AsyncClient, scripted: ScriptedProvider
) -> None:
    scripted.script(error=BadRequest("no"), agent="writer")
    events, turn = await _run(client, ["writer", "critic"])
    done = _of(events, "review_completed")[0]
    assert (done["round"], done["reason"], done["text"]) == (None, "draft_failed", "")
    assert scripted.calls(agent="critic") == []
    assert turn["status"] == "failed"
    assert turn["output"].endswith("Answer: none (stopped: draft_failed)")


async def test_a_review_room_needs_a_reviewer(client: httpx.AsyncClient) -> None:
    session_id = await _review_session(client, ["writer"])
    response = await client.post(f"/v1/sessions/{session_id}/turns", json={"message": "hi"})
    assert response.status_code == 422
    assert "at least two agents" in response.json()["detail"]
