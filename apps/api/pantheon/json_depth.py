"""How deep a JSON body nests, counted on its bytes as they arrive, before any parser sees it.

Python's JSON parser, pydantic's validators and the code that walks a body afterwards
recurse once per level: a body nested 500-900 levels deep passed ``json.loads`` and then
ended in a ``RecursionError`` (a 500 and a 200 KB traceback). ``body_limits`` feeds each
chunk of a JSON body here and refuses it past ``limits.max_json_depth``.
"""

from __future__ import annotations

import re

# The only bytes that change the depth or the string state; UTF-8 continuation bytes are
# all >= 0x80, so scanning bytes (not characters) never mistakes part of a character.
_SIGNIFICANT = re.compile(rb'[\[\]{}"\\]')
_OPEN = frozenset(b"[{")
_CLOSE = frozenset(b"]}")
_QUOTE, _BACKSLASH = ord('"'), ord("\\")


def is_json(content_type: str | None) -> bool:
    """Whether FastAPI (and the protocol doors) would read this body as JSON: no content
    type, ``application/json`` or ``application/*+json``."""
    if not content_type:
        return True
    media = content_type.split(";", 1)[0].strip().lower()
    return media == "application/json" or (
        media.startswith("application/") and media.endswith("+json")
    )


class JsonDepth:
    """The deepest nesting of arrays and objects seen so far in a JSON text fed in chunks
    (brackets inside strings do not count); it does not check the text is valid JSON."""

    def __init__(self) -> None:
        self.depth = 0
        self.deepest = 0
        self._in_string = False
        self._escaped_at = -1  # the offset, in the next chunk, of a byte a backslash escapes

    def feed(self, chunk: bytes) -> int:
        """Account for ``chunk``; the deepest nesting so far."""
        escaped_at, self._escaped_at = self._escaped_at, -1
        for match in _SIGNIFICANT.finditer(chunk):
            at, byte = match.start(), chunk[match.start()]
            if self._in_string:
                if at == escaped_at:
                    continue
                if byte == _BACKSLASH:
                    escaped_at = at + 1
                elif byte == _QUOTE:
                    self._in_string = False
            elif byte == _QUOTE:
                self._in_string = True
            elif byte in _OPEN:
                self.depth += 1
                self.deepest = max(self.deepest, self.depth)
            elif byte in _CLOSE:
                self.depth = max(0, self.depth - 1)
        if escaped_at == len(chunk):  # the chunk ended on a backslash
            self._escaped_at = 0
        return self.deepest
