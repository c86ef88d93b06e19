"""The orchestrator manager's three calls: route, evaluate, synthesis.

Promises: every call goes through ``TurnContext`` and so is recorded in ``llm_calls``
(purposes ``route``, ``evaluate``, ``synthesis``, ``agent_key="manager"``); the manager
never gets tools. Route and evaluate ask for JSON with a ``response_format`` schema, but
the tolerant parsers still decide: routing that fails or is unusable falls back to the
first roster agent (``fallback=True``); an evaluation that fails or is unparsable means
"stop" (``fallback=True``); a failed synthesis falls back to the specialists' outputs
(``synthesis_fallback``). A fallback says why (``ManagerFallback``: the failed call's
error code, or ``bad_json`` for an answer that was not the decision) and which model.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pantheon.engine.context import SpeakerRun, TurnContext
from pantheon.engine.events import SynthesisCompletedEvent
from pantheon.engine.json_extract import (
    CONTINUE_FORMAT,
    Routing,
    parse_continue,
    parse_routing,
    routing_format,
)
from pantheon.engine.prompting import (
    Contribution,
    agent_system_prompt,
    agent_task,
    assemble,
    evaluate_task,
    route_task,
    synthesis_task,
)
from pantheon.engine.snapshot import AgentSnapshot
from pantheon.engine.speakers import MANAGER_KEY, CallOutcome
from pantheon.error_codes import ErrorCode
from pantheon.llm.types import LLMRequest, Purpose, ResponseFormat

ROUTE_MAX_TOKENS = 512
EVALUATE_MAX_TOKENS = 128


@dataclass(frozen=True)
class ManagerFallback:
    """Why a manager decision fell back: an ``ErrorCode`` value, and the manager's model."""

    reason: str
    model: str


def _fallback(request: LLMRequest, outcome: CallOutcome) -> ManagerFallback:
    """The failed call's code, or ``bad_json`` when it answered something unusable."""
    if outcome.status == "ok":
        return ManagerFallback(ErrorCode.BAD_JSON, request.model)
    return ManagerFallback(outcome.error_code or ErrorCode.LLM_ERROR, request.model)


def _manager_request(
    ctx: TurnContext,
    purpose: Purpose,
    system: str,
    task: str,
    *,
    max_tokens: int | None,
    response_format: ResponseFormat | None = None,
) -> LLMRequest:
    snapshot = ctx.snapshot
    window = ctx.window(snapshot.manager_model)
    with_history = purpose != "evaluate"
    history = snapshot.history if with_history else ()
    summary = ctx.summary_text if with_history else None
    messages = assemble(system, task, history, window, summary=summary)
    temperature = 0.0 if max_tokens is not None else None
    if max_tokens is None:
        max_tokens = ctx.alias(snapshot.manager_model).max_tokens
    return LLMRequest(
        snapshot.manager_model,
        messages,
        purpose=purpose,
        agent_key=MANAGER_KEY,
        max_tokens=max_tokens,
        temperature=temperature,
        response_format=response_format,
    )


async def route(
    ctx: TurnContext, round_no: int, limit: int, earlier: Sequence[Contribution]
) -> tuple[Routing, ManagerFallback | None]:
    """The round's routing, and why it is the fallback (first roster agent) if it is."""
    snapshot = ctx.snapshot
    roster = snapshot.ordered_roster()
    window = ctx.window(snapshot.manager_model)
    system, task = route_task(
        snapshot.message, roster, round_no, limit, earlier, window, snapshot.room_description
    )
    keys = [a.key for a in roster]
    request = _manager_request(
        ctx, "route", system, task,
        max_tokens=ROUTE_MAX_TOKENS, response_format=routing_format(keys, limit),
    )  # fmt: skip
    outcome = await ctx.ask(request, round_no)
    routing = parse_routing(outcome.text, keys, limit) if outcome.status == "ok" else None
    if routing is None:
        return Routing([roster[0].key]), _fallback(request, outcome)
    return routing, None


async def evaluate(
    ctx: TurnContext, round_no: int, outputs: Sequence[Contribution]
) -> tuple[bool, ManagerFallback | None]:
    """Whether the manager wants another round, and why it is the fallback if it is."""
    snapshot = ctx.snapshot
    window = ctx.window(snapshot.manager_model)
    depth = snapshot.orchestrator.max_depth
    system, task = evaluate_task(
        snapshot.message, round_no, depth, outputs, window, snapshot.room_description
    )
    request = _manager_request(
        ctx, "evaluate", system, task,
        max_tokens=EVALUATE_MAX_TOKENS, response_format=CONTINUE_FORMAT,
    )  # fmt: skip
    outcome = await ctx.ask(request, round_no)
    decision = parse_continue(outcome.text) if outcome.status == "ok" else None
    if decision is None:
        return False, _fallback(request, outcome)
    return decision, None


def prepare_specialist(
    ctx: TurnContext,
    agent: AgentSnapshot,
    round_no: int,
    instruction: str | None,
    earlier: Sequence[Contribution],
) -> SpeakerRun:
    """A specialist's call: its instruction and, from round 2, the earlier outputs."""
    snapshot = ctx.snapshot
    window = ctx.window(agent.model)
    task = agent_task(
        snapshot.message,
        window,
        earlier=earlier,
        instruction=instruction,
        earlier_heading="Outputs of the earlier rounds:",
    )
    system = agent_system_prompt(agent, snapshot.ordered_roster(), snapshot.room_description)
    messages = assemble(
        system, task, snapshot.history, window, own_key=agent.key, summary=ctx.summary_text
    )
    return ctx.prepare_agent(agent, round_no, messages)


def prepare_synthesis(ctx: TurnContext, outputs: Sequence[Contribution]) -> SpeakerRun:
    """The manager's synthesis over all successful outputs (its slot is reserved last)."""
    snapshot = ctx.snapshot
    window = ctx.window(snapshot.manager_model)
    system, task = synthesis_task(snapshot.message, outputs, window, snapshot.room_description)
    request = _manager_request(ctx, "synthesis", system, task, max_tokens=None)
    return ctx.prepare_synthesis(request)


def fallback_answer(outputs: Sequence[Contribution]) -> str:
    """The specialists' outputs as they wrote them: the answer when no synthesis could be
    written (one output alone, several under their names)."""
    if len(outputs) == 1:
        return outputs[0].text
    return "\n\n".join(f"**{c.agent_name}**\n\n{c.text.strip()}" for c in outputs)


def synthesis_fallback(
    ctx: TurnContext, run: SpeakerRun, outputs: Sequence[Contribution]
) -> SynthesisCompletedEvent | None:
    """After a failed (not cancelled) synthesis: the fallback answer, saying why."""
    if run.message is None or run.message.status != "failed":
        return None
    return SynthesisCompletedEvent(
        turn_id=ctx.snapshot.turn_id,
        text=fallback_answer(outputs),
        fallback=True,
        reason=run.message.error_code or ErrorCode.LLM_ERROR,
        model=run.request.model,
    )
