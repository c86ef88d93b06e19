"""``[mcp_servers.NAME]`` tables of the operator config file, validated at startup.

Streamable HTTP: ``url``, ``headers``; stdio: ``command`` (a list: program and arguments),
``env``, ``cwd``. Both take ``timeout_s`` (one call) and ``connect_timeout_s``; their
defaults are ``settings.tools.timeout_s`` and ``settings.tools.mcp_connect_timeout_s``.
``auth = "oauth"`` (HTTP only): each user connects their own account (docs/adr/0046);
``scopes``, and ``client_id`` with ``client_secret_env`` for a pre-registered client
(else dynamic client registration). ``${VAR}`` in a header or env value is replaced from
the process environment; a variable that is not set is a startup error. Every error names
the file and the server.
Commands come only from this file, which only the operator writes: never from the API.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal, Self

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from pantheon.config_file import ConfigFile
from pantheon.settings import ToolSettings
from pantheon.tools.entries import SERVER_NAME_PATTERN
from pantheon.tools.registry import describe_errors

_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


@dataclass(frozen=True, slots=True)
class OAuthClientConfig:
    """``auth = "oauth"``: scopes to ask for, and a pre-registered client if any."""

    scopes: tuple[str, ...] = ()
    client_id: str | None = None
    client_secret: str | None = field(default=None, repr=False)


@dataclass(frozen=True, slots=True)
class McpServerConfig:
    """One server, with variables expanded and defaults applied."""

    name: str
    timeout_s: float
    connect_timeout_s: float
    url: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    command: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str | None = None
    oauth: OAuthClientConfig | None = None

    @property
    def transport(self) -> Literal["http", "stdio"]:
        return "http" if self.url is not None else "stdio"


class _ServerTable(BaseModel):
    model_config = ConfigDict(extra="forbid")

    url: str | None = Field(default=None, pattern=r"^https?://\S+$")
    headers: dict[str, str] = Field(default_factory=dict)
    command: list[str] | None = Field(default=None, min_length=1)
    env: dict[str, str] = Field(default_factory=dict)
    cwd: str | None = None
    timeout_s: float | None = Field(default=None, gt=0, le=3600)
    connect_timeout_s: float | None = Field(default=None, gt=0, le=600)
    auth: Literal["headers", "oauth"] = "headers"
    scopes: list[str] = Field(default_factory=list)
    client_id: str | None = Field(default=None, min_length=1)
    client_secret_env: str | None = Field(default=None, pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")

    @model_validator(mode="after")
    def _one_transport(self) -> Self:
        if (self.url is None) == (self.command is None):
            raise ValueError("set exactly one of url (Streamable HTTP) or command (stdio)")
        if self.url is not None and (self.env or self.cwd):
            raise ValueError("env and cwd apply to stdio servers (command), not to url")
        if self.command is not None and self.headers:
            raise ValueError("headers apply to HTTP servers (url), not to command")
        if self.command is not None and not all(part.strip() for part in self.command):
            raise ValueError("command must not contain empty strings")
        if self.auth != "oauth" and (self.scopes or self.client_id or self.client_secret_env):
            raise ValueError('scopes, client_id and client_secret_env need auth = "oauth"')
        if self.auth == "oauth" and self.url is None:
            raise ValueError('auth = "oauth" applies to HTTP servers (url), not to command')
        if self.client_secret_env and not self.client_id:
            raise ValueError("client_secret_env needs client_id")
        return self


def expand(value: str, environ: Mapping[str, str]) -> str:
    """``${VAR}`` replaced by the variable's value; ``ValueError`` naming a missing one."""

    def replace(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in environ:
            raise ValueError(f"environment variable {name} is not set")
        return environ[name]

    return _VARIABLE.sub(replace, value)


def load_mcp_servers(
    config: ConfigFile, tools: ToolSettings, environ: Mapping[str, str] | None = None
) -> list[McpServerConfig]:
    """The servers of the config file's ``[mcp_servers.*]`` tables (none without a file);
    ``ValueError`` naming the file and the server when a table is invalid."""
    env = os.environ if environ is None else environ
    servers = []
    for name, table in config.section("mcp_servers").items():
        try:
            servers.append(_parse(name, table, tools, env))
        except ValueError as exc:
            raise config.error(f"mcp_servers.{name}: {exc}") from None
    return servers


def _parse(
    name: str, table: object, tools: ToolSettings, environ: Mapping[str, str]
) -> McpServerConfig:
    if not re.fullmatch(SERVER_NAME_PATTERN, name):
        raise ValueError(f"server name must match {SERVER_NAME_PATTERN}")
    if not isinstance(table, dict):
        raise ValueError("must be a table")
    try:
        parsed = _ServerTable.model_validate(table)
    except ValidationError as exc:
        raise ValueError(describe_errors(exc)) from None
    return McpServerConfig(
        name=name,
        timeout_s=parsed.timeout_s or tools.timeout_s,
        connect_timeout_s=parsed.connect_timeout_s or tools.mcp_connect_timeout_s,
        url=parsed.url,
        headers={k: _expanded(f"headers.{k}", v, environ) for k, v in parsed.headers.items()},
        command=tuple(parsed.command or ()),
        env={k: _expanded(f"env.{k}", v, environ) for k, v in parsed.env.items()},
        cwd=parsed.cwd,
        oauth=_oauth(parsed, environ),
    )


def _oauth(parsed: _ServerTable, environ: Mapping[str, str]) -> OAuthClientConfig | None:
    if parsed.auth != "oauth":
        return None
    secret = None
    if parsed.client_secret_env is not None:
        if parsed.client_secret_env not in environ:
            raise ValueError(f"client_secret_env: {parsed.client_secret_env} is not set")
        secret = environ[parsed.client_secret_env]
    return OAuthClientConfig(tuple(parsed.scopes), parsed.client_id, secret)


def _expanded(where: str, value: str, environ: Mapping[str, str]) -> str:
    try:
        return expand(value, environ)
    except ValueError as exc:
        raise ValueError(f"{where}: {exc}") from None
