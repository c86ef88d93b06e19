"""``GET /metrics`` in ``keys`` mode: only an admin key reads it, like the admin API."""

from __future__ import annotations

from tests.auth.conftest import Clients
from tests.observability.scrape import parse, total


async def test_metrics_need_an_admin_key(users: Clients) -> None:
    anon = await users.anon.get("/metrics")
    assert anon.status_code == 401
    plain = await users.alice.get("/metrics")
    assert plain.status_code == 403
    assert "admin" in plain.json()["detail"]
    bad = await users.anon.get("/metrics", headers={"Authorization": "Bearer pk_00000000_nope"})
    assert bad.status_code == 401
    admin = await users.root.get("/metrics")
    assert admin.status_code == 200
    assert admin.headers["content-type"].startswith("text/plain")
    refused = total(parse(admin.text), "pantheon_http_requests_total", route="/metrics")
    assert refused >= 3  # the refusals above were counted too
