"""``[oidc.NAME]`` in the config file: what is refused at startup, and the OIDC routes
without a reachable provider (no provider process needed here)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pantheon.config_file import read_config_file
from pantheon.settings import Settings
from pantheon.users.oidc_config import load_oidc_providers
from tests.app_factory import AppWith
from tests.auth.conftest import MakeClients
from tests.auth.oidc_fixtures import SECRET_ENV, oidc_toml
from tests.redis_server import free_port

GOOD = 'issuer = "https://id.example.com"\nclient_id = "c"\nclient_secret_env = "SECRET"\n'


def _load(tmp_path: Path, text: str, environ: dict[str, str] | None = None) -> object:
    path = tmp_path / "pantheon.toml"
    path.write_text(text)
    env = {"SECRET": "s"} if environ is None else environ
    return load_oidc_providers(read_config_file(path), env)


def test_a_provider_is_read_with_its_defaults(tmp_path: Path) -> None:
    text = f'[oidc.corp]\n{GOOD}allowed_domains = ["Example.COM"]\nadmin_group = "admins"\n'
    providers = _load(tmp_path, text)
    assert isinstance(providers, dict)
    corp = providers["corp"]
    assert corp.label == "corp"
    assert corp.scopes == ("openid", "email", "profile")
    assert corp.client_secret == "s"
    assert corp.allowed_domains == frozenset({"example.com"})
    assert corp.admin_group == "admins"


@pytest.mark.parametrize(
    ("table", "environ", "problem"),
    [
        (GOOD, {}, "environment variable SECRET is not set"),
        (GOOD.replace("https", "http"), None, "issuer must be https"),
        (GOOD + 'scopes = ["email"]\n', None, "scopes must include openid"),
        (GOOD + 'client_secret = "inline"\n', None, "client_secret: Extra inputs"),
        (GOOD.replace('client_id = "c"\n', ""), None, "client_id: Field required"),
    ],
)
def test_a_bad_provider_table_is_refused_naming_the_file_and_provider(
    tmp_path: Path, table: str, environ: dict[str, str] | None, problem: str
) -> None:
    with pytest.raises(ValueError, match=f"pantheon.toml: oidc.corp: .*{problem}"):
        _load(tmp_path, f"[oidc.corp]\n{table}", environ)


def test_a_provider_name_must_fit_in_a_path(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"oidc.Bad\.Name: provider name must match"):
        _load(tmp_path, f'[oidc."Bad.Name"]\n{GOOD}')


async def test_an_unreachable_provider_sends_the_browser_back_with_an_error(
    make_clients: MakeClients, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(SECRET_ENV, "s")
    config = tmp_path / "pantheon.toml"
    config.write_text(oidc_toml(f"http://127.0.0.1:{free_port()}"))  # nobody listens
    users = await make_clients(config_file=config)
    response = await users.anon.get("/auth/oidc/mock/login")
    assert response.status_code == 302
    assert response.headers["location"] == "/?signin_error=provider"
    assert "set-cookie" not in response.headers


async def test_local_mode_has_no_sign_in(app_with: AppWith, settings: Settings) -> None:
    async with app_with() as running:
        assert running.settings.auth_mode == "local"
        providers = await running.http.get("/auth/providers")
        assert providers.json() == {"password": False, "oidc": []}
        assert (await running.http.get("/auth/oidc/mock/login")).status_code == 404
