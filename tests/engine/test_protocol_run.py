"""The one way a protocol door reads its turn (protocols/run.py): through its
reader, to the final event; a caller that leaves early ends the turn only when its door
says so; and the doors are mounted from one list (protocols/doors.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable

from fastapi import FastAPI

from pantheon.engine.events import (
    DeltaEvent,
    TurnCompletedEvent,
    TurnEvent,
    TurnStartedEvent,
    TurnUsage,
    event_to_json,
)
from pantheon.engine.reader import TurnReader
from pantheon.errors import ErrorShapes, native_shape
from pantheon.live.streamed import StoredEvent, StreamedEvent
from pantheon.protocols.doors import mount_doors, protocol_doors
from pantheon.protocols.run import read_turn
from pantheon.server.main import create_app
from pantheon.settings import Settings

T = "t-1"
USAGE = TurnUsage(input_tokens=0, output_tokens=0, cost_usd=0.0)
EVENTS: list[TurnEvent] = [
    TurnStartedEvent(turn_id=T, session_id="s", mode="roundtable", agents=["a"]),
    DeltaEvent(turn_id=T, agent_key="a", text="hi"),
    TurnCompletedEvent(turn_id=T, status="completed", usage=USAGE, message_ids=[]),
    DeltaEvent(turn_id=T, agent_key="a", text="after the end"),  # never read
]


class _Texts(TurnReader[str]):
    def on_delta(self, event: DeltaEvent) -> Iterable[str]:
        return [event.text]


async def _stream(events: list[TurnEvent]) -> AsyncIterator[StreamedEvent]:
    for seq, event in enumerate(events):
        yield StoredEvent(seq, event_to_json(event))


async def test_the_reader_gets_each_event_until_the_final_one() -> None:
    abandoned: list[bool] = []
    reader = _Texts()
    out = [o async for o in read_turn(_stream(EVENTS), reader, lambda: abandoned.append(True))]
    assert out == ["hi"]
    assert isinstance(reader.final, TurnCompletedEvent)
    assert abandoned == []  # it ended: nothing to cancel


async def test_a_caller_gone_early_abandons_the_turn_when_its_door_says_so() -> None:
    abandoned: list[bool] = []
    run = read_turn(_stream(EVENTS), _Texts(), lambda: abandoned.append(True))
    assert await anext(run) == "hi"
    await run.aclose()  # the client went away
    assert abandoned == [True]
    kept = read_turn(_stream(EVENTS), _Texts())  # a door whose turns outlive the request
    assert await anext(kept) == "hi"
    await kept.aclose()


async def test_events_that_stop_without_a_final_one_abandon_too() -> None:
    abandoned: list[bool] = []
    reader = _Texts()
    out = [o async for o in read_turn(_stream(EVENTS[:2]), reader, lambda: abandoned.append(True))]
    assert out == ["hi"]
    assert abandoned == [True]
    assert not reader.finished


def test_every_door_of_the_list_is_mounted() -> None:
    settings = Settings()
    doors = protocol_doors(settings)
    assert [door.name for door in doors] == ["openai", "a2a", "agui", "mcp"]
    app = create_app(settings)
    served = set(app.openapi()["paths"])
    for door in doors:
        for router in door.routers:
            shown = {
                getattr(r, "path", "")
                for r in router.routes
                if getattr(r, "include_in_schema", False)
            }
            assert shown, door.name
            assert shown <= served, door.name
    mounted = {getattr(route, "path", "") for route in app.routes}
    assert {"/a2a", "/mcp"} <= mounted  # the doors that mount themselves


def test_mounting_registers_each_door_s_error_shape() -> None:
    app, shapes = FastAPI(), ErrorShapes()
    mount_doors(app, shapes, protocol_doors(Settings()), [])
    native = native_shape(413, "too big", "payload_too_large")
    for path in ("/openai/v1/chat/completions", "/a2a/rooms/r", "/a2a/rooms/r/tasks", "/mcp"):
        assert shapes.shape(path, 413, "too big", "payload_too_large") != native, path
    assert shapes.shape("/agui/rooms/r", 413, "too big", "payload_too_large") == native
