"""One entry point from a stored file to sections: ``parse_file``, run in a worker thread.

The format was decided at upload (``formats.detect``); here each format's parser runs and
the total text is bounded by ``max_text_chars`` so a small file that expands (a DOCX, a
huge CSV) cannot exhaust memory further down the pipeline.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

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
    total = sum(len(s.text) for s in sections)
    if total > max_text_chars:
        raise ParseError(
            f"the document has {total} characters of text, over the limit of {max_text_chars} "
            "(PANTHEON_KNOWLEDGE__MAX_TEXT_CHARS)"
        )
    return sections
