"""Each mode's implementation, by name: the one place the engine maps a spec to its code."""

from __future__ import annotations

from pantheon.engine.errors import BrokenPrecondition
from pantheon.engine.modes.base import TurnMode
from pantheon.engine.modes.manual import ManualMode
from pantheon.engine.modes.orchestrator import OrchestratorMode
from pantheon.engine.modes.pipeline import PipelineMode
from pantheon.engine.modes.review import ReviewMode
from pantheon.engine.modes.roundtable import RoundtableMode
from pantheon.engine.modes.specs import Mode
from pantheon.engine.modes.standalone import StandaloneMode

IMPLEMENTATIONS: dict[Mode, TurnMode] = {
    "standalone": StandaloneMode(),
    "manual": ManualMode(),
    "roundtable": RoundtableMode(),
    "orchestrator": OrchestratorMode(),
    "pipeline": PipelineMode(),
    "review": ReviewMode(),
}


def select_mode(mode: Mode) -> TurnMode:
    """The implementation of ``mode``; ``BrokenPrecondition`` for an unknown name."""
    try:
        return IMPLEMENTATIONS[mode]
    except KeyError:
        raise BrokenPrecondition(f"unknown turn mode {mode!r}") from None
