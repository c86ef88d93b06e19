"""A real OIDC provider for tests: ``oidc-provider-mock`` (a Flask app on authlib) in its
own process on a free port, and the browser's part of a sign-in against it.

Outside CI the ``oidc`` tests are skipped, with the reason shown, when the package is
not installed; with ``CI=true`` they are mandatory (it is in the ``dev`` extra).
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

import httpx
import pytest

from tests.redis_server import free_port


def _require_package() -> None:
    if importlib.util.find_spec("oidc_provider_mock") is None:
        reason = "oidc-provider-mock is not installed (pip install -e '.[dev]')"
        if os.environ.get("CI") == "true":
            pytest.fail(f"{reason} (mandatory with CI=true)")
        pytest.skip(reason)


@dataclass
class MockProvider:
    issuer: str

    def add_user(self, sub: str, claims: dict[str, Any]) -> None:
        """The claims the provider gives ``sub`` (its ``/users/<sub>`` API)."""
        response = httpx.put(f"{self.issuer}/users/{quote(sub, safe='')}", json=claims)
        assert response.status_code == 204, response.text

    def authorize(self, authorize_url: str, sub: str, *, deny: bool = False) -> str:
        """Submit the provider's authorization form as the person ``sub`` would (or deny);
        returns the URL the provider sends the browser back to (our callback)."""
        form = {"action": "deny"} if deny else {"sub": sub}
        response = httpx.post(authorize_url, data=form)
        assert response.status_code == 302, response.text
        return response.headers["location"]


@contextmanager
def mock_provider() -> Iterator[MockProvider]:
    """``oidc-provider-mock`` on a free loopback port until the block ends."""
    _require_package()
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "oidc_provider_mock", "--port", str(port), "--host", "127.0.0.1"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    issuer = f"http://127.0.0.1:{port}"
    try:
        _wait_until_up(issuer, process)
        yield MockProvider(issuer)
    finally:
        process.kill()
        process.wait()


def _wait_until_up(issuer: str, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"oidc-provider-mock exited with {process.returncode}")
        try:
            if httpx.get(f"{issuer}/.well-known/openid-configuration").status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.05)
    raise AssertionError(f"oidc-provider-mock did not answer on {issuer}")


def query(url: str) -> dict[str, str]:
    """The query parameters of ``url``, one value each."""
    return {k: v[0] for k, v in parse_qs(urlsplit(url).query).items()}
