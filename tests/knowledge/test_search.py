"""Search through HTTP: hybrid ranking, scope per place, hostile query text, validation."""

from __future__ import annotations

import httpx
import pytest

from tests.factories import create_agent, create_room
from tests.knowledge.helpers import ingested, search

FACTS = {
    "saturn.txt": "Saturn has bright rings made of ice and rock. It is a gas giant.",
    "bread.txt": "Sourdough bread rises with wild yeast and lactic acid bacteria.",
    "chess.txt": "In chess the knight moves in an L shape and can jump over pieces.",
}
HOSTILE = [
    '"',
    '""unbalanced "quote',
    "*",
    "sat*",
    "NEAR(saturn rings)",
    "saturn NEAR rings",
    "-saturn",
    "saturn -rings",
    "AND OR NOT",
    "rings:",
    "col:saturn",
    "^saturn",
    "(saturn",
    "{saturn rings}",
    "saturn' OR 1=1 --",
    "日本語 のテキスト",
    "émigré ñandú",
    "🚀🪐",
    "\\",
    "a" * 1000,
]


async def _room_with_facts(client: httpx.AsyncClient) -> str:
    place = f"rooms/{(await create_room(client))['id']}"
    for name, text in FACTS.items():
        await ingested(client, place, name, text.encode())
    return place


async def test_hybrid_search_ranks_the_right_passage_first(client: httpx.AsyncClient) -> None:
    place = await _room_with_facts(client)
    hits = await search(client, place, "which planet has rings?")
    assert hits[0]["filename"] == "saturn.txt"
    assert hits[0]["score"] > hits[-1]["score"]
    assert set(hits[0]) == {"document_id", "filename", "chunk_id", "text", "page", "score"}
    assert (await search(client, place, "knight chess move"))[0]["filename"] == "chess.txt"
    assert len(await search(client, place, "bread yeast", limit=2)) == 2


async def test_hostile_query_text_never_errors(client: httpx.AsyncClient) -> None:
    place = await _room_with_facts(client)
    for query in HOSTILE:
        response = await client.get(f"/v1/{place}/knowledge/search", params={"q": query})
        assert response.status_code == 200, (query, response.text)
    assert (await search(client, place, "NEAR(saturn rings)"))[0]["filename"] == "saturn.txt"


async def test_search_sees_only_its_place(client: httpx.AsyncClient) -> None:
    room = await create_room(client)
    agent = await create_agent(client, "pilot")
    other_room = await create_room(client)
    await ingested(client, f"agents/{agent['id']}", "flight.txt", b"Ailerons roll the aircraft.")
    await ingested(client, f"rooms/{room['id']}", "kitchen.txt", b"Whisk eggs for the omelette.")
    assert [h["filename"] for h in await search(client, f"agents/{agent['id']}", "ailerons")] == [
        "flight.txt"
    ]
    room_hits = await search(client, f"rooms/{room['id']}", "ailerons aircraft")
    assert all(h["filename"] == "kitchen.txt" for h in room_hits)
    assert await search(client, f"rooms/{other_room['id']}", "omelette") == []


@pytest.mark.parametrize(
    ("params", "named"),
    [
        ({"q": ""}, "q"),
        ({}, "q"),
        ({"q": "x", "limit": 0}, "limit"),
        ({"q": "x", "limit": 51}, "limit"),
        ({"q": "x" * 1001}, "q"),
    ],
)
async def test_bad_search_parameters_are_422(
    client: httpx.AsyncClient, params: dict[str, str | int], named: str
) -> None:
    room = await create_room(client)
    response = await client.get(f"/v1/rooms/{room['id']}/knowledge/search", params=params)
    assert response.status_code == 422
    assert named in response.text


async def test_search_in_unknown_place_is_404(client: httpx.AsyncClient) -> None:
    missing = "00000000-0000-0000-0000-000000000000"
    for kind in ("rooms", "agents"):
        response = await client.get(f"/v1/{kind}/{missing}/knowledge/search", params={"q": "x"})
        assert response.status_code == 404
