"""engine/fold.py against the real engine: the record rebuilt from a finished turn's
events equals the engine's own, in every mode; cut short, it keeps the text so far."""

from __future__ import annotations

from dataclasses import replace

import pytest

from pantheon.engine.events import DeltaEvent
from pantheon.engine.fold import rebuild_record
from pantheon.engine.modes.specs import Mode, mode_spec
from pantheon.engine.record import TurnRecord
from pantheon.engine.snapshot import ReusedStage, TurnSnapshot
from pantheon.llm.errors import Unavailable
from pantheon.llm.gateway import LLMGateway
from pantheon.llm.providers.scripted import ScriptedProvider
from tests.engine.conftest import ALICE, BOB, CAROL, collect, snapshot
from tests.modes import MODES

REVIEW = '{"approved": true, "score": 8, "feedback": "good"}'


def _rows(record: TurnRecord) -> list[tuple[object, ...]]:
    return [
        (m.role, m.agent_key, m.agent_name, m.round, m.content, m.status, m.error_code, m.reused)
        for m in record.messages
    ]


def _snapshot(mode: Mode) -> TurnSnapshot:
    """A turn of ``mode`` shaped by its spec: one agent or three, the mentions it needs,
    and an earlier stage taken over where the mode can rerun."""
    spec = mode_spec(mode)
    roster = (ALICE,) if spec.session == "agent" else (ALICE, BOB, CAROL)
    message = "@bob and @carol?" if spec.needs_mentions else "What now?"
    made = snapshot(mode, message, roster=roster)
    if spec.can_rerun:
        made = replace(made, reuse=(ReusedStage("alice", "Alice", "notes"),))
    return made


@pytest.mark.parametrize("mode", MODES)
async def test_a_finished_turn_s_events_rebuild_the_engine_s_messages(
    mode: Mode, gateway: LLMGateway, provider: ScriptedProvider
) -> None:
    provider.script('{"agents": ["carol", "alice"]}', purpose="route")
    provider.script(REVIEW, purpose="review")
    provider.script(lambda r: f"{r.agent_key} says {len(r.messages)} things", purpose="specialist")
    provider.script("", agent="bob", error=Unavailable("down"))  # one failure everywhere
    snap = _snapshot(mode)
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
