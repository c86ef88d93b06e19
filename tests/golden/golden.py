"""Byte-exact golden files of what each protocol door sends, and the one normaliser.

A golden is the door's status, content type and body, split into lines (blank lines and
line endings kept, so framing is compared too). The normaliser rewrites only what
changes from run to run, and nothing else, so key order and spacing must match:

* uuids, in any spelling (``8-4-4-4-12`` or 32 hex digits, e.g. ``resp_<hex>``), become
  ``<id1>``, ``<id2>`` ... in order of first appearance (the same id, the same name);
* scripted tool call ids (``call_<n>``) become ``<call1>`` ...;
* durations (``duration_ms``), creation and completion times (``created``,
  ``created_at``, ``completed_at``, ``timestamp``: integers; ISO-8601 date-times in any
  string) become ``0`` or ``<time>``;
* SSE comment lines (``: ping`` keep-alives, sent only when a turn is slow) are dropped
  with the blank line that ends them;
* objects the door itself orders at random get their keys sorted, spacing kept: A2A's
  ``metadata.pantheon`` is a protobuf ``Struct``, a map whose key order changes with
  each process's hash seed (``captured(..., unordered="pantheon")``).

Goldens live in tests/golden/data/<door>.json, one entry per case. They are written
from the code as it is, only with ``PANTHEON_WRITE_GOLDEN=1``, for a deliberate change
of a protocol's wire format.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import httpx

from pantheon.engine.modes.specs import MODE_SPECS

DATA = Path(__file__).parent / "data"
WRITE = os.environ.get("PANTHEON_WRITE_GOLDEN") == "1"

# Every mode, from its spec: a new mode gets a golden case (missing => the test fails).
ROOM_MODES = [spec.name for spec in MODE_SPECS if spec.session == "room"]
AGENT_MODES = [spec.name for spec in MODE_SPECS if spec.session == "agent"]
ALL_MODES = AGENT_MODES + ROOM_MODES

_UUID = re.compile(
    r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|(?<![0-9a-f])[0-9a-f]{32}(?![0-9a-f])"
)
_CALL_ID = re.compile(r"call_\d+")
_INT_TIME = re.compile(r'"(duration_ms|created|created_at|completed_at|timestamp)":\d+')
_ISO_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)?")
_COMMENT = re.compile(r"^:[^\n]*\n(\r?\n)?", re.MULTILINE)


def _sort_keys(text: str, key: str) -> str:
    """Every JSON object under ``"<key>":`` in ``text``, its keys sorted, its separators
    (compact or spaced) as they were."""
    decoder = json.JSONDecoder()
    out, at = [], 0
    for match in re.finditer(rf'"{re.escape(key)}": ?(?={{)', text):
        if match.start() < at:
            continue
        value, end = decoder.raw_decode(text, match.end())
        raw = text[match.end() : end]
        separators = (", ", ": ") if '": ' in raw else (",", ":")
        sorted_ = json.dumps(value, sort_keys=True, separators=separators, ensure_ascii=False)
        out += [text[at : match.end()], sorted_]
        at = end
    return "".join([*out, text[at:]])


def normalise(text: str, unordered: str | None = None) -> list[str]:
    """``text`` with what varies between runs named or zeroed (and the objects under
    ``"<unordered>":`` sorted by key), as its lines."""
    names: dict[str, str] = {}

    def name(prefix: str, match: re.Match[str]) -> str:
        key = match.group(0).replace("-", "")
        return names.setdefault(key, f"<{prefix}{len(names) + 1}>")

    text = _COMMENT.sub("", text)
    if unordered is not None:
        text = _sort_keys(text, unordered)
    text = _UUID.sub(lambda m: name("id", m), text)
    text = _CALL_ID.sub(lambda m: name("call", m), text)
    text = _INT_TIME.sub(lambda m: f'"{m.group(1)}":0', text)
    text = _ISO_TIME.sub("<time>", text)
    return text.split("\n")


def captured(response: httpx.Response, unordered: str | None = None) -> list[str]:
    """What a client reads of ``response``: status, content type, then the body's lines."""
    head = f"{response.status_code} {response.headers.get('content-type')}"
    return normalise(head + "\n" + response.text, unordered)


def check(door: str, case: str, seen: list[str]) -> None:
    """``seen`` equals the golden ``case`` of ``door`` (written instead when asked to)."""
    path = DATA / f"{door}.json"
    golden: dict[str, list[str]] = json.loads(path.read_text()) if path.exists() else {}
    if WRITE:
        golden[case] = seen
        path.write_text(json.dumps(golden, indent=1, ensure_ascii=False, sort_keys=True) + "\n")
    assert case in golden, (
        f"no golden for {door} {case!r} in {path}: if this is a new mode or case, write it "
        "from the code as it is with PANTHEON_WRITE_GOLDEN=1 pytest tests/golden"
    )
    assert seen == golden[case], f"{door} {case!r} differs from its golden file {path}"
