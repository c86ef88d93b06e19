"""Parts of the event catalogue (``engine/events.py``) that are no event type: the base
every event model shares, token usage as events carry it (re-exported there) and the
wire form's quiet fields."""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, SerializerFunctionWrapHandler


class EventBase(BaseModel):
    """Every event: ``type`` (its own) and ``turn_id``."""

    model_config = ConfigDict(frozen=True, populate_by_name=True)
    # Internal events are recorded, never sent to clients (engine/events.py).
    internal: ClassVar[bool] = False
    # Optional fields left out of the wire form while unset (``quiet_fields``).
    quiet: ClassVar[tuple[str, ...]] = ()

    turn_id: str


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
