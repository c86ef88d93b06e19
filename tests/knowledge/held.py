"""A parse the test holds: run in the parser child, it never ends for a file holding
``MARKER`` (only a kill stops it) and says so by a file in its gate directory."""

from __future__ import annotations

import threading
from pathlib import Path

from pantheon.knowledge.formats import Format
from pantheon.knowledge.parsing import ParsedDocument, ParseLimits, parse_document

MARKER = b"held-by-the-test"


def held_parse(gate: Path, path: Path, fmt: Format, limits: ParseLimits) -> ParsedDocument:
    """``parse_document``, except that a marked file writes ``gate/<its name>`` and blocks."""
    if MARKER in path.read_bytes():
        (gate / path.name).touch()
        threading.Event().wait()
    return parse_document(path, fmt, limits)


def started(gate: Path) -> set[str]:
    """The ids of the documents whose held parse has started."""
    return {entry.name for entry in gate.iterdir()}
