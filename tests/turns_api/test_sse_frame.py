"""The turn stream's hand-built SSE frame is byte for byte what ``Event`` (sse-starlette's
event, lines ended by LF) would send."""

from __future__ import annotations

import pytest

from pantheon.engine.events import DeltaEvent, event_to_json
from pantheon.event_stream import Event
from pantheon.turns.routes import sse_frame

DELTA = DeltaEvent(turn_id="t", agent_key="a", text='line\nbreak "quoted" \u2028 é', round=1)


@pytest.mark.parametrize(
    ("seq", "data"),
    [(1, event_to_json(DELTA)), (2_147_483_647, "{}"), (3, "two\nlines"), (4, "a\r\nb\rc")],
)
def test_frame_matches_server_sent_event(seq: int, data: str) -> None:
    assert sse_frame(seq, data) == Event(data=data, id=str(seq)).encode()
