"""Assemble OpenAI ``tool_calls`` fragments into complete ``ToolCall`` items.

OpenAI streams each call as fragments of ``choices[0].delta.tool_calls``: the first one
carries ``index``, ``id`` and ``function.name``, later ones only ``index`` and a piece of
``function.arguments``, split anywhere. Compatible servers differ, and a model's output
is untrusted, so the rules are lenient and never raise:

- ``index`` picks the call; a fragment repeating the call's ``id`` continues it, a
  *different* ``id`` at a used index starts a new call there.
- no ``index``: the call with that ``id``; else, with a ``name`` while the last call
  already has one, a new call; else the last call (a continuation).
- no ``id`` at all: one is generated once per call (``call_`` + 24 hex digits).
- ``arguments`` may arrive as a JSON object instead of text; empty arguments are ``{}``.
- sizes are bounded: ``MAX_TOOL_CALLS`` calls per answer (later ones are dropped) and
  ``MAX_ARGUMENT_CHARS`` per call (the rest is cut, so the engine sees invalid JSON and
  reports it to the model); NUL and lone surrogates become U+FFFD.
- a call that never got a name cannot be run or sent back upstream: it is dropped.
"""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pantheon.llm.types import ToolCall
from pantheon.text import clean_text

logger = logging.getLogger(__name__)

MAX_TOOL_CALLS = 64
MAX_ARGUMENT_CHARS = 1_000_000
# Valid names have at most 64 characters; a longer one is kept (cut) so the error names it.
MAX_NAME_CHARS = 256
MAX_ID_CHARS = 256


def new_call_id() -> str:
    """A fresh id for a call the upstream sent without one."""
    return f"call_{uuid.uuid4().hex[:24]}"


@dataclass
class _Pending:
    index: int | None
    id: str | None = None
    name: str = ""
    parts: list[str] = field(default_factory=list)
    size: int = 0

    def append(self, text: str) -> None:
        room = MAX_ARGUMENT_CHARS - self.size
        if room > 0 and text:
            self.parts.append(text[:room])
            self.size += min(len(text), room)


class ToolCallAssembler:
    """Folds the fragments of one answer into calls; ``finish`` hands them out in order."""

    def __init__(self, new_id: Callable[[], str] = new_call_id) -> None:
        self._new_id = new_id
        self._calls: list[_Pending] = []
        self._by_index: dict[int, _Pending] = {}
        self._dropped = 0

    def add(self, fragment: object, *, default_index: int | None = None) -> None:
        """Fold one entry of ``tool_calls``; anything malformed is ignored."""
        if not isinstance(fragment, Mapping) or fragment.get("type") not in (None, "function"):
            return
        function = fragment.get("function")
        function = function if isinstance(function, Mapping) else {}
        index = _int_or_none(fragment.get("index"))
        call_id = _text_or_none(fragment.get("id"), MAX_ID_CHARS)
        name = _text_or_none(function.get("name"), MAX_NAME_CHARS)
        call = self._target(default_index if index is None else index, call_id, name)
        if call is None:
            return
        if call_id and call.id is None:
            call.id = call_id
        if name and not call.name:
            call.name = name
        call.append(_arguments_text(function.get("arguments")))

    def finish(self) -> list[ToolCall]:
        """The complete calls so far, in the order they began; the assembler starts over."""
        calls, self._calls, self._by_index = self._calls, [], {}
        if self._dropped:
            logger.warning(
                "upstream sent more than %d tool calls; dropped the rest", MAX_TOOL_CALLS
            )
            self._dropped = 0
        done: list[ToolCall] = []
        seen: set[str] = set()
        for call in calls:
            if not call.name:
                logger.warning("dropped a tool call without a function name from upstream")
                continue
            call_id = call.id if call.id and call.id not in seen else self._new_id()
            seen.add(call_id)
            arguments = clean_text("".join(call.parts)) or "{}"
            done.append(ToolCall(id=call_id, name=call.name, arguments=arguments))
        return done

    def _target(self, index: int | None, call_id: str | None, name: str | None) -> _Pending | None:
        """The call a fragment belongs to, opening a new one when the rules say so."""
        last = self._calls[-1] if self._calls else None
        if index is not None:
            current = self._by_index.get(index)
            if current is None or (call_id and current.id and call_id != current.id):
                return self._open(index)
            return current
        if call_id:
            known = next((c for c in self._calls if c.id == call_id), None)
            if known is not None:
                return known
            if last is not None and last.id is None and not (name and last.name):
                return last
            return self._open(None)
        if last is None or (name and last.name):
            return self._open(None)
        return last

    def _open(self, index: int | None) -> _Pending | None:
        if len(self._calls) >= MAX_TOOL_CALLS:
            self._dropped += 1
            return None
        call = _Pending(index=index)
        self._calls.append(call)
        if index is not None:
            self._by_index[index] = call
        return call


def _int_or_none(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _text_or_none(value: object, limit: int) -> str | None:
    """A non-empty string, cut to ``limit`` and cleaned; anything else is None."""
    return clean_text(value[:limit]) if isinstance(value, str) and value else None


def _arguments_text(value: object) -> str:
    """Argument text; an object (some servers send one) is serialised back to JSON."""
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping | list):
        try:
            return json.dumps(value, ensure_ascii=False)
        except (TypeError, ValueError, RecursionError):
            return ""
    return ""


def calls_of(fragments: Any, *, new_id: Callable[[], str] = new_call_id) -> list[ToolCall]:
    """The calls of a non-streamed ``message.tool_calls`` list (position as default index)."""
    assembler = ToolCallAssembler(new_id)
    if isinstance(fragments, list):
        for position, fragment in enumerate(fragments):
            assembler.add(fragment, default_index=position)
    return assembler.finish()
