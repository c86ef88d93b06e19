"""Token usage as events carry it (``agent_completed.usage``, ``turn_completed.usage``);
kept apart from the catalogue (``engine/events.py``), which re-exports both."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class TokenUsage(BaseModel):
    model_config = ConfigDict(frozen=True)

    input_tokens: int = 0
    output_tokens: int = 0


class TurnUsage(TokenUsage):
    cost_usd: float = 0.0
