"""Pipeline and review in the pure engine: concurrency, cancellation, preconditions."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest

from pantheon.engine.errors import BrokenPrecondition
from pantheon.engine.events import DeltaEvent, TurnEvent
from pantheon.engine.no_tools import NoTools
from pantheon.engine.record import TurnRecord
from pantheon.engine.run import run_turn
from pantheon.engine.snapshot import ReusedStage
from pantheon.llm.gateway import LLMGateway
from pantheon.llm.providers.scripted import RecordedRequest, ScriptedProvider
from tests.engine.conftest import ALICE, BOB, CAROL, collect, compact, snapshot

WORDS = "one two three four five six seven eight"
VERDICT = '{"approved": true, "score": 7, "feedback": "fine"}'


def finished(r: RecordedRequest) -> float:
    assert r.finished_at is not None
    return r.finished_at


async def test_reviewers_run_concurrently(gateway: LLMGateway, provider: ScriptedProvider) -> None:
    provider.script(VERDICT, purpose="review", chunk_delay_s=0.01)
    events, record = await collect(snapshot("review", roster=(ALICE, BOB, CAROL)), gateway)
    calls = provider.calls(purpose="review")
    assert [c.request.agent_key for c in calls] == ["bob", "carol"]
    assert max(r.started_at for r in calls) < min(finished(r) for r in calls)
    assert compact(events)[:3] == ["turn_started", "round_start", "agent_started"]
    assert compact(events)[-4:] == ["review", "review", "round_end", "review_completed"]
    # Persisted order is decision order: the draft, then the reviews in roster order.
    assert [m.agent_key for m in record.messages] == ["alice", "bob", "carol"]


async def test_a_review_needs_a_reviewer(gateway: LLMGateway) -> None:
    with pytest.raises(BrokenPrecondition):
        await collect(snapshot("review", roster=(ALICE,)), gateway)


async def test_reused_stages_must_be_the_rosters_first(gateway: LLMGateway) -> None:
    snap = replace(snapshot("pipeline"), reuse=(ReusedStage("bob", "Bob", "x"),))
    with pytest.raises(BrokenPrecondition):
        await collect(snap, gateway)


async def test_cancelling_a_pipeline_mid_stage_keeps_what_it_had(
    gateway: LLMGateway, provider: ScriptedProvider
) -> None:
    provider.script(WORDS, agent="bob", chunk_delay_s=0.01)
    snap = replace(
        snapshot("pipeline", roster=(ALICE, BOB, CAROL)),
        reuse=(ReusedStage("alice", "Alice", "kept notes"),),
    )
    record, seen, spoke = TurnRecord(), [], asyncio.Event()

    async def consume() -> None:
        async for event in run_turn(snap, gateway, NoTools(), record):
            seen.append(event)
            if isinstance(event, DeltaEvent) and event.agent_key == "bob":
                spoke.set()

    task = asyncio.create_task(consume())
    await spoke.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert [(m.agent_key, m.status, m.reused) for m in record.messages] == [
        ("alice", "ok", True),
        ("bob", "cancelled", False),
    ]
    assert [c.agent_key for c in record.llm_calls] == ["bob"]
    assert provider.calls(agent="carol") == []
    last: TurnEvent = seen[-1]
    assert last.type == "delta"  # no stage_completed for the stage that was cut off
    assert record.output.startswith("[Stage 1] Alice (reused): kept notes\n\n[Stage 2] Bob: one")
    assert record.output.endswith("Answer (stage 1, Alice):\nkept notes")
