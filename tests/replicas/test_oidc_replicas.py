"""OIDC sign-in across replicas: the sign-in starts on replica A and the provider sends the
browser back to replica B (behind one address, as a load balancer would), which finishes
it from the state A stored in the shared database; the session then works on A too. A real
``oidc-provider-mock`` process, two ``pantheon serve`` processes, PostgreSQL and Redis."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from pantheon.users.oidc_logins import STATE_COOKIE
from tests.auth.oidc_fixtures import SECRET_ENV, claims, oidc_toml
from tests.auth.oidc_provider import MockProvider, mock_provider
from tests.llm.mock_openai import MockOpenAI
from tests.redis_server import RedisServer
from tests.replicas.cluster import replica_env, start_replica

pytestmark = [pytest.mark.redis, pytest.mark.postgres, pytest.mark.oidc]


@pytest.fixture
def provider() -> Iterator[MockProvider]:
    with mock_provider() as running:
        yield running


def _env(
    directory: Path, issuer: str, database_url: str, redis: RedisServer, upstream: MockOpenAI
) -> dict[str, str]:
    """A keys-mode replica whose config file also names the provider ``mock``."""
    env = replica_env(directory, database_url, redis.url, upstream)
    config = Path(env["PANTHEON_CONFIG_FILE"])
    config.write_text(config.read_text() + oidc_toml(issuer))
    env |= {
        "PANTHEON_AUTH_MODE": "keys",
        "PANTHEON_AUTH__SIGNUP": "open",
        SECRET_ENV: "not-a-real-secret",
    }
    return env


async def test_a_sign_in_begun_on_one_replica_ends_on_the_other(
    tmp_path: Path,
    upstream: MockOpenAI,
    redis: RedisServer,
    database_url: str,
    provider: MockProvider,
) -> None:
    shared = (provider.issuer, database_url, redis, upstream)
    a = await start_replica(_env(tmp_path / "a", *shared))
    b = await start_replica(_env(tmp_path / "b", *shared))
    try:
        async with a.client() as on_a, b.client() as on_b:
            started = await on_a.get("/auth/oidc/mock/login")
            assert started.status_code == 302, started.text
            state = started.cookies[STATE_COOKIE]
            provider.add_user("dana", claims("dana@example.com", preferred_username="dana"))
            back = urlsplit(provider.authorize(started.headers["location"], "dana"))
            # The browser returns to the one public address; the balancer sends it to B.
            on_b.cookies.clear()
            finished = await on_b.get(
                f"{back.path}?{back.query}",
                headers={"Host": urlsplit(a.url).netloc, "Cookie": f"{STATE_COOKIE}={state}"},
            )
            assert finished.status_code == 302, finished.text
            assert finished.headers["location"] == "/"
            session = finished.cookies["pantheon_session"]
            on_a.cookies.clear()
            me = await on_a.get("/v1/me", headers={"Cookie": f"pantheon_session={session}"})
            assert me.status_code == 200, me.text
            assert me.json()["login"] == "dana"
    finally:
        await a.stop()
        await b.stop()
