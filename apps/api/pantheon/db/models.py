"""Every table of the service but the evaluations' (``eval_models.py``). Owned resources
carry ``owner_id`` from day one.

Soft delete: rooms, agents and sessions get ``deleted_at`` and disappear from every query; a
deleted room's sessions answer 404 through their room. Turn data is append-only.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Literal, get_args

from sqlalchemy import (
    JSON,
    BigInteger,
    ColumnElement,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
    case,
    false,
)
from sqlalchemy.orm import Mapped, mapped_column, relationship

from pantheon.db.base import Base, Timestamped, UUIDPrimaryKey
from pantheon.engine.values import (
    APPROVAL_STATUSES,
    BUDGET_PERIODS,
    CALL_STATUSES,
    MESSAGE_ROLES,
    MESSAGE_STATUSES,
    MODES,
    PURPOSES,
    ROOM_MODES,
    TURN_STATUSES,
    one_of,
)

UserRole = Literal["admin", "member"]
UserStatus = Literal["active", "pending", "disabled"]
USER_ROLES: tuple[UserRole, ...] = get_args(UserRole)
USER_STATUSES: tuple[UserStatus, ...] = get_args(UserStatus)
RoomRole = Literal["viewer", "editor"]  # what a room's owner grants (db/sharing_models.py)
ROOM_ROLES: tuple[RoomRole, ...] = get_args(RoomRole)


class User(UUIDPrimaryKey, Timestamped, Base):
    """A person or a program's owner. Only ``active`` users authenticate (keys or sign-in)."""

    __tablename__ = "users"
    login: Mapped[str] = mapped_column(String(100), unique=True)
    email: Mapped[str | None] = mapped_column(String(320), default=None)
    display_name: Mapped[str] = mapped_column(String(200), default="")
    role: Mapped[str] = mapped_column(String(16), default="member", doc=one_of(USER_ROLES))
    status: Mapped[str] = mapped_column(String(16), default="active", doc=one_of(USER_STATUSES))
    password_hash: Mapped[str | None] = mapped_column(String(255), default=None)
    allowed_models: Mapped[list[str] | None] = mapped_column(JSON, default=None)

    @property
    def is_admin(self) -> bool:
        return self.role == "admin"


class LoginSession(Base):
    """A signed-in browser: only the SHA-256 of its random id is stored (``users/signin``)."""

    __tablename__ = "login_sessions"
    id_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("users.id"), index=True)
    created_at: Mapped[datetime] = mapped_column()
    last_seen_at: Mapped[datetime] = mapped_column()
    expires_at: Mapped[datetime] = mapped_column()


class ApiKey(UUIDPrimaryKey, Timestamped, Base):
    __tablename__ = "api_keys"
    user_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("users.id"), index=True)
    prefix: Mapped[str] = mapped_column(String(16), unique=True)
    key_hash: Mapped[str] = mapped_column(String(128))
    revoked_at: Mapped[datetime | None] = mapped_column(default=None)


class Agent(UUIDPrimaryKey, Timestamped, Base):
    __tablename__ = "agents"
    __table_args__ = (Index("ix_agents_owner_key", "owner_id", "key"),)
    owner_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("users.id"), index=True)
    key: Mapped[str] = mapped_column(String(64))
    name: Mapped[str] = mapped_column(String(200))
    role_prompt: Mapped[str] = mapped_column(Text)
    model: Mapped[str] = mapped_column(String(100))
    tools: Mapped[list[str]] = mapped_column(JSON, default=list)
    updated_at: Mapped[datetime | None] = mapped_column(default=None)
    deleted_at: Mapped[datetime | None] = mapped_column(default=None)


class Room(UUIDPrimaryKey, Timestamped, Base):
    __tablename__ = "rooms"
    owner_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("users.id"), index=True)
    name: Mapped[str] = mapped_column(String(200))
    description: Mapped[str] = mapped_column(Text, default="")
    mode: Mapped[str] = mapped_column(String(20), default="roundtable", doc=one_of(ROOM_MODES))
    manager_model: Mapped[str | None] = mapped_column(String(100), default=None)
    updated_at: Mapped[datetime | None] = mapped_column(default=None)
    deleted_at: Mapped[datetime | None] = mapped_column(default=None)
    members: Mapped[list[RoomAgent]] = relationship(
        back_populates="room", order_by="RoomAgent.position", lazy="raise"
    )


class RoomAgent(Base):
    __tablename__ = "room_agents"
    room_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("rooms.id"), primary_key=True)
    agent_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("agents.id"), primary_key=True)
    position: Mapped[int]
    room: Mapped[Room] = relationship(back_populates="members", lazy="raise")
    agent: Mapped[Agent] = relationship(lazy="raise")


class ChatSession(UUIDPrimaryKey, Timestamped, Base):
    __tablename__ = "sessions"
    owner_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("users.id"), index=True)
    room_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("rooms.id"), index=True)
    agent_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("agents.id"), index=True)
    title: Mapped[str] = mapped_column(String(200), default="")
    deleted_at: Mapped[datetime | None] = mapped_column(default=None)
    # The rolling summary of the older history (docs/context.md), written in the commit of
    # the turn that folded it: it covers every message up to ``summary_through_at``.
    summary: Mapped[str | None] = mapped_column(Text, default=None)
    summary_through_turn_id: Mapped[uuid.UUID | None] = mapped_column(default=None)
    summary_through_at: Mapped[datetime | None] = mapped_column(default=None)
    summary_messages: Mapped[int] = mapped_column(default=0, server_default="0")
    summary_updated_at: Mapped[datetime | None] = mapped_column(default=None)
    # The turn this session replays (docs/replay.md); an index, not a foreign key (0015).
    replay_of: Mapped[uuid.UUID | None] = mapped_column(default=None, index=True)
    # A fork (docs/adr/0024): the session it was forked from and the turn it forks at. Its
    # history is the parent's up to that turn, read through the parent, never copied.
    parent_id: Mapped[uuid.UUID | None] = mapped_column(default=None)
    fork_turn_id: Mapped[uuid.UUID | None] = mapped_column(default=None)


class Turn(UUIDPrimaryKey, Timestamped, Base):
    """A turn of a session. A continuation (``continues_id``) finishes a turn that paused
    for approval; at most one continues each paused turn (its ``TurnDecision`` is claimed
    first), which keeps the state it needs in ``resume_state`` (docs/adr/0015)."""

    __tablename__ = "turns"
    __table_args__ = (
        UniqueConstraint("session_id", "idempotency_key"),
        # A unique index, not a constraint or foreign key: SQLite adds indexes in place.
        Index("ix_turns_continues_id", "continues_id", unique=True),
    )
    session_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("sessions.id"), index=True)
    mode: Mapped[str] = mapped_column(String(20), doc=one_of(MODES))
    status: Mapped[str] = mapped_column(String(20), doc=one_of(TURN_STATUSES))
    message: Mapped[str] = mapped_column(Text)
    output: Mapped[str] = mapped_column(Text, default="")
    rounds: Mapped[int] = mapped_column(default=0)
    input_tokens: Mapped[int] = mapped_column(default=0)
    output_tokens: Mapped[int] = mapped_column(default=0)
    cost_usd: Mapped[float] = mapped_column(default=0.0)
    error_code: Mapped[str | None] = mapped_column(String(64), default=None)
    # History messages left out of this turn's prompts, neither kept nor summarised.
    context_dropped: Mapped[int] = mapped_column(default=0, server_default="0")
    idempotency_key: Mapped[str | None] = mapped_column(String(200), default=None)
    request_hash: Mapped[str | None] = mapped_column(String(64), default=None)
    started_at: Mapped[datetime | None] = mapped_column(default=None)
    finished_at: Mapped[datetime | None] = mapped_column(default=None)
    continues_id: Mapped[uuid.UUID | None] = mapped_column(default=None)
    resume_state: Mapped[str | None] = mapped_column(
        Text, default=None, doc="engine.approvals.ResumeState as JSON, while awaiting approval"
    )
    snapshot: Mapped[str | None] = mapped_column(
        Text, default=None, doc="engine.snapshot.TurnSnapshot as JSON, for replay"
    )


class TurnDecision(Base):
    """A person's decision on a paused turn, committed before its continuation runs
    anything: the primary key lets one decision per paused turn in, whichever request or
    replica is first (docs/approvals.md). ``note`` is what the decisions say."""

    __tablename__ = "turn_decisions"
    turn_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("turns.id"), primary_key=True)
    continuation_id: Mapped[uuid.UUID] = mapped_column(unique=True)
    note: Mapped[str] = mapped_column(Text)
    decided_at: Mapped[datetime]


class Message(UUIDPrimaryKey, Timestamped, Base):
    __tablename__ = "messages"
    # The history index: a turn's prompt reads a session's newest messages, newest first.
    __table_args__ = (
        UniqueConstraint("turn_id", "seq"),
        Index("ix_messages_session_history", "session_id", "created_at", "seq"),
    )
    session_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("sessions.id"), index=True)
    turn_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("turns.id"), index=True)
    seq: Mapped[int]
    role: Mapped[str] = mapped_column(String(20), doc=one_of(MESSAGE_ROLES))
    agent_key: Mapped[str | None] = mapped_column(String(64), default=None)
    agent_name: Mapped[str | None] = mapped_column(String(200), default=None)
    round: Mapped[int | None] = mapped_column(default=None)
    content: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(20), default="ok", doc=one_of(MESSAGE_STATUSES))
    error_code: Mapped[str | None] = mapped_column(String(64), default=None)
    visible: Mapped[bool] = mapped_column(default=True)
    # A pipeline stage's output taken over from the session's previous pipeline turn
    # (``rerun_from``): copied, not produced again, and billed in no LLM call of this turn.
    reused: Mapped[bool] = mapped_column(default=False, server_default=false())


class LLMCall(UUIDPrimaryKey, Base):
    __tablename__ = "llm_calls"
    # Usage reports sum a session's or a user's calls over time (docs/budgets.md).
    __table_args__ = (Index("ix_llm_calls_started_at", "started_at"),)
    turn_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("turns.id"), index=True)
    seq: Mapped[int]
    purpose: Mapped[str] = mapped_column(String(20), doc=one_of(PURPOSES))
    model: Mapped[str] = mapped_column(String(100))
    agent_key: Mapped[str | None] = mapped_column(String(64), default=None)
    round: Mapped[int | None] = mapped_column(default=None)
    input_tokens: Mapped[int] = mapped_column(default=0)
    output_tokens: Mapped[int] = mapped_column(default=0)
    usage_estimated: Mapped[bool] = mapped_column(default=False)
    cost_usd: Mapped[float] = mapped_column(default=0.0)
    latency_ms: Mapped[int] = mapped_column(default=0)
    ttft_ms: Mapped[int | None] = mapped_column(default=None)
    status: Mapped[str] = mapped_column(String(20), doc=one_of(CALL_STATUSES))
    error_code: Mapped[str | None] = mapped_column(String(64), default=None)
    started_at: Mapped[datetime]
    # Served from a recorded turn (a replay): nothing was paid for it.
    replayed: Mapped[bool] = mapped_column(default=False, server_default=false())


def charged_usd() -> ColumnElement[float]:
    """What a call was charged: its cost, or nothing when a replay served it from the
    record (its ``cost_usd`` is then what the answer cost when it was made)."""
    return case((LLMCall.replayed.is_(True), 0.0), else_=LLMCall.cost_usd)


class ToolCallRow(UUIDPrimaryKey, Base):
    """One tool call of a turn, linked to the message of the agent that made it. ``seq``
    is announcement order within the turn; ``round`` the agent's tool round."""

    __tablename__ = "tool_calls"
    __table_args__ = (UniqueConstraint("turn_id", "seq"),)
    turn_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("turns.id"), index=True)
    message_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("messages.id"))
    seq: Mapped[int]
    agent_key: Mapped[str] = mapped_column(String(64))
    round: Mapped[int]
    call_id: Mapped[str] = mapped_column(String(200))
    name: Mapped[str] = mapped_column(String(200))
    arguments: Mapped[str] = mapped_column(Text, doc="the JSON text as the model wrote it")
    result: Mapped[str] = mapped_column(Text)
    ok: Mapped[bool]
    duration_ms: Mapped[int]
    approval: Mapped[str | None] = mapped_column(
        String(20), default=None, doc=one_of(APPROVAL_STATUSES) + "; null: needs none"
    )


class TurnEventLog(Base):
    """The SSE log of a turn, one row per turn: the exact JSON texts that were streamed,
    newline-separated and zlib-compressed (``turns.event_log``). A replay sends the same
    bytes; one row instead of one per delta keeps a turn's write small and short."""

    __tablename__ = "turn_event_logs"
    turn_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("turns.id"), primary_key=True)
    events: Mapped[int] = mapped_column(Integer)
    encoding: Mapped[str] = mapped_column(String(20))
    data: Mapped[bytes] = mapped_column(LargeBinary)


class Document(UUIDPrimaryKey, Timestamped, Base):
    """An uploaded file of a room or an agent (its ``place``); its text lives in ``chunks``.

    ``place`` is ``room:<id>`` or ``agent:<id>``: one column, so "the same bytes in the
    same place" is a unique constraint (NULL room/agent ids would not be).
    """

    __tablename__ = "documents"
    __table_args__ = (UniqueConstraint("place", "sha256"),)
    owner_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("users.id"), index=True)
    room_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("rooms.id"), index=True)
    agent_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("agents.id"), index=True)
    place: Mapped[str] = mapped_column(String(80))
    filename: Mapped[str] = mapped_column(String(255))
    format: Mapped[str] = mapped_column(String(16))
    content_type: Mapped[str] = mapped_column(String(100))
    bytes: Mapped[int]
    sha256: Mapped[str] = mapped_column(String(64))
    status: Mapped[str] = mapped_column(String(16), index=True)
    error: Mapped[str | None] = mapped_column(Text, default=None)
    chunk_count: Mapped[int] = mapped_column(default=0)
    pages: Mapped[int | None] = mapped_column(default=None)
    updated_at: Mapped[datetime | None] = mapped_column(default=None)


class Chunk(UUIDPrimaryKey, Base):
    """A passage of a document with its page and position, and its embedding.

    ``embedding`` is float32 bytes of length ``dim`` from ``embedder``; search only
    compares vectors of the current embedder (``pantheon knowledge reindex`` re-embeds).
    Keyword search uses SQLite FTS5 or a PostgreSQL GIN index, created by the migration.
    """

    __tablename__ = "chunks"
    __table_args__ = (UniqueConstraint("document_id", "position"),)
    document_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("documents.id", ondelete="CASCADE"), index=True
    )
    position: Mapped[int]
    page: Mapped[int | None] = mapped_column(default=None)
    text: Mapped[str] = mapped_column(Text)
    embedder: Mapped[str] = mapped_column(String(200), index=True)
    dim: Mapped[int]
    embedding: Mapped[bytes] = mapped_column(LargeBinary)


class Budget(UUIDPrimaryKey, Timestamped, Base):
    """A user's spend limits, for all their turns (``scope`` ``all``) or one room's
    (``room:<id>``): one column, so "one budget per user and scope" is a unique key."""

    __tablename__ = "budgets"
    __table_args__ = (UniqueConstraint("user_id", "scope"),)
    user_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("users.id"), index=True)
    room_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("rooms.id"), default=None)
    scope: Mapped[str] = mapped_column(String(80))
    daily_usd: Mapped[float | None] = mapped_column(default=None)
    monthly_usd: Mapped[float | None] = mapped_column(default=None)
    updated_at: Mapped[datetime | None] = mapped_column(default=None)


class SpendCounter(UUIDPrimaryKey, Base):
    """Spent and reserved micro-dollars of one budget in one UTC day or month: the row
    every reservation updates conditionally (docs/adr/0013)."""

    __tablename__ = "spend_counters"
    __table_args__ = (UniqueConstraint("budget_id", "period", "window_start"),)
    budget_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("budgets.id"))
    period: Mapped[str] = mapped_column(String(10), doc=one_of(BUDGET_PERIODS))
    window_start: Mapped[datetime]
    spent_micros: Mapped[int] = mapped_column(BigInteger, default=0)
    reserved_micros: Mapped[int] = mapped_column(BigInteger, default=0)


class SpendHoldRow(Base):
    """The part of one call's reservation held on one counter, until settled or expired."""

    __tablename__ = "spend_holds"
    id: Mapped[uuid.UUID] = mapped_column(primary_key=True)
    counter_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("spend_counters.id"), primary_key=True)
    amount_micros: Mapped[int] = mapped_column(BigInteger)
    expires_at: Mapped[datetime] = mapped_column(index=True)


class ResponseRequest(Base):
    """What a Responses API request said about its response besides the input (the model
    name as sent, background, instructions, metadata), so a later GET says it too.

    Keyed by the turn's id with no foreign key: it is written as the turn starts, and the
    turn's row only at its end (one commit per turn)."""

    __tablename__ = "response_requests"
    turn_id: Mapped[uuid.UUID] = mapped_column(primary_key=True)
    owner_id: Mapped[uuid.UUID] = mapped_column()
    model: Mapped[str] = mapped_column(String(200))
    background: Mapped[bool] = mapped_column()
    instructions: Mapped[str | None] = mapped_column(Text, default=None)
    previous_response_id: Mapped[str | None] = mapped_column(String(200), default=None)
    metadata_: Mapped[dict[str, str]] = mapped_column("metadata", JSON)
    created_at: Mapped[int] = mapped_column(BigInteger)  # Unix seconds, as the response says
