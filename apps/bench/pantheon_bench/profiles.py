"""How the mock upstream behaves for a model: timing, size, content and injected errors.

A model name is a dash-separated list of settings, so a benchmark can ask for a behaviour
without any configuration: ``ttft200-itl10-n100`` waits 200 ms, sends the first of 100
tokens, then one every 10 ms (``tps100`` is the same as ``itl10``); ``e429p10-ra200``
answers 10% of requests 429 with ``Retry-After: 0.2``; ``e503p5`` answers 5% with 503.
Unknown parts are ignored (they name things). A JSON config file can also give a model
``cases``: the first case whose ``when`` substring occurs in the prompt decides the
answer (the orchestrator's manager model answers routing, evaluation and synthesis).

Timing promise: token ``i`` (0-based) leaves at ``ttft + i * itl`` after the request
arrived, measured against the clock, so delays do not accumulate per token.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

_PART = re.compile(r"^(ttft|itl|tps|n|e429p|e503p|ra)(\d+(?:\.\d+)?)$")


@dataclass(frozen=True, slots=True)
class Behaviour:
    """One answer's shape. ``content`` (when set) is split into ``tokens`` pieces."""

    ttft_s: float = 0.0
    itl_s: float = 0.0
    tokens: int = 8
    content: str | None = None
    p429: float = 0.0
    p503: float = 0.0
    retry_after_s: float = 0.2

    @property
    def duration_s(self) -> float:
        """When the last token leaves, after the request arrived."""
        return self.ttft_s + max(0, self.tokens - 1) * self.itl_s

    def pieces(self) -> list[str]:
        """The token texts: ``content`` cut into ``tokens`` pieces, or filler words."""
        if self.content is None:
            return [f"w{i} " for i in range(self.tokens)]
        count = max(1, min(self.tokens, len(self.content)))
        step = -(-len(self.content) // count)
        return [self.content[i : i + step] for i in range(0, len(self.content), step)]


@dataclass(frozen=True, slots=True)
class Case:
    when: str
    behaviour: Behaviour


@dataclass(frozen=True, slots=True)
class ModelProfile:
    default: Behaviour
    cases: tuple[Case, ...] = field(default=())

    def pick(self, prompt: str) -> Behaviour:
        for case in self.cases:
            if case.when in prompt:
                return case.behaviour
        return self.default


def parse_model_name(name: str, base: Behaviour | None = None) -> Behaviour:
    """The behaviour a model name asks for, on top of ``base``."""
    b = base or Behaviour()
    for part in name.split("-"):
        match = _PART.match(part)
        if match is None:
            continue
        key, number = match.group(1), float(match.group(2))
        if key == "ttft":
            b = replace(b, ttft_s=number / 1000)
        elif key == "itl":
            b = replace(b, itl_s=number / 1000)
        elif key == "tps":
            b = replace(b, itl_s=1.0 / number if number else 0.0)
        elif key == "n":
            b = replace(b, tokens=int(number))
        elif key == "e429p":
            b = replace(b, p429=number / 100)
        elif key == "e503p":
            b = replace(b, p503=number / 100)
        else:
            b = replace(b, retry_after_s=number / 1000)
    return b


def behaviour_from_dict(data: dict[str, Any], base: Behaviour) -> Behaviour:
    """A config entry (``ttft_ms``, ``itl_ms``, ``tokens``, ``content``, ``p429``, ...)."""
    return replace(
        base,
        ttft_s=float(data.get("ttft_ms", base.ttft_s * 1000)) / 1000,
        itl_s=float(data.get("itl_ms", base.itl_s * 1000)) / 1000,
        tokens=int(data.get("tokens", base.tokens)),
        content=data.get("content", base.content),
        p429=float(data.get("p429", base.p429)),
        p503=float(data.get("p503", base.p503)),
        retry_after_s=float(data.get("retry_after_ms", base.retry_after_s * 1000)) / 1000,
    )


class ProfileBook:
    """Model name -> profile: the config file's entries first, else the name's settings."""

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        self._config = config or {}
        self._cache: dict[str, ModelProfile] = {}

    @classmethod
    def from_file(cls, path: Path | None) -> ProfileBook:
        return cls(json.loads(path.read_text()) if path is not None else None)

    def names(self) -> list[str]:
        return sorted(self._config)

    def get(self, model: str) -> ModelProfile:
        found = self._cache.get(model)
        if found is None:
            found = self._cache[model] = self._build(model)
        return found

    def _build(self, model: str) -> ModelProfile:
        default = parse_model_name(model)
        entry = self._config.get(model)
        if not isinstance(entry, dict):
            return ModelProfile(default)
        default = behaviour_from_dict(entry, default)
        cases = tuple(
            Case(str(c["when"]), behaviour_from_dict(c, default)) for c in entry.get("cases", [])
        )
        return ModelProfile(default, cases)
