"""Text from upstream models made safe to store, encode and stream.

JSON lets a model (or a broken proxy) send ``"\\ud800"``: Python decodes it into a lone
surrogate, which then crashes every UTF-8 encode (SSE, SQLite, logs). PostgreSQL rejects
NUL in ``text`` columns. Both become U+FFFD here, once, at the wire, so nothing behind
the provider has to care.
"""

from __future__ import annotations

import re

REPLACEMENT = "\ufffd"
_UNSAFE = re.compile("[\x00\ud800-\udfff]")


def clean_text(text: str) -> str:
    """``text`` with NUL and lone surrogates replaced by U+FFFD; valid text is unchanged.

    A surrogate pair split over two JSON strings and joined again becomes its character.
    """
    if not _UNSAFE.search(text):
        return text
    text = text.replace("\x00", REPLACEMENT)
    # UTF-16 round trip: pairs recombine, what stays lone is replaced by the decoder.
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
