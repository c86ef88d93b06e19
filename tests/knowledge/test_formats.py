"""Every accepted type ingests from a real generated file; bad files fail with a reason;
other types are 415 and oversized files 413, each naming the problem."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

from pantheon.settings import Settings
from tests.app_factory import running_app
from tests.factories import create_room
from tests.knowledge.files import docx_bytes, pdf_bytes
from tests.knowledge.helpers import ingested, search, settled, upload

HTML = b"""<html><head><title>t</title><style>.x{color:red}</style></head><body>
<h1>Volcanoes</h1><p>Basalt lava flows &amp; cools quickly.</p>
<script>alert('never indexed')</script><h2>Glaciers</h2><p>Ice carves fjords.</p></body></html>"""
MARKDOWN = b"# Bees\n\nHoney bees dance to share directions.\n\n## Ants\n\nAnts farm aphids."
CSV = b"city,country,river\nVienna,Austria,Danube\nCairo,Egypt,Nile\n"


async def _room(client: httpx.AsyncClient) -> str:
    return f"rooms/{(await create_room(client))['id']}"


async def test_pdf_keeps_page_numbers(client: httpx.AsyncClient) -> None:
    place = await _room(client)
    data = pdf_bytes(["Orchids grow on tree bark.", "", "Penguins huddle in Antarctic winter."])
    document = await ingested(client, place, "nature.pdf", data)
    assert document["content_type"] == "application/pdf"
    assert document["pages"] == 2
    hits = await search(client, place, "penguins antarctic", limit=1)
    assert hits[0]["page"] == 3
    assert hits[0]["filename"] == "nature.pdf"
    assert "Penguins huddle" in hits[0]["text"]


async def test_docx_headings_and_tables(client: httpx.AsyncClient) -> None:
    place = await _room(client)
    data = docx_bytes(
        [("Tides", ["The moon pulls the oceans."]), ("Winds", ["Trade winds blow west."])],
        table=[["planet", "moons"], ["Mars", "two"]],
    )
    document = await ingested(client, place, "sea.docx", data)
    assert document["chunks"] == 3
    hits = await search(client, place, "trade winds", limit=1)
    assert hits[0]["text"].startswith("Winds\n")
    assert "Mars | two" in (await search(client, place, "Mars moons", limit=1))[0]["text"]


async def test_html_markdown_csv_txt(client: httpx.AsyncClient) -> None:
    place = await _room(client)
    await ingested(client, place, "page.html", HTML)
    await ingested(client, place, "notes.md", MARKDOWN)
    await ingested(client, place, "cities.csv", CSV)
    await ingested(client, place, "plain.txt", "Zürich hat einen See. Ünïcödé ✓".encode())
    fjord = (await search(client, place, "fjords", limit=1))[0]
    assert fjord["text"] == "Glaciers\nIce carves fjords."
    assert all("alert" not in hit["text"] for hit in await search(client, place, "alert never"))
    ants = (await search(client, place, "aphids", limit=1))[0]
    assert ants["text"].startswith("Ants\n")
    nile = (await search(client, place, "Egypt", limit=1))[0]
    assert "city: Cairo; country: Egypt; river: Nile" in nile["text"]
    assert "Zürich" in (await search(client, place, "zurich see", limit=1))[0]["text"]


@pytest.mark.parametrize(
    ("name", "data", "reason"),
    [
        ("locked.pdf", pdf_bytes(["top secret"], password="pw"), "encrypted"),
        ("broken.pdf", b"%PDF-1.7\n1 0 obj << /Type /Catalog >>\ngarbage", "corrupt PDF"),
        ("scan.pdf", pdf_bytes(["", ""]), "no extractable text"),
        ("empty.txt", b"   \n\n ", "no extractable text"),
        ("empty.md", b"# Only a heading\n", "no extractable text"),
        ("broken.docx", b"PK\x03\x04 not really a zip", "corrupt DOCX"),
        ("blank.csv", b",,\n,,\n", "no extractable text"),
    ],
)
async def test_bad_files_end_failed_with_a_reason(
    client: httpx.AsyncClient, name: str, data: bytes, reason: str
) -> None:
    place = await _room(client)
    document = await settled(client, (await upload(client, place, name, data))["id"])
    assert document["status"] == "failed"
    assert reason in document["error"]
    assert document["chunks"] == 0


@pytest.mark.parametrize(
    ("name", "data", "named"),
    [
        ("tool.exe", b"MZ\x90\x00", ".exe"),
        ("README", b"plain words", "no extension"),
        ("fake.pdf", b"just text", "not a PDF"),
        ("fake.docx", b"just text", "not a DOCX"),
        ("binary.txt", b"abc\x00\x01\x02", "binary"),
    ],
)
async def test_other_types_are_415_naming_the_accepted_ones(
    client: httpx.AsyncClient, name: str, data: bytes, named: str
) -> None:
    room = await create_room(client)
    response = await client.post(f"/v1/rooms/{room['id']}/documents", files={"file": (name, data)})
    assert response.status_code == 415, response.text
    detail = response.json()["detail"]
    assert named in detail
    assert "PDF (.pdf)" in detail
    assert "CSV (.csv)" in detail
    listed = await client.get(f"/v1/rooms/{room['id']}/documents")
    assert listed.json()["total"] == 0


async def test_pdf_sniffed_without_extension(client: httpx.AsyncClient) -> None:
    place = await _room(client)
    document = await ingested(client, place, "scan-0001", pdf_bytes(["Sniffed by header."]))
    assert document["format"] == "pdf"


@pytest.fixture
async def small_limit_client(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    knowledge = settings.knowledge.model_copy(update={"max_bytes": 4096})
    async with running_app(settings, knowledge=knowledge) as started:
        yield started.http


async def test_files_over_max_bytes_are_413_naming_the_limit(
    small_limit_client: httpx.AsyncClient,
) -> None:
    client = small_limit_client
    room = await create_room(client)
    url = f"/v1/rooms/{room['id']}/documents"
    just_over = await client.post(url, files={"file": ("a.txt", b"x" * 4097)})
    assert just_over.status_code == 413
    assert "PANTHEON_KNOWLEDGE__MAX_BYTES" in just_over.json()["detail"]
    far_over = await client.post(url, files={"file": ("a.txt", b"x" * 200_000)})
    assert far_over.status_code == 413
    assert "knowledge.max_bytes" in far_over.json()["detail"]
    assert (await client.get(url)).json()["total"] == 0
    at_limit = await client.post(url, files={"file": ("a.txt", b"word " * 819)})
    assert at_limit.status_code == 202, at_limit.text


async def test_streamed_upload_without_length_is_cut_at_the_limit(
    small_limit_client: httpx.AsyncClient,
) -> None:
    room = await create_room(small_limit_client)

    async def chunked() -> AsyncIterator[bytes]:
        yield b'--b\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\n'
        for _ in range(100):
            yield b"x" * 1024
        yield b"\r\n--b--\r\n"

    response = await small_limit_client.post(
        f"/v1/rooms/{room['id']}/documents",
        content=chunked(),
        headers={"content-type": "multipart/form-data; boundary=b"},
    )
    assert response.status_code == 413
    assert "PANTHEON_KNOWLEDGE__MAX_BYTES" in response.json()["detail"]


async def test_json_routes_keep_their_own_body_limit(client: httpx.AsyncClient) -> None:
    response = await client.post("/v1/rooms", json={"name": "r", "description": "x" * 300_000})
    assert response.status_code == 413
    assert "PANTHEON_LIMITS__MAX_BODY_BYTES" in response.json()["detail"]
