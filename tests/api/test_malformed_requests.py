"""Bodies the API cannot parse are the documented 422 naming the problem (not an
undocumented 400), and a method a path does not serve is a 405 listing the ones it does,
on the API, the OpenAI facade and the web client's files alike."""

from __future__ import annotations

import httpx
from starlette.exceptions import HTTPException

from pantheon.errors import body_error
from tests.factories import create_room

DEEP = b"[" * 100_000 + b"]" * 100_000
FACADE = "/openai/v1/chat/completions"


async def test_too_deeply_nested_json_is_422(client: httpx.AsyncClient) -> None:
    for body in (DEEP, b'{"name": ' + DEEP + b"}"):
        response = await client.post(
            "/v1/rooms", content=body, headers={"content-type": "application/json"}
        )
        assert response.status_code == 422, response.text
        assert response.json() == {
            "detail": "the JSON body nests deeper than 64 levels of arrays and objects "
            "(PANTHEON_LIMITS__MAX_JSON_DEPTH)",
            "code": "unprocessable",
        }


async def test_a_broken_multipart_body_is_422_naming_it(client: httpx.AsyncClient) -> None:
    room = await create_room(client)
    url = f"/v1/rooms/{room['id']}/documents"
    response = await client.post(
        url, content=b"no parts", headers={"content-type": "multipart/form-data"}
    )
    assert response.status_code == 422, response.text
    assert response.json() == {
        "detail": "multipart body is malformed: Missing boundary in multipart.",
        "code": "unprocessable",
    }


async def test_the_facade_names_unparsable_bodies_in_openai_shape(
    client: httpx.AsyncClient,
) -> None:
    response = await client.post(FACADE, content=DEEP, headers={"content-type": "application/json"})
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["message"].startswith("the JSON body nests deeper than 64 levels")
    assert error["type"] == "invalid_request_error"


async def test_a_wrong_method_on_a_facade_path_is_405_in_openai_shape(
    client: httpx.AsyncClient,
) -> None:
    for method, path, allowed in (
        ("PUT", FACADE, {"POST"}),
        ("GET", FACADE, {"POST"}),
        ("DELETE", "/openai/v1/models", {"GET", "HEAD"}),
        ("PATCH", "/openai/v1/models/room-x", {"GET", "HEAD"}),
        ("TRACE", "/openai/v1/models", {"GET", "HEAD"}),
    ):
        response = await client.request(method, path)
        assert response.status_code == 405, (method, path, response.text)
        assert set(response.headers["allow"].split(", ")) == allowed | {"OPTIONS"}
        error = response.json()["error"]
        assert error["code"] == "method_not_allowed"
        assert method in error["message"]
    put = await client.put(FACADE)
    assert f"PUT {FACADE} is not supported; Pantheon offers" in put.json()["error"]["message"]
    unknown = await client.delete("/openai/v1/embeddings")
    assert unknown.status_code == 404
    assert unknown.json()["error"]["code"] == "unknown_endpoint"


async def test_the_web_files_answer_405_for_other_methods_and_404_for_no_file(
    client: httpx.AsyncClient,
) -> None:
    for path in ("/", "/index.html", "/favicon.svg"):
        response = await client.put(path, content=b"x")
        assert response.status_code == 405, (path, response.text)
        assert set(response.headers["allow"].split(", ")) == {"GET", "HEAD", "OPTIONS"}
        assert response.json()["code"] == "not_allowed"
        options = await client.options(path)
        assert options.status_code == 204
        assert set(options.headers["allow"].split(", ")) == {"GET", "HEAD", "OPTIONS"}
    for path in ("/no-such-file.js", "/v1/no-such-route"):
        response = await client.delete(path)
        assert response.status_code == 404, (path, response.text)
        assert response.json()["code"] == "not_found"


def test_any_other_body_parsing_failure_is_named_and_other_errors_are_left_alone() -> None:
    failed = HTTPException(400, "There was an error parsing the body")
    failed.__cause__ = KeyError("x")
    assert body_error(failed) == "request body could not be parsed (KeyError)"
    assert body_error(HTTPException(400, "a plain bad request")) is None
    assert body_error(HTTPException(404)) is None
