"""Retry an orchestrator turn's failed agents, or its synthesis alone (ADR 0034).

``POST /v1/turns/{id}/retry`` starts a new turn in the turn's own session, on the inputs
the turn kept (``turns.snapshot``, as a replay does: the message and the history it
read), whose synthesis reads the turn's successful specialist outputs as recorded plus
those of the agents run again. The agents run again and the manager are taken from the
room as it is now (a model fixed since is used). Checks, each a plain error: unknown or
another user's turn 404; still running, not finished (paused, cancelled, interrupted), a
continuation of a paused turn, its inputs not kept, the session waiting for a decision,
nothing that failed 409; a mode whose answer is no synthesis, an agent that did not fail
there or left the room, a model the owner may not use 422.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import replace

from sqlalchemy.ext.asyncio import AsyncSession

from pantheon.db.models import Message, Turn
from pantheon.engine.modes.specs import MODES, mode_spec
from pantheon.engine.snapshot import AgentSnapshot, RetryPlan, ReusedOutput, TurnSnapshot
from pantheon.errors import Conflict, Unprocessable, not_found
from pantheon.live.snapshot_json import snapshot_of
from pantheon.settings import Settings
from pantheon.turns.approvals import awaiting_conflict
from pantheon.turns.preflight_read import live_roster, session_facts
from pantheon.turns.repository import TurnRepository
from pantheon.turns.schemas import RetryCreate
from pantheon.users.access import check_allowlisted

RETRYABLE = frozenset({"completed", "partial", "failed"})
_SYNTHESISED = [m for m in MODES if mode_spec(m).answer == "synthesis"]


def _failed_rounds(messages: Sequence[Message]) -> dict[str, int]:
    """Each specialist that failed in the turn, and the first round it failed in."""
    failed: dict[str, int] = {}
    for m in messages:
        if m.role == "assistant" and m.status == "failed" and m.agent_key:
            failed.setdefault(m.agent_key, m.round or 1)
    return failed


def _chosen(
    turn: Turn, asked: list[str] | None, failed: dict[str, int], synthesis_failed: bool
) -> list[str]:
    """The agents to run again: those asked for (each must have failed), else all that
    failed; none is the synthesis alone, which must have failed."""
    named = ", ".join(failed) or "none"
    if asked is None:
        if not failed and not synthesis_failed:
            raise Conflict(f"turn {turn.id} has nothing to retry: no agent nor synthesis failed")
        return list(failed)
    for key in asked:
        if key not in failed:
            raise Unprocessable(
                f"agent '{key}' did not fail in turn {turn.id} (its failed agents: {named})",
                failed_agents=list(failed),
            )
    if not asked and not synthesis_failed:
        raise Conflict(f"turn {turn.id}'s synthesis did not fail; name an agent to retry")
    return list(dict.fromkeys(asked))


def _outputs(recorded: TurnSnapshot, messages: Sequence[Message]) -> tuple[ReusedOutput, ...]:
    """The successful specialist outputs the turn's synthesis read (a retry's include the
    ones it reused itself), in turn order."""
    earlier = recorded.retry.outputs if recorded.retry is not None else ()
    own = tuple(
        ReusedOutput(m.agent_key or "", m.agent_name or m.agent_key or "", m.content, m.round)
        for m in messages
        if m.role == "assistant" and m.status == "ok"
    )
    return (*earlier, *own)


async def _checked_turn(db: AsyncSession, owner_id: uuid.UUID, turn_id: str) -> Turn:
    turn = await TurnRepository(db).get(owner_id, turn_id)
    if turn is None:
        raise not_found("turn", turn_id)
    if mode_spec(turn.mode).answer != "synthesis":
        raise Unprocessable(
            f"turn {turn.id} ran in '{turn.mode}', whose answer is no synthesis; retry applies "
            f"to {', '.join(_SYNTHESISED)} turns (send the message again with 'agent' instead)"
        )
    if turn.status not in RETRYABLE:
        raise Conflict(f"turn {turn.id} ended '{turn.status}'; only a finished turn is retried")
    if turn.continues_id is not None:
        raise Conflict(
            f"turn {turn.id} continues a turn that paused for approval; its inputs are that "
            "turn's, so it cannot be retried"
        )
    if turn.snapshot is None:
        raise Conflict(f"turn {turn.id} was recorded before its inputs were kept (docs/replay.md)")
    return turn


def _roster(
    recorded: Sequence[AgentSnapshot], live: Sequence[AgentSnapshot], agents: list[str]
) -> tuple[AgentSnapshot, ...]:
    """The recorded roster, with the agents run again as the room has them now."""
    now = {agent.key: agent for agent in live}
    gone = [key for key in agents if key not in now]
    if gone:
        raise Unprocessable(f"agent '{gone[0]}' is no longer in this room; add it back first")
    return tuple(
        replace(now[a.key], instructions=a.instructions) if a.key in agents else a for a in recorded
    )


async def prepare_retry(
    db: AsyncSession, settings: Settings, owner_id: uuid.UUID, turn_id: str, data: RetryCreate
) -> TurnSnapshot:
    """The retry's snapshot (see the module docstring)."""
    turn = await _checked_turn(db, owner_id, turn_id)
    assert turn.snapshot is not None
    messages = await TurnRepository(db).messages(turn.id)
    failed = _failed_rounds(messages)
    synthesis_failed = any(m.role == "manager" and m.status == "failed" for m in messages)
    agents = _chosen(turn, data.agents, failed, synthesis_failed)
    recorded = snapshot_of(turn.snapshot)
    outputs = _outputs(recorded, messages)
    if not agents and not outputs:
        raise Conflict(f"turn {turn.id} has no specialist output to synthesise")
    facts = await session_facts(db, owner_id, turn.session_id, None)
    if facts is None or facts.room is None:
        raise not_found("session", str(turn.session_id))
    if facts.waiting_turn_id is not None:
        raise awaiting_conflict(facts.waiting_turn_id)
    roster = _roster(recorded.roster, await live_roster(db, facts.room.id), agents)
    manager_model = facts.room.manager_model or settings.default_model
    for agent in roster:
        if agent.key in agents:
            check_allowlisted(agent.model, facts.allowlist, what=f"agent '{agent.key}'")
    check_allowlisted(manager_model, facts.allowlist, what="manager")
    first = min((failed[key] for key in agents), default=1)
    return replace(
        recorded,
        turn_id=str(uuid.uuid4()),
        roster=roster,
        manager_model=manager_model,
        interleaving=(),
        retry=RetryPlan(str(turn.id), first, tuple(agents), outputs),
    )
