"""PDF (pypdf, one section per page) and DOCX (python-docx, one section per heading).

Both run in a worker thread. Any exception from the libraries means a corrupt file and
becomes a ``ParseError`` with a short reason; DOCX packages are checked for their
uncompressed size first, so a ZIP bomb fails instead of filling memory.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

from pypdf import PdfReader

from pantheon.knowledge.sections import ParseError, Section, heading_of, require_text

MAX_DOCX_UNPACKED = 256 * 1024 * 1024


def parse_pdf(path: Path) -> list[Section]:
    """One section per page that has text; encrypted, corrupt or image-only PDFs fail."""
    try:
        reader = PdfReader(path)
        if reader.is_encrypted and not _opens_without_password(reader):
            raise ParseError("the PDF is encrypted; remove its password and upload it again")
        pages = [
            Section(page.extract_text() or "", page=number)
            for number, page in enumerate(reader.pages, start=1)
        ]
    except (ParseError, MemoryError):  # MemoryError: the child's cap (parse_child)
        raise
    except Exception as exc:
        raise ParseError(f"corrupt PDF: {_short(exc)}") from exc
    try:
        return require_text(pages, "PDF")
    except ParseError:
        raise ParseError(
            "no extractable text in this PDF (empty or scanned images; OCR is not supported)"
        ) from None


def _opens_without_password(reader: PdfReader) -> bool:
    """An owner-password-only PDF opens with the empty password; anything else is locked
    (including ciphers pypdf cannot decode without an optional dependency)."""
    try:
        return bool(reader.decrypt(""))
    except Exception:
        return False


def parse_docx(path: Path) -> list[Section]:
    """Paragraphs grouped under their headings, then each table row as a line."""
    import docx

    try:
        with zipfile.ZipFile(path) as package:
            unpacked = sum(info.file_size for info in package.infolist())
        if unpacked > MAX_DOCX_UNPACKED:
            raise ParseError(f"the DOCX unpacks to {unpacked} bytes (limit {MAX_DOCX_UNPACKED})")
        document = docx.Document(str(path))
        sections = _docx_sections(document)
    except (ParseError, MemoryError):  # MemoryError: the child's cap (parse_child)
        raise
    except Exception as exc:
        raise ParseError(f"corrupt DOCX: {_short(exc)}") from exc
    return require_text(sections, "DOCX")


def _docx_sections(document: object) -> list[Section]:
    sections: list[Section] = []
    heading: str | None = None
    lines: list[str] = []
    for paragraph in getattr(document, "paragraphs", []):
        style = getattr(getattr(paragraph, "style", None), "name", "") or ""
        if style.startswith("Heading") or style == "Title":
            sections.append(Section("\n\n".join(lines), heading=heading))
            heading, lines = heading_of(paragraph.text) or heading, []
        elif paragraph.text.strip():
            lines.append(paragraph.text.strip())
    sections.append(Section("\n\n".join(lines), heading=heading))
    for table in getattr(document, "tables", []):
        rows = [" | ".join(cell.text.strip() for cell in row.cells) for row in table.rows]
        sections.append(Section("\n\n".join(r for r in rows if r.strip(" |"))))
    return sections


def _short(exc: Exception) -> str:
    message = str(exc).strip() or type(exc).__name__
    return message[:200]
