"""``[oidc.NAME]`` tables of the operator config file: the OIDC providers people sign in
with (docs/operations.md "Setting up an OIDC provider"), validated at startup.

``issuer`` (https, or http on a loopback address for tests), ``client_id``,
``client_secret_env`` (the name of the environment variable holding the secret: the
secret itself never sits in the file), ``scopes`` (default ``openid email profile``), and
optional ``label``, ``allowed_domains`` (email domains that may sign in) and
``admin_group`` (a ``groups`` claim value that makes the user an admin). A missing
variable, a bad table or a bad name is a ``ValueError`` naming the file and the provider.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Self

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from pantheon.config_file import ConfigFile
from pantheon.tools.registry import describe_errors

NAME_PATTERN = r"^[a-z0-9][a-z0-9_-]{0,63}$"  # a path segment: /auth/oidc/NAME/login
_LOOPBACK = re.compile(r"^http://(127\.0\.0\.1|localhost|\[::1\])(:\d+)?(/|$)")
DEFAULT_SCOPES = ("openid", "email", "profile")


@dataclass(frozen=True, slots=True)
class OidcProvider:
    """One provider, its secret read from the environment."""

    name: str
    label: str
    issuer: str
    client_id: str
    client_secret: str
    scopes: tuple[str, ...]
    allowed_domains: frozenset[str]  # lower case; empty: any domain
    admin_group: str | None


class _ProviderTable(BaseModel):
    model_config = ConfigDict(extra="forbid")

    issuer: Annotated[str, Field(pattern=r"^https?://\S+$")]
    client_id: Annotated[str, Field(min_length=1)]
    client_secret_env: Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")]
    scopes: list[Annotated[str, Field(pattern=r"^\S+$")]] = Field(
        default_factory=lambda: list(DEFAULT_SCOPES)
    )
    label: Annotated[str, Field(min_length=1, max_length=100)] | None = None
    allowed_domains: list[Annotated[str, Field(pattern=r"^[A-Za-z0-9.-]+$")]] = Field(
        default_factory=list
    )
    admin_group: Annotated[str, Field(min_length=1)] | None = None

    @model_validator(mode="after")
    def _checked(self) -> Self:
        if "openid" not in self.scopes:
            raise ValueError("scopes must include openid")
        if self.issuer.startswith("http://") and not _LOOPBACK.match(self.issuer):
            raise ValueError("issuer must be https (plain http only on a loopback address)")
        return self


def load_oidc_providers(
    config: ConfigFile, environ: Mapping[str, str] | None = None
) -> dict[str, OidcProvider]:
    """The providers of the config file's ``[oidc.*]`` tables by name (none without)."""
    env = os.environ if environ is None else environ
    return config.tables("oidc", lambda name, table: _parse(name, table, env))


def _parse(name: str, table: dict[str, object], environ: Mapping[str, str]) -> OidcProvider:
    if not re.fullmatch(NAME_PATTERN, name):
        raise ValueError(f"provider name must match {NAME_PATTERN}")
    try:
        parsed = _ProviderTable.model_validate(table)
    except ValidationError as exc:
        raise ValueError(describe_errors(exc)) from None
    secret = environ.get(parsed.client_secret_env, "")
    if not secret:
        raise ValueError(f"environment variable {parsed.client_secret_env} is not set")
    return OidcProvider(
        name=name,
        label=parsed.label or name,
        issuer=parsed.issuer,  # compared exactly with the discovery document's
        client_id=parsed.client_id,
        client_secret=secret,
        scopes=tuple(parsed.scopes),
        allowed_domains=frozenset(d.lower() for d in parsed.allowed_domains),
        admin_group=parsed.admin_group,
    )
