"""Orchestrator paths through the HTTP API: routing, evaluation, caps, failures."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import httpx
import pytest

from pantheon.llm.errors import Unavailable
from pantheon.llm.providers.scripted import ScriptedProvider
from pantheon.settings import OrchestratorSettings, Settings
from tests.factories import create_room, create_session
from tests.sse_client import Event, stream_turn
from tests.turns_api.apps import running_client

KEYS = ["alpha", "beta", "gamma"]


@dataclass
class Case:
    script: Callable[[ScriptedProvider], None]
    status: str
    rounds: int
    routed: list[list[str]]
    fallbacks: list[bool]
    evaluations: list[bool] = field(default_factory=list)
    synthesis: bool = True
    output_tail: str = "Manager synthesis:\nthe synthesis"


def _route(*answers: str) -> Callable[[ScriptedProvider], None]:
    def script(provider: ScriptedProvider) -> None:
        for answer in reversed(answers):  # the newest rule wins: script the last round first
            provider.script(answer, purpose="route", times=1)
        provider.script('{"continue": true}', purpose="evaluate")

    return script


def _stop_after_one(provider: ScriptedProvider) -> None:
    provider.script('{"agents": ["beta", "alpha"]}', purpose="route")
    provider.script('{"continue": false}', purpose="evaluate")


def _unparsable_eval(provider: ScriptedProvider) -> None:
    provider.script('{"agents": ["alpha"]}', purpose="route")
    provider.script("sure, keep going!", purpose="evaluate")


def _all_fail(provider: ScriptedProvider) -> None:
    provider.script('{"agents": ["alpha", "beta"]}', purpose="route")
    provider.script('{"continue": false}', purpose="evaluate")
    provider.script(error=Unavailable("down"), purpose="specialist")


def _synthesis_fails(provider: ScriptedProvider) -> None:
    _stop_after_one(provider)
    provider.script(error=Unavailable("down"), purpose="synthesis")


def _route_errors(provider: ScriptedProvider) -> None:
    provider.script(error=Unavailable("down"), purpose="route")
    provider.script('{"continue": false}', purpose="evaluate")


CASES = {
    "stop after round 1": Case(
        _stop_after_one, "completed", 1, [["beta", "alpha"]], [False], [False]
    ),
    "continue to depth 3": Case(
        _route('{"agents": ["alpha"]}', '{"agents": ["beta"]}', '{"agents": ["gamma"]}'),
        "completed", 3, [["alpha"], ["beta"], ["gamma"]], [False] * 3, [True, True],
    ),
    "fenced and prose routing": Case(
        _route(
            'Sure!\n```json\n{"agents": ["GAMMA", "nobody"]}\n```',
            'I pick {"Agents": ["beta"], "instructions": {"beta": "check"}} there.',
            "no json at all",
        ),
        "completed", 3, [["gamma"], ["beta"], ["alpha"]], [False, False, True], [True, True],
    ),
    "unparsable evaluation stops": Case(
        _unparsable_eval, "completed", 1, [["alpha"]], [False], [False]
    ),
    "routing call errors": Case(_route_errors, "completed", 1, [["alpha"]], [True], [False]),
    "all specialists fail": Case(
        _all_fail, "failed", 1, [["alpha", "beta"]], [False], [False], False,
        "Beta: [failed: unavailable]",
    ),
    "synthesis fails": Case(
        _synthesis_fails, "partial", 1, [["beta", "alpha"]], [False], [False], False,
        "Manager synthesis:\n[failed: unavailable]",
    ),
}  # fmt: skip


def _of(events: list[Event], kind: str) -> list[dict[str, object]]:
    return [data for _, data in events if data["type"] == kind]


@pytest.mark.parametrize("name", list(CASES))
async def test_orchestrator_path(
    client: httpx.AsyncClient, scripted: ScriptedProvider, name: str
) -> None:
    case = CASES[name]
    scripted.script("the synthesis", purpose="synthesis")
    case.script(scripted)  # newer rules win, so a case may still make the synthesis fail
    room = await create_room(client, KEYS, mode="orchestrator")
    session = await create_session(client, room["id"])
    events = await stream_turn(client, session["id"], {"message": "solve it"})
    routing = _of(events, "routing")
    assert [r["agents"] for r in routing] == case.routed
    assert [r["fallback"] for r in routing] == case.fallbacks
    assert [e["continue"] for e in _of(events, "evaluation")] == case.evaluations
    # A failed synthesis is followed by its fallback (the specialists' outputs).
    done = [bool(e.get("fallback")) for e in _of(events, "synthesis_completed")]
    assert done == ([] if case.status == "failed" else [not case.synthesis])
    assert events[-1][1]["status"] == case.status
    turn = (await client.get(f"/v1/turns/{events[0][1]['turn_id']}")).json()
    assert turn["status"] == case.status
    assert turn["rounds"] == case.rounds
    assert turn["output"].endswith(case.output_tail)


async def test_cap_reached_mid_round(settings: Settings, scripted: ScriptedProvider) -> None:
    scripted.script('{"agents": ["gamma", "beta", "alpha"]}', purpose="route")
    scripted.script('{"agents": ["alpha", "beta", "gamma"]}', purpose="route", times=1)
    scripted.script('{"continue": true}', purpose="evaluate")
    capped = settings.model_copy(
        update={"orchestrator": OrchestratorSettings(max_specialist_invocations=4)}
    )
    async with running_client(capped, scripted) as client:
        room = await create_room(client, KEYS, mode="orchestrator")
        session = await create_session(client, room["id"])
        events = await stream_turn(client, session["id"], {"message": "solve it"})
    assert [r["agents"] for r in _of(events, "routing")] == [KEYS, ["gamma"]]
    # one evaluation after round 1; none after round 2, where the cap left no room
    assert [e["round"] for e in _of(events, "evaluation")] == [1]
    assert len(scripted.calls(purpose="specialist")) == 4
    assert events[-1][1]["status"] == "completed"
