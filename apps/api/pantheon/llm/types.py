"""Provider-neutral LLM types: what the engine asks for and what comes back.

A stream is a sequence of ``TextDelta`` items followed by exactly one ``Usage``; the
gateway guarantees the trailing ``Usage`` (estimated when the upstream sends none).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

Role = Literal["system", "user", "assistant"]
Purpose = Literal["route", "specialist", "evaluate", "synthesis", "chat"]


@dataclass(frozen=True, slots=True)
class ChatMessage:
    role: Role
    content: str


@dataclass(frozen=True, slots=True)
class ToolDefinition:
    """A tool offered to a model: ``name`` matches ``^[A-Za-z0-9_-]{1,64}$``;
    ``parameters`` is a JSON schema object."""

    name: str
    description: str
    parameters: Mapping[str, Any]


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


@dataclass(frozen=True, slots=True)
class TextDelta:
    text: str


@dataclass(frozen=True, slots=True)
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0
    estimated: bool = False


StreamItem = TextDelta | Usage


@dataclass(frozen=True, slots=True)
class Completion:
    text: str
    usage: Usage = field(default_factory=Usage)


@dataclass(frozen=True, slots=True)
class ModelAlias:
    """An operator-configured name for an upstream model (see SPEC's models TOML)."""

    name: str
    provider: Literal["openai", "scripted"] = "openai"
    base_url: str = ""
    model: str = ""
    api_key_env: str | None = None
    input_price_per_mtok: float = 0.0
    output_price_per_mtok: float = 0.0
    context_window: int = 8192

    def cost_usd(self, usage: Usage) -> float:
        return (
            usage.input_tokens * self.input_price_per_mtok
            + usage.output_tokens * self.output_price_per_mtok
        ) / 1_000_000
