"""A remote A2A agent as a model: the provider that seats ``[a2a_agents.NAME]`` in a room.

Each call sends the call's user message (the last ``user`` message of the prompt: what the
agent is asked now; the remote agent keeps its own instructions and context) as one A2A
message, streams the answer back as text deltas (artifact chunks, or a final task's or
message's text), and reports the usage the remote agent states (Pantheon's own A2A server
puts it in the final status's ``pantheon.usage``; others: the gateway estimates). A call
that is cancelled (the turn stopped, a deadline) cancels the remote task (``CancelTask``).
"""

from __future__ import annotations

import asyncio
import logging
import os
import uuid
from collections.abc import AsyncIterator, Iterable

import httpx
from a2a.client import (
    A2ACardResolver,
    A2AClientError,
    ClientCallContext,
    ClientConfig,
    ClientFactory,
)
from a2a.client.client import Client
from a2a.types.a2a_pb2 import (
    AgentCard,
    CancelTaskRequest,
    Message,
    Part,
    Role,
    SendMessageRequest,
    StreamResponse,
    TaskState,
)
from a2a.utils.errors import A2AError
from google.protobuf.json_format import MessageToDict

from pantheon.llm.errors import BadRequest, LLMError, Unavailable
from pantheon.llm.providers.a2a_remote_config import RemoteAgent
from pantheon.llm.types import LLMRequest, ModelAlias, StreamItem, TextDelta, Usage
from pantheon.observability.trace_context import outgoing_headers

log = logging.getLogger("pantheon.a2a")
CANCEL_S = 5.0  # how long a stopped call waits for the remote CancelTask
_FAILED = {
    TaskState.TASK_STATE_FAILED: "failed",
    TaskState.TASK_STATE_CANCELED: "was cancelled",
    TaskState.TASK_STATE_REJECTED: "rejected the message",
    TaskState.TASK_STATE_INPUT_REQUIRED: "asks for input Pantheon cannot give",
    TaskState.TASK_STATE_AUTH_REQUIRED: "asks for authentication Pantheon cannot give",
}

_OVER = frozenset({TaskState.TASK_STATE_COMPLETED, *_FAILED})


def _question(request: LLMRequest) -> str:
    for message in reversed(request.messages):
        if message.role == "user" and message.content.strip():
            return message.content
    raise BadRequest("no user message to send to the remote A2A agent")


def _texts(parts: Iterable[Part]) -> str:
    return "".join(part.text for part in parts if part.WhichOneof("content") == "text")


def _usage(event: StreamResponse) -> Usage | None:
    """The usage a Pantheon server states in its final status (``pantheon.usage``)."""
    meta = MessageToDict(event.status_update.metadata) if event.HasField("status_update") else {}
    stated = meta.get("pantheon", {}).get("usage") if isinstance(meta, dict) else None
    if not isinstance(stated, dict):
        return None
    return Usage(int(stated.get("input_tokens", 0)), int(stated.get("output_tokens", 0)))


class RemoteCall:
    """The state of one call: the remote task, what was relayed, how it ended."""

    def __init__(self) -> None:
        self.task_id = ""
        self.relayed = False
        self.state: TaskState = TaskState.TASK_STATE_UNSPECIFIED
        self.note = ""
        self.usage: Usage | None = None

    def read(self, event: StreamResponse) -> str:
        """The answer text ``event`` adds (whole tasks and messages only if none streamed)."""
        if event.HasField("task"):
            self.task_id, self.state = event.task.id, event.task.status.state
            if self.relayed or self.state == TaskState.TASK_STATE_WORKING:
                return ""
            return "".join(_texts(a.parts) for a in event.task.artifacts)
        if event.HasField("message"):
            return "" if self.relayed else _texts(event.message.parts)
        if event.HasField("artifact_update"):
            self.task_id = self.task_id or event.artifact_update.task_id
            return _texts(event.artifact_update.artifact.parts)
        update = event.status_update
        self.task_id, self.state = self.task_id or update.task_id, update.status.state
        self.note = _texts(update.status.message.parts) or self.note
        self.usage = _usage(event) or self.usage
        return ""


class A2AAgentProvider:
    """The ``a2a`` provider: every ``[a2a_agents.*]`` of the config file."""

    def __init__(self, http: httpx.AsyncClient, agents: Iterable[RemoteAgent]) -> None:
        self._http = http  # for the cards; each call has a client of its own
        self._agents = {agent.name: agent for agent in agents}
        self._cards: dict[str, AgentCard] = {}

    def _headers(self, agent: RemoteAgent) -> dict[str, str]:
        headers = {}
        for header, variable in agent.headers.items():
            value = os.environ.get(variable)
            if value is None:
                raise BadRequest(
                    f"a2a_agents.{agent.name}: environment variable {variable} is unset"
                )
            headers[header] = value
        headers.update(outgoing_headers())  # the turn's traceparent, when traced
        return headers

    async def _card(self, agent: RemoteAgent, headers: dict[str, str]) -> AgentCard:
        if agent.name not in self._cards:
            resolver = A2ACardResolver(self._http, agent.url)
            kwargs = {"headers": headers, "timeout": agent.timeout_s}
            self._cards[agent.name] = await resolver.get_agent_card(http_kwargs=kwargs)
        return self._cards[agent.name]

    async def stream(self, alias: ModelAlias, request: LLMRequest) -> AsyncIterator[StreamItem]:
        agent = self._agents.get(alias.name)
        if agent is None:
            raise BadRequest(f"model {alias.name} is no configured A2A agent")
        headers = self._headers(agent)
        question = Part(text=_question(request))
        ident = str(uuid.uuid4())
        sent = SendMessageRequest(
            message=Message(role=Role.ROLE_USER, message_id=ident, parts=[question])
        )
        context = ClientCallContext(timeout=agent.timeout_s, service_parameters=headers)
        call = RemoteCall()
        try:
            card = await self._card(agent, headers)
            async with ClientFactory(ClientConfig(streaming=True)).create(card) as client:
                try:
                    async for event in client.send_message(sent, context=context):
                        text = call.read(event)
                        if text:
                            call.relayed = True
                            yield TextDelta(text)
                except BaseException:
                    if call.task_id and call.state not in _OVER:
                        await asyncio.shield(_cancel(client, call.task_id, context))
                    raise
        except (A2AClientError, httpx.HTTPError) as exc:
            self._cards.pop(agent.name, None)
            raise Unavailable(f"A2A agent {agent.name}: {exc}") from exc
        except A2AError as exc:
            raise BadRequest(f"A2A agent {agent.name}: {exc.message}", refusal=exc.message) from exc
        _check(agent, call)
        if call.usage is not None:
            yield call.usage


def _check(agent: RemoteAgent, call: RemoteCall) -> None:
    if call.state in _FAILED:
        why = f": {call.note.strip()}" if call.note.strip() else ""
        raise BadRequest(f"A2A agent {agent.name} {_FAILED[call.state]}{why}")
    if not call.relayed:
        raise LLMError(f"A2A agent {agent.name} answered with no text")


async def _cancel(client: Client, task_id: str, context: ClientCallContext) -> None:
    """Stop the remote task; a remote that cannot is logged, never raised."""
    try:
        async with asyncio.timeout(CANCEL_S):
            await client.cancel_task(CancelTaskRequest(id=task_id), context=context)
    except Exception as exc:  # the call is over either way
        log.warning("could not cancel remote A2A task %s: %s", task_id, exc)
