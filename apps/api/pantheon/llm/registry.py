"""Model aliases: the operator's names for upstream models, loaded once at startup.

``ModelRegistry.from_settings`` always contains the built-in ``scripted`` alias (the fake
provider, no network) plus every ``[models.NAME]`` table of the operator config file
(``settings.resolved_config_file``; other tables of that file belong to other readers).
A malformed file fails loudly at startup with a ``ValueError`` naming the file and the
alias, never later in the middle of a turn. Lookups of unknown names raise
``UnknownModel`` listing the known aliases.

Besides the SPEC's keys an alias may say how its upstream takes structured output
(``structured_output``: ``json_schema`` | ``json_object`` | ``none``, the default) and
whether it can stream tool calls (``stream_tools``, default true; false sends requests
that carry tools with ``stream: false``), the longest reply (``max_tokens``: the prompt
leaves that much of the window free), how prompts are counted (``tokenizer``, see
``llm.tokenizers``; default: an estimate) and which OpenAI API serves it (``api``:
``chat``, the default, or ``responses``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pantheon.config_file import ConfigFile, read_config_file
from pantheon.llm.errors import UnknownModel
from pantheon.llm.providers.a2a_remote_config import load_a2a_agents
from pantheon.llm.tokenizers import check_spec
from pantheon.llm.types import (
    OPENAI_APIS,
    STRUCTURED_OUTPUT_KINDS,
    ModelAlias,
    OpenAIApi,
    StructuredOutput,
)
from pantheon.settings import Settings

SCRIPTED_ALIAS = ModelAlias(name="scripted", provider="scripted", model="scripted")

_STR_KEYS = ("base_url", "model", "api_key_env", "provider")
_FLOAT_KEYS = ("input_price_per_mtok", "output_price_per_mtok")
_OPTION_KEYS = (
    "context_window", "structured_output", "stream_tools", "max_tokens", "tokenizer", "api",
)  # fmt: skip
_KNOWN_KEYS = frozenset((*_STR_KEYS, *_FLOAT_KEYS, *_OPTION_KEYS))
_PROVIDERS = ("openai", "scripted")


class ModelRegistry:
    """An immutable name -> ``ModelAlias`` map."""

    def __init__(self, aliases: Iterable[ModelAlias]) -> None:
        self._aliases: dict[str, ModelAlias] = {a.name: a for a in aliases}

    @classmethod
    def from_settings(cls, settings: Settings) -> ModelRegistry:
        """The built-in ``scripted`` alias plus the aliases of the config file.

        A file entry named ``scripted`` replaces the built-in one.
        """
        aliases = {SCRIPTED_ALIAS.name: SCRIPTED_ALIAS}
        config = read_config_file(settings.resolved_config_file)
        aliases.update({a.name: a for a in load_models(config)})
        for agent in load_a2a_agents(config):  # remote A2A agents (llm/providers/a2a_remote.py)
            if agent.name in aliases:
                raise config.error(f"a2a_agents.{agent.name}: a model alias has that name")
            aliases[agent.name] = agent.alias
        return cls(aliases.values())

    def get(self, name: str) -> ModelAlias:
        try:
            return self._aliases[name]
        except KeyError:
            known = ", ".join(self.names()) or "none"
            raise UnknownModel(f"unknown model alias {name!r} (known: {known})") from None

    def names(self) -> list[str]:
        return sorted(self._aliases)

    def all(self) -> list[ModelAlias]:
        return [self._aliases[n] for n in self.names()]

    def __contains__(self, name: object) -> bool:
        return name in self._aliases

    def __len__(self) -> int:
        return len(self._aliases)


def load_models(config: ConfigFile) -> list[ModelAlias]:
    """The aliases of the file's ``[models.*]`` tables; ``ValueError`` naming the file and
    the alias when one is invalid."""
    return list(config.tables("models", _parse_alias).values())


def _parse_alias(name: str, table: Mapping[str, Any]) -> ModelAlias:
    unknown = sorted(set(table) - _KNOWN_KEYS)
    if unknown:
        raise ValueError(f"unknown key(s) {', '.join(unknown)}")
    for key in _STR_KEYS:
        if key in table and not isinstance(table[key], str):
            raise ValueError(f"{key} must be a string")
    for key in _FLOAT_KEYS:
        value = table.get(key, 0.0)
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
            raise ValueError(f"{key} must be a non-negative number")
    window = table.get("context_window", 8192)
    if isinstance(window, bool) or not isinstance(window, int) or window <= 0:
        raise ValueError("context_window must be a positive integer")
    provider = table.get("provider", "openai")
    if provider not in _PROVIDERS:
        raise ValueError(f"provider must be one of {', '.join(_PROVIDERS)}")
    base_url = str(table.get("base_url", "")).strip().rstrip("/")
    if provider == "openai" and not base_url:
        raise ValueError("missing base_url")
    return ModelAlias(
        name=name,
        provider=provider,
        base_url=base_url,
        model=table.get("model") or name,
        api_key_env=table.get("api_key_env") or None,
        input_price_per_mtok=float(table.get("input_price_per_mtok", 0.0)),
        output_price_per_mtok=float(table.get("output_price_per_mtok", 0.0)),
        context_window=window,
        structured_output=_structured_output(table),
        stream_tools=_stream_tools(table),
        max_tokens=_max_tokens(table, window),
        tokenizer=_tokenizer(table),
        api=_api(table, provider),
    )


def _api(table: Mapping[str, Any], provider: str) -> OpenAIApi:
    value = table.get("api", "chat")
    if value != "chat" and provider != "openai":
        raise ValueError("api applies to provider openai only")
    for api in OPENAI_APIS:
        if value == api:
            return api
    raise ValueError(f"api must be one of {', '.join(OPENAI_APIS)}")


def _structured_output(table: Mapping[str, Any]) -> StructuredOutput:
    value = table.get("structured_output", "none")
    for kind in STRUCTURED_OUTPUT_KINDS:
        if value == kind:
            return kind
    raise ValueError(f"structured_output must be one of {', '.join(STRUCTURED_OUTPUT_KINDS)}")


def _stream_tools(table: Mapping[str, Any]) -> bool:
    value = table.get("stream_tools", True)
    if not isinstance(value, bool):
        raise ValueError("stream_tools must be true or false")
    return value


def _max_tokens(table: Mapping[str, Any], window: int) -> int | None:
    value = table.get("max_tokens")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 < value < window:
        raise ValueError("max_tokens must be a positive integer below context_window")
    return value


def _tokenizer(table: Mapping[str, Any]) -> str | None:
    value = table.get("tokenizer")
    if value is None:
        return None
    if not isinstance(value, str):
        raise ValueError("tokenizer must be a string")
    return check_spec(value)
