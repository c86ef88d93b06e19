"""Real files of each accepted type, generated in the tests (pypdf, python-docx, text)."""

from __future__ import annotations

import io
import textwrap

import docx
from pypdf import PdfWriter
from pypdf.generic import ContentStream, DictionaryObject, NameObject


def _escape(line: str) -> str:
    return line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def _content(text: str) -> bytes:
    lines = textwrap.wrap(text, 90) or [""]
    shown = " ".join(f"({_escape(line)}) Tj T*" for line in lines)
    return f"BT /F1 11 Tf 72 740 Td 14 TL {shown} ET".encode("latin-1", "replace")


def pdf_bytes(pages: list[str], *, password: str | None = None) -> bytes:
    """A PDF with one page per string (Helvetica text; an empty string is a page without
    text, like a scanned image), optionally encrypted with a user password."""
    writer = PdfWriter()
    font = DictionaryObject(
        {
            NameObject("/Type"): NameObject("/Font"),
            NameObject("/Subtype"): NameObject("/Type1"),
            NameObject("/BaseFont"): NameObject("/Helvetica"),
        }
    )
    for text in pages:
        page = writer.add_blank_page(612, 792)
        fonts = DictionaryObject({NameObject("/F1"): font})
        page[NameObject("/Resources")] = DictionaryObject({NameObject("/Font"): fonts})
        if text:
            stream = ContentStream(None, None)
            stream.set_data(_content(text))
            page.replace_contents(stream)
    if password is not None:
        writer.encrypt(password, algorithm="AES-128")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def docx_bytes(
    sections: list[tuple[str, list[str]]], table: list[list[str]] | None = None
) -> bytes:
    """A DOCX with a heading and paragraphs per section, and optionally a table."""
    document = docx.Document()
    for heading, paragraphs in sections:
        document.add_heading(heading, level=1)
        for paragraph in paragraphs:
            document.add_paragraph(paragraph)
    if table:
        grid = document.add_table(rows=len(table), cols=len(table[0]))
        for r, row in enumerate(table):
            for c, cell in enumerate(row):
                grid.cell(r, c).text = cell
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()
