"""Text formats: TXT (paragraphs), Markdown (by headings), CSV (one line per row), HTML.

Bytes are decoded as UTF-8 (a BOM is dropped; undecodable bytes become U+FFFD), so no
character in an upload can make parsing raise. HTML uses the standard library's parser:
script and style are dropped, block elements break lines, ``h1``-``h6`` start sections.
"""

from __future__ import annotations

import csv
import io
import re
from html.parser import HTMLParser

from pantheon.knowledge.sections import ParseError, Section, heading_of, require_text

# The closing #s are stripped in code (_title): a regex doing it backtracks quadratically.
_HEADING = re.compile(r"^#{1,6}\s+(.*)$")
_BLOCKS = frozenset(
    [
        "p",
        "div",
        "br",
        "li",
        "tr",
        "section",
        "article",
        "header",
        "footer",
        "blockquote",
        "pre",
        "table",
        "ul",
        "ol",
        "dd",
        "dt",
    ]
)
_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
_SKIPPED = frozenset({"script", "style", "noscript", "template", "head"})


def decode(data: bytes) -> str:
    return data.decode("utf-8-sig", errors="replace").replace("\r\n", "\n").replace("\r", "\n")


def parse_txt(data: bytes) -> list[Section]:
    return require_text([Section(decode(data))], "text file")


def parse_markdown(data: bytes) -> list[Section]:
    """One section per heading (the heading is kept as the section's title)."""
    sections: list[Section] = []
    heading: str | None = None
    lines: list[str] = []
    in_fence = False
    for line in decode(data).split("\n"):
        in_fence = in_fence != line.lstrip().startswith("```")
        match = None if in_fence else _HEADING.match(line)
        if match:
            sections.append(Section("\n".join(lines), heading=heading))
            heading, lines = heading_of(_title(match.group(1))) or heading, []
        else:
            lines.append(line)
    sections.append(Section("\n".join(lines), heading=heading))
    return require_text(sections, "Markdown file")


def _title(text: str) -> str:
    """An ATX heading's text without its optional closing sequence of #s."""
    text = text.rstrip()
    bare = text.rstrip("#")
    return bare.rstrip() if not bare or bare[-1].isspace() else text


def parse_csv(data: bytes) -> list[Section]:
    """Each row as ``column: value; ...`` on its own paragraph, so chunks keep rows whole."""
    try:
        rows = list(csv.reader(io.StringIO(decode(data))))
    except csv.Error as exc:
        raise ParseError(f"invalid CSV: {exc}") from exc
    rows = [row for row in rows if any(cell.strip() for cell in row)]
    if not rows:
        raise ParseError("no extractable text in this CSV file")
    header = rows[0]
    lines = [_row(header, row) for row in rows[1:]] if len(rows) > 1 else [_row([], header)]
    return require_text([Section("\n\n".join(lines))], "CSV file")


def _row(header: list[str], row: list[str]) -> str:
    named = [
        f"{header[i].strip()}: {cell.strip()}" if i < len(header) and header[i].strip() else cell
        for i, cell in enumerate(row)
        if cell.strip()
    ]
    return "; ".join(named)


class _TextExtractor(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.sections: list[Section] = []
        self.heading: str | None = None
        self.parts: list[str] = []
        self.heading_parts: list[str] | None = None
        self.skip_depth = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIPPED:
            self.skip_depth += 1
        elif tag in _HEADINGS:
            self.flush()
            self.heading_parts = []
        elif tag in _BLOCKS:
            self.parts.append("\n\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIPPED:
            self.skip_depth = max(0, self.skip_depth - 1)
        elif tag in _HEADINGS and self.heading_parts is not None:
            self.heading = heading_of("".join(self.heading_parts)) or self.heading
            self.heading_parts = None

    def handle_data(self, data: str) -> None:
        if self.skip_depth:
            return
        target = self.heading_parts if self.heading_parts is not None else self.parts
        target.append(data)

    def flush(self) -> None:
        text = "".join(self.parts)
        paragraphs = (" ".join(p.split()) for p in re.split(r"\n\s*\n", text))
        self.sections.append(Section("\n\n".join(p for p in paragraphs if p), heading=self.heading))
        self.parts = []


def parse_html(data: bytes) -> list[Section]:
    extractor = _TextExtractor()
    extractor.feed(decode(data))
    extractor.close()
    extractor.flush()
    return require_text(extractor.sections, "HTML file")
