"""Structure-following chunking: sections -> paragraphs -> chunks of about ``size`` chars.

A chunk never spans two sections, so it keeps one page and one heading. Paragraphs are
packed whole while they fit; a paragraph longer than ``size`` is cut at sentence or word
boundaries. Consecutive chunks of a section share about ``overlap`` characters (the tail of
the previous chunk, from a word boundary), so a fact cut in two is still found whole once.
A heading is repeated at the top of each of its chunks: it is often what a question names;
it takes at most a quarter of the chunk, so no chunk is longer than ``size``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from pantheon.knowledge.sections import Section
from pantheon.text import clean_text

_PARAGRAPH = re.compile(r"\n\s*\n")
_SENTENCE_END = re.compile(r"(?<=[.!?;:])\s+")


@dataclass(frozen=True, slots=True)
class ChunkDraft:
    """A chunk before embedding: its text, page and position in the document (0-based)."""

    text: str
    page: int | None
    position: int


def chunk_sections(sections: list[Section], size: int, overlap: int) -> list[ChunkDraft]:
    """Chunks of every section, numbered in document order."""
    overlap = min(overlap, size // 2)
    drafts: list[ChunkDraft] = []
    for section in sections:
        heading = (section.heading or "")[: size // 4 - 1]
        prefix = f"{heading}\n" if heading else ""
        body_size = size - len(prefix)
        pieces = _pieces(section.text, max(body_size - overlap, 1))
        for body in _pack(pieces, body_size, overlap):
            # A file's text is outside text: a PDF can hold NUL (pantheon.text).
            drafts.append(ChunkDraft(clean_text(prefix + body), section.page, len(drafts)))
    return drafts


def _pieces(text: str, size: int) -> Iterator[str]:
    """Paragraphs, with any paragraph longer than ``size`` cut into pieces that fit."""
    for paragraph in _PARAGRAPH.split(text):
        paragraph = " ".join(paragraph.split())
        if paragraph:
            yield from _split_long(paragraph, size)


def _split_long(paragraph: str, size: int) -> Iterator[str]:
    if len(paragraph) <= size:
        yield paragraph
        return
    current = ""
    for unit in _units(paragraph, size):
        if current and len(current) + 1 + len(unit) > size:
            yield current
            current = unit
        else:
            current = f"{current} {unit}" if current else unit
    if current:
        yield current


def _units(paragraph: str, size: int) -> Iterator[str]:
    """Sentences; words for a sentence too long; hard cuts for a word too long."""
    for sentence in _SENTENCE_END.split(paragraph):
        if len(sentence) <= size:
            yield sentence
            continue
        for word in sentence.split(" "):
            for start in range(0, len(word), size):
                yield word[start : start + size]


def _pack(pieces: Iterator[str], size: int, overlap: int) -> Iterator[str]:
    current = ""
    for piece in pieces:
        if current and len(current) + 2 + len(piece) > size:
            yield current
            tail = _tail(current, overlap)
            current = f"{tail}\n\n{piece}" if tail and len(tail) + 2 + len(piece) <= size else piece
        else:
            current = f"{current}\n\n{piece}" if current else piece
    if current:
        yield current


def _tail(text: str, overlap: int) -> str:
    """The last ``overlap`` characters of ``text``, starting at a word boundary."""
    if overlap <= 0:
        return ""
    tail = text[-overlap:]
    cut = tail.find(" ")
    return tail[cut + 1 :] if 0 <= cut < len(tail) - 1 and len(text) > overlap else tail
