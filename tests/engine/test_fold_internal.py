"""What only the engine held becomes internal events, and the fold of a turn's log then
gives the record the engine kept, also where no public event says it: a cancelled
speaker's text so far, a pause for approval (its resume state), the session summary
(ADR 0038)."""

from __future__ import annotations

from contextlib import aclosing
from dataclasses import replace

from pantheon.engine.events import DeltaEvent, TurnEvent
from pantheon.engine.fold import rebuild_record
from pantheon.engine.record import TurnRecord
from pantheon.engine.run import run_turn
from pantheon.engine.snapshot import TurnSnapshot
from pantheon.llm.gateway import LLMGateway
from pantheon.llm.providers.scripted import ScriptedProvider
from tests.engine.conftest import ALICE, BOB, CAROL, snapshot
from tests.engine.test_approvals import GATED_ALICE, asks
from tests.engine.test_concurrency import WORDS, route
from tests.engine.test_history_fold import stored
from tests.engine.toolbox import TestTools


async def _published(
    snap: TurnSnapshot, gateway: LLMGateway, *, stop_after_deltas: int | None = None
) -> tuple[list[TurnEvent], TurnRecord]:
    """The turn's log as the live runner publishes it (the outbox before each event and
    once the engine stopped), and the engine's own record; closed after that many
    deltas when ``stop_after_deltas`` is given (a cancel)."""
    record, log = TurnRecord(outbox=[]), list[TurnEvent]()
    assert record.outbox is not None
    deltas = 0
    async with aclosing(run_turn(snap, gateway, TestTools(), record)) as events:
        async for event in events:
            log.extend(record.outbox)
            record.outbox.clear()
            log.append(event)
            deltas += isinstance(event, DeltaEvent)
            if stop_after_deltas is not None and deltas >= stop_after_deltas:
                break
    log.extend(record.outbox)
    return log, record


def _same(folded: TurnRecord, record: TurnRecord) -> None:
    assert folded.messages == record.messages
    assert folded.llm_calls == record.llm_calls
    assert folded.tool_calls == record.tool_calls
    assert (folded.status, folded.output, folded.rounds) == (
        record.status, record.output, record.rounds,
    )  # fmt: skip
    assert (folded.summary, folded.context_dropped, folded.resume_state) == (
        record.summary, record.context_dropped, record.resume_state,
    )  # fmt: skip


async def test_a_cancelled_turn_s_open_speakers_fold_as_the_engine_recorded_them(
    gateway: LLMGateway, provider: ScriptedProvider
) -> None:
    route(provider, "alice", "bob")
    provider.script(WORDS, purpose="specialist", chunk_delay_s=0.01)
    log, record = await _published(snapshot("orchestrator"), gateway, stop_after_deltas=3)
    assert {m.status for m in record.messages} == {"cancelled"}
    assert [e.type for e in log].count("message_record") == len(record.messages)
    _same(rebuild_record("orchestrator", log), record)
    assert "[cancelled]" in record.output
    assert "[interrupted]" not in record.output


async def test_a_pause_for_approval_folds_to_its_resume_state(
    gateway: LLMGateway, provider: ScriptedProvider
) -> None:
    provider.script(asks('{"expression": "2*3"}'), agent="alice")
    log, record = await _published(snapshot("roundtable", "go", roster=[GATED_ALICE, BOB]), gateway)
    assert record.status == "awaiting_approval"
    assert record.resume_state is not None
    folded = rebuild_record("roundtable", log)
    _same(folded, record)
    assert folded.output == "Alice: Let me see. [awaiting approval]"


async def test_the_session_summary_and_context_dropped_fold_from_the_log(
    gateway: LLMGateway, provider: ScriptedProvider
) -> None:
    snap = replace(
        snapshot("standalone", roster=(ALICE,), history=stored(300)), stored_history=True
    )
    log, record = await _published(snap, gateway)
    assert record.summary is not None
    assert "summary_record" in [e.type for e in log]
    _same(rebuild_record("standalone", log), record)


async def test_a_review_s_closing_block_folds_from_its_review_completed(
    gateway: LLMGateway, provider: ScriptedProvider
) -> None:
    provider.script('{"approved": true, "score": 8, "feedback": "good"}', purpose="review")
    log, record = await _published(snapshot("review", roster=(ALICE, BOB, CAROL)), gateway)
    assert record.closing is not None
    _same(rebuild_record("review", log), record)
