"""Runs one turn from a plain snapshot: no database, no HTTP; yields events.

Promises:
- ``run_turn`` yields ``turn_started`` first, then the mode's events (see
  ``engine.events`` for the catalogue and ``engine.modes.*`` for each mode's sequence),
  and fills ``record`` as it goes. It never yields ``turn_completed`` or ``error``: the
  layer above does, after its commit or when this generator raises.
- LLM and tool failures never raise: they become ``agent_failed`` events or error tool
  results. Anything that does raise is a bug or a ``BrokenPrecondition`` (an empty
  room, a manual turn without a valid mention: ``NoValidMention``), raised before
  ``turn_started`` where it can be.
- Context: after ``turn_started`` the session's older history is folded into its summary
  when it no longer fits the turn's models (``engine.history_fold``: a ``summary``
  event); the mode then sees the summary and the newer history.
- Tools: each agent's ``tools`` entries are resolved through ``tools`` (a ``ToolRunner``);
  the orchestrator's manager never gets tools.
- Approvals: an agent calling a tool whose entry ends in ``!`` pauses the turn (record
  status ``awaiting_approval``, ``record.resume_state`` set); a snapshot with ``resume``
  continues such a turn (engine/approvals.py, docs/adr/0015); a cancelled one
  (``resume.cancelled``) yields ``turn_started`` only (ADR 0030).
- Cancellation: cancelling the consuming task, or closing the generator (consume it with
  ``contextlib.aclosing``), cancels running agents and tool calls and returns only after
  the record holds their partial output (status ``cancelled``).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator

from pantheon.engine.context import TurnContext
from pantheon.engine.events import TurnEvent, TurnStartedEvent
from pantheon.engine.history_fold import fold_history
from pantheon.engine.modes.registry import select_mode
from pantheon.engine.record import TurnRecord
from pantheon.engine.snapshot import AgentSnapshot, TurnSnapshot
from pantheon.engine.spending import SpendGuard
from pantheon.engine.tooling import ToolRunner
from pantheon.llm.gateway import LLMGateway, closing_stream


async def run_turn(
    snapshot: TurnSnapshot,
    gateway: LLMGateway,
    tools: ToolRunner,
    record: TurnRecord,
    spend: SpendGuard | None = None,
) -> AsyncGenerator[TurnEvent, None]:
    """The turn's events; ``record`` holds what was produced, even when cancelled.

    ``spend`` grants each LLM call's maximum cost first (``engine.spending``; none: no
    limit); a refused call is skipped and its speaker fails with ``budget_exceeded``."""
    mode = select_mode(snapshot.mode)
    participants = mode.participants(snapshot)
    record.mode, record.turn_id = snapshot.mode, snapshot.turn_id
    ctx = TurnContext(snapshot, gateway, tools, record, spend)
    async with closing_stream(_events(ctx, participants)) as events:
        async for event in events:
            if ctx.interleaving is not None:
                ctx.interleaving.advance()
            yield event


async def _events(
    ctx: TurnContext, participants: list[AgentSnapshot]
) -> AsyncGenerator[TurnEvent, None]:
    snapshot, mode = ctx.snapshot, select_mode(ctx.snapshot.mode)
    yield TurnStartedEvent(
        turn_id=snapshot.turn_id,
        session_id=snapshot.session_id,
        mode=snapshot.mode,
        agents=[agent.key for agent in participants],
        continues=snapshot.resume.continues if snapshot.resume is not None else None,
        retries=snapshot.retry.turn_id if snapshot.retry is not None else None,
    )
    if snapshot.resume is not None and snapshot.resume.cancelled:
        return  # cancelled while it waited: the decisions refuse its calls, nothing runs
    await ctx.load_counters([*(agent.model for agent in participants), snapshot.manager_model])
    async with closing_stream(fold_history(ctx, participants)) as folding:
        async for event in folding:
            yield event
    async with closing_stream(mode.run(ctx)) as events:
        async for event in events:
            yield event
