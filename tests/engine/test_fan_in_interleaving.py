"""fan_in with a recorded interleaving (a replay): concurrent sources' events come out in
the recorded order of speakers, whatever order they arrive in; where the record says
nothing about these sources, in arrival order; nothing is lost either way."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from pantheon.engine.events import DeltaEvent, TurnEvent
from pantheon.engine.fan_in import Interleaving, fan_in


async def _source(key: str, texts: list[str], pause_s: float) -> AsyncIterator[TurnEvent]:
    for text in texts:
        await asyncio.sleep(pause_s)
        yield DeltaEvent(turn_id="t", agent_key=key, text=text)


async def _drain(events: AsyncIterator[TurnEvent], order: Interleaving | None) -> list[str]:
    seen = []
    async for event in events:
        assert isinstance(event, DeltaEvent)
        seen.append(f"{event.agent_key}{event.text}")
        if order is not None:
            order.advance()  # what run_turn does for every event it yields
    return seen


async def test_events_follow_the_recorded_order_not_their_arrival() -> None:
    # b is fast and a is slow, yet the record says a first, then alternate.
    order = Interleaving(("a", "a", "b", "a", "b", "b"))
    sources = [_source("a", ["1", "2", "3"], 0.01), _source("b", ["1", "2", "3"], 0.0)]
    merged = fan_in(sources, keys=["a", "b"], interleaving=order)
    assert await _drain(merged, order) == ["a1", "a2", "b1", "a3", "b2", "b3"]


async def test_without_a_usable_record_events_come_as_they_arrive() -> None:
    order = Interleaving(("z",))  # names nobody here, then runs out
    sources = [_source("a", ["1", "2"], 0.01), _source("b", ["1", "2"], 0.0)]
    merged = fan_in(sources, keys=["a", "b"], interleaving=order)
    seen = await _drain(merged, order)
    assert sorted(seen) == ["a1", "a2", "b1", "b2"]
    assert seen.index("a1") < seen.index("a2")
    assert seen.index("b1") < seen.index("b2")


async def test_a_source_that_ends_early_does_not_stall_the_rest() -> None:
    order = Interleaving(("a", "a", "a", "b"))  # a ends after one event
    sources = [_source("a", ["1"], 0.0), _source("b", ["1"], 0.01)]
    merged = fan_in(sources, keys=["a", "b"], interleaving=order)
    assert await _drain(merged, order) == ["a1", "b1"]
