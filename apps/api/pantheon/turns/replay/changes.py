"""A replay's changes applied to the recorded snapshot, checked like a new turn's input.

Agents are named by their key in the recorded roster; a model must be a configured alias
the user may use; another mode must suit the session (a room's or an agent's), the
roster's size and, for a mode that needs mentions, the recorded message. Every refusal
is a 422 naming what is valid.
"""

from __future__ import annotations

from dataclasses import replace

from pantheon.engine.mentions import NoValidMention, require_mentions
from pantheon.engine.modes.specs import mode_spec
from pantheon.engine.snapshot import AgentSnapshot, TurnSnapshot
from pantheon.errors import Unprocessable
from pantheon.llm.registry import ModelRegistry
from pantheon.turns.schemas import AgentChange, ReplayCreate
from pantheon.users.access import check_alias


def _agent(
    agent: AgentSnapshot,
    change: AgentChange,
    registry: ModelRegistry,
    allowlist: list[str] | None,
) -> AgentSnapshot:
    model = agent.model
    if change.model is not None:
        model = check_alias(registry, change.model, allowlist, what=f"agent '{agent.key}'")
    return replace(agent, model=model, role_prompt=change.role_prompt or agent.role_prompt)


def _roster(
    snapshot: TurnSnapshot,
    changes: ReplayCreate,
    registry: ModelRegistry,
    allowlist: list[str] | None,
) -> tuple[AgentSnapshot, ...]:
    keys = [agent.key for agent in snapshot.ordered_roster()]
    unknown = sorted(set(changes.agents) - set(keys))
    if unknown:
        raise Unprocessable(
            f"unknown agent key(s) {', '.join(unknown)} in the replay's changes; "
            f"the recorded turn's agents: {', '.join(keys)}",
            agent_keys=keys,
        )
    return tuple(
        _agent(a, changes.agents[a.key], registry, allowlist) if a.key in changes.agents else a
        for a in snapshot.roster
    )


def _check_mode(snapshot: TurnSnapshot) -> None:
    """422 unless the recorded session and roster can run ``snapshot.mode``."""
    spec = mode_spec(snapshot.mode)
    session = "room" if snapshot.room_id is not None else "agent"
    if spec.session != session:
        raise Unprocessable(
            f"'{snapshot.mode}' turns need a session opened on "
            f"{'a room' if spec.session == 'room' else 'one agent'}; the recorded turn's "
            f"session was opened on {'a room' if session == 'room' else 'an agent'}"
        )
    if len(snapshot.roster) < spec.min_agents:
        raise Unprocessable(
            f"a {snapshot.mode} turn needs at least {spec.min_agents} agents; "
            f"the recorded turn had {len(snapshot.roster)}"
        )
    if spec.needs_mentions:
        try:
            require_mentions(snapshot.message, snapshot.roster)
        except NoValidMention as exc:
            raise Unprocessable(str(exc), room_keys=exc.keys) from exc


def apply_changes(
    snapshot: TurnSnapshot,
    changes: ReplayCreate,
    registry: ModelRegistry,
    allowlist: list[str] | None,
) -> TurnSnapshot:
    """The recorded snapshot with ``changes`` applied and checked (module docstring)."""
    changed = replace(snapshot, roster=_roster(snapshot, changes, registry, allowlist))
    if changes.description is not None:
        changed = replace(changed, room_description=changes.description)
    if changes.mode is not None and changes.mode != snapshot.mode:
        changed = replace(changed, mode=changes.mode)
        _check_mode(changed)
    return changed
