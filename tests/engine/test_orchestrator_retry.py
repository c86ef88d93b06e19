"""An orchestrator turn's retry (``snapshot.retry``, ADR 0034): the failed agents run again
in their round, then the synthesis over the recorded outputs and theirs; no route call, no
evaluation; no agents: the synthesis alone."""

from __future__ import annotations

from dataclasses import replace

from pantheon.engine.events import RoundStartEvent, SynthesisCompletedEvent, TurnStartedEvent
from pantheon.engine.snapshot import RetryPlan, ReusedOutput, TurnSnapshot
from pantheon.llm.errors import Unavailable
from pantheon.llm.gateway import LLMGateway
from pantheon.llm.providers.scripted import ScriptedProvider
from tests.engine.conftest import collect, compact, snapshot

ALICE_SAID = ReusedOutput("alice", "Alice", "Alice's recorded view.", 1)
CAROL_SAID = ReusedOutput("carol", "Carol", "Carol's round-two view.", 2)


def retry(
    *agents: str, round_no: int = 1, outputs: tuple[ReusedOutput, ...] = (ALICE_SAID,)
) -> TurnSnapshot:
    plan = RetryPlan("turn-0", round_no, agents, outputs)
    return replace(snapshot("orchestrator", max_depth=3), retry=plan)


async def test_a_retried_agent_joins_the_recorded_outputs_in_the_synthesis(
    gateway: LLMGateway, provider: ScriptedProvider
) -> None:
    provider.script("Bob's view, at last.", agent="bob")
    provider.script("Both views together.", purpose="synthesis")
    events, record = await collect(retry("bob"), gateway)
    assert compact(events) == [
        "turn_started", "round_start", "agent_started", "delta", "agent_completed",
        "round_end", "synthesis_started", "delta", "synthesis_completed",
    ]  # fmt: skip
    started = events[0]
    assert isinstance(started, TurnStartedEvent)
    assert started.retries == "turn-0"
    assert {c.request.purpose for c in provider.calls()} == {"specialist", "synthesis"}
    prompt = provider.calls(purpose="synthesis")[0].request.messages[-1].content
    assert "Alice's recorded view." in prompt
    assert "Bob's view, at last." in prompt
    assert prompt.index("Alice's recorded view.") < prompt.index("Bob's view, at last.")
    assert [(m.agent_key, m.round, m.status) for m in record.messages] == [
        ("bob", 1, "ok"), ("manager", None, "ok")
    ]  # fmt: skip
    assert record.status == "completed"


async def test_a_later_rounds_agent_reads_the_earlier_rounds_only(
    gateway: LLMGateway, provider: ScriptedProvider
) -> None:
    provider.script("Dave again.", agent="dave")
    outputs = (ALICE_SAID, CAROL_SAID)
    events, _record = await collect(retry("dave", round_no=2, outputs=outputs), gateway)
    assert [e.round for e in events if isinstance(e, RoundStartEvent)] == [2]
    dave = provider.calls(agent="dave")[0].request.messages[-1].content
    assert "Alice's recorded view." in dave
    assert "Carol's round-two view." not in dave
    synthesis = provider.calls(purpose="synthesis")[0].request.messages[-1].content
    assert "Carol's round-two view." in synthesis


async def test_no_agents_is_the_synthesis_alone(
    gateway: LLMGateway, provider: ScriptedProvider
) -> None:
    provider.script("A synthesis, finally.", purpose="synthesis")
    events, record = await collect(retry(), gateway)
    assert compact(events) == [
        "turn_started", "synthesis_started", "delta", "synthesis_completed"
    ]  # fmt: skip
    assert [c.request.purpose for c in provider.calls()] == ["synthesis"]
    assert [m.role for m in record.messages] == ["manager"]
    assert (record.rounds, record.status) == (1, "completed")


async def test_a_retry_whose_synthesis_fails_again_falls_back_to_every_output(
    gateway: LLMGateway, provider: ScriptedProvider
) -> None:
    provider.script("Bob's view, at last.", agent="bob")
    provider.script(error=Unavailable("down"), purpose="synthesis")
    events, record = await collect(retry("bob"), gateway)
    last = events[-1]
    assert isinstance(last, SynthesisCompletedEvent)
    assert last.fallback
    assert last.text == "**Alice**\n\nAlice's recorded view.\n\n**Bob**\n\nBob's view, at last."
    assert record.status == "partial"
