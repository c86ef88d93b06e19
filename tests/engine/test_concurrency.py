"""Concurrent specialists, the sequential setting, and cancellation bookkeeping."""

from __future__ import annotations

import asyncio
import itertools
import json
from contextlib import aclosing

import pytest

from pantheon.engine.events import AgentCompletedEvent, DeltaEvent, TurnEvent
from pantheon.engine.no_tools import NoTools
from pantheon.engine.record import TurnRecord
from pantheon.engine.run import run_turn
from pantheon.engine.snapshot import TurnSnapshot
from pantheon.llm.gateway import LLMGateway
from pantheon.llm.providers.scripted import RecordedRequest, ScriptedProvider
from pantheon.llm.tokens import estimate_tokens
from tests.engine.conftest import ALICE, BOB, CAROL, collect, snapshot

WORDS = "one two three four five six seven eight"


def route(provider: ScriptedProvider, *keys: str) -> None:
    provider.script(json.dumps({"agents": list(keys)}), purpose="route")


def delta_keys(events: list[TurnEvent]) -> list[str]:
    return [e.agent_key for e in events if isinstance(e, DeltaEvent) and e.agent_key != "manager"]


def finished(r: RecordedRequest) -> float:
    assert r.finished_at is not None
    return r.finished_at


async def test_specialists_run_concurrently(
    gateway: LLMGateway, provider: ScriptedProvider
) -> None:
    route(provider, "alice", "bob", "carol")
    provider.script(WORDS, purpose="specialist", chunk_delay_s=0.002)
    events, record = await collect(snapshot("orchestrator", max_depth=1), gateway)
    keys = delta_keys(events)
    first_seen = {k: keys.index(k) for k in ("alice", "bob", "carol")}
    last_seen = {k: len(keys) - 1 - keys[::-1].index(k) for k in first_seen}
    assert max(first_seen.values()) < min(last_seen.values())  # the streams interleave
    calls = provider.calls(purpose="specialist")
    assert max(r.started_at for r in calls) < min(finished(r) for r in calls)
    for message in record.messages[:3]:
        assert message.content == WORDS


async def test_sequential_setting(gateway: LLMGateway, provider: ScriptedProvider) -> None:
    route(provider, "alice", "bob", "carol")
    provider.script(WORDS, purpose="specialist", chunk_delay_s=0.001)
    snap = snapshot("orchestrator", max_depth=1, sequential_specialists=True)
    events, _ = await collect(snap, gateway)
    keys = delta_keys(events)
    assert keys == ["alice"] * 8 + ["bob"] * 8 + ["carol"] * 8
    calls = provider.calls(purpose="specialist")
    for before, after in itertools.pairwise(calls):
        assert finished(before) <= after.started_at


async def test_persisted_order_is_routing_order(
    gateway: LLMGateway, provider: ScriptedProvider
) -> None:
    route(provider, "alice", "bob")
    provider.script("slow answer", agent="alice", delay_s=0.02)
    provider.script("fast answer", agent="bob")
    events, record = await collect(snapshot("orchestrator", max_depth=1), gateway)
    done = [e.agent_key for e in events if isinstance(e, AgentCompletedEvent)]
    assert done == ["bob", "alice"]
    assert [m.agent_key for m in record.messages] == ["alice", "bob", "manager"]
    assert record.output.startswith("[Round 1]\nAlice: slow answer\n\nBob: fast answer")
    assert [c.agent_key for c in record.llm_calls][:3] == ["manager", "alice", "bob"]


def both_spoke(events: list[TurnEvent], keys: set[str]) -> bool:
    return keys <= set(delta_keys(events))


def assert_cancelled_bookkeeping(
    record: TurnRecord, provider: ScriptedProvider, seen: list[TurnEvent], keys: list[str]
) -> None:
    assert [(m.agent_key, m.status) for m in record.messages] == [(k, "cancelled") for k in keys]
    for message in record.messages:
        shown = "".join(
            e.text for e in seen if isinstance(e, DeltaEvent) and e.agent_key == message.agent_key
        )
        assert shown
        assert message.content.startswith(shown)
        assert message.content != WORDS
    specialist_calls = [c for c in record.llm_calls if c.purpose == "specialist"]
    assert [c.status for c in specialist_calls] == ["cancelled"] * len(keys)
    for call, message in zip(specialist_calls, record.messages, strict=True):
        assert call.usage_estimated
        assert call.input_tokens > 0
        assert call.output_tokens == estimate_tokens(message.content)
    assert all(r.cancelled for r in provider.calls(purpose="specialist"))
    assert provider.calls(purpose="synthesis") == []


async def consume_until(
    snap: TurnSnapshot, gateway: LLMGateway, keys: set[str]
) -> tuple[TurnRecord, list[TurnEvent]]:
    """Cancel the consuming task once every agent of ``keys`` streamed some text."""
    record, seen, ready = TurnRecord(), [], asyncio.Event()

    async def consume() -> None:
        async for event in run_turn(snap, gateway, NoTools(), record):
            seen.append(event)
            if both_spoke(seen, keys):
                ready.set()

    task = asyncio.create_task(consume())
    await ready.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    return record, seen


async def test_cancelling_the_task_mid_round(
    gateway: LLMGateway, provider: ScriptedProvider
) -> None:
    route(provider, "alice", "bob")
    provider.script(WORDS, purpose="specialist", chunk_delay_s=0.01)
    record, seen = await consume_until(snapshot("orchestrator"), gateway, {"alice", "bob"})
    assert_cancelled_bookkeeping(record, provider, seen, ["alice", "bob"])
    assert record.llm_calls[0].status == "ok"  # the route call had finished
    assert record.output.startswith("[Round 1]\nAlice: one")
    assert "[cancelled]" in record.output


async def test_closing_the_stream_mid_round(
    gateway: LLMGateway, provider: ScriptedProvider
) -> None:
    route(provider, "alice", "bob")
    provider.script(WORDS, purpose="specialist", chunk_delay_s=0.01)
    record, seen = TurnRecord(), []
    async with aclosing(run_turn(snapshot("orchestrator"), gateway, NoTools(), record)) as events:
        async for event in events:
            seen.append(event)
            if both_spoke(seen, {"alice", "bob"}):
                break
    # aclose() has returned: the bookkeeping is already complete.
    assert_cancelled_bookkeeping(record, provider, seen, ["alice", "bob"])


async def test_cancelling_a_roundtable(gateway: LLMGateway, provider: ScriptedProvider) -> None:
    provider.script("alice answer", agent="alice")
    provider.script(WORDS, agent="bob", chunk_delay_s=0.01)
    snap = snapshot("roundtable", roster=[ALICE, BOB, CAROL])
    record, _ = await consume_until(snap, gateway, {"bob"})
    assert [(m.agent_key, m.status) for m in record.messages] == [
        ("alice", "ok"),
        ("bob", "cancelled"),
    ]
    assert [c.status for c in record.llm_calls] == ["ok", "cancelled"]
    assert provider.calls(agent="carol") == []
    assert record.status == "partial"
