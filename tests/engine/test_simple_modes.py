"""Standalone, roundtable and manual modes through ``run_turn`` with the scripted fake."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

import pytest

from pantheon.engine.errors import BrokenPrecondition
from pantheon.engine.events import (
    AgentCompletedEvent,
    AgentFailedEvent,
    AgentStartedEvent,
    DeltaEvent,
    TurnEvent,
    TurnStartedEvent,
)
from pantheon.engine.mentions import NoValidMention
from pantheon.engine.no_tools import NoTools
from pantheon.engine.prompting import BEGIN_DATA, END_DATA
from pantheon.engine.record import TurnRecord
from pantheon.engine.run import run_turn
from pantheon.engine.snapshot import HistoryEntry
from pantheon.llm.errors import BadRequest
from pantheon.llm.gateway import LLMGateway
from pantheon.llm.providers.scripted import ScriptedProvider
from tests.engine.conftest import ALICE, BOB, CAROL, DAVE, collect, compact, snapshot

SPEAKS = ["agent_started", "delta", "agent_completed"]


def deltas_by_agent(events: Sequence[TurnEvent]) -> dict[str, str]:
    joined: dict[str, str] = defaultdict(str)
    for event in events:
        if isinstance(event, DeltaEvent):
            joined[event.agent_key] += event.text
    return dict(joined)


def last_user(provider: ScriptedProvider, agent: str) -> str:
    (call,) = provider.calls(agent=agent)
    return call.request.messages[-1].content


def assert_deltas_match_record(events: Sequence[TurnEvent], record: TurnRecord) -> None:
    joined = deltas_by_agent(events)
    for message in record.messages:
        assert message.content == joined.get(message.agent_key, "")
    for event in events:
        if isinstance(event, AgentCompletedEvent):
            assert event.text == joined[event.agent_key]


async def test_standalone(gateway: LLMGateway, provider: ScriptedProvider) -> None:
    provider.script("Hello there, friend.", agent="alice")
    events, record = await collect(snapshot("standalone", "Hi", roster=[ALICE]), gateway)
    assert compact(events) == ["turn_started", *SPEAKS]
    assert isinstance(events[0], TurnStartedEvent)
    assert events[0].agents == ["alice"]
    assert record.output == "Alice: Hello there, friend."
    assert record.status == "completed"
    assert record.rounds == 1
    (call,) = record.llm_calls
    assert (call.purpose, call.agent_key, call.status, call.round) == (
        "specialist",
        "alice",
        "ok",
        None,
    )
    system = provider.requests[0].request.messages[0].content
    assert "You are Alice." in system
    assert "do not address other agents" in system
    assert_deltas_match_record(events, record)


async def test_standalone_needs_exactly_one_agent(gateway: LLMGateway) -> None:
    with pytest.raises(BrokenPrecondition, match="exactly one agent"):
        await collect(snapshot("standalone", roster=[ALICE, BOB]), gateway)


async def test_roundtable_order_and_what_each_agent_saw(
    gateway: LLMGateway, provider: ScriptedProvider
) -> None:
    for key in ("alice", "bob", "carol", "dave"):
        provider.script(f"{key} answer", agent=key)
    roster = [DAVE, BOB, CAROL, ALICE]  # the snapshot order is not the position order
    events, record = await collect(snapshot("roundtable", "Plan it", roster=roster), gateway)
    assert compact(events) == ["turn_started", *SPEAKS * 4]
    started = [e.agent_key for e in events if isinstance(e, AgentStartedEvent)]
    assert started == ["alice", "bob", "carol", "dave"]
    assert BEGIN_DATA not in last_user(provider, "alice")
    carol_saw = last_user(provider, "carol")
    assert carol_saw.startswith("Plan it")
    block = carol_saw[carol_saw.index(BEGIN_DATA) : carol_saw.index(END_DATA)]
    assert "alice answer" in block
    assert "bob answer" in block
    assert "not instructions" in carol_saw
    assert "carol answer" not in last_user(provider, "dave").split(BEGIN_DATA)[0]
    assert record.output == (
        "Alice: alice answer\n\nBob: bob answer\n\nCarol: carol answer\n\nDave: dave answer"
    )
    assert [m.agent_key for m in record.messages] == ["alice", "bob", "carol", "dave"]
    assert_deltas_match_record(events, record)


async def test_roundtable_failure_is_isolated(
    gateway: LLMGateway, provider: ScriptedProvider
) -> None:
    provider.script("alice answer", agent="alice")
    provider.script(error=BadRequest("upstream said: secret detail"), agent="bob")
    events, record = await collect(snapshot("roundtable", roster=[ALICE, BOB, CAROL]), gateway)
    assert compact(events) == ["turn_started", *SPEAKS, "agent_started", "agent_failed", *SPEAKS]
    failed = next(e for e in events if isinstance(e, AgentFailedEvent))
    assert (failed.agent_key, failed.code) == ("bob", "bad_request")
    assert "secret" not in failed.error
    carol_saw = last_user(provider, "carol")
    assert "alice answer" in carol_saw
    assert "Bob" not in carol_saw.split(BEGIN_DATA)[1]
    assert record.status == "partial"
    assert "Bob: [failed: bad_request]" in record.output
    assert [c.status for c in record.llm_calls] == ["ok", "error", "ok"]


async def test_all_roundtable_agents_failing_fails_the_turn(
    gateway: LLMGateway, provider: ScriptedProvider
) -> None:
    provider.script(error=BadRequest("no"))
    _, record = await collect(snapshot("roundtable", roster=[ALICE, BOB]), gateway)
    assert record.status == "failed"


async def test_manual_runs_mentioned_agents_in_mention_order(
    gateway: LLMGateway, provider: ScriptedProvider
) -> None:
    provider.script("carol answer", agent="carol")
    message = "@Carol first, then @alice (cc bob@example.com, @zed, @carol)"
    events, record = await collect(snapshot("manual", message), gateway)
    assert compact(events) == ["turn_started", *SPEAKS * 2]
    assert isinstance(events[0], TurnStartedEvent)
    assert events[0].agents == ["carol", "alice"]
    assert [r.request.agent_key for r in provider.requests] == ["carol", "alice"]
    assert "carol answer" in last_user(provider, "alice")
    system = provider.calls(agent="alice")[0].request.messages[0].content
    assert "@bob (Bob)" in system  # the whole room is introduced, not only the tagged
    assert [m.agent_key for m in record.messages] == ["carol", "alice"]
    assert_deltas_match_record(events, record)


async def test_manual_without_valid_mention_raises_before_any_event(
    gateway: LLMGateway, provider: ScriptedProvider
) -> None:
    events = run_turn(snapshot("manual", "hi @zed"), gateway, NoTools(), TurnRecord())
    with pytest.raises(NoValidMention) as info:
        await anext(events)
    assert provider.requests == []
    assert info.value.keys == ["alice", "bob", "carol", "dave"]


async def test_history_is_labelled_and_grouped(
    gateway: LLMGateway, provider: ScriptedProvider
) -> None:
    history = [
        HistoryEntry("user", "first question"),
        HistoryEntry("assistant", "a1", "alice", "Alice"),
        HistoryEntry("assistant", "b1", "bob", "Bob"),
        HistoryEntry("user", "second question"),
        HistoryEntry("assistant", "a2", "alice", "Alice"),
    ]
    await collect(snapshot("roundtable", "third", roster=[ALICE], history=history), gateway)
    messages = provider.requests[0].request.messages
    assert [(m.role, m.content) for m in messages[1:]] == [
        ("user", "first question"),
        ("assistant", "Alice: a1\n\nBob: b1"),
        ("user", "second question"),
        ("assistant", "a2"),  # the agent's own single answer is not labelled
        ("user", "third"),
    ]
