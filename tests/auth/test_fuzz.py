"""Schemathesis over the whole OpenAPI schema, in process, authenticated, scripted LLM.

Every operation gets a bounded, derandomized set of generated requests (half of the path
ids swapped for real ones, so requests reach the services, not only the 404 path; half of
the JSON bodies with a non-finite number, ``tests/auth/non_finite.py``): no 5xx, and every
response must match its declared status, content type and schema.
"""

from __future__ import annotations

import asyncio
import zlib
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.core.failures import FailureGroup
from schemathesis.python import asgi
from schemathesis.specs.openapi.checks import negative_data_rejection, positive_data_acceptance

from pantheon.db.engine import Database
from pantheon.db.migrations import upgrade
from pantheon.llm.providers.scripted import ScriptedProvider
from pantheon.server.main import create_app
from pantheon.settings import LimitSettings, Settings
from tests.auth.conftest import make_user
from tests.auth.non_finite import with_non_finite

pytestmark = pytest.mark.fuzz
MAX_EXAMPLES = 25
# A schema-valid body can still break a business rule the schema cannot state (an alias that
# is not configured, a room without agents, no @mention): those 422s are correct answers.
EXCLUDED = [positive_data_acceptance]
# A body given a non-finite number after generation may have it under a key the API ignores
# (unknown fields are dropped, never stored): a 2xx then is right, though the bytes are not
# schema-valid JSON. Every non-finite number in a field the API reads is a 422 (no 5xx).
EXCLUDED_NON_FINITE = [*EXCLUDED, negative_data_rejection]
IDS: dict[str, str] = {}
STATUSES: list[int] = []
HEADERS: dict[str, str] = {}


async def _prepare(url: str) -> str:
    await upgrade(url)
    db = Database.from_url(url)
    try:
        return await make_user(db, "fuzzer", admin=True)
    finally:
        await db.dispose()


def _seed(client: asgi.ASGIClient) -> None:
    """A room with an agent, a session and a finished turn: ids for half of the cases."""
    agent = client.post("/v1/agents", json={"key": "alpha", "name": "A", "role_prompt": "r"})
    room = client.post("/v1/rooms", json={"name": "r"}).json()
    client.post(f"/v1/rooms/{room['id']}/agents", json={"agent_id": agent.json()["id"]})
    session = client.post(f"/v1/rooms/{room['id']}/sessions", json={}).json()
    turn = client.post(f"/v1/sessions/{session['id']}/turns", json={"message": "hi"}).json()
    users = client.get("/v1/admin/users").json()["items"]
    IDS.update(
        room_id=room["id"],
        agent_id=agent.json()["id"],
        session_id=session["id"],
        turn_id=turn["id"],
        user_id=users[0]["id"],
    )


@pytest.fixture(scope="module")
def api_schema(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    tmp = tmp_path_factory.mktemp("fuzz")
    config = Settings(
        data_dir=tmp,
        database_url=f"sqlite+aiosqlite:///{tmp / 'fuzz.db'}",
        auth_mode="keys",
        limits=LimitSettings(turns_per_minute=100_000),
    )
    key = asyncio.run(_prepare(config.resolved_database_url))
    HEADERS["Authorization"] = f"Bearer {key}"
    app = create_app(config, scripted=ScriptedProvider())
    try:
        schema = schemathesis.openapi.from_asgi("/openapi.json", app)
        with asgi.get_client(app) as client:  # type: ignore[arg-type]
            client.headers.update(HEADERS)
            _seed(client)
        yield schema
    finally:
        asgi.shutdown_lifespans()


def _check(case: Any) -> None:
    for name, value in (case.path_parameters or {}).items():
        if name in IDS and zlib.crc32(str(value).encode()) % 2 == 0:
            case.path_parameters[name] = IDS[name]
    response = case.call(headers=HEADERS)
    STATUSES.append(response.status_code)
    excluded = EXCLUDED_NON_FINITE if isinstance(case.body, bytes) else EXCLUDED
    case.validate_response(response, headers=HEADERS, excluded_checks=excluded)


def _non_finite(case: Any) -> Any:
    def with_body(body: Any) -> Any:
        case.body = body
        return case

    return with_non_finite(case.operation, case.body).map(with_body)


def test_every_operation_conforms_to_its_schema(api_schema: Any) -> None:
    failures: dict[str, str] = {}
    operations = [result.ok() for result in api_schema.get_all_operations()]
    assert len(operations) >= 15
    for operation in operations:
        run = given(case=operation.as_strategy().flatmap(_non_finite))(_check)
        run = settings(
            max_examples=MAX_EXAMPLES,
            deadline=None,
            derandomize=True,
            database=None,
            suppress_health_check=list(HealthCheck),
        )(run)
        try:
            run()
        except (Exception, FailureGroup) as exc:  # collect every operation's failures
            failures[operation.label] = f"{type(exc).__name__}: {exc}"
    assert failures == {}
    assert len(STATUSES) >= 10 * len(operations)
    assert {200, 201, 204, 404, 422} <= set(STATUSES)  # the seeded ids reached the services
