from __future__ import annotations

from datetime import UTC, datetime

from pantheon.engine.record import LLMCallRecord, ProducedMessage, TurnRecord


def message(key: str, content: str, round_no: int | None = None, **kw: str) -> ProducedMessage:
    role = "manager" if key == "manager" else "assistant"
    return ProducedMessage(role, key, key.capitalize(), round_no, content, **kw)  # type: ignore[arg-type]


def fill(record: TurnRecord, *messages: ProducedMessage) -> TurnRecord:
    for m in messages:
        record.set_message(record.reserve_message(), m)
    return record


def test_slots_keep_reservation_order_and_skip_unfilled() -> None:
    record = TurnRecord()
    first, never, last = (
        record.reserve_message(),
        record.reserve_message(),
        record.reserve_message(),
    )
    record.set_message(last, message("bob", "b"))
    record.set_message(first, message("alice", "a"))
    assert never == 1
    assert [m.agent_key for m in record.messages] == ["alice", "bob"]


def test_flat_output_and_statuses() -> None:
    record = fill(TurnRecord(mode="roundtable"), message("alice", "hi"), message("bob", "yo"))
    assert record.output == "Alice: hi\n\nBob: yo"
    assert record.status == "completed"
    partial = fill(record, message("carol", "par", status="cancelled"))
    assert partial.output.endswith("Carol: par [cancelled]")
    assert partial.status == "partial"
    failed = fill(TurnRecord(), message("alice", "", status="failed", error_code="timeout"))
    assert failed.output == "Alice: [failed: timeout]"
    assert failed.status == "failed"
    assert TurnRecord().status == "failed"
    assert TurnRecord().output == ""


def test_orchestrator_output() -> None:
    record = fill(
        TurnRecord(mode="orchestrator"),
        message("alice", "a1", 1),
        message("bob", "", 1, status="failed", error_code="timeout"),
        message("alice", "a2", 2),
        message("manager", "final"),
    )
    assert record.output == (
        "[Round 1]\nAlice: a1\n\nBob: [failed: timeout]\n\n[Round 2]\nAlice: a2\n\n"
        "Manager synthesis:\nfinal"
    )
    assert record.status == "partial"


def test_usage_totals() -> None:
    record = TurnRecord()
    for tokens in (1, 2):
        call = LLMCallRecord(
            "specialist",
            "m",
            "a",
            None,
            tokens,
            tokens * 10,
            False,
            5,
            1,
            "ok",
            None,
            0.5,
            datetime.now(UTC),
        )
        record.set_call(record.reserve_call(), call)
    usage = record.usage()
    assert (usage.input_tokens, usage.output_tokens, usage.cost_usd) == (3, 30, 1.0)
