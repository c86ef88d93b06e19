"""A session outgrowing a small model's window: its older history is folded into a summary
by the manager, persisted with the turn, shown on the session and used by later turns."""

from __future__ import annotations

import itertools
from typing import Any

from pantheon.llm.errors import Unavailable
from pantheon.llm.providers.scripted import RecordedRequest, ScriptedProvider
from pantheon.llm.tokens import estimate_messages
from pantheon.llm.types import LLMRequest
from tests.context.conftest import MAX_TOKENS, WINDOW, Tiny
from tests.sse_client import stream_turn

LONG_ANSWER = "answer " + "word " * 40


def _fits(call: RecordedRequest) -> bool:
    """The prompt and the reply reserve fit the alias' window (counted as the engine does)."""
    return estimate_messages(call.request.messages) + MAX_TOKENS <= WINDOW


def _system(call: RecordedRequest) -> str:
    return call.request.messages[0].content


def _prompt(call: RecordedRequest) -> str:
    return "\n".join(m.content for m in call.request.messages)


def _numbered_summaries(scripted: ScriptedProvider) -> None:
    numbers = itertools.count(1)

    def summary(_request: LLMRequest) -> str:
        return f"Facts: the user asks numbered questions. SUMMARY-{next(numbers)}"

    scripted.script(summary, purpose="summary")


async def _turn(tiny: Tiny, session: str, n: int) -> tuple[str, list[dict[str, Any]]]:
    """Run turn ``n``; its id and its events (the turn must complete)."""
    message = f"question {n}: " + "detail " * 12
    events = [data for _, data in await stream_turn(tiny.http, session, {"message": message})]
    assert events[-1]["type"] == "turn_completed", events[-1]
    assert events[-1]["status"] == "completed"
    return str(events[0]["turn_id"]), events


def _summary_event(events: list[dict[str, Any]]) -> dict[str, Any] | None:
    found = [e for e in events if e["type"] == "summary"]
    assert len(found) <= 1
    return found[0] if found else None


async def test_a_long_session_folds_its_history_into_a_summary_the_next_turns_use(
    tiny: Tiny, scripted: ScriptedProvider
) -> None:
    _numbered_summaries(scripted)
    scripted.script(LONG_ANSWER, agent="alpha")
    session = await tiny.session(["alpha"])
    folds: list[tuple[int, str, dict[str, Any]]] = []
    for n in range(12):
        turn_id, events = await _turn(tiny, session, n)
        if (event := _summary_event(events)) is not None:
            folds.append((n, turn_id, event))
            assert events[1] is event  # right after turn_started, before any agent
    assert len(folds) >= 2
    assert all(e["ok"] and e["dropped_messages"] == 0 and e["code"] is None for *_, e in folds)
    agent_calls = scripted.calls(agent="alpha")
    assert len(agent_calls) == 12
    assert all(_fits(call) for call in agent_calls)
    assert all(call.request.max_tokens == MAX_TOKENS for call in agent_calls)
    # The turn after a fold reads the stored summary and only the newer history.
    first_n, _, first = folds[0]
    assert folds[1][0] > first_n + 1
    following = agent_calls[first_n + 1]
    assert first["text"] in _system(following)
    assert "question 0:" not in _prompt(following)
    assert f"question {first_n}:" in _prompt(following)
    # Each fold rewrites the summary so far with the next messages, oldest first.
    requests = scripted.calls(purpose="summary")
    assert "question 0:" in requests[0].request.messages[-1].content
    assert "Summary so far:\n(none yet)" in requests[0].request.messages[-1].content
    assert any(first["text"] in r.request.messages[-1].content for r in requests[1:])
    assert all(estimate_messages(r.request.messages) <= WINDOW for r in requests)
    # Shown on the session: the newest summary and what it covers.
    shown = (await tiny.http.get(f"/v1/sessions/{session}")).json()
    _, last_turn, last = folds[-1]
    assert shown["summary"]["text"] == last["text"]
    assert shown["summary"]["messages"] == last["summary_messages"] > first["summary_messages"]
    assert shown["turn_count"] == 12
    # A billed llm_calls row of purpose summary, by the manager on the manager's model.
    detail = (await tiny.http.get(f"/v1/turns/{last_turn}")).json()
    (call, *_) = [c for c in detail["llm_calls"] if c["purpose"] == "summary"]
    assert (call["status"], call["model"], call["agent_key"]) == ("ok", "tiny", "manager")
    assert call["cost_usd"] > 0
    assert detail["usage"]["cost_usd"] >= call["cost_usd"]
    assert detail["context_dropped"] == 0


async def test_a_failed_summary_drops_the_oldest_history_and_the_turn_says_so(
    tiny: Tiny, scripted: ScriptedProvider
) -> None:
    scripted.script(error=Unavailable("down"), purpose="summary")
    scripted.script(LONG_ANSWER, agent="alpha")
    session = await tiny.session(["alpha"])
    failed: list[tuple[int, str, dict[str, Any]]] = []
    for n in range(8):
        turn_id, events = await _turn(tiny, session, n)  # completes all the same
        if (event := _summary_event(events)) is not None:
            failed.append((n, turn_id, event))
    assert len(failed) >= 2  # each turn tries again: nothing was folded
    n, turn_id, event = failed[0]
    assert (event["ok"], event["code"], event["text"]) == (False, "unavailable", None)
    assert event["folded_messages"] == 0
    assert event["dropped_messages"] > 0
    detail = (await tiny.http.get(f"/v1/turns/{turn_id}")).json()
    assert detail["status"] == "completed"
    assert detail["context_dropped"] == event["dropped_messages"]
    assert [c["status"] for c in detail["llm_calls"] if c["purpose"] == "summary"] == ["error"]
    prompt = scripted.calls(agent="alpha")[n]
    assert _fits(prompt)
    assert "question 0:" not in _prompt(prompt)
    assert f"question {n - 1}:" in _prompt(prompt)
    session_read = (await tiny.http.get(f"/v1/sessions/{session}")).json()
    assert session_read["summary"] is None
