"""The contract between the engine and the modes.

Promises: a mode (``TurnMode``) decides who speaks and when to stop; it yields events and
fills the record only through ``TurnContext`` (``engine/context.py``), never touching the
database or HTTP. Consumers of these generators close them deterministically
(``closing_stream``) so that cancellation bookkeeping happens at once, not at garbage
collection.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Protocol

from pantheon.engine.context import TurnContext
from pantheon.engine.events import TurnEvent
from pantheon.engine.snapshot import AgentSnapshot, TurnSnapshot

__all__ = ["TurnContext", "TurnMode"]


class TurnMode(Protocol):
    def participants(self, snapshot: TurnSnapshot) -> list[AgentSnapshot]:
        """The agents announced in ``turn_started`` (who may speak)."""
        ...

    def run(self, ctx: TurnContext) -> AsyncIterator[TurnEvent]:
        """The mode's events after ``turn_started``."""
        ...
