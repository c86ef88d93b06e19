"""What a running turn is apart from its events: enough to record it if it never finishes.

A live backend keeps it next to the turn's events (the crash journal writes it as the
first line of the turn's file; a shared backend may store it beside the turn's stream),
so that whoever finds the turn orphaned can record it ``interrupted``
(``turns/interrupted.py``). It round-trips through JSON exactly.
"""

from __future__ import annotations

from pydantic import AwareDatetime, BaseModel, ConfigDict

from pantheon.engine.values import Mode


class TurnMeta(BaseModel):
    """A turn's identity and request: ids as canonical strings, ``created_at`` in UTC."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    turn_id: str
    session_id: str
    owner_id: str
    mode: Mode
    message: str
    created_at: AwareDatetime
    idempotency_key: str | None = None
    request_hash: str | None = None

    def to_json(self) -> str:
        """One line of JSON (no raw newline, so it fits a line-based journal)."""
        return self.model_dump_json()

    @classmethod
    def from_json(cls, text: str | bytes) -> TurnMeta:
        """Parse what ``to_json`` wrote; raises ``pydantic.ValidationError`` otherwise."""
        return cls.model_validate_json(text)
