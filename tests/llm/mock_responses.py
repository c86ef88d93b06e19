"""An in-process Responses API upstream (``POST /v1/responses``) on 127.0.0.1.

Each request is recorded in ``received`` and answered by ``responder(body)``, a
``ResponsesReply``: text streamed in pieces, function calls, usage, or a failure (an
HTTP status, a ``response.failed`` event, a stream cut before its terminal event). The
default responder plays a calculator-using agent: with tools offered and no tool output
yet it calls ``calculator``; else it answers, quoting the last tool output if any.
A request with ``"stream": false`` gets the response object as one JSON body.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web


@dataclass(frozen=True)
class ResponsesReply:
    chunks: Sequence[str] = ("Hello", " there")
    calls: Sequence[tuple[str, str, str]] = ()  # (call_id, name, arguments)
    usage: tuple[int, int] | None = (11, 3)
    status: int = 200
    failed: str | None = None  # an error code for response.failed
    cut: bool = False  # end the stream without a terminal event
    split_arguments: bool = False  # send arguments only as deltas, no done item


def calculator_agent(body: dict[str, Any]) -> ResponsesReply:
    """Call the calculator once, then answer with what it returned."""
    items = body.get("input", [])
    outputs = [i["output"] for i in items if i.get("type") == "function_call_output"]
    if body.get("tools") and not outputs:
        return ResponsesReply(
            chunks=(), calls=(("call_r1", "calculator", '{"expression": "17 * 23"}'),)
        )
    answer = f"The result is {outputs[-1]}." if outputs else "A plain answer."
    return ResponsesReply(chunks=(answer[:8], answer[8:]))


def _response(reply: ResponsesReply, output: list[dict[str, Any]], status: str) -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": "resp_up",
        "object": "response",
        "status": status,
        "output": output,
    }
    if reply.usage is not None:
        body["usage"] = {"input_tokens": reply.usage[0], "output_tokens": reply.usage[1]}
    if reply.failed is not None:
        body["error"] = {"code": reply.failed, "message": "the upstream gave up"}
    return body


def _output(reply: ResponsesReply) -> list[dict[str, Any]]:
    output: list[dict[str, Any]] = []
    if reply.chunks:
        text = {"type": "output_text", "text": "".join(reply.chunks), "annotations": []}
        output.append({"type": "message", "id": "msg_1", "role": "assistant", "content": [text]})
    for n, (call_id, name, arguments) in enumerate(reply.calls):
        output.append(
            {
                "type": "function_call",
                "id": f"fc_{n}",
                "call_id": call_id,
                "name": name,
                "arguments": arguments,
            }
        )
    return output


def events(reply: ResponsesReply) -> list[dict[str, Any]]:
    """The streamed events for ``reply``, in the Responses API's order."""
    out: list[dict[str, Any]] = [
        {"type": "response.created", "response": _response(reply, [], "in_progress")}
    ]
    for piece in reply.chunks:
        out.append(
            {
                "type": "response.output_text.delta",
                "item_id": "msg_1",
                "output_index": 0,
                "delta": piece,
            }
        )
    for n, item in enumerate(i for i in _output(reply) if i["type"] == "function_call"):
        out.append({"type": "response.output_item.added", "item": {**item, "arguments": ""}})
        out.append(
            {
                "type": "response.function_call_arguments.delta",
                "item_id": f"fc_{n}",
                "delta": item["arguments"],
            }
        )
        if not reply.split_arguments:
            out.append({"type": "response.output_item.done", "item": item})
    if reply.cut:
        return out
    if reply.failed is not None:
        out.append({"type": "response.failed", "response": _response(reply, [], "failed")})
    else:
        out.append(
            {
                "type": "response.completed",
                "response": _response(reply, _output(reply), "completed"),
            }
        )
    return out


@dataclass
class MockResponses:
    responder: Callable[[dict[str, Any]], ResponsesReply] = calculator_agent
    received: list[dict[str, Any]] = field(default_factory=list)
    port: int = 0
    _runner: web.AppRunner | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    async def start(self) -> None:
        app = web.Application()
        app.router.add_post("/v1/responses", self._handle)
        self._runner = web.AppRunner(app, shutdown_timeout=0.05, access_log=None)
        await self._runner.setup()
        await web.TCPSite(self._runner, "127.0.0.1", 0).start()
        self.port = self._runner.addresses[0][1]

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        self.received.append(body)
        reply = self.responder(body)
        if reply.status != 200:
            error = {"error": {"message": "refused", "type": "invalid_request_error"}}
            return web.json_response(error, status=reply.status)
        if body.get("stream") is False:
            status = "failed" if reply.failed else "completed"
            return web.json_response(_response(reply, _output(reply), status))
        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await resp.prepare(request)
        for event in events(reply):
            await resp.write(f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode())
        await resp.write_eof()
        return resp
