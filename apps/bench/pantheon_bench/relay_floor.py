"""The floor under Pantheon's cost per relayed delta: the least a Python relay on the same
stack does, as B11's baseline for deltas that arrive one by one.

Same stack as ``pantheon serve`` (uvicorn with httptools on uvloop, the upstream read by
aiohttp), and nothing else: ``POST /v1/sessions/<model>/turns`` streams a chat completion
of ``<model>`` from the mock and writes each chunk's text to the client at once, as one
SSE frame in the shape of Pantheon's ``delta`` event, then ``turn_completed``. No
database, no engine, no record, no second task. What Pantheon spends per delta above this
is its own; what this spends is the HTTP stacks, the sockets and waking up for each one.

    python -m pantheon_bench.relay_floor --port 8093 --upstream http://127.0.0.1:8091/v1
"""

from __future__ import annotations

import argparse
import json
from collections.abc import AsyncIterator
from typing import Any

import aiohttp

from pantheon.server.serving import run_event_loop
from pantheon_bench.mock_upstream import Receive, Scope, Send, _body, _lifespan
from pantheon_bench.uvicorn_child import serve_app

_SSE = [(b"content-type", b"text/event-stream"), (b"cache-control", b"no-cache")]


class RelayFloor:
    """The ASGI app; one aiohttp session for every upstream call, as Pantheon has."""

    def __init__(self, upstream: str) -> None:
        self.upstream = upstream.rstrip("/")
        self.http: aiohttp.ClientSession | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            self.http = aiohttp.ClientSession()
            try:
                await _lifespan(receive, send)
            finally:
                await self.http.close()
            return
        parts = scope["path"].strip("/").split("/")
        if scope["method"] != "POST" or len(parts) != 4 or parts[3] != "turns":
            await send({"type": "http.response.start", "status": 404, "headers": []})
            await send({"type": "http.response.body", "body": b""})
            return
        message = json.loads(await _body(receive))["message"]
        await send({"type": "http.response.start", "status": 200, "headers": _SSE})
        seq = 0
        async for text in self._texts(parts[2], message):
            seq += 1
            event = {"type": "delta", "agent_key": "floor", "text": text, "round": None}
            await _frame(send, seq, event, more=True)
        await _frame(send, seq + 1, {"type": "turn_completed", "status": "completed"}, more=False)

    async def _texts(self, model: str, message: str) -> AsyncIterator[str]:
        """Each chunk's text as it arrives (one read may carry several chunks)."""
        assert self.http is not None, "the lifespan opens the session"
        body = {"model": model, "stream": True, "messages": [{"role": "user", "content": message}]}
        url = f"{self.upstream}/chat/completions"
        async with self.http.post(url, json=body) as response:
            pending = b""
            async for chunk in response.content.iter_any():
                pending += chunk
                *lines, pending = pending.split(b"\n")
                for line in lines:
                    text = _content(json.loads(line[6:])) if line.startswith(b"data: {") else ""
                    if text:  # the closing chunks carry no text: no delta, as in Pantheon
                        yield text


def _content(chunk: dict[str, Any]) -> str:
    choices = chunk.get("choices") or [{}]
    return str(choices[0].get("delta", {}).get("content") or "")


async def _frame(send: Send, seq: int, event: dict[str, Any], *, more: bool) -> None:
    body = f"id: {seq}\ndata: {json.dumps(event)}\n\n".encode()
    await send({"type": "http.response.body", "body": body, "more_body": more})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--upstream", required=True, help="the mock's base URL, ending in /v1")
    args = parser.parse_args()
    run_event_loop(serve_app(RelayFloor(args.upstream), args.port))


if __name__ == "__main__":
    main()
