"""Typed outcomes of a turn that the engine did not finish by itself, and the exception for
a snapshot that breaks the engine's preconditions (a caller bug, never user input)."""

from __future__ import annotations

import enum

from pantheon.error_codes import ErrorCode


class TurnAbort(enum.StrEnum):
    """Why a turn ended without the engine's own status; the value is the stored code."""

    CANCELLED = "cancelled"
    INTERNAL_ERROR = ErrorCode.INTERNAL_ERROR.value
    DEADLINE_EXCEEDED = ErrorCode.DEADLINE_EXCEEDED.value  # the turn's deadline (turns.timeout_s)


class BrokenPrecondition(Exception):
    """The snapshot cannot run in its mode (no agents, a standalone roster of two ...).

    Preflight checks these first and answers 4xx; reaching the engine with one is a bug.
    """
