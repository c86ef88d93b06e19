"""An in-process OpenAI-compatible server on 127.0.0.1 for provider tests.

Each POST to ``/v1/chat/completions`` consumes the next queued ``Reply`` (a plain
success when the queue is empty) and is recorded in ``received``. A reply can fail with
a status, send raw SSE frames first, stream chunks with or without usage / ``[DONE]``,
cut the connection after n chunks, stall silently after n chunks, drip chunks with a
pause between them, or keep the stream open after n chunks until the client goes away
(then ``client_gone`` is set). A request with ``"stream": false`` gets one
``chat.completion`` JSON instead: the chunks joined as the message's content,
``tool_calls`` as its calls, the usage.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from pantheon.llm.types import ChatMessage, LLMRequest, ModelAlias

REQUEST = LLMRequest(
    model="mock",
    messages=(ChatMessage("system", "be brief"), ChatMessage("user", "hi")),
    max_tokens=50,
    temperature=0.2,
)


@dataclass(frozen=True)
class Reply:
    status: int = 200
    chunks: Sequence[str] = ("Hello", " world")
    usage: tuple[int, int] | None = (7, 2)
    finish: bool = True
    done: bool = True
    cut_after: int | None = None
    hang_after: int | None = None
    hang_s: float = 3.0  # how long a hang lasts if the client stays
    stall_after: int | None = None
    raw: Sequence[bytes] = ()
    headers: dict[str, str] = field(default_factory=dict)
    body: str = '{"error": {"message": "nope"}}'
    content_type: str = "text/event-stream"
    delay_s: float = 0.0
    chunk_delay_s: float = 0.0
    tool_calls: Sequence[dict[str, Any]] = ()


@dataclass(frozen=True)
class Received:
    headers: dict[str, str]
    body: dict[str, Any]


def sse(payload: dict[str, Any] | str) -> bytes:
    data = payload if isinstance(payload, str) else json.dumps(payload)
    return f"data: {data}\n\n".encode()


def delta_chunk(text: str, finish: str | None = None) -> dict[str, Any]:
    choice = {"index": 0, "delta": {"content": text}, "finish_reason": finish}
    return {"object": "chat.completion.chunk", "choices": [choice]}


def tool_chunk(*fragments: dict[str, Any], finish: str | None = None) -> bytes:
    """An SSE frame whose delta carries these ``tool_calls`` fragments."""
    choice = {"index": 0, "delta": {"tool_calls": list(fragments)}, "finish_reason": finish}
    return sse({"object": "chat.completion.chunk", "choices": [choice]})


def fragment(
    index: int | None = None,
    call_id: str | None = None,
    name: str | None = None,
    arguments: str | None = None,
) -> dict[str, Any]:
    """One ``tool_calls`` entry with only the given keys, as servers send them."""
    out: dict[str, Any] = {} if index is None else {"index": index}
    if call_id is not None:
        out |= {"id": call_id, "type": "function"}
    function = {"name": name, "arguments": arguments}
    out["function"] = {k: v for k, v in function.items() if v is not None}
    return out


def completion(reply: Reply) -> dict[str, Any]:
    """The non-streamed ``chat.completion`` for ``reply``."""
    message: dict[str, Any] = {"role": "assistant", "content": "".join(reply.chunks) or None}
    if reply.tool_calls:
        message["tool_calls"] = list(reply.tool_calls)
    finish = "tool_calls" if reply.tool_calls else "stop"
    body: dict[str, Any] = {
        "object": "chat.completion",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
    }
    if reply.usage is not None:
        body["usage"] = {"prompt_tokens": reply.usage[0], "completion_tokens": reply.usage[1]}
    return body


class MockOpenAI:
    def __init__(self) -> None:
        self.replies: list[Reply] = []
        self.received: list[Received] = []
        self.client_gone = asyncio.Event()
        self._runner: web.AppRunner | None = None
        self.port = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def alias(self, *, api_key_env: str | None = None, **options: Any) -> ModelAlias:
        """The alias ``mock`` (upstream model ``smollm2``) pointing at this server."""
        return ModelAlias(
            name="mock",
            base_url=self.base_url,
            model="smollm2",
            api_key_env=api_key_env,
            **options,
        )

    def queue(self, *replies: Reply) -> None:
        self.replies.extend(replies)

    async def start(self) -> None:
        app = web.Application()
        app.router.add_post("/v1/chat/completions", self._handle)
        self._runner = web.AppRunner(app, shutdown_timeout=0.05, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = self._runner.addresses[0][1]

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        self.received.append(Received(dict(request.headers), body))
        reply = self.replies.pop(0) if self.replies else Reply()
        if reply.delay_s:
            await asyncio.sleep(reply.delay_s)
        if body.get("stream") is False and reply.status == 200:
            return web.json_response(completion(reply))
        if reply.status != 200 or reply.content_type != "text/event-stream":
            return web.Response(
                status=reply.status,
                text=reply.body,
                headers=reply.headers,
                content_type="application/json",
            )
        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await resp.prepare(request)
        for frame in reply.raw:
            await resp.write(frame)
        for index, text in enumerate(reply.chunks):
            if index == reply.cut_after:
                return self._cut(request, resp)
            if index == reply.hang_after:
                return await self._hang(resp, reply.hang_s)
            if index == reply.stall_after:
                await asyncio.sleep(1)  # silent; the runner cancels us at teardown
            if index and reply.chunk_delay_s:
                await asyncio.sleep(reply.chunk_delay_s)
            last = index == len(reply.chunks) - 1
            await resp.write(sse(delta_chunk(text, "stop" if last and reply.finish else None)))
        if reply.usage is not None:
            usage = {"prompt_tokens": reply.usage[0], "completion_tokens": reply.usage[1]}
            await resp.write(sse({"choices": [], "usage": usage}))
        if reply.done:
            await resp.write(sse("[DONE]"))
        await resp.write_eof()
        return resp

    @staticmethod
    def _cut(request: web.Request, resp: web.StreamResponse) -> web.StreamResponse:
        assert request.transport is not None
        request.transport.abort()
        return resp

    async def _hang(self, resp: web.StreamResponse, seconds: float) -> web.StreamResponse:
        # Keep writing comments until a write fails: that is the client closing.
        for _ in range(round(seconds / 0.01)):
            await asyncio.sleep(0.01)
            try:
                await resp.write(b": still here\n\n")
            except ConnectionResetError:
                self.client_gone.set()
                return resp
        return resp
