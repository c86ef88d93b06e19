"""``rerun_from``: which stages a pipeline turn takes over from the session's last one.

Rules (SPEC "Workflows"; each broken rule is a 422 naming it): the turn runs in pipeline
mode; the session has an earlier pipeline turn; ``rerun_from`` is one of that turn's
stages (an agent that left a message in it); and the room's first stages up to it are
the same agents in the same order as then. A pipeline stops at its first failed stage,
so every stage before one that left a message succeeded: their outputs are reused as
they were, with the names they were written under.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from pantheon.engine.modes.specs import MODES, mode_spec
from pantheon.engine.snapshot import AgentSnapshot, Mode, ReusedStage
from pantheon.errors import Unprocessable
from pantheon.turns.repository import TurnRepository


async def reused_stages(
    turns: TurnRepository,
    session_id: uuid.UUID,
    mode: Mode,
    rerun_from: str | None,
    roster: Sequence[AgentSnapshot],
) -> tuple[ReusedStage, ...]:
    """The stages before ``rerun_from``, from the session's last pipeline turn."""
    if rerun_from is None:
        return ()
    if not mode_spec(mode).can_rerun:
        rerunnable = ", ".join(m for m in MODES if mode_spec(m).can_rerun)
        raise Unprocessable(f"rerun_from applies to {rerunnable} turns; this turn runs in '{mode}'")
    earlier = await turns.latest_of_mode(session_id, mode)
    if earlier is None:
        raise Unprocessable(
            f"rerun_from '{rerun_from}': session {session_id} has no earlier {mode} turn"
        )
    stages = [m for m in await turns.messages(earlier.id) if m.role == "assistant"]
    keys = [m.agent_key or "" for m in stages]
    if rerun_from not in keys:
        raise Unprocessable(
            f"rerun_from '{rerun_from}' is not a stage of pipeline turn {earlier.id}; "
            f"its stages are: {', '.join(keys) or 'none'}",
            stages=keys,
        )
    index = keys.index(rerun_from)
    now = [agent.key for agent in sorted(roster, key=lambda a: (a.position, a.key))]
    if now[: index + 1] != keys[: index + 1]:
        raise Unprocessable(
            f"the room's agents changed since pipeline turn {earlier.id}: its stages up to "
            f"'{rerun_from}' were {', '.join(keys[: index + 1])}; the room's first agents "
            f"are now {', '.join(now[: index + 1])}"
        )
    return tuple(
        ReusedStage(m.agent_key or "", m.agent_name or m.agent_key or "", m.content)
        for m in stages[:index]
    )
