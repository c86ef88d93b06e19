"""The crash journal's writer (live/journal.py) on a real registry, without a database:
what it writes, in which batches, and when it drops a turn's file."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any, BinaryIO

import pytest

from pantheon.db.base import utcnow
from pantheon.engine.events import (
    AgentCompletedEvent,
    DeltaEvent,
    TokenUsage,
    TurnStartedEvent,
    event_to_json,
)
from pantheon.live import journal as journal_module
from pantheon.live.journal import BATCH_EVENTS, TurnJournal
from pantheon.live.meta import TurnMeta
from pantheon.live.registry import LiveTurn, LiveTurnRegistry
from tests.waiting import until

Body = Callable[[LiveTurn], Coroutine[Any, Any, None]]


@pytest.fixture
def batches(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """Every batch of event texts the journal wrote, in order (the real write still runs)."""
    seen: list[list[str]] = []
    real = journal_module._append

    def counting(handle: BinaryIO, texts: list[str]) -> None:
        seen.append(list(texts))
        real(handle, texts)

    monkeypatch.setattr(journal_module, "_append", counting)
    return seen


def _live(key: str | None = None) -> LiveTurn:
    turn_id, session_id = str(uuid.uuid4()), str(uuid.uuid4())
    meta = TurnMeta(
        turn_id=turn_id, session_id=session_id, owner_id=str(uuid.uuid4()), mode="standalone",
        message="hello", created_at=utcnow(), idempotency_key=key,
    )  # fmt: skip
    return LiveTurn(turn_id, session_id, uuid.uuid4(), idempotency_key=key, meta=meta)


def _started(live: LiveTurn) -> TurnStartedEvent:
    return TurnStartedEvent(
        turn_id=live.turn_id, session_id=live.session_id, mode="standalone", agents=["a"]
    )


def _delta(live: LiveTurn, text: str) -> DeltaEvent:
    return DeltaEvent(turn_id=live.turn_id, agent_key="a", text=text)


def _entries(directory: Path) -> list[Path]:
    return sorted(directory.iterdir())


def _lines(path: Path) -> list[str]:
    return path.read_text().split("\n")[:-1] if path.exists() else []


async def test_after_the_first_write_a_boundary_writes_at_once_and_deltas_wait(
    tmp_path: Path, batches: list[list[str]]
) -> None:
    journal = TurnJournal(tmp_path, flush_s=60.0)  # no timer flush within this test
    registry = LiveTurnRegistry(journal)
    live, gate = _live(), asyncio.Event()

    async def body(turn: LiveTurn) -> None:
        turn.publish(_started(turn))
        for i in range(BATCH_EVENTS):  # enough to be written without the timer
            turn.publish(_delta(turn, f"t{i}"))
        await gate.wait()
        for i in range(10):
            turn.publish(_delta(turn, f"u{i}"))
        turn.publish(
            AgentCompletedEvent(turn_id=turn.turn_id, agent_key="a", text="", usage=TokenUsage())
        )
        await asyncio.Event().wait()  # runs until cancelled

    registry.join_or_start(live, body)
    path = journal.path(live.turn_id)
    await until(lambda: len(_lines(path)) == 2 + BATCH_EVENTS)
    assert TurnMeta.from_json(_lines(path)[0]) == live.meta
    gate.set()
    await until(lambda: len(_lines(path)) == 2 + BATCH_EVENTS + 11)
    assert _lines(path)[1:] == [p.data for p in live.events]
    assert [len(batch) for batch in batches] == [1 + BATCH_EVENTS, 11]  # one write each
    live.cancel()
    await journal.drain()


async def test_the_first_write_and_lone_deltas_come_after_the_flush_interval(
    tmp_path: Path, batches: list[list[str]]
) -> None:
    journal = TurnJournal(tmp_path, flush_s=0.05)
    registry = LiveTurnRegistry(journal)
    live, gate = _live(), asyncio.Event()

    async def body(turn: LiveTurn) -> None:
        turn.publish(_started(turn))
        for i in range(20):
            turn.publish(_delta(turn, f"t{i}"))
        await gate.wait()
        for i in range(20):
            turn.publish(_delta(turn, f"u{i}"))
        await asyncio.Event().wait()

    registry.join_or_start(live, body)
    path = journal.path(live.turn_id)
    await until(lambda: len(_lines(path)) == 22)
    gate.set()
    await until(lambda: len(_lines(path)) == 42)
    assert [len(batch) for batch in batches] == [21, 20]
    live.cancel()
    await journal.drain()


async def test_a_long_run_of_deltas_is_written_at_the_batch_size(tmp_path: Path) -> None:
    journal = TurnJournal(tmp_path, flush_s=60.0)
    registry = LiveTurnRegistry(journal)
    live, gate = _live(), asyncio.Event()

    async def body(turn: LiveTurn) -> None:
        turn.publish(_started(turn))
        for round_ in range(2):
            await gate.wait()
            gate.clear()
            for i in range(BATCH_EVENTS):
                turn.publish(_delta(turn, f"t{round_}.{i}"))
        await asyncio.Event().wait()

    registry.join_or_start(live, body)
    path = journal.path(live.turn_id)
    gate.set()  # before the first write is due
    await until(lambda: len(_lines(path)) == 2 + BATCH_EVENTS)
    gate.set()  # after it
    await until(lambda: len(_lines(path)) == 2 + 2 * BATCH_EVENTS)
    live.cancel()
    await journal.drain()


@pytest.mark.parametrize("committed", [True, False])
async def test_the_file_is_dropped_once_the_commit_succeeded_and_kept_otherwise(
    tmp_path: Path, committed: bool
) -> None:
    journal = TurnJournal(tmp_path, flush_s=0.02)
    registry = LiveTurnRegistry(journal)
    live, gate = _live(key="k"), asyncio.Event()

    async def body(turn: LiveTurn) -> None:
        turn.publish(_started(turn))
        await gate.wait()
        turn.publish(_delta(turn, "partial answer"))
        turn.recorded = committed  # what the runner sets after its commit

    registry.join_or_start(live, body)
    path = journal.path(live.turn_id)
    await until(lambda: len(_lines(path)) == 2)
    gate.set()
    await live.finished.wait()
    await journal.drain()
    assert path.exists() is not committed
    if not committed:
        texts = _lines(path)[1:]
        assert texts == [p.data for p in live.events]
        assert json.loads(texts[-1])["text"] == "partial answer"


@pytest.mark.parametrize("committed", [True, False])
async def test_a_turn_that_ends_before_its_first_write_is_due_is_kept_only_if_uncommitted(
    tmp_path: Path, committed: bool
) -> None:
    journal = TurnJournal(tmp_path, flush_s=60.0)
    registry = LiveTurnRegistry(journal)
    live = _live()

    async def body(turn: LiveTurn) -> None:
        turn.publish(_started(turn))
        await asyncio.sleep(0)
        turn.recorded = committed

    registry.join_or_start(live, body)
    await live.finished.wait()
    await journal.drain()
    expected = [] if committed else [journal.path(live.turn_id)]
    assert _entries(tmp_path) == expected
    if not committed:
        assert _lines(expected[0])[1:] == [live.events[0].data]


async def test_turns_without_meta_or_an_unwritable_journal_still_run(tmp_path: Path) -> None:
    blocked = tmp_path / "not-a-directory"
    blocked.write_text("")
    registry = LiveTurnRegistry(TurnJournal(blocked, flush_s=0.01))
    done: list[str] = []

    async def body(turn: LiveTurn) -> None:
        turn.publish(_started(turn))
        await asyncio.sleep(0)
        turn.publish(_delta(turn, "x"))
        done.append(turn.turn_id)

    bare = LiveTurn(str(uuid.uuid4()), str(uuid.uuid4()), uuid.uuid4())
    for live in (_live(), bare):
        registry.join_or_start(live, body)
        await asyncio.wait_for(live.finished.wait(), 30)
    await registry.shutdown(1.0)
    assert len(done) == 2
    assert _entries(tmp_path) == [blocked]
    assert bare.events[0].data == event_to_json(_started(bare))
