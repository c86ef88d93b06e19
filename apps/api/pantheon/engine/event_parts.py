"""Parts of the event catalogue (``engine/events.py``) that are no event type: token
usage as events carry it (re-exported there) and the wire form's quiet fields."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, SerializerFunctionWrapHandler


class TokenUsage(BaseModel):
    model_config = ConfigDict(frozen=True)

    input_tokens: int = 0
    output_tokens: int = 0


class TurnUsage(TokenUsage):
    cost_usd: float = 0.0


def quiet_fields(self: Any, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
    """The event's wire form without its ``quiet`` fields left unset (``None`` or
    ``False``): a field added later leaves the bytes of every event that does not use it
    as they were (stored streams, replays, the golden file)."""
    data: dict[str, Any] = handler(self)
    for name in self.quiet:
        if data.get(name) is None or data.get(name) is False:
            data.pop(name, None)
    return data
