"""Fixtures and helpers for the pure engine: a scripted gateway, snapshots, a runner."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from pantheon.engine.events import TurnEvent
from pantheon.engine.no_tools import NoTools
from pantheon.engine.record import TurnRecord
from pantheon.engine.run import run_turn
from pantheon.engine.snapshot import AgentSnapshot, HistoryEntry, Mode, TurnSnapshot
from pantheon.engine.tooling import ToolRunner
from pantheon.llm.gateway import LLMGateway
from pantheon.llm.providers.scripted import ScriptedProvider
from pantheon.llm.registry import ModelRegistry
from pantheon.llm.types import ModelAlias
from pantheon.settings import LLMSettings, OrchestratorSettings, ToolSettings

PRICED = ModelAlias(
    name="priced",
    provider="scripted",
    input_price_per_mtok=1_000_000.0,  # one dollar per token: easy sums
    output_price_per_mtok=2_000_000.0,
)


def agent(key: str, position: int, *, model: str = "scripted", role: str = "") -> AgentSnapshot:
    return AgentSnapshot(
        id=f"id-{key}",
        key=key,
        name=key.capitalize(),
        role_prompt=role or f"You are the {key} specialist.",
        model=model,
        position=position,
    )


ALICE, BOB, CAROL, DAVE = (agent(k, i) for i, k in enumerate(["alice", "bob", "carol", "dave"]))
ROSTER = (ALICE, BOB, CAROL, DAVE)


def snapshot(
    mode: Mode,
    message: str = "What now?",
    *,
    roster: Sequence[AgentSnapshot] = ROSTER,
    history: Sequence[HistoryEntry] = (),
    manager_model: str = "scripted",
    tool_limits: ToolSettings | None = None,
    **bounds: int | bool,
) -> TurnSnapshot:
    return TurnSnapshot(
        turn_id="turn-1",
        session_id="session-1",
        mode=mode,
        message=message,
        roster=tuple(roster),
        manager_model=manager_model,
        history=tuple(history),
        orchestrator=OrchestratorSettings.model_validate(bounds),
        tool_limits=tool_limits or ToolSettings(),
        owner_id="owner-1",
        room_id="room-1",
    )


async def collect(
    snap: TurnSnapshot, gateway: LLMGateway, tools: ToolRunner | None = None
) -> tuple[list[TurnEvent], TurnRecord]:
    record = TurnRecord()
    runner = tools if tools is not None else NoTools()
    events = [event async for event in run_turn(snap, gateway, runner, record)]
    return events, record


def types(events: Sequence[TurnEvent]) -> list[str]:
    return [e.type for e in events]


def compact(events: Sequence[TurnEvent | str]) -> list[str]:
    """Event types (or type names) with runs of deltas collapsed to one ``delta``."""
    out: list[str] = []
    for name in (e if isinstance(e, str) else e.type for e in events):
        if not (name == "delta" and out and out[-1] == "delta"):
            out.append(name)
    return out


@pytest.fixture
def provider() -> ScriptedProvider:
    return ScriptedProvider()


@pytest.fixture
def gateway(provider: ScriptedProvider) -> LLMGateway:
    registry = ModelRegistry([ModelAlias(name="scripted", provider="scripted"), PRICED])
    return LLMGateway(registry, {"scripted": provider}, LLMSettings(max_attempts=1))
