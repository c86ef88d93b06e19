"""Generated PDFs of N text pages (pypdf), from the retrieval corpus, for ingest runs."""

from __future__ import annotations

import io
import textwrap

from pypdf import PdfWriter
from pypdf.generic import ContentStream, DictionaryObject, NameObject

from pantheon_bench.knowledge.corpus import PASSAGES

CHARS_PER_PAGE = 1800


def _page_text(number: int) -> str:
    passages = list(PASSAGES.values())
    text = f"Page {number}. "
    i = number
    while len(text) < CHARS_PER_PAGE:
        text += passages[i % len(passages)] + " "
        i += 7
    return text[:CHARS_PER_PAGE]


def _stream(text: str) -> bytes:
    lines = textwrap.wrap(text, 95)
    escaped = (line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)") for line in lines)
    shown = " ".join(f"({line}) Tj T*" for line in escaped)
    return f"BT /F1 10 Tf 50 760 Td 12 TL {shown} ET".encode("latin-1", "replace")


def pdf_of_pages(pages: int) -> bytes:
    """A PDF of ``pages`` pages of about ``CHARS_PER_PAGE`` characters each."""
    writer = PdfWriter()
    font = DictionaryObject({
        NameObject("/Type"): NameObject("/Font"), NameObject("/Subtype"): NameObject("/Type1"),
        NameObject("/BaseFont"): NameObject("/Helvetica"),
    })  # fmt: skip
    for number in range(1, pages + 1):
        page = writer.add_blank_page(612, 792)
        page[NameObject("/Resources")] = DictionaryObject(
            {NameObject("/Font"): DictionaryObject({NameObject("/F1"): font})}
        )
        stream = ContentStream(None, None)
        stream.set_data(_stream(_page_text(number)))
        page.replace_contents(stream)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()
