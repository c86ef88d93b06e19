"""The one source of each closed set of values a turn uses: modes, statuses, purposes.

The engine, the DB models (column comments), the API schemas and the docs all take these
names from here; the tuples are derived from the ``Literal`` types, so they cannot drift.
"""

from __future__ import annotations

from typing import Literal, get_args

from pantheon.llm.types import Purpose

Mode = Literal["standalone", "manual", "roundtable", "orchestrator"]
# A room's mode: a room never runs 'standalone' (that needs a session opened on an agent).
RoomMode = Literal["manual", "roundtable", "orchestrator"]
# What the engine decides; "cancelled" and a broken engine's "failed" are decided above it,
# "interrupted" (the process running the turn died; recorded later) outside the turn.
RecordStatus = Literal["completed", "partial", "failed"]
TurnStatus = Literal["completed", "partial", "failed", "cancelled", "interrupted"]
MessageStatus = Literal["ok", "failed", "cancelled"]
CallStatus = Literal["ok", "error", "cancelled"]
MessageRole = Literal["user", "assistant", "manager"]
SpeakerRole = Literal["assistant", "manager"]  # the roles the engine produces

MODES: tuple[Mode, ...] = get_args(Mode)
ROOM_MODES: tuple[RoomMode, ...] = get_args(RoomMode)
TURN_STATUSES: tuple[TurnStatus, ...] = get_args(TurnStatus)
MESSAGE_STATUSES: tuple[MessageStatus, ...] = get_args(MessageStatus)
CALL_STATUSES: tuple[CallStatus, ...] = get_args(CallStatus)
MESSAGE_ROLES: tuple[MessageRole, ...] = get_args(MessageRole)
PURPOSES: tuple[Purpose, ...] = get_args(Purpose)

__all__ = [
    "CALL_STATUSES",
    "MESSAGE_ROLES",
    "MESSAGE_STATUSES",
    "MODES",
    "PURPOSES",
    "ROOM_MODES",
    "TURN_STATUSES",
    "CallStatus",
    "MessageRole",
    "MessageStatus",
    "Mode",
    "Purpose",
    "RecordStatus",
    "RoomMode",
    "SpeakerRole",
    "TurnStatus",
]


def one_of(values: tuple[str, ...]) -> str:
    """A column comment naming the allowed values, e.g. ``one of: ok | failed``."""
    return "one of: " + " | ".join(values)
