"""The accepted document formats and statuses: the one source of these values.

A format is decided by the file name's extension and confirmed by sniffing the first bytes
(a ``.pdf`` must start with ``%PDF-``, a ``.docx`` must be a ZIP, text formats must not be
binary). Anything else is refused with 415 naming the accepted types.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from pathlib import PurePath


class DocumentStatus(StrEnum):
    """Life of a document: ``pending`` until ingest ends ``ready`` or ``failed`` (reason)."""

    PENDING = "pending"
    READY = "ready"
    FAILED = "failed"


class Format(StrEnum):
    PDF = "pdf"
    DOCX = "docx"
    TXT = "txt"
    MARKDOWN = "markdown"
    CSV = "csv"
    HTML = "html"


@dataclass(frozen=True, slots=True)
class FormatInfo:
    format: Format
    content_type: str
    extensions: tuple[str, ...]


FORMATS: dict[Format, FormatInfo] = {
    info.format: info
    for info in (
        FormatInfo(Format.PDF, "application/pdf", (".pdf",)),
        FormatInfo(
            Format.DOCX,
            "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
            (".docx",),
        ),
        FormatInfo(Format.TXT, "text/plain", (".txt", ".text")),
        FormatInfo(Format.MARKDOWN, "text/markdown", (".md", ".markdown")),
        FormatInfo(Format.CSV, "text/csv", (".csv",)),
        FormatInfo(Format.HTML, "text/html", (".html", ".htm")),
    )
}
_BY_EXTENSION = {ext: info.format for info in FORMATS.values() for ext in info.extensions}
ACCEPTED = ", ".join(
    f"{info.format.name} ({' '.join(info.extensions)})" for info in FORMATS.values()
)
SNIFF_BYTES = 8192


class UnsupportedFormat(ValueError):
    """The file is not one of the accepted formats; the message names them."""


def detect(filename: str, head: bytes) -> Format:
    """The format of a file from its name and first bytes; ``UnsupportedFormat`` otherwise."""
    extension = PurePath(filename).suffix.lower()
    fmt = _BY_EXTENSION.get(extension)
    if fmt is None:
        if head.startswith(b"%PDF-"):
            return Format.PDF
        shown = extension or "no extension"
        raise UnsupportedFormat(f"unsupported file type ({shown}); accepted: {ACCEPTED}")
    if fmt is Format.PDF and not head.startswith(b"%PDF-"):
        raise UnsupportedFormat(f"{filename} is not a PDF (no %PDF- header); accepted: {ACCEPTED}")
    if fmt is Format.DOCX and not head.startswith(b"PK\x03\x04"):
        raise UnsupportedFormat(
            f"{filename} is not a DOCX (not a ZIP package); accepted: {ACCEPTED}"
        )
    if fmt not in (Format.PDF, Format.DOCX) and b"\x00" in head:
        raise UnsupportedFormat(f"{filename} is binary, not {fmt.name} text; accepted: {ACCEPTED}")
    return fmt
