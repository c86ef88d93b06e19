"""Keeps a session's history within every model of the turn: older exchanges are folded
into the session summary by the manager, or, when that fails, left out and reported.

Promises:
- Runs after ``turn_started``, before the mode, on the session's own history only
  (``snapshot.stored_history``) and while ``context.summaries`` is on.
- The history budget is the tightest over the models that see history this turn (every
  speaker's, and the manager's in orchestrator mode): the prompt window
  (``engine.window``) minus the system prompt and the message, minus room for the
  summary (a quarter of that, at most ``context.summary_max_tokens``).
- While the history fits and every unsummarised message was read, nothing happens.
  Otherwise the newest whole exchanges filling ``context.keep_ratio`` of the budget are
  kept and the older ones are folded, oldest first, by summary calls of the manager
  (purpose ``summary``, each fitting the manager's window), at most
  ``context.summary_max_calls`` of them.
- One ``summary`` event says what happened (``engine.events``). ``record.summary`` is
  the summary to persist (after at least one good call: progress before a failure is
  kept), ``record.context_dropped`` the messages left out of this turn's prompts.
- A failed summary call never fails the turn.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime

from pantheon.engine.context import TurnContext
from pantheon.engine.events import SummaryEvent, TurnEvent
from pantheon.engine.history_prompt import exchange_tokens, group_exchanges
from pantheon.engine.modes.specs import mode_spec
from pantheon.engine.prompting import agent_system_prompt, fit_text, route_task
from pantheon.engine.snapshot import AgentSnapshot, HistoryEntry, SessionSummary
from pantheon.engine.speakers import MANAGER_KEY
from pantheon.engine.summary_prompt import summary_system, summary_task, transcript
from pantheon.error_codes import ErrorCode
from pantheon.llm.tokenizers import TokenCounter
from pantheon.llm.tokens import MESSAGE_OVERHEAD_TOKENS
from pantheon.llm.types import ChatMessage, LLMRequest

Exchange = list[HistoryEntry]
_MARGIN = 32  # tokens of slack for what counting cannot see (chat template, labels)
_MIN_SUMMARY_TOKENS = 32


@dataclass(frozen=True, slots=True)
class Budget:
    """The tightest history budget of the turn, its counter and the summary's length."""

    history: int
    counter: TokenCounter
    summary: int


def history_budget(ctx: TurnContext, speakers: Sequence[AgentSnapshot]) -> Budget:
    """See the module docstring: the smallest room history has in any of the prompts."""
    snap = ctx.snapshot
    roster = snap.ordered_roster()
    fixed = []
    for agent in speakers:
        window = ctx.window(agent.model)
        system = agent_system_prompt(agent, roster)
        fixed.append((window, window.counter.count(system) + window.counter.count(snap.message)))
    if mode_spec(snap.mode).uses_manager:
        window = ctx.window(snap.manager_model)
        limit = snap.orchestrator.max_agents_per_round
        system, task = route_task(snap.message, roster, 1, limit, [], window)
        fixed.append((window, window.counter.count(system) + window.counter.count(task)))
    budgets = []
    for window, used in fixed:
        free = window.prompt_tokens - used - 2 * MESSAGE_OVERHEAD_TOKENS - _MARGIN
        summary = max(_MIN_SUMMARY_TOKENS, min(snap.context.summary_max_tokens, free // 4))
        budgets.append(Budget(max(0, free - summary), window.counter, summary))
    tightest = min(budgets, key=lambda b: b.history)
    return replace(tightest, summary=min(b.summary for b in budgets))


def plan_fold(
    exchanges: Sequence[Exchange], budget: Budget, keep_ratio: float, truncated: bool
) -> tuple[list[Exchange], list[Exchange]] | None:
    """(kept, folded) exchanges, or ``None`` when the history fits as it is."""
    costs = [exchange_tokens(e, budget.counter) for e in exchanges]
    if sum(costs) <= budget.history and not truncated:
        return None
    keep_tokens = int(budget.history * keep_ratio)
    kept, used = 0, 0
    for cost in reversed(costs):
        if used + cost > keep_tokens:
            break
        kept, used = kept + 1, used + cost
    if truncated:  # more was never read: fold at least half, so the next read reaches it
        kept = min(kept, len(exchanges) // 2)
    split = len(exchanges) - kept
    if split == 0:
        return None
    return list(exchanges[split:]), list(exchanges[:split])


async def fold_history(
    ctx: TurnContext, speakers: Sequence[AgentSnapshot]
) -> AsyncIterator[TurnEvent]:
    """Fold the older history into the summary when it does not fit (at most one event)."""
    snap = ctx.snapshot
    if not (snap.stored_history and snap.context.summaries and snap.history):
        return
    if any(e.at is None or e.turn_id is None for e in snap.history):
        return  # not the session's stored messages: nothing to point a summary at
    budget = history_budget(ctx, speakers)  # the history was counted by load_counters
    plan = plan_fold(
        group_exchanges(snap.history), budget, snap.context.keep_ratio, snap.history_truncated
    )
    if plan is None:
        return
    kept, folded = plan
    summary, done, code = await _summarise(ctx, folded, budget.summary)
    dropped = sum(len(e) for e in folded[done:])
    ctx.snapshot = replace(snap, history=tuple(e for x in kept for e in x), summary=summary)
    if summary is not snap.summary:
        ctx.record.keep_summary(summary)
    ctx.record.context_dropped = dropped
    yield SummaryEvent(
        turn_id=snap.turn_id,
        ok=code is None,
        folded_messages=sum(len(e) for e in folded[:done]),
        dropped_messages=dropped,
        summary_messages=summary.messages if summary is not None else 0,
        text=summary.text if summary is not snap.summary and summary is not None else None,
        code=code,
    )


async def _summarise(
    ctx: TurnContext, folded: Sequence[Exchange], summary_tokens: int
) -> tuple[SessionSummary | None, int, str | None]:
    """(summary, exchanges folded into it, error code of a failed call or ``None``)."""
    snap = ctx.snapshot
    current = snap.summary
    done = 0
    for chunk, text in _chunks(ctx, folded, summary_tokens)[: snap.context.summary_max_calls]:
        previous = current.text if current is not None else None
        request = LLMRequest(
            snap.manager_model,
            (
                ChatMessage("system", summary_system(summary_tokens)),
                ChatMessage("user", summary_task(previous, text)),
            ),
            purpose="summary",
            agent_key=MANAGER_KEY,
            max_tokens=summary_tokens,
            temperature=0.0,
        )
        answer = await ctx.ask_summary(request)
        if answer is None or not answer.strip():
            return current, done, _failure_code(ctx, answer)
        entries = [e for x in chunk for e in x]
        current = SessionSummary(
            text=answer.strip(),
            through_turn_id=str(entries[-1].turn_id),
            through_at=max(e.at for e in entries if e.at is not None),
            messages=(current.messages if current is not None else 0) + len(entries),
            updated_at=datetime.now(UTC),
        )
        done += len(chunk)
    return current, done, None


def _chunks(
    ctx: TurnContext, folded: Sequence[Exchange], summary_tokens: int
) -> list[tuple[list[Exchange], str]]:
    """The folded exchanges in groups whose summary call fits the manager's window, each
    with its transcript (an exchange too big alone is cut to fit)."""
    window = ctx.window(ctx.snapshot.manager_model)
    counter = window.counter
    fixed = counter.count(summary_system(summary_tokens)) + counter.count(summary_task("", ""))
    # The reply and the previous summary both take up to ``summary_tokens``.
    room = max(64, window.size - 2 * summary_tokens - fixed - 3 * MESSAGE_OVERHEAD_TOKENS - _MARGIN)
    chunks: list[tuple[list[Exchange], str]] = []
    group: list[Exchange] = []
    used = 0
    for exchange in folded:
        cost = exchange_tokens(exchange, counter)
        if group and used + cost > room:
            chunks.append((group, transcript([e for x in group for e in x])))
            group, used = [], 0
        group.append(exchange)
        used += cost
    if group:
        chunks.append((group, transcript([e for x in group for e in x])))
    return [(g, fit_text(text, room, counter)) for g, text in chunks]


def _failure_code(ctx: TurnContext, answer: str | None) -> str:
    if answer is not None:
        return ErrorCode.EMPTY_SUMMARY
    calls = [c for c in ctx.record.llm_calls if c.purpose == "summary"]
    return (calls[-1].error_code if calls else None) or ErrorCode.SUMMARY_FAILED
