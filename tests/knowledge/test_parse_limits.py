"""What one upload can make the server hold is bounded: a huge heading is cut and counted,
so it is not repeated on every chunk (Markdown, HTML and DOCX alike)."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest

from pantheon.knowledge.parse_text import parse_markdown
from pantheon.knowledge.sections import MAX_HEADING_CHARS
from pantheon.settings import Settings
from tests.app_factory import running_app
from tests.factories import create_room
from tests.knowledge.files import docx_bytes
from tests.knowledge.helpers import ingested, search, settled, upload

HUGE_HEADING = "Alpha beta " * 10_000  # 110 KB: shows the bound without gigabytes
BODY = [f"Paragraph {i} says quartz forms six-sided crystals in magma. " * 4 for i in range(12)]


def _markdown() -> bytes:
    return ("# " + HUGE_HEADING + "\n\n" + "\n\n".join(BODY)).encode()


def _html() -> bytes:
    paragraphs = "".join(f"<p>{p}</p>" for p in BODY)
    return f"<html><body><h1>{HUGE_HEADING}</h1>{paragraphs}</body></html>".encode()


def _docx() -> bytes:
    return docx_bytes([(HUGE_HEADING, BODY)])


@pytest.mark.parametrize(
    ("name", "make"), [("huge.md", _markdown), ("huge.html", _html), ("huge.docx", _docx)]
)
async def test_a_huge_heading_is_cut_not_repeated_on_every_chunk(
    client: httpx.AsyncClient, settings: Settings, name: str, make: Callable[[], bytes]
) -> None:
    place = f"rooms/{(await create_room(client))['id']}"
    document = await ingested(client, place, name, make())
    hits = await search(client, place, "quartz crystals", limit=50)
    assert len(hits) == document["chunks"] > 1
    size = settings.knowledge.chunk_chars
    assert all(len(hit["text"]) <= size for hit in hits), [len(hit["text"]) for hit in hits]
    assert all(hit["text"].startswith("Alpha beta Alpha") for hit in hits)
    heading = hits[0]["text"].split("\n", 1)[0]
    assert len(heading) <= min(MAX_HEADING_CHARS, size // 4)
    body = sum(len(p) for p in BODY)
    assert sum(len(hit["text"]) for hit in hits) < 2 * body


async def test_headings_count_in_the_text_budget(settings: Settings) -> None:
    knowledge = settings.knowledge.model_copy(update={"max_text_chars": 1000})
    # 10 sections: 220 characters of body, about 1650 of headings.
    sections = "".join(
        f"# {f'Heading {i} ' * 15}\n\nBody of five words {i:02d}.\n\n" for i in range(10)
    )
    async with running_app(settings, knowledge=knowledge) as started:
        client = started.http
        place = f"rooms/{(await create_room(client))['id']}"
        uploaded = await upload(client, place, "headings.md", sections.encode())
        failed = await settled(client, uploaded["id"])
    assert failed["status"] == "failed"
    assert "over the limit of 1000 (PANTHEON_KNOWLEDGE__MAX_TEXT_CHARS)" in failed["error"]


def test_markdown_heading_closing_hashes_are_stripped_in_linear_time() -> None:
    (section,) = parse_markdown(b"# Title ##\n\nbody")
    assert section.heading == "Title"
    (section,) = parse_markdown(b"# C#\n\nbody")
    assert section.heading == "C#"
    # A regex stripping the closing #s backtracked quadratically on this (seconds at 20k).
    (section,) = parse_markdown(b"# x" + b"#" * 200_000 + b"y\n\nbody")
    assert section.heading is not None
    assert section.heading.startswith("x###")
    assert len(section.heading) == MAX_HEADING_CHARS
