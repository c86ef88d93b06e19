"""A turn's events -> a Responses API response and its stream events, one fold for both.

The fold reads the turn's events in order (through the ``Narration`` the chat facade uses, so
``content`` and ``reasoning_content`` mean exactly what they mean there) and builds the
response's ``output``: the orchestration narrative as ``reasoning`` items (summary text),
each tool call an agent made as a ``function_call`` item (already run by Pantheon: its
result is narrated in the reasoning that follows), the answer as ``message`` items.
``feed`` returns the stream events each turn event adds, numbered from 0 across the
whole response, so replaying the same turn events gives the same numbers on any replica:
that is what ``starting_after`` resumes from.
"""

from __future__ import annotations

import copy
import json
import time
from dataclasses import dataclass, field
from typing import Any

from pantheon.engine.events import ToolCallEvent, TurnEvent
from pantheon.engine.narration import Narration, as_sent
from pantheon.engine.reader import TurnReader

ItemKind = str  # "reasoning" | "message" | "function_call"
# What a response reports for the request settings a turn does not apply (each of its
# calls runs with its agent's own model settings; docs/openai.md): OpenAI's defaults.
# Pantheon fits each history to the model's context window, which is truncation "auto".
UNAPPLIED = {
    "tools": [],
    "tool_choice": "auto",
    "parallel_tool_calls": False,
    "text": {"format": {"type": "text"}},
    "truncation": "auto",
    "temperature": 1.0,
    "top_p": 1.0,
    "presence_penalty": 0.0,
    "frequency_penalty": 0.0,
    "top_logprobs": 0,
    "reasoning": None,
    "max_output_tokens": None,
    "max_tool_calls": None,
    "service_tier": "default",
    "user": None,
    "safety_identifier": None,
    "prompt_cache_key": None,
}
_TERMINAL = {
    "completed": "response.completed",
    "failed": "response.failed",
    "incomplete": "response.incomplete",
    "cancelled": "response.incomplete",
}


@dataclass
class ResponseMeta:
    """What the response says about itself besides its output."""

    id: str
    model: str
    created_at: int
    background: bool | None = None
    store: bool = True
    instructions: str | None = None
    previous_response_id: str | None = None
    metadata: dict[str, str] = field(default_factory=dict)
    finished_at: int | None = None  # when its turn was recorded as over, once known


@dataclass
class _Item:
    kind: ItemKind
    id: str
    text: list[str] = field(default_factory=list)
    call: dict[str, Any] | None = None


class ResponseFold(TurnReader[dict[str, Any]]):
    """Feed it the turn's typed events; read ``response()`` or the events ``feed`` returns.

    Every event is narrated (``transcript``) into the open reasoning or message item; a
    tool call is an item of its own (``on_tool_call``). The base's ``finished``: the turn's
    final event is in, so the response has its terminal status."""

    def __init__(self, meta: ResponseMeta) -> None:
        super().__init__()
        self.meta = meta
        self.transcript = Narration()
        self.items: list[_Item] = []
        self.status = "in_progress"
        self.error: dict[str, str] | None = None
        self.incomplete_reason: str | None = None
        self.completed_at: int | None = None
        self._open: _Item | None = None
        self._seq = 0

    def start(self) -> list[dict[str, Any]]:
        """The two events every response stream opens with."""
        return [
            self._event("response.created", response=self.response(status="queued")),
            self._event("response.in_progress", response=self.response()),
        ]

    def feed(self, event: TurnEvent) -> list[dict[str, Any]]:
        """The stream events this turn event adds (none for most)."""
        pieces = self.transcript.feed(event)
        out = super().feed(event)
        if not isinstance(event, ToolCallEvent):  # the call's item says it instead
            for field_name, text in pieces:
                kind = "message" if field_name == "content" else "reasoning"
                out += self._append(kind, text)
        if self.transcript.finished and self.status == "in_progress":
            out += self._close()
            out += self._finish()
        return out

    def on_tool_call(self, event: ToolCallEvent) -> list[dict[str, Any]]:
        return [*self._close(), *self._function_call(event)]

    def response(self, *, status: str | None = None) -> dict[str, Any]:
        """The response object as it stands (``output_text`` is left to the SDKs)."""
        usage = self.transcript.usage
        return {
            "id": self.meta.id,
            "object": "response",
            "created_at": self.meta.created_at,
            "completed_at": self.completed_at,
            "status": status or self.status,
            "model": self.meta.model,
            "output": [self._item_body(i, done=i is not self._open) for i in self.items],
            "usage": {
                "input_tokens": usage.input_tokens,
                "input_tokens_details": {"cached_tokens": 0},
                "output_tokens": usage.output_tokens,
                "output_tokens_details": {"reasoning_tokens": 0},
                "total_tokens": usage.input_tokens + usage.output_tokens,
            },
            "error": self.error,
            "incomplete_details": None
            if self.incomplete_reason is None
            else {"reason": self.incomplete_reason},
            "instructions": self.meta.instructions,
            "previous_response_id": self.meta.previous_response_id,
            "background": bool(self.meta.background),
            "store": self.meta.store,
            "metadata": self.meta.metadata,
            **copy.deepcopy(UNAPPLIED),
        }

    def _event(self, kind: str, **fields: Any) -> dict[str, Any]:
        event = {"type": kind, "sequence_number": self._seq, **fields}
        self._seq += 1
        return event

    def _where(self, item: _Item) -> dict[str, Any]:
        return {"item_id": item.id, "output_index": self.items.index(item)}

    def _append(self, kind: ItemKind, text: str) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        if self._open is None or self._open.kind != kind:
            out += self._close()
            out += self._open_item(kind)
        item = self._open
        assert item is not None
        item.text.append(text)
        if kind == "message":
            out.append(
                self._event(
                    "response.output_text.delta",
                    **self._where(item), content_index=0, delta=text, logprobs=[],
                )
            )  # fmt: skip
        else:
            out.append(
                self._event(
                    "response.reasoning_summary_text.delta",
                    **self._where(item), summary_index=0, delta=text,
                )
            )  # fmt: skip
        return out

    def _open_item(self, kind: ItemKind) -> list[dict[str, Any]]:
        prefix = {"message": "msg", "reasoning": "rs"}[kind]
        item = _Item(kind, f"{prefix}_{self.meta.id.removeprefix('resp_')}_{len(self.items)}")
        self.items.append(item)
        self._open = item
        added = self._event(
            "response.output_item.added",
            output_index=len(self.items) - 1,
            item=self._item_body(item, done=False),
        )
        if kind == "message":
            part = {"type": "output_text", "text": "", "annotations": [], "logprobs": []}
            return [
                added,
                self._event(
                    "response.content_part.added", **self._where(item), content_index=0, part=part
                ),
            ]
        part = {"type": "summary_text", "text": ""}
        return [
            added,
            self._event(
                "response.reasoning_summary_part.added",
                **self._where(item), summary_index=0, part=part,
            ),
        ]  # fmt: skip

    def _close(self) -> list[dict[str, Any]]:
        item, self._open = self._open, None
        if item is None:
            return []
        text = "".join(item.text)
        where = self._where(item)
        if item.kind == "message":
            part = {"type": "output_text", "text": text, "annotations": [], "logprobs": []}
            events = [
                self._event(
                    "response.output_text.done", **where, content_index=0, text=text, logprobs=[]
                ),
                self._event("response.content_part.done", **where, content_index=0, part=part),
            ]
        else:
            part = {"type": "summary_text", "text": text}
            events = [
                self._event(
                    "response.reasoning_summary_text.done", **where, summary_index=0, text=text
                ),
                self._event(
                    "response.reasoning_summary_part.done", **where, summary_index=0, part=part
                ),
            ]
        body = self._item_body(item, done=True)
        done = self._event(
            "response.output_item.done", output_index=where["output_index"], item=body
        )
        return [*events, done]

    def _function_call(self, event: ToolCallEvent) -> list[dict[str, Any]]:
        call_id = event.call_id
        arguments = json.dumps(as_sent(event.arguments), ensure_ascii=False)
        call = {"call_id": call_id, "name": event.name, "arguments": arguments}
        item = _Item("function_call", f"fc_{call_id}", call=call)
        self.items.append(item)
        where = self._where(item)
        pending = {**self._item_body(item, done=False), "arguments": ""}
        return [
            self._event(
                "response.output_item.added", output_index=where["output_index"], item=pending
            ),
            self._event("response.function_call_arguments.delta", **where, delta=arguments),
            self._event("response.function_call_arguments.done", **where, arguments=arguments),
            self._event(
                "response.output_item.done",
                output_index=where["output_index"],
                item=self._item_body(item, done=True),
            ),
        ]

    @staticmethod
    def _item_body(item: _Item, *, done: bool) -> dict[str, Any]:
        status = "completed" if done else "in_progress"
        text = "".join(item.text)
        if item.kind == "message":
            part = {"type": "output_text", "text": text, "annotations": [], "logprobs": []}
            content = [part] if done else []
            return {"type": "message", "id": item.id, "status": status, "role": "assistant",
                    "content": content}  # fmt: skip
        if item.kind == "reasoning":
            summary = [{"type": "summary_text", "text": text}] if done else []
            return {"type": "reasoning", "id": item.id, "summary": summary}
        return {"type": "function_call", "id": item.id, "status": status, **(item.call or {})}

    def _finish(self) -> list[dict[str, Any]]:
        transcript = self.transcript
        if transcript.error is not None:
            code, message = transcript.error
            self.status, self.error = "failed", {"code": code, "message": message}
        elif transcript.status == "failed":
            reasons = "; ".join(transcript.failures) or "no agent could answer"
            code = transcript.error_code or "turn_failed"
            self.status, self.error = "failed", {"code": code, "message": reasons}
        elif transcript.status == "cancelled":
            self.status, self.incomplete_reason = "cancelled", "cancelled"
        elif transcript.status == "awaiting_approval":
            self.status, self.incomplete_reason = "incomplete", "awaiting_approval"
        else:
            self.status = "completed"
            self.completed_at = self.meta.finished_at or int(time.time())
        return [self._event(_TERMINAL[self.status], response=self.response())]
