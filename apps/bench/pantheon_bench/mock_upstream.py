"""A cheap OpenAI-compatible upstream, run as its own process under uvicorn.

Raw ASGI (no framework) so that the mock's own cost per request and per token stays far
below what it simulates. ``POST /v1/chat/completions`` answers like OpenAI: SSE
``chat.completion.chunk`` messages (with a final usage chunk when
``stream_options.include_usage``), then ``data: [DONE]``; or one JSON body when not
streaming. Behaviour per model name or config file: see ``profiles``. Injected errors
come from one seeded RNG, so a run with the same request order injects the same errors.
``GET /v1/models`` lists the configured models; ``GET /_mock/stats`` counts requests and
injected errors (how the benchmarks observe retries).

    python -m pantheon_bench.mock_upstream --port 8091 [--config cfg.json] [--seed 1]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
from collections import Counter
from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import Any

from pantheon_bench.profiles import Behaviour, ProfileBook

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

_JSON = [(b"content-type", b"application/json")]
_SSE = [(b"content-type", b"text/event-stream"), (b"cache-control", b"no-cache")]
_DONE = b"data: [DONE]\n\n"


class MockUpstream:
    """The ASGI app. ``stats`` counts requests and injected errors by kind."""

    def __init__(self, book: ProfileBook, seed: int = 1) -> None:
        self.book = book
        self.rng = random.Random(seed)
        self.stats: Counter[str] = Counter()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await _lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        path, method = scope["path"], scope["method"]
        if method == "POST" and path == "/v1/chat/completions":
            await self._completions(await _body(receive), receive, send)
        elif method == "GET" and path == "/v1/models":
            names = self.book.names()
            data = [{"id": n, "object": "model", "owned_by": "mock"} for n in names]
            await _json(send, 200, {"object": "list", "data": data})
        elif method == "GET" and path == "/_mock/stats":
            await _json(send, 200, dict(self.stats))
        else:
            await _json(send, 404, {"error": {"message": f"no route {method} {path}"}})

    async def _completions(self, raw: bytes, receive: Receive, send: Send) -> None:
        try:
            body = json.loads(raw)
            model = str(body["model"])
            messages = body.get("messages") or []
        except (ValueError, KeyError, TypeError):
            await _json(send, 400, {"error": {"message": "invalid request body"}})
            return
        self.stats["requests"] += 1
        prompt = "\n".join(str(m.get("content", "")) for m in messages if isinstance(m, dict))
        behaviour = self.book.get(model).pick(prompt)
        if await self._inject_error(behaviour, send):
            return
        prompt_tokens = max(1, len(raw) // 4)
        if body.get("stream"):
            include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
            await _stream(behaviour, model, prompt_tokens, include_usage, receive, send)
        else:
            if not await _wait(behaviour.duration_s, receive):
                await _json(send, 200, _completion(behaviour, model, prompt_tokens))

    async def _inject_error(self, b: Behaviour, send: Send) -> bool:
        if not (b.p429 or b.p503):
            return False
        draw = self.rng.random()
        if draw < b.p429:
            self.stats["injected_429"] += 1
            headers = [(b"retry-after", f"{b.retry_after_s:g}".encode())]
            await _json(send, 429, {"error": {"message": "rate limited (mock)"}}, headers)
            return True
        if draw < b.p429 + b.p503:
            self.stats["injected_503"] += 1
            await _json(send, 503, {"error": {"message": "unavailable (mock)"}})
            return True
        return False


async def _stream(
    b: Behaviour, model: str, prompt_tokens: int, include_usage: bool, receive: Receive, send: Send
) -> None:
    loop = asyncio.get_running_loop()
    start = loop.time()
    await send({"type": "http.response.start", "status": 200, "headers": _SSE})
    head = (
        'data: {"id":"chatcmpl-mock","object":"chat.completion.chunk","created":0,'
        f'"model":{json.dumps(model)},"choices":[{{"index":0,"delta":{{"content":'
    )
    pieces = b.pieces()
    for i, piece in enumerate(pieces):
        delay = start + b.ttft_s + i * b.itl_s - loop.time()
        if delay > 0 and await _wait(delay, receive):
            return
        chunk = f'{head}{json.dumps(piece)}}},"finish_reason":null}}]}}\n\n'
        await send({"type": "http.response.body", "body": chunk.encode(), "more_body": True})
    tail = f'{head}""}},"finish_reason":"stop"}}]}}\n\n'
    if include_usage:
        usage = {"prompt_tokens": prompt_tokens, "completion_tokens": len(pieces)}
        usage["total_tokens"] = prompt_tokens + len(pieces)
        tail += f'data: {{"id":"chatcmpl-mock","choices":[],"usage":{json.dumps(usage)}}}\n\n'
    await send({"type": "http.response.body", "body": tail.encode() + _DONE})


def _completion(b: Behaviour, model: str, prompt_tokens: int) -> dict[str, Any]:
    pieces = b.pieces()
    return {
        "id": "chatcmpl-mock",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "".join(pieces)},
                "finish_reason": "stop",
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": len(pieces),
            "total_tokens": prompt_tokens + len(pieces),
        },
    }


async def _wait(delay: float, receive: Receive) -> bool:
    """Sleep ``delay``; True when the client went away meanwhile (long waits only).

    Short waits just sleep: racing ``receive`` per token would cost more than it saves.
    """
    if delay <= 1.0:
        await asyncio.sleep(delay)
        return False
    try:
        message = await asyncio.wait_for(receive(), delay)
    except TimeoutError:
        return False
    return bool(message["type"] == "http.disconnect")


async def _body(receive: Receive) -> bytes:
    chunks = []
    while True:
        message = await receive()
        chunks.append(message.get("body", b""))
        if not message.get("more_body"):
            return b"".join(chunks)


async def _json(
    send: Send, status: int, data: object, headers: list[tuple[bytes, bytes]] | None = None
) -> None:
    body = json.dumps(data).encode()
    await send(
        {"type": "http.response.start", "status": status, "headers": _JSON + (headers or [])}
    )
    await send({"type": "http.response.body", "body": body})


async def _lifespan(receive: Receive, send: Send) -> None:
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return


def main() -> None:
    import uvicorn

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--config", type=Path, default=None)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    app = MockUpstream(ProfileBook.from_file(args.config), seed=args.seed)
    uvicorn.run(
        app, host="127.0.0.1", port=args.port, log_level="warning", access_log=False,
        backlog=8192, timeout_keep_alive=60,
    )  # fmt: skip


if __name__ == "__main__":
    main()
