"""The one source of each closed set of values a turn uses: statuses, purposes, budget
periods (modes are declared in ``engine/modes/specs.py`` and re-exported here).

The engine, the DB models (column comments), the API schemas and the docs all take these
names from here; the tuples are derived from the ``Literal`` types, so they cannot drift.
"""

from __future__ import annotations

from typing import Literal, get_args

from pantheon.engine.modes.specs import MODES, ROOM_MODES, Mode, RoomMode
from pantheon.llm.types import Purpose

# Why a review turn stopped (SPEC "Workflows"): every reviewer approved, the round cap,
# no gain in the best score for two rounds, or the drafter failed.
ReviewStop = Literal["approved", "max_rounds", "no_gain", "draft_failed"]
# What the engine decides; "cancelled" and a broken engine's "failed" are decided above it,
# "interrupted" (the process running the turn died; recorded later) outside the turn.
# "awaiting_approval": an agent called a tool whose entry ends in "!" (docs/approvals.md).
RecordStatus = Literal["completed", "partial", "failed", "awaiting_approval"]
TurnStatus = Literal[
    "completed", "partial", "failed", "cancelled", "interrupted", "awaiting_approval"
]
MessageStatus = Literal["ok", "failed", "cancelled", "awaiting_approval"]
# A gated tool call: waiting for a person, or what the person decided.
ApprovalStatus = Literal["pending", "approved", "rejected"]
CallStatus = Literal["ok", "error", "cancelled"]
# The UTC windows a spend limit counts in (budgets/periods.py).
BudgetPeriod = Literal["day", "month"]
MessageRole = Literal["user", "assistant", "manager"]
SpeakerRole = Literal["assistant", "manager"]  # the roles the engine produces

TURN_STATUSES: tuple[TurnStatus, ...] = get_args(TurnStatus)
MESSAGE_STATUSES: tuple[MessageStatus, ...] = get_args(MessageStatus)
CALL_STATUSES: tuple[CallStatus, ...] = get_args(CallStatus)
MESSAGE_ROLES: tuple[MessageRole, ...] = get_args(MessageRole)
APPROVAL_STATUSES: tuple[ApprovalStatus, ...] = get_args(ApprovalStatus)
BUDGET_PERIODS: tuple[BudgetPeriod, ...] = get_args(BudgetPeriod)
PURPOSES: tuple[Purpose, ...] = get_args(Purpose)
REVIEW_STOPS: tuple[ReviewStop, ...] = get_args(ReviewStop)

__all__ = [
    "APPROVAL_STATUSES",
    "BUDGET_PERIODS",
    "CALL_STATUSES",
    "MESSAGE_ROLES",
    "MESSAGE_STATUSES",
    "MODES",
    "PURPOSES",
    "REVIEW_STOPS",
    "ROOM_MODES",
    "TURN_STATUSES",
    "ApprovalStatus",
    "BudgetPeriod",
    "CallStatus",
    "MessageRole",
    "MessageStatus",
    "Mode",
    "Purpose",
    "RecordStatus",
    "ReviewStop",
    "RoomMode",
    "SpeakerRole",
    "TurnStatus",
]


def one_of(values: tuple[str, ...]) -> str:
    """A column comment naming the allowed values, e.g. ``one of: ok | failed``."""
    return "one of: " + " | ".join(values)
