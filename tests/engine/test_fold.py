"""engine/fold.py against the real engine: the record rebuilt from a finished turn's
events equals the engine's own, in every mode; cut short, it keeps the text so far."""

from __future__ import annotations

from dataclasses import replace

import pytest

from pantheon.engine.events import DeltaEvent
from pantheon.engine.fold import rebuild_record
from pantheon.engine.record import TurnRecord
from pantheon.engine.snapshot import ReusedStage, TurnSnapshot
from pantheon.llm.errors import Unavailable
from pantheon.llm.gateway import LLMGateway
from pantheon.llm.providers.scripted import ScriptedProvider
from tests.engine.conftest import ALICE, BOB, CAROL, collect, snapshot

REVIEW = '{"approved": true, "score": 8, "feedback": "good"}'


def _rows(record: TurnRecord) -> list[tuple[object, ...]]:
    return [
        (m.role, m.agent_key, m.agent_name, m.round, m.content, m.status, m.error_code, m.reused)
        for m in record.messages
    ]


def _snapshots() -> dict[str, TurnSnapshot]:
    roster = (ALICE, BOB, CAROL)
    return {
        "standalone": snapshot("standalone", roster=(ALICE,)),
        "roundtable": snapshot("roundtable", roster=roster),
        "manual": snapshot("manual", "@bob and @carol?", roster=roster),
        "orchestrator": snapshot("orchestrator", roster=roster),
        "pipeline": replace(
            snapshot("pipeline", roster=roster), reuse=(ReusedStage("alice", "Alice", "notes"),)
        ),
        "review": snapshot("review", roster=roster),
    }


@pytest.mark.parametrize("mode", list(_snapshots()))
async def test_a_finished_turn_s_events_rebuild_the_engine_s_messages(
    mode: str, gateway: LLMGateway, provider: ScriptedProvider
) -> None:
    provider.script('{"agents": ["carol", "alice"]}', purpose="route")
    provider.script(REVIEW, purpose="review")
    provider.script(lambda r: f"{r.agent_key} says {len(r.messages)} things", purpose="specialist")
    provider.script("", agent="bob", error=Unavailable("down"))  # one failure everywhere
    snap = _snapshots()[mode]
    events, record = await collect(snap, gateway)
    rebuilt = rebuild_record(snap.mode, events)
    assert _rows(rebuilt) == _rows(record)
    assert rebuilt.rounds == record.rounds
    assert rebuilt.output == record.output  # the review's closing block too


async def test_a_turn_cut_mid_answer_keeps_each_speaker_s_text_so_far(
    gateway: LLMGateway, provider: ScriptedProvider
) -> None:
    provider.script("one two three four", agent="bob")
    events, _record = await collect(snapshot("roundtable", roster=(ALICE, BOB, CAROL)), gateway)
    bob_deltas = [
        i for i, e in enumerate(events) if isinstance(e, DeltaEvent) and e.agent_key == "bob"
    ]
    cut = events[: bob_deltas[1] + 1]  # the process died after bob's second piece
    rebuilt = rebuild_record("roundtable", cut)
    assert [(m.agent_key, m.status, m.error_code) for m in rebuilt.messages] == [
        ("alice", "ok", None),
        ("bob", "cancelled", "interrupted"),
    ]
    so_far = "".join(e.text for e in cut if isinstance(e, DeltaEvent) and e.agent_key == "bob")
    assert rebuilt.messages[1].content == so_far
    assert rebuilt.output.endswith(f"Bob: {so_far} [interrupted]")
