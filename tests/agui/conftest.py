"""AG-UI runs through HTTP: a ``RunAgentInput`` posted to ``/agui/rooms/{room_id}``, the
response's SSE ``data:`` lines read back as AG-UI events (dicts, wire names), each
checked against the ``ag-ui-protocol`` package's event union."""

from __future__ import annotations

import json
import uuid
from typing import Any

import httpx
import pytest
from ag_ui.core import Event
from httpx_sse import EventSource
from pydantic import TypeAdapter

from pantheon.llm.providers.scripted import ScriptedProvider
from pantheon.settings import Settings
from tests.auth.conftest import keys_settings, make_clients  # noqa: F401  (fixtures)
from tests.replicas.conftest import database_url, redis  # noqa: F401  (fixtures: PostgreSQL, Redis)
from tests.turns_api.conftest import serve  # noqa: F401  (fixture: a real uvicorn server)

AGUI_EVENT: TypeAdapter[Any] = TypeAdapter(Event)
SPECIALISTS = ["alpha", "beta", "gamma", "delta"]


def run_input(
    text: str | None = "plan it",
    *,
    thread: str | None = None,
    run: str | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """A RunAgentInput (wire names) with one user message ``text``."""
    messages = [] if text is None else [{"id": "u1", "role": "user", "content": text}]
    return {
        "threadId": thread or str(uuid.uuid4()),
        "runId": run or str(uuid.uuid4()),
        "messages": messages,
        "state": {},
        "tools": [],
        "context": [],
        **extra,
    }


def parse_events(response: httpx.Response) -> list[dict[str, Any]]:
    """Every AG-UI event of a response read whole; each one validates as an AG-UI event."""
    events = []
    for sse in EventSource(response).iter_sse():
        data: dict[str, Any] = json.loads(sse.data)
        AGUI_EVENT.validate_python(data)
        events.append(data)
    return events


async def post_run(
    client: httpx.AsyncClient, room_id: str, body: dict[str, Any] | bytes, **kwargs: Any
) -> httpx.Response:
    url = f"/agui/rooms/{room_id}"
    headers = {"Accept": "text/event-stream", **kwargs.pop("headers", {})}
    if isinstance(body, bytes):
        headers["Content-Type"] = "application/json"
        return await client.post(url, content=body, headers=headers, **kwargs)
    return await client.post(url, json=body, headers=headers, **kwargs)


async def run_events(
    client: httpx.AsyncClient, room_id: str, body: dict[str, Any]
) -> list[dict[str, Any]]:
    response = await post_run(client, room_id, body)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/event-stream")
    return parse_events(response)


def kinds(events: list[dict[str, Any]]) -> list[str]:
    return [str(e["type"]) for e in events]


def of(events: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == kind]


def script_four_specialists(scripted: ScriptedProvider) -> None:
    """An orchestrator turn that routes all four specialists in one round."""
    route = {"agents": SPECIALISTS, "instructions": {k: f"do {k}" for k in SPECIALISTS}}
    scripted.script(json.dumps(route), purpose="route")
    for key in SPECIALISTS:
        scripted.script(f"{key} says hello from its part", agent=key, chunk_delay_s=0.001)
    scripted.script('{"continue": false}', purpose="evaluate")
    scripted.script("the combined answer", purpose="synthesis")


def texts(events: list[dict[str, Any]]) -> dict[str, tuple[str | None, str | None, str]]:
    """Each text message: (name, subagentRunId, text), by message id."""
    out: dict[str, tuple[str | None, str | None, str]] = {}
    for e in events:
        if e["type"] == "TEXT_MESSAGE_START":
            out[e["messageId"]] = (e.get("name"), e.get("subagentRunId"), "")
        elif e["type"] == "TEXT_MESSAGE_CONTENT":
            name, run, text = out[e["messageId"]]
            out[e["messageId"]] = (name, run, text + e["delta"])
    return out


@pytest.fixture
def settings(settings: Settings) -> Settings:
    """Four specialists may run in one orchestrator round (the default is three)."""
    rounds = settings.orchestrator.model_copy(update={"max_agents_per_round": 4})
    return settings.model_copy(update={"orchestrator": rounds})


_OPENS = {
    "TEXT_MESSAGE_START": ("messageId", "message"),
    "TOOL_CALL_START": ("toolCallId", "tool"),
    "STEP_STARTED": ("stepName", "step"),
    "SUBAGENT_STARTED": ("subagentRunId", "subagent"),
}
_INSIDE = {
    "TEXT_MESSAGE_CONTENT": ("messageId", "message"),
    "TOOL_CALL_ARGS": ("toolCallId", "tool"),
}
_CLOSES = {
    "TEXT_MESSAGE_END": ("messageId", "message"),
    "TOOL_CALL_END": ("toolCallId", "tool"),
    "STEP_FINISHED": ("stepName", "step"),
    "SUBAGENT_FINISHED": ("subagentRunId", "subagent"),
    "SUBAGENT_ERROR": ("subagentRunId", "subagent"),
}


def assert_well_formed(events: list[dict[str, Any]]) -> None:
    """The lifecycle rules AG-UI clients enforce: one run, started first and ended last;
    every message, tool call, step and subagent opened once, written and closed while
    open, and nothing open at the end; a message keeps the subagent it was opened by."""
    assert events, "no events"
    assert events[0]["type"] in ("RUN_STARTED", "RUN_ERROR"), kinds(events)
    assert events[-1]["type"] in ("RUN_FINISHED", "RUN_ERROR"), kinds(events)
    assert [e["type"] for e in events[1:-1] if e["type"].startswith("RUN_")] == []
    open_: dict[tuple[str, str], str | None] = {}
    for e in events:
        kind = e["type"]
        if kind in _OPENS:
            field, family = _OPENS[kind]
            assert (family, e[field]) not in open_, f"{kind} twice: {e}"
            open_[(family, e[field])] = e.get("subagentRunId")
        elif kind in _INSIDE or kind in _CLOSES:
            field, family = (_INSIDE | _CLOSES)[kind]
            assert (family, e[field]) in open_, f"{kind} of nothing open: {e}"
            if family == "message":
                assert e.get("subagentRunId") == open_[(family, e[field])], e
            if kind in _CLOSES:
                del open_[(family, e[field])]
    assert open_ == {}, f"still open at the end: {open_}"
