"""Every table of the service. Owned resources carry ``owner_id`` from day one.

Soft delete: rooms, agents and sessions get ``deleted_at`` and disappear from every query; a
deleted room's sessions answer 404 through their room. Turn data is append-only.
"""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import JSON, ForeignKey, Index, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from pantheon.db.base import Base, Timestamped, UUIDPrimaryKey


class User(UUIDPrimaryKey, Timestamped, Base):
    __tablename__ = "users"
    name: Mapped[str] = mapped_column(String(100), unique=True)
    is_admin: Mapped[bool] = mapped_column(default=False)
    allowed_models: Mapped[list[str] | None] = mapped_column(JSON, default=None)


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
    mode: Mapped[str] = mapped_column(String(20), default="roundtable")
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


class Turn(UUIDPrimaryKey, Timestamped, Base):
    __tablename__ = "turns"
    __table_args__ = (UniqueConstraint("session_id", "idempotency_key"),)
    session_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("sessions.id"), index=True)
    mode: Mapped[str] = mapped_column(String(20))
    status: Mapped[str] = mapped_column(String(20))
    message: Mapped[str] = mapped_column(Text)
    output: Mapped[str] = mapped_column(Text, default="")
    rounds: Mapped[int] = mapped_column(default=0)
    input_tokens: Mapped[int] = mapped_column(default=0)
    output_tokens: Mapped[int] = mapped_column(default=0)
    cost_usd: Mapped[float] = mapped_column(default=0.0)
    error_code: Mapped[str | None] = mapped_column(String(64), default=None)
    idempotency_key: Mapped[str | None] = mapped_column(String(200), default=None)
    request_hash: Mapped[str | None] = mapped_column(String(64), default=None)
    started_at: Mapped[datetime | None] = mapped_column(default=None)
    finished_at: Mapped[datetime | None] = mapped_column(default=None)


class Message(UUIDPrimaryKey, Timestamped, Base):
    __tablename__ = "messages"
    __table_args__ = (UniqueConstraint("turn_id", "seq"),)
    session_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("sessions.id"), index=True)
    turn_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("turns.id"), index=True)
    seq: Mapped[int]
    role: Mapped[str] = mapped_column(String(20))
    agent_key: Mapped[str | None] = mapped_column(String(64), default=None)
    agent_name: Mapped[str | None] = mapped_column(String(200), default=None)
    round: Mapped[int | None] = mapped_column(default=None)
    content: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(20), default="ok")
    error_code: Mapped[str | None] = mapped_column(String(64), default=None)
    visible: Mapped[bool] = mapped_column(default=True)


class LLMCall(UUIDPrimaryKey, Base):
    __tablename__ = "llm_calls"
    turn_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("turns.id"), index=True)
    seq: Mapped[int]
    purpose: Mapped[str] = mapped_column(String(20))
    model: Mapped[str] = mapped_column(String(100))
    agent_key: Mapped[str | None] = mapped_column(String(64), default=None)
    round: Mapped[int | None] = mapped_column(default=None)
    input_tokens: Mapped[int] = mapped_column(default=0)
    output_tokens: Mapped[int] = mapped_column(default=0)
    usage_estimated: Mapped[bool] = mapped_column(default=False)
    cost_usd: Mapped[float] = mapped_column(default=0.0)
    latency_ms: Mapped[float] = mapped_column(default=0.0)
    ttft_ms: Mapped[float | None] = mapped_column(default=None)
    status: Mapped[str] = mapped_column(String(20))
    error_code: Mapped[str | None] = mapped_column(String(64), default=None)
    started_at: Mapped[datetime]


class TurnEventRow(Base):
    """The SSE log of a turn. ``data`` is the exact JSON text that was streamed, so a replay
    sends the same bytes and recording does not serialise every event a second time."""

    __tablename__ = "turn_events"
    turn_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("turns.id"), primary_key=True)
    seq: Mapped[int] = mapped_column(primary_key=True)
    type: Mapped[str] = mapped_column(String(40))
    data: Mapped[str] = mapped_column(Text)
