"""What a parser hands the chunker: ordered sections of text with their page and heading.

A heading is repeated on every chunk of its section, so it is bounded here
(``MAX_HEADING_CHARS``): an upload with a megabyte-long heading cannot multiply it.
"""

from __future__ import annotations

from dataclasses import dataclass

MAX_HEADING_CHARS = 200


@dataclass(frozen=True, slots=True)
class Section:
    """A structural unit of a document: a PDF page, a Markdown/HTML/DOCX heading's body,
    a CSV row. ``page`` is 1-based and only set for paged formats."""

    text: str
    page: int | None = None
    heading: str | None = None


class ParseError(Exception):
    """The file cannot give text; ``str(exc)`` is the reason shown on the failed document."""


def require_text(sections: list[Section], what: str) -> list[Section]:
    """Drop empty sections; ``ParseError`` when nothing is left."""
    kept = [s for s in sections if s.text.strip()]
    if not kept:
        raise ParseError(f"no extractable text in this {what}")
    return kept


def heading_of(raw: str) -> str | None:
    """A heading's text with whitespace collapsed, cut to ``MAX_HEADING_CHARS``; None if empty."""
    text = " ".join(raw.split())
    if len(text) > MAX_HEADING_CHARS:
        text = text[: MAX_HEADING_CHARS - 1].rstrip() + "\u2026"
    return text or None
