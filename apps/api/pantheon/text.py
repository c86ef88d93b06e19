"""One rule for text that crosses the boundary (upstream models, request bodies, query
strings): what cannot be stored is replaced, the rest is kept.

Two things cannot be stored everywhere: a lone UTF-16 surrogate (not encodable as UTF-8,
so no JSON encoder, SSE stream or database driver takes it) and NUL (PostgreSQL text
columns refuse it). Both become U+FFFD, the Unicode replacement character, so a turn is
never lost over one character and readers can see where something was replaced.
"""

from __future__ import annotations

import re
from typing import Any

REPLACEMENT = "\ufffd"
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def clean_text(text: str) -> str:
    """``text`` with every NUL and lone surrogate replaced by U+FFFD; valid text unchanged.

    A surrogate pair split over two JSON strings and joined again becomes its character.
    """
    if not _UNSTORABLE.search(text):
        return text
    text = text.replace("\x00", REPLACEMENT)
    # UTF-16 round trip: pairs recombine, what stays lone is replaced by the decoder.
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def clean_json(value: Any) -> Any:
    """``clean_text`` applied to every string (keys too) of a decoded JSON value."""
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, dict):
        return {clean_json(k): clean_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [clean_json(v) for v in value]
    return value


_ENCODED_NUL = re.compile(rb"%00")


class CleanQueryStrings:
    """ASGI middleware: a percent-encoded NUL in a query string becomes U+FFFD before any
    route reads it (search text reaches PostgreSQL). Lone surrogates cannot arrive this way:
    invalid UTF-8 in a query string already decodes to U+FFFD."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        raw = scope.get("query_string", b"")
        if scope["type"] == "http" and b"%00" in raw:
            scope = {**scope, "query_string": _ENCODED_NUL.sub(b"%EF%BF%BD", raw)}
        await self.app(scope, receive, send)
