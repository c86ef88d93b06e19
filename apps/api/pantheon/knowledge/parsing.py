"""From a stored file to chunks, in the parser child: ``parse_document``.

The format was decided at upload (``formats.detect``); here each format's parser runs, the
text (headings included) is bounded by ``max_text_chars``, and the sections are chunked,
all in the child under its limits (``parse_child``), so the server process only ever
receives the bounded chunks, never a file's expansion.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pantheon.knowledge.chunking import ChunkDraft, chunk_sections
from pantheon.knowledge.formats import Format
from pantheon.knowledge.parse_binary import parse_docx, parse_pdf
from pantheon.knowledge.parse_text import parse_csv, parse_html, parse_markdown, parse_txt
from pantheon.knowledge.sections import ParseError, Section

_TEXT_PARSERS: dict[Format, Callable[[bytes], list[Section]]] = {
    Format.TXT: parse_txt,
    Format.MARKDOWN: parse_markdown,
    Format.CSV: parse_csv,
    Format.HTML: parse_html,
}


@dataclass(frozen=True, slots=True)
class ParseLimits:
    """What one parse may produce and use (from ``KnowledgeSettings``)."""

    max_text_chars: int
    chunk_chars: int
    chunk_overlap: int
    max_memory_bytes: int


@dataclass(frozen=True, slots=True)
class ParsedDocument:
    """The chunks of a document, and for a PDF the number of pages that gave text."""

    chunks: list[ChunkDraft]
    pages: int | None


def parse_document(path: Path, fmt: Format, limits: ParseLimits) -> ParsedDocument:
    """Parse and chunk the file; ``ParseError`` with the reason when it cannot give chunks."""
    try:
        sections = parse_file(path, fmt, limits.max_text_chars)
        chunks = chunk_sections(sections, limits.chunk_chars, limits.chunk_overlap)
    except MemoryError:
        raise ParseError(
            f"parsing this file needs more than {limits.max_memory_bytes} bytes of memory "
            "(PANTHEON_KNOWLEDGE__PARSE_MAX_MEMORY_BYTES)"
        ) from None
    pages = len({s.page for s in sections}) if fmt is Format.PDF else None
    return ParsedDocument(chunks, pages)


def parse_file(path: Path, fmt: Format, max_text_chars: int) -> list[Section]:
    """Sections of the file at ``path``; ``ParseError`` with the reason when it has none."""
    if not path.is_file():
        raise ParseError("the stored file is missing; upload the document again")
    if fmt is Format.PDF:
        sections = parse_pdf(path)
    elif fmt is Format.DOCX:
        sections = parse_docx(path)
    else:
        sections = _TEXT_PARSERS[fmt](path.read_bytes())
    total = sum(len(s.text) + len(s.heading or "") for s in sections)
    if total > max_text_chars:
        raise ParseError(
            f"the document has {total} characters of text, over the limit of {max_text_chars} "
            "(PANTHEON_KNOWLEDGE__MAX_TEXT_CHARS)"
        )
    return sections
