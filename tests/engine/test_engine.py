"""Engine-level promises: exact sequences, unexpected errors, preconditions."""

from __future__ import annotations

import json
import logging

import pytest

from pantheon.engine.errors import BrokenPrecondition
from pantheon.engine.events import AgentFailedEvent, TurnStartedEvent
from pantheon.engine.modes.orchestrator import OrchestratorMode
from pantheon.engine.modes.registry import select_mode
from pantheon.llm.gateway import LLMGateway
from pantheon.llm.providers.scripted import ScriptedProvider
from pantheon.llm.types import LLMRequest
from tests.engine.conftest import ALICE, BOB, collect, snapshot, types


async def test_exact_orchestrator_sequence(gateway: LLMGateway, provider: ScriptedProvider) -> None:
    provider.script(json.dumps({"agents": ["bob", "alice"]}), purpose="route")
    provider.script('{"continue": true}', purpose="evaluate", times=1)
    provider.script("ok", purpose="specialist")
    provider.script("done", purpose="synthesis")
    snap = snapshot("orchestrator", roster=[ALICE, BOB], sequential_specialists=True)
    events, record = await collect(snap, gateway)
    one_round = [
        "round_start",
        "routing",
        *["agent_started", "delta", "agent_completed"] * 2,
        "round_end",
        "evaluation",
    ]
    synthesis = ["synthesis_started", "delta", "synthesis_completed"]
    assert types(events) == ["turn_started", *one_round * 2, *synthesis]
    assert isinstance(events[0], TurnStartedEvent)
    assert events[0].agents == ["alice", "bob"]
    assert {e.turn_id for e in events} == {"turn-1"}
    assert record.rounds == 2


async def test_unexpected_provider_error_is_a_safe_agent_failure(
    gateway: LLMGateway, provider: ScriptedProvider, caplog: pytest.LogCaptureFixture
) -> None:
    def explode(request: LLMRequest) -> str:
        raise RuntimeError("secret stack detail")

    provider.script(explode, agent="bob")
    with caplog.at_level(logging.ERROR):
        events, record = await collect(snapshot("roundtable", roster=[ALICE, BOB]), gateway)
    failed = [e for e in events if isinstance(e, AgentFailedEvent)]
    assert [(e.agent_key, e.code) for e in failed] == [("bob", "internal_error")]
    assert "secret" not in failed[0].error
    assert "secret stack detail" in caplog.text  # the detail goes to the log only
    assert record.status == "partial"


async def test_orchestrator_needs_an_agent(gateway: LLMGateway) -> None:
    with pytest.raises(BrokenPrecondition, match="at least one agent"):
        await collect(snapshot("orchestrator", roster=[]), gateway)


def test_select_mode() -> None:
    assert isinstance(select_mode("orchestrator"), OrchestratorMode)
    with pytest.raises(BrokenPrecondition, match="unknown turn mode"):
        select_mode("chaos")  # type: ignore[arg-type]
