"""Every orchestrator path through ``run_turn`` with the scripted fake."""

from __future__ import annotations

import json
from collections.abc import Sequence

import pytest

from pantheon.engine.events import (
    AgentFailedEvent,
    DeltaEvent,
    EvaluationEvent,
    RoutingEvent,
    SynthesisCompletedEvent,
    TurnEvent,
)
from pantheon.engine.prompting import BEGIN_DATA
from pantheon.llm.errors import BadRequest, Unavailable
from pantheon.llm.gateway import LLMGateway
from pantheon.llm.providers.scripted import ScriptedProvider
from tests.engine.conftest import ALICE, BOB, CAROL, DAVE, agent, collect, compact, snapshot

AGENT_EVENTS = {"agent_started", "delta", "agent_completed", "agent_failed"}


def route_json(*keys: str, **instructions: str) -> str:
    return json.dumps({"agents": list(keys), "instructions": instructions})


def skeleton(events: Sequence[TurnEvent]) -> list[str]:
    """The event types with the (interleaving) specialist events left out."""
    return [
        e.type
        for e in events
        if e.type not in AGENT_EVENTS or getattr(e, "agent_key", "") == "manager"
    ]


def per_agent(events: Sequence[TurnEvent], key: str) -> list[str]:
    return compact([e for e in events if getattr(e, "agent_key", None) == key])


def routings(events: Sequence[TurnEvent]) -> list[tuple[list[str], bool]]:
    return [(e.agents, e.fallback) for e in events if isinstance(e, RoutingEvent)]


def evaluations(events: Sequence[TurnEvent]) -> list[tuple[bool, bool]]:
    return [(e.continue_, e.fallback) for e in events if isinstance(e, EvaluationEvent)]


ROUND = ["round_start", "routing", "round_end"]
SYNTHESIS = ["synthesis_started", "delta", "synthesis_completed"]


async def test_stop_after_round_one(gateway: LLMGateway, provider: ScriptedProvider) -> None:
    provider.script(route_json("bob", "alice", bob="Check the numbers."), purpose="route")
    provider.script("Alice's view.", agent="alice")
    provider.script("Bob's view.", agent="bob")
    provider.script("All in all: fine.", purpose="synthesis")
    events, record = await collect(snapshot("orchestrator", "Is it fine?"), gateway)
    assert compact(skeleton(events)) == ["turn_started", *ROUND, "evaluation", *SYNTHESIS]
    assert per_agent(events, "bob") == ["agent_started", "delta", "agent_completed"]
    assert routings(events) == [(["bob", "alice"], False)]
    assert evaluations(events) == [(False, False)]
    assert "The manager asks you specifically: Check the numbers." in (
        provider.calls(agent="bob")[0].request.messages[-1].content
    )
    assert "asks you" not in provider.calls(agent="alice")[0].request.messages[-1].content
    synthesis_prompt = provider.calls(purpose="synthesis")[0].request.messages[-1].content
    assert "Alice's view." in synthesis_prompt
    assert "Bob's view." in synthesis_prompt
    assert record.output == (
        "[Round 1]\nBob: Bob's view.\n\nAlice: Alice's view.\n\n"
        "Manager synthesis:\nAll in all: fine."
    )
    assert [(m.role, m.agent_key, m.round) for m in record.messages] == [
        ("assistant", "bob", 1),
        ("assistant", "alice", 1),
        ("manager", "manager", None),
    ]
    purposes = [(c.purpose, c.agent_key) for c in record.llm_calls]
    assert purposes == [
        ("route", "manager"),
        ("specialist", "bob"),
        ("specialist", "alice"),
        ("evaluate", "manager"),
        ("synthesis", "manager"),
    ]
    assert record.status == "completed"
    assert record.rounds == 1
    manager_text = "".join(
        e.text for e in events if isinstance(e, DeltaEvent) and e.agent_key == "manager"
    )
    assert manager_text == "All in all: fine."
    assert [e.text for e in events if isinstance(e, SynthesisCompletedEvent)] == [manager_text]


async def test_continue_to_max_depth(gateway: LLMGateway, provider: ScriptedProvider) -> None:
    provider.script(route_json("carol"), purpose="route")
    provider.script(route_json("bob"), purpose="route", times=1)
    provider.script(route_json("alice"), purpose="route", times=1)
    provider.script('{"continue": true}', purpose="evaluate")
    provider.script(lambda r: f"{r.agent_key} done", purpose="specialist")
    events, record = await collect(snapshot("orchestrator"), gateway)
    assert routings(events) == [(["alice"], False), (["bob"], False), (["carol"], False)]
    assert evaluations(events) == [(True, False), (True, False)]  # none after round 3
    assert len(provider.calls(purpose="evaluate")) == 2
    assert compact(skeleton(events))[-4:] == ["round_end", *SYNTHESIS]
    round2_route = provider.calls(purpose="route")[1].request.messages[-1].content
    assert "This is round 2" in round2_route
    assert "alice done" in round2_route
    carol_saw = provider.calls(agent="carol")[0].request.messages[-1].content
    assert "alice done" in carol_saw.split(BEGIN_DATA)[1]
    assert "bob done" in carol_saw
    assert record.rounds == 3
    assert record.output.startswith("[Round 1]\nAlice: alice done\n\n[Round 2]\nBob: bob done")


async def test_cap_reached_mid_round(gateway: LLMGateway, provider: ScriptedProvider) -> None:
    provider.script(route_json("dave", "carol", "bob", "alice"), purpose="route")
    provider.script('{"continue": true}', purpose="evaluate")
    snap = snapshot("orchestrator", max_specialist_invocations=4, max_agents_per_round=3)
    events, record = await collect(snap, gateway)
    assert routings(events) == [(["dave", "carol", "bob"], False), (["dave"], False)]
    assert evaluations(events) == [(True, False)]  # the cap forbids a third round
    second_route = provider.calls(purpose="route")[1].request.messages[0].content
    assert "at most 1" in second_route
    assert len(provider.calls(purpose="specialist")) == 4
    assert record.rounds == 2


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("I would ask bob.", (["alice"], True)),
        ('{"agents": ["nobody"]}', (["alice"], True)),
        ('```json\n{"agents": ["Carol", "bob"]}\n```', (["carol", "bob"], False)),
        (
            'Sure! {"instructions": {"dave": "go"}, "agents": ["dave"]} Hope it helps.',
            (["dave"], False),
        ),
    ],
)
async def test_routing_answers(
    gateway: LLMGateway, provider: ScriptedProvider, answer: str, expected: tuple[list[str], bool]
) -> None:
    provider.script(answer, purpose="route")
    roster = [DAVE, CAROL, BOB, ALICE]  # fallback is the first by position, not by list
    events, _ = await collect(snapshot("orchestrator", roster=roster), gateway)
    assert routings(events) == [expected]
    assert [c.request.agent_key for c in provider.calls(purpose="specialist")] == expected[0]


async def test_routing_call_error_falls_back(
    gateway: LLMGateway, provider: ScriptedProvider
) -> None:
    provider.script(error=Unavailable("down"), purpose="route")
    events, record = await collect(snapshot("orchestrator"), gateway)
    assert routings(events) == [(["alice"], True)]
    assert (record.llm_calls[0].purpose, record.llm_calls[0].status) == ("route", "error")
    assert record.llm_calls[0].error_code == "unavailable"
    assert record.status == "completed"


def fallback_reasons(events: Sequence[TurnEvent]) -> list[tuple[str, str | None, str | None]]:
    return [
        (e.type, e.reason, e.model) for e in events if isinstance(e, RoutingEvent | EvaluationEvent)
    ]


async def test_a_manager_that_is_down_says_why_and_which_model(
    gateway: LLMGateway, provider: ScriptedProvider
) -> None:
    for purpose in ("route", "evaluate", "synthesis"):
        provider.script(error=Unavailable("down"), purpose=purpose)
    events, record = await collect(snapshot("orchestrator"), gateway)
    assert fallback_reasons(events) == [
        ("routing", "unavailable", "scripted"),
        ("evaluation", "unavailable", "scripted"),
    ]
    assert [e.code for e in events if isinstance(e, AgentFailedEvent)] == ["unavailable"]
    assert record.status == "partial"


async def test_an_unreadable_manager_answer_is_bad_json(
    gateway: LLMGateway, provider: ScriptedProvider
) -> None:
    provider.script("Ask Alice, I think.", purpose="route")
    provider.script("Maybe?", purpose="evaluate")
    events, _ = await collect(snapshot("orchestrator"), gateway)
    assert fallback_reasons(events) == [
        ("routing", "bad_json", "scripted"),
        ("evaluation", "bad_json", "scripted"),
    ]


async def test_a_decision_has_no_fallback_reason(
    gateway: LLMGateway, provider: ScriptedProvider
) -> None:
    provider.script(route_json("bob"), purpose="route")
    provider.script('{"continue": false}', purpose="evaluate")
    events, _ = await collect(snapshot("orchestrator"), gateway)
    assert fallback_reasons(events) == [("routing", None, None), ("evaluation", None, None)]


@pytest.mark.parametrize("answer", ["Yes, continue!", '{"continue": "perhaps"}', ""])
async def test_unparsable_evaluation_stops(
    gateway: LLMGateway, provider: ScriptedProvider, answer: str
) -> None:
    provider.script(answer, purpose="evaluate")
    events, _ = await collect(snapshot("orchestrator"), gateway)
    assert evaluations(events) == [(False, True)]
    assert len(provider.calls(purpose="route")) == 1


async def test_failed_evaluation_stops(gateway: LLMGateway, provider: ScriptedProvider) -> None:
    provider.script(error=BadRequest("nope"), purpose="evaluate")
    events, record = await collect(snapshot("orchestrator"), gateway)
    assert evaluations(events) == [(False, True)]
    assert [c.status for c in record.llm_calls if c.purpose == "evaluate"] == ["error"]
    assert compact(skeleton(events))[-3:] == SYNTHESIS


async def test_no_evaluation_at_max_depth(gateway: LLMGateway, provider: ScriptedProvider) -> None:
    events, _ = await collect(snapshot("orchestrator", max_depth=1), gateway)
    assert evaluations(events) == []
    assert provider.calls(purpose="evaluate") == []
    assert compact(skeleton(events)) == ["turn_started", *ROUND, *SYNTHESIS]


async def test_all_specialists_fail(gateway: LLMGateway, provider: ScriptedProvider) -> None:
    provider.script(route_json("alice", "bob"), purpose="route")
    provider.script('{"continue": true}', purpose="evaluate")
    provider.script(error=BadRequest("x"), purpose="specialist")
    events, record = await collect(snapshot("orchestrator", max_depth=2), gateway)
    assert compact(skeleton(events)) == ["turn_started", *ROUND, "evaluation", *ROUND]
    assert provider.calls(purpose="synthesis") == []
    assert record.status == "failed"
    assert record.output == (
        "[Round 1]\nAlice: [failed: bad_request]\n\nBob: [failed: bad_request]\n\n"
        "[Round 2]\nAlice: [failed: bad_request]\n\nBob: [failed: bad_request]"
    )


async def test_synthesis_fails_mid_stream(gateway: LLMGateway, provider: ScriptedProvider) -> None:
    provider.script(route_json("alice", "bob"), purpose="route")
    provider.script("one two three", purpose="synthesis", error=Unavailable("x"), error_at_chunk=2)
    events, record = await collect(snapshot("orchestrator"), gateway)
    assert compact(skeleton(events))[-4:] == [
        "synthesis_started", "delta", "agent_failed", "synthesis_completed"
    ]  # fmt: skip
    failed = events[-2]
    assert isinstance(failed, AgentFailedEvent)
    assert failed.agent_key == "manager"
    assert failed.code == "unavailable"
    assert record.status == "partial"
    synthesis = record.messages[-1]
    assert (synthesis.role, synthesis.status, synthesis.content) == (
        "manager",
        "failed",
        "one two ",
    )
    assert record.output.endswith("Manager synthesis:\n[failed: unavailable]")
    assert "Alice: alice:" in record.output
    assert "Bob: bob:" in record.output
    fallback = events[-1]
    assert isinstance(fallback, SynthesisCompletedEvent)
    assert (fallback.fallback, fallback.reason) == (True, "unavailable")
    assert fallback.text.startswith("**Alice**\n\nalice:")
    assert "\n\n**Bob**\n\nbob:" in fallback.text


async def test_an_unreachable_manager_falls_back_to_the_specialists_answer(
    gateway: LLMGateway, provider: ScriptedProvider
) -> None:
    """Every manager call fails; the one specialist that ran answered in full: that answer
    is the turn's, said so with the manager's model and the failure's code."""
    provider.script(error=Unavailable("down"), agent="manager")
    provider.script("Alice's full answer.", agent="alice")
    events, record = await collect(snapshot("orchestrator", max_depth=2), gateway)
    last = events[-1]
    assert isinstance(last, SynthesisCompletedEvent)
    assert last.text == "Alice's full answer."
    assert (last.fallback, last.reason, last.model) == (True, "unavailable", "scripted")
    wire = json.loads(last.model_dump_json(by_alias=True))
    assert (wire["fallback"], wire["model"]) == (True, "scripted")
    assert record.status == "partial"
    assert [m.role for m in record.messages] == ["assistant", "manager"]  # nothing new


async def test_a_written_synthesis_carries_no_fallback_flag(
    gateway: LLMGateway, provider: ScriptedProvider
) -> None:
    provider.script(route_json("alice"), purpose="route")
    provider.script("Fine.", purpose="synthesis")
    events, _record = await collect(snapshot("orchestrator", max_depth=1), gateway)
    done = [e for e in events if isinstance(e, SynthesisCompletedEvent)]
    assert [d.fallback for d in done] == [False]
    assert "fallback" not in json.loads(done[0].model_dump_json(by_alias=True))


async def test_one_failing_specialist_is_partial(
    gateway: LLMGateway, provider: ScriptedProvider
) -> None:
    provider.script(route_json("alice", "bob"), purpose="route")
    provider.script(error=BadRequest("x"), agent="bob")
    events, record = await collect(snapshot("orchestrator"), gateway)
    assert per_agent(events, "bob") == ["agent_started", "agent_failed"]
    synthesis_prompt = provider.calls(purpose="synthesis")[0].request.messages[-1].content
    assert "(@alice" in synthesis_prompt
    assert "(@bob" not in synthesis_prompt
    assert record.status == "partial"


async def test_unknown_agent_model_fails_that_agent(
    gateway: LLMGateway, provider: ScriptedProvider
) -> None:
    ghost = agent("ghost", 0, model="missing")
    events, record = await collect(snapshot("orchestrator", roster=[ghost, BOB]), gateway)
    assert per_agent(events, "ghost") == ["agent_started", "agent_failed"]
    assert record.llm_calls[1].error_code == "unknown_model"
    assert record.status == "failed"


async def test_costs_are_recorded(gateway: LLMGateway, provider: ScriptedProvider) -> None:
    priced = agent("priced", 0, model="priced")
    provider.script("a b c", agent="priced")
    _, record = await collect(snapshot("orchestrator", roster=[priced], max_depth=1), gateway)
    call = next(c for c in record.llm_calls if c.agent_key == "priced")
    assert call.output_tokens == 3
    assert not call.usage_estimated
    assert call.cost_usd == pytest.approx(call.input_tokens + 2 * 3)
    assert record.usage().cost_usd == pytest.approx(call.cost_usd)
    assert record.usage().input_tokens == sum(c.input_tokens for c in record.llm_calls)
    assert call.latency_ms >= 0
    assert call.ttft_ms is not None
