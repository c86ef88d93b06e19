"""Non-finite numbers for schemathesis: its JSON strategies draw only finite floats, and
its HTTP clients refuse to encode NaN, yet Python's JSON parser (so FastAPI) reads
``NaN``, ``Infinity`` and ``1e400``. ``with_non_finite`` turns about half of the generated
JSON bodies into raw bytes with one value replaced by such a literal
(``tests/auth/st_hooks.py`` applies it in schemathesis' CLI).
"""

from __future__ import annotations

import copy
import json
from typing import Any

from hypothesis import strategies as st

LITERALS = (b"NaN", b"Infinity", b"-Infinity", b"1e400", b"-1e400")
_PLACEHOLDER = "__pantheon_non_finite__"


def _paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place below the root of a decoded JSON value (keys and list indexes)."""
    children: list[tuple[Any, Any]] = []
    if isinstance(value, dict):
        children = list(value.items())
    elif isinstance(value, list):
        children = list(enumerate(value))
    found = []
    for key, child in children:
        found.append((*path, key))
        found.extend(_paths(child, (*path, key)))
    return found


def _render(body: Any, path: tuple[Any, ...], literal: bytes) -> bytes:
    poisoned = copy.deepcopy(body)
    target = poisoned
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = _PLACEHOLDER
    return json.dumps(poisoned).encode().replace(f'"{_PLACEHOLDER}"'.encode(), literal)


def takes_json(operation: Any) -> bool:
    """Whether the schemathesis ``operation``'s body is JSON (not a multipart upload)."""
    media_types = [body.media_type for body in operation.body]
    return bool(media_types) and all(media == "application/json" for media in media_types)


def with_non_finite(operation: Any, body: Any) -> st.SearchStrategy[Any]:
    """``body`` as generated, or as JSON bytes with one value a non-finite literal."""
    paths = _paths(body) if takes_json(operation) else []
    if not paths:
        return st.just(body)
    poisoned = st.tuples(st.sampled_from(paths), st.sampled_from(LITERALS))
    return st.one_of(st.just(body), poisoned.map(lambda chosen: _render(body, *chosen)))
