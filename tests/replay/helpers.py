"""Helpers for replay tests: record a turn over SSE, replay it, compare the streams."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import httpx

_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


@dataclass(frozen=True)
class Streamed:
    """A turn streamed over SSE: the raw body and the recorded turn."""

    raw: str
    turn: dict[str, Any]

    @property
    def lines(self) -> list[str]:
        """``id:`` / ``data:`` lines; keep-alive comments (timing) are left out."""
        text = self.raw.replace("\r\n", "\n")
        return [line for line in text.split("\n") if line and not line.startswith(":")]


async def streamed(client: httpx.AsyncClient, url: str, body: dict[str, Any]) -> Streamed:
    """POST ``body`` to ``url`` as SSE; the body and the turn it streamed."""
    response = await client.post(url, json=body, headers={"Accept": "text/event-stream"})
    assert response.status_code == 200, response.text
    turn_id = _UUID.findall(response.text)[0]
    turn = await client.get(f"/v1/turns/{turn_id}")
    assert turn.status_code == 200, turn.text
    return Streamed(response.text, turn.json())


def as_original(replay: Streamed, original: Streamed) -> list[str]:
    """The replay's lines with what may differ (docs/replay.md) put back to the original's:
    the turn id, the session id and the message ids. Nothing else is touched."""
    names = {replay.turn["id"]: original.turn["id"]}
    names[replay.turn["session_id"]] = original.turn["session_id"]
    mine = [m["id"] for m in replay.turn["messages"]]
    theirs = [m["id"] for m in original.turn["messages"]]
    assert len(mine) == len(theirs)
    names.update(zip(mine, theirs, strict=True))
    return [_UUID.sub(lambda m: names.get(m.group(0), m.group(0)), line) for line in replay.lines]
