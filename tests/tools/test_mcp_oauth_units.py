"""``auth = "oauth"`` config validation and token sealing (docs/adr/0046)."""

from __future__ import annotations

import pytest

from pantheon.settings import ToolSettings
from pantheon.tools.mcp.config import _parse
from pantheon.tools.mcp.oauth.sealing import Sealer, SecretKeyMissing

SECRET = "k" * 32


def test_an_oauth_server_with_a_pre_registered_client_reads_its_secret_from_the_environment() -> (
    None
):
    table = {
        "url": "http://x/mcp",
        "auth": "oauth",
        "scopes": ["read"],
        "client_id": "c",
        "client_secret_env": "S",
    }
    config = _parse("files", table, ToolSettings(), {"S": "shh"})
    assert config.oauth is not None
    assert (config.oauth.scopes, config.oauth.client_id, config.oauth.client_secret) == (
        ("read",),
        "c",
        "shh",
    )
    assert "shh" not in repr(config)


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ({"command": ["x"], "auth": "oauth"}, "applies to HTTP servers"),
        ({"url": "http://x", "scopes": ["a"]}, 'need auth = "oauth"'),
        ({"url": "http://x", "auth": "oauth", "client_secret_env": "S"}, "needs client_id"),
        (
            {"url": "http://x", "auth": "oauth", "client_id": "c", "client_secret_env": "NOPE"},
            "NOPE is not set",
        ),
    ],
)
def test_bad_oauth_tables_are_refused_naming_the_problem(
    table: dict[str, object], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        _parse("files", table, ToolSettings(), {})


def test_sealed_tokens_open_only_under_the_same_key() -> None:
    sealed = Sealer(SECRET).seal("access-token-value")
    assert "access-token-value" not in sealed
    assert Sealer(SECRET).open(sealed) == "access-token-value"
    assert Sealer("z" * 32).open(sealed) is None
    assert Sealer(SECRET).open(sealed[:-4] + "AAAA") is None


def test_a_short_secret_key_is_refused() -> None:
    with pytest.raises(SecretKeyMissing):
        Sealer("short")
