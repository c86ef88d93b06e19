"""Remote A2A agents the operator names in the config file, as model aliases an agent can
use: ``[a2a_agents.NAME]`` with ``url`` (the agent's base URL; its card is at
``<url>/.well-known/agent-card.json``), ``headers`` (header name -> the environment
variable holding its value, read at each call), ``timeout_s`` (one call, default 300)
and ``context_window``. Never a URL from the API: only the operator's file names them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from pantheon.config_file import ConfigFile
from pantheon.llm.types import ModelAlias

SECTION = "a2a_agents"
PROVIDER: Final[Literal["a2a"]] = "a2a"
_KEYS = frozenset({"url", "headers", "timeout_s", "context_window"})
DEFAULT_TIMEOUT_S = 300.0


@dataclass(frozen=True, slots=True)
class RemoteAgent:
    """One remote A2A agent: where it is, how to authenticate, how long a call may take."""

    name: str
    url: str
    headers: Mapping[str, str] = field(default_factory=dict)  # header -> env variable
    timeout_s: float = DEFAULT_TIMEOUT_S
    context_window: int = 32768

    @property
    def alias(self) -> ModelAlias:
        """The model alias an agent names to seat this remote agent."""
        return ModelAlias(
            name=self.name, provider=PROVIDER, base_url=self.url, model=self.name,
            context_window=self.context_window,
        )  # fmt: skip


def load_a2a_agents(config: ConfigFile) -> list[RemoteAgent]:
    """The file's ``[a2a_agents.*]``; ``ValueError`` naming the file and the agent when one
    is invalid."""
    return list(config.tables(SECTION, _parse).values())


def _parse(name: str, table: Mapping[str, Any]) -> RemoteAgent:
    unknown = sorted(set(table) - _KEYS)
    if unknown:
        raise ValueError(f"unknown key(s) {', '.join(unknown)}")
    url = table.get("url")
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        raise ValueError("url must be an http:// or https:// URL")
    headers = table.get("headers", {})
    if not isinstance(headers, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in headers.items()
    ):
        raise ValueError("headers must map header names to environment variable names")
    timeout = table.get("timeout_s", DEFAULT_TIMEOUT_S)
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
        raise ValueError("timeout_s must be a positive number")
    window = table.get("context_window", 32768)
    if isinstance(window, bool) or not isinstance(window, int) or window <= 0:
        raise ValueError("context_window must be a positive integer")
    return RemoteAgent(name, url.rstrip("/"), dict(headers), float(timeout), window)
