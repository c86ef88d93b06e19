"""What a running turn is apart from its events: enough to record it if it never finishes.

A live backend keeps it next to the turn's events (the crash journal writes it as the
first line of the turn's file; a shared backend may store it beside the turn's stream),
so that whoever finds the turn orphaned can record it ``interrupted``
(``live/interrupted.py``). It round-trips through JSON exactly.

A continuation's meta says which paused turn it continues and what was decided on each
call, and its ``message`` is the decisions' note (what its record's user message says),
so an interrupted continuation is recorded as one and its paused turn stays decided.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field

from pantheon.engine.snapshot import TurnSnapshot
from pantheon.engine.values import ApprovalStatus, Mode
from pantheon.errors import Unprocessable
from pantheon.observability.trace_context import TurnTrace


def user_text(snapshot: TurnSnapshot) -> str:
    """The turn's user message as recorded; in a continuation, what the person decided."""
    return snapshot.resume.note if snapshot.resume is not None else snapshot.message


def continued_turn(snapshot: TurnSnapshot) -> str | None:
    """The paused turn a continuation finishes (else ``None``)."""
    return snapshot.resume.continues if snapshot.resume is not None else None


def decided_calls(snapshot: TurnSnapshot) -> dict[str, ApprovalStatus]:
    """A continuation's decided calls: call id -> approved / rejected (else empty)."""
    resume = snapshot.resume
    return {} if resume is None else {c: d.approval for c, d in resume.decisions.items()}


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
    continues: str | None = None
    # A continuation's decided calls: call id -> approved / rejected.
    approvals: dict[str, ApprovalStatus] = Field(default_factory=dict)
    # Its place in a trace when tracing is on (observability/tracing*.py), so whoever
    # records the turn exports one coherent trace.
    trace: TurnTrace | None = None

    @classmethod
    def of(
        cls,
        snapshot: TurnSnapshot,
        owner_id: str,
        created_at: datetime,
        key: str | None = None,
        request_hash: str | None = None,
        trace: TurnTrace | None = None,
    ) -> TurnMeta:
        """The meta of the turn that runs ``snapshot``."""
        return cls(
            turn_id=snapshot.turn_id, session_id=snapshot.session_id, owner_id=owner_id,
            mode=snapshot.mode, message=user_text(snapshot), created_at=created_at,
            idempotency_key=key, request_hash=request_hash,
            continues=continued_turn(snapshot), approvals=decided_calls(snapshot), trace=trace,
        )  # fmt: skip

    def to_json(self) -> str:
        """One line of JSON (no raw newline, so it fits a line-based journal)."""
        return self.model_dump_json()

    @classmethod
    def from_json(cls, text: str | bytes) -> TurnMeta:
        """Parse what ``to_json`` wrote; raises ``pydantic.ValidationError`` otherwise."""
        return cls.model_validate_json(text)


def ensure_same_request(stored_hash: str | None, presented_hash: str | None) -> None:
    """422 when an Idempotency-Key is reused with a different body."""
    if stored_hash != presented_hash:
        raise Unprocessable("Idempotency-Key was used with a different request body")
