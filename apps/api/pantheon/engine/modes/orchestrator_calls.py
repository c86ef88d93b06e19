"""The orchestrator manager's three calls: route, evaluate, synthesis.

Promises: every call goes through ``TurnContext`` and so is recorded in ``llm_calls``
(purposes ``route``, ``evaluate``, ``synthesis``, ``agent_key="manager"``); the manager
never gets tools. Route and evaluate ask for JSON with a ``response_format`` schema, but
the tolerant parsers still decide: routing that fails or is unusable falls back to the
first roster agent (``fallback=True``); an evaluation that fails or is unparsable means
"stop" (``fallback=True``).
"""

from __future__ import annotations

from collections.abc import Sequence

from pantheon.engine.context import SpeakerRun, TurnContext
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
from pantheon.engine.speakers import MANAGER_KEY
from pantheon.llm.types import LLMRequest, Purpose, ResponseFormat

ROUTE_MAX_TOKENS = 512
EVALUATE_MAX_TOKENS = 128


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
    window = ctx.context_window(snapshot.manager_model)
    history = snapshot.history if purpose != "evaluate" else ()
    messages = assemble(system, task, history, window)
    temperature = 0.0 if max_tokens is not None else None
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
) -> tuple[Routing, bool]:
    """The round's routing and whether it is the fallback (first roster agent)."""
    snapshot = ctx.snapshot
    roster = snapshot.ordered_roster()
    window = ctx.context_window(snapshot.manager_model)
    system, task = route_task(
        snapshot.message, roster, round_no, limit, earlier, window, snapshot.room_description
    )
    keys = [a.key for a in roster]
    request = _manager_request(
        ctx, "route", system, task,
        max_tokens=ROUTE_MAX_TOKENS, response_format=routing_format(keys, limit),
    )  # fmt: skip
    text = await ctx.ask(request, round_no)
    routing = None if text is None else parse_routing(text, keys, limit)
    if routing is None:
        return Routing([roster[0].key]), True
    return routing, False


async def evaluate(
    ctx: TurnContext, round_no: int, outputs: Sequence[Contribution]
) -> tuple[bool, bool]:
    """(continue, fallback): whether the manager wants another round."""
    snapshot = ctx.snapshot
    window = ctx.context_window(snapshot.manager_model)
    depth = snapshot.orchestrator.max_depth
    system, task = evaluate_task(
        snapshot.message, round_no, depth, outputs, window, snapshot.room_description
    )
    request = _manager_request(
        ctx, "evaluate", system, task,
        max_tokens=EVALUATE_MAX_TOKENS, response_format=CONTINUE_FORMAT,
    )  # fmt: skip
    text = await ctx.ask(request, round_no)
    decision = None if text is None else parse_continue(text)
    if decision is None:
        return False, True
    return decision, False


def prepare_specialist(
    ctx: TurnContext,
    agent: AgentSnapshot,
    round_no: int,
    instruction: str | None,
    earlier: Sequence[Contribution],
) -> SpeakerRun:
    """A specialist's call: its instruction and, from round 2, the earlier outputs."""
    snapshot = ctx.snapshot
    window = ctx.context_window(agent.model)
    task = agent_task(
        snapshot.message,
        window,
        earlier=earlier,
        instruction=instruction,
        earlier_heading="Outputs of the earlier rounds:",
    )
    system = agent_system_prompt(agent, snapshot.ordered_roster(), snapshot.room_description)
    messages = assemble(system, task, snapshot.history, window, own_key=agent.key)
    return ctx.prepare_agent(agent, round_no, messages)


def prepare_synthesis(ctx: TurnContext, outputs: Sequence[Contribution]) -> SpeakerRun:
    """The manager's synthesis over all successful outputs (its slot is reserved last)."""
    snapshot = ctx.snapshot
    window = ctx.context_window(snapshot.manager_model)
    system, task = synthesis_task(snapshot.message, outputs, window, snapshot.room_description)
    request = _manager_request(ctx, "synthesis", system, task, max_tokens=None)
    return ctx.prepare_synthesis(request)
