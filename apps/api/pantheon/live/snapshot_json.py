"""A turn's snapshot as JSON, kept with the turn (``turns.snapshot``) so that a replay runs
on the inputs the turn had (docs/replay.md), whatever was edited since.

A continuation's snapshot (approvals) is not kept: its state lives in the paused turn
and it cannot be replayed on its own. A replay's ``interleaving`` is not kept either:
the replay's own event log says how its speakers interleaved.
"""

from __future__ import annotations

from dataclasses import replace

from pydantic import TypeAdapter

from pantheon.engine.approvals import Resume
from pantheon.engine.snapshot import TurnSnapshot

_SNAPSHOT: TypeAdapter[TurnSnapshot] = TypeAdapter(TurnSnapshot)
_SNAPSHOT.rebuild(_types_namespace={"Resume": Resume})  # the snapshot's forward reference


def snapshot_json(snapshot: TurnSnapshot) -> str | None:
    """The JSON to keep, or ``None`` for a continuation."""
    if snapshot.resume is not None:
        return None
    return _SNAPSHOT.dump_json(replace(snapshot, interleaving=())).decode()


def snapshot_of(text: str) -> TurnSnapshot:
    """What ``snapshot_json`` wrote; raises ``pydantic.ValidationError`` otherwise."""
    return _SNAPSHOT.validate_json(text)
