"""Provider-neutral LLM types: what the engine asks for and what comes back.

A stream is a sequence of ``TextDelta`` and ``ToolCall`` items followed by exactly one
``Usage``; the gateway guarantees the trailing ``Usage`` (estimated when the upstream
sends none). A ``ToolCall`` item is complete: providers assemble streamed fragments.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

Role = Literal["system", "user", "assistant", "tool"]
# stage: a pipeline stage; draft / review / revision: the review mode's three calls;
# summary: folding older session history into the session summary.
Purpose = Literal[
    "route",
    "specialist",
    "evaluate",
    "synthesis",
    "chat",
    "stage",
    "draft",
    "review",
    "revision",
    "summary",
]


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One call the model asked for; ``arguments`` is the JSON text as the model wrote it."""

    id: str
    name: str
    arguments: str


@dataclass(frozen=True, slots=True)
class ChatMessage:
    """A prompt message. An assistant message may carry ``tool_calls``; a ``tool`` message
    answers the call named by ``tool_call_id``."""

    role: Role
    content: str
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None


@dataclass(frozen=True, slots=True)
class ToolDefinition:
    """A tool offered to a model: ``name`` matches ``^[A-Za-z0-9_-]{1,64}$``;
    ``parameters`` is a JSON schema object."""

    name: str
    description: str
    parameters: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class ResponseFormat:
    """Ask for JSON matching ``schema``; each alias says how (``structured_output``)."""

    name: str
    schema: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class Fencing:
    """How a turn's untrusted text is fenced (``llm/fence.py``): its boundary token and
    whether spaces inside the fence are datamarked."""

    token: str
    datamark: bool = True


@dataclass(frozen=True, slots=True)
class LLMRequest:
    """One call. ``model`` is an alias; ``agent_key`` and ``purpose`` are metadata for logs
    and for the scripted provider, never sent upstream."""

    model: str
    messages: tuple[ChatMessage, ...]
    purpose: Purpose = "chat"
    agent_key: str | None = None
    max_tokens: int | None = None
    temperature: float | None = None
    tools: tuple[ToolDefinition, ...] = ()
    response_format: ResponseFormat | None = None
    # Presentation only (``llm/fence.py``): not part of the digest, never in the record.
    fencing: Fencing | None = None


@dataclass(frozen=True, slots=True)
class TextDelta:
    text: str


@dataclass(frozen=True, slots=True)
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0
    estimated: bool = False
    retries: int = 0  # set by the gateway: failed attempts retried before this answer


StreamItem = TextDelta | ToolCall | Usage


@dataclass(frozen=True, slots=True)
class Retrying:
    """The gateway waits ``delay_s`` seconds, then makes attempt ``attempt`` of
    ``max_attempts``: the previous one failed with error code ``code``. Only the gateway
    yields it (providers never do), so a caller can say so while it waits."""

    attempt: int
    max_attempts: int
    code: str
    delay_s: float


GatewayItem = StreamItem | Retrying

# How an alias's upstream takes a JSON schema for the reply: OpenAI's ``response_format``
# with ``json_schema``, llama.cpp's ``json_object`` with a ``schema``, or not at all.
StructuredOutput = Literal["json_schema", "json_object", "none"]
STRUCTURED_OUTPUT_KINDS: tuple[StructuredOutput, ...] = ("json_schema", "json_object", "none")

# Which OpenAI API an ``openai`` alias's upstream is called over: chat completions, or the
# Responses API (``POST /responses``; some models are served only there).
OpenAIApi = Literal["chat", "responses"]
OPENAI_APIS: tuple[OpenAIApi, ...] = ("chat", "responses")


@dataclass(frozen=True, slots=True)
class Completion:
    text: str
    usage: Usage = field(default_factory=Usage)
    tool_calls: tuple[ToolCall, ...] = ()


@dataclass(frozen=True, slots=True)
class ModelAlias:
    """An operator-configured name for an upstream model (see SPEC's models TOML)."""

    name: str
    provider: Literal["openai", "scripted", "a2a"] = "openai"  # a2a: a remote A2A agent
    base_url: str = ""
    model: str = ""
    api_key_env: str | None = None
    input_price_per_mtok: float = 0.0
    output_price_per_mtok: float = 0.0
    context_window: int = 8192
    structured_output: StructuredOutput = "none"
    # False: the upstream cannot stream tool calls, so requests with tools go unstreamed.
    stream_tools: bool = True
    # The longest reply: the prompt leaves this much of the window free (docs/context.md).
    max_tokens: int | None = None
    # How prompts are counted: ``tiktoken:<encoding>``, ``gguf:<path>``, or None (estimate).
    tokenizer: str | None = None
    api: OpenAIApi = "chat"

    @property
    def provider_key(self) -> str:
        """The gateway's provider for this alias: ``openai_responses`` for Responses upstreams."""
        return (
            "openai_responses"
            if self.provider == "openai" and self.api == "responses"
            else self.provider
        )

    def cost_usd(self, usage: Usage) -> float:
        return (
            usage.input_tokens * self.input_price_per_mtok
            + usage.output_tokens * self.output_price_per_mtok
        ) / 1_000_000
