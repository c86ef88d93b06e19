"""Session and message schemas (field names are part of the public contract)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from pantheon.schemas import ReadSchema, RequestBody

TITLE_LENGTH = 60  # automatic titles: the first line of the first message, cut here


class SessionCreate(RequestBody):
    title: str = Field(default="", max_length=200)


@dataclass(frozen=True, slots=True)
class SessionSearch:
    """What a session list is narrowed to: ``q`` in titles and messages; evaluation case
    sessions (ADR 0019) are left out unless ``include_evals``."""

    q: str | None = None
    include_evals: bool = False


class SessionUpdate(RequestBody):
    model_config = ConfigDict(extra="forbid")

    title: str = Field(
        max_length=200, description="New title; empty goes back to the automatic title"
    )


class SessionSummaryRead(BaseModel):
    """The rolling summary of the session's older history (docs/context.md)."""

    text: str
    through_turn_id: uuid.UUID = Field(description="The newest turn the summary covers")
    through_at: datetime = Field(description="Time of the newest message it covers")
    messages: int = Field(description="How many messages it covers")
    updated_at: datetime


class SessionRead(ReadSchema):
    id: uuid.UUID
    room_id: uuid.UUID | None
    agent_id: uuid.UUID | None
    title: str = Field(description="The title given, else one made from the first message")
    title_is_auto: bool = Field(description="True when ``title`` was made from the first message")
    turn_count: int
    awaiting_approval: bool = Field(
        default=False, description="The newest turn waits for a person's approval decision"
    )
    last_activity_at: datetime = Field(description="The latest turn's start, else created_at")
    created_at: datetime
    summary: SessionSummaryRead | None = Field(
        default=None, description="What older turns were folded into; null until needed"
    )
    replay_of: uuid.UUID | None = Field(
        default=None, description="The turn this session replays (docs/replay.md); else null"
    )
    parent_id: uuid.UUID | None = Field(
        default=None, description="A fork: the session it was forked from"
    )
    fork_turn_id: uuid.UUID | None = Field(
        default=None, description="A fork: the parent's turn its history ends at"
    )


class ForkCreate(RequestBody):
    model_config = ConfigDict(extra="forbid")

    turn_id: uuid.UUID = Field(
        description="The finished turn the fork's history ends at (this session's, or one "
        "of the turns it inherited)"
    )


def auto_title(first_message: str | None) -> str:
    """The first non-empty line of the first message, shortened to ``TITLE_LENGTH``."""
    lines = [line.strip() for line in (first_message or "").splitlines() if line.strip()]
    if not lines:
        return ""
    line = " ".join(lines[0].split())
    return line if len(line) <= TITLE_LENGTH else line[: TITLE_LENGTH - 1].rstrip() + "…"


class MessageRead(ReadSchema):
    id: uuid.UUID
    turn_id: uuid.UUID
    seq: int
    role: Literal["user", "assistant", "manager"]
    agent_key: str | None
    agent_name: str | None
    round: int | None
    content: str
    status: str
    error_code: str | None
    reused: bool = Field(
        default=False, description="A pipeline stage's output reused from an earlier turn"
    )
    created_at: datetime
