"""Tolerant reading of the manager's JSON answers.

Small models wrap JSON in fences, chat around it or change key case. Promise:
``extract_json_object`` finds the first JSON *object* in a fenced block (```json or
plain ```), else the whole text, else the first balanced ``{...}`` that parses, and
returns it with top-level keys lower-cased; ``None`` when there is none. The parsers
built on it never raise: an unusable answer is ``None`` and the caller falls back.
``routing_format``, ``CONTINUE_FORMAT`` and ``REVIEW_FORMAT`` are the JSON schemas the
manager's and reviewers' requests carry as ``response_format``; models that honour them
make the parsers' job easy.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from pantheon.llm.types import ResponseFormat

_FENCE = re.compile(r"```[ \t]*(?:json|JSON)?[ \t]*\n?(.*?)```", re.DOTALL)
_TRUE = frozenset({"true", "yes", "y", "1"})
_FALSE = frozenset({"false", "no", "n", "0"})


def routing_format(keys: Sequence[str], limit: int) -> ResponseFormat:
    """The JSON schema of a routing answer for this roster: the parser above stays the
    judge (providers without structured output ignore this)."""
    schema = {
        "type": "object",
        "properties": {
            "agents": {
                "type": "array",
                "items": {"type": "string", "enum": list(keys)},
                "maxItems": max(1, limit),
            },
            # Roster keys as properties, not an open object: with an open one SmolLM2 kept
            # inventing keys until its token cap (3 of 6 routings fell back, 1 of 6 so).
            "instructions": {
                "type": "object",
                "properties": {key: {"type": "string"} for key in keys},
                "additionalProperties": False,
            },
        },
        "required": ["agents"],
        "additionalProperties": False,
    }
    return ResponseFormat("routing", schema)


CONTINUE_FORMAT = ResponseFormat(
    "evaluation",
    {
        "type": "object",
        "properties": {"continue": {"type": "boolean"}},
        "required": ["continue"],
        "additionalProperties": False,
    },
)


REVIEW_FORMAT = ResponseFormat(
    "review",
    {
        "type": "object",
        "properties": {
            "approved": {"type": "boolean"},
            "score": {"type": "number", "minimum": 0, "maximum": 10},
            "feedback": {"type": "string"},
        },
        "required": ["approved", "score", "feedback"],
        "additionalProperties": False,
    },
)


@dataclass(frozen=True, slots=True)
class Verdict:
    """A reviewer's readable answer: ``score`` is within 0-10, or ``None`` when absent."""

    approved: bool
    score: float | None
    feedback: str


@dataclass(frozen=True, slots=True)
class Routing:
    """A usable routing decision: roster keys in the manager's order, instructions by key."""

    agents: list[str]
    instructions: dict[str, str] = field(default_factory=dict)


def extract_json_object(text: str) -> dict[str, Any] | None:
    """The first JSON object found in ``text`` (keys lower-cased), or ``None``."""
    candidates = [m.group(1) for m in _FENCE.finditer(text)]
    candidates.append(text)
    for candidate in candidates:
        found = _first_object(candidate)
        if found is not None:
            return {str(k).lower(): v for k, v in found.items()}
    return None


def _first_object(text: str) -> dict[str, Any] | None:
    try:
        whole = json.loads(text)
    except ValueError:
        pass
    else:
        return whole if isinstance(whole, dict) else None
    for chunk in _balanced_objects(text):
        try:
            value = json.loads(chunk)
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    return None


def _balanced_objects(text: str) -> Iterator[str]:
    """Every balanced ``{...}`` substring, by start position (strings respected)."""
    for start, char in enumerate(text):
        if char != "{":
            continue
        end = _matching_brace(text, start)
        if end is not None:
            yield text[start : end + 1]


def _matching_brace(text: str, start: int) -> int | None:
    depth, in_string, escaped = 0, False, False
    for index in range(start, len(text)):
        char = text[index]
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return index
    return None


def parse_routing(text: str, roster_keys: Sequence[str], max_agents: int) -> Routing | None:
    """The manager's routing answer mapped onto the roster, or ``None`` when unusable.

    Unknown keys and repeats are dropped, ``@`` prefixes and key case are tolerated, at
    most ``max_agents`` are kept. Without an ``agents`` list, the keys of
    ``instructions`` are used.
    """
    data = extract_json_object(text)
    if data is None or max_agents < 1:
        return None
    by_lower = {key.lower(): key for key in roster_keys}
    raw_instructions = data.get("instructions")
    instructions: dict[str, str] = {}
    if isinstance(raw_instructions, dict):
        for raw_key, value in raw_instructions.items():
            key = by_lower.get(str(raw_key).lstrip("@").strip().lower())
            if key is not None and isinstance(value, str) and value.strip():
                instructions[key] = value.strip()
    raw_agents = data.get("agents")
    if isinstance(raw_agents, str):
        raw_agents = [raw_agents]
    if not isinstance(raw_agents, list):
        raw_agents = list(raw_instructions) if isinstance(raw_instructions, dict) else []
    agents: list[str] = []
    for item in raw_agents:
        key = by_lower.get(str(item).lstrip("@").strip().lower()) if item is not None else None
        if key is not None and key not in agents:
            agents.append(key)
    agents = agents[:max_agents]
    if not agents:
        return None
    return Routing(agents, {k: v for k, v in instructions.items() if k in agents})


def parse_continue(text: str) -> bool | None:
    """``{"continue": true|false}`` (tolerantly), or ``None`` when unparsable."""
    data = extract_json_object(text)
    if data is None or "continue" not in data:
        return None
    return _flag(data["continue"])


def _flag(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        lowered = value.strip().lower()
        if lowered in _TRUE:
            return True
        if lowered in _FALSE:
            return False
    return None


def _score(value: Any) -> float | None:
    """A number, numeric text or a fraction (``"7/10"``, ``"85/100"`` scaled to 0-10);
    else ``None``. The range is the caller's to judge, never clamped here."""
    if isinstance(value, str):
        number, _, scale = value.strip().partition("/")
        try:
            value = float(number.strip())
            denominator = float(scale.strip()) if scale else 10.0
        except ValueError:
            return None
        if not math.isfinite(denominator) or denominator <= 0:
            return None
        value = value * 10.0 / denominator
    if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
        return None
    return float(value)


def parse_review(text: str) -> Verdict | None:
    """``{"approved", "score", "feedback"}`` (tolerantly), or ``None`` when there is no
    readable ``approved`` flag or the score is outside 0-10: such a review counts as not
    approved, with no score (the ``fallback``)."""
    data = extract_json_object(text)
    if data is None:
        return None
    approved = _flag(data.get("approved"))
    if approved is None:
        return None
    score = _score(data.get("score"))
    if score is not None and not 0.0 <= score <= 10.0:
        return None  # 480 or 0.59725E+13 says the model lost the format, not "perfect"
    feedback = data.get("feedback")
    return Verdict(approved, score, feedback.strip() if isinstance(feedback, str) else "")
