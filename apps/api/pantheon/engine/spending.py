"""The engine's view of spend limits: a guard asked before every LLM call.

Promises:
- ``call_cost`` bounds what a call can cost: its prompt (estimated) at the alias's input
  price plus the most it may answer at the output price, that is its ``max_tokens`` or,
  without one, what is left of the alias's context window (at least an eighth of it,
  because the prompt size is an estimate). Its ``floor_usd`` is the least worth starting
  the call for: the prompt plus ``MIN_REPLY_TOKENS`` of answer.
- A ``SpendGuard`` grants a ``SpendHold`` (atomically, against every limit that applies)
  of the call's maximum cost, or of what the limits have left when that is less but
  still covers the floor; else it refuses (``None``). A call granted less than its
  maximum runs with ``max_tokens`` cut to what the hold affords, so no call can cost
  more than its hold (beyond the prompt estimate's error). Every hold granted is settled
  exactly once with what the call really cost (0 when it failed before any work),
  however the call ended. Where the money is kept is the guard's business
  (``pantheon.budgets``); the engine never sees a database.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from pantheon.engine.snapshot import TurnSnapshot
from pantheon.llm.errors import UnknownModel
from pantheon.llm.registry import ModelRegistry
from pantheon.llm.tokens import estimate_messages, estimate_tokens
from pantheon.llm.types import LLMRequest, ModelAlias

MIN_REPLY_TOKENS = 256  # a call that cannot afford this much answer is not started


class SpendHold(Protocol):
    """Money set aside for one call until it is settled."""

    @property
    def granted_usd(self) -> float:
        """What the hold sets aside (the call's maximum, or less when a limit is near)."""

    async def settle(self, cost_usd: float) -> None:
        """Replace the reservation by the call's actual cost (0 releases it)."""


class SpendGuard(Protocol):
    """Grants or refuses the money for one LLM call of a turn."""

    async def reserve(
        self, max_cost_usd: float, min_cost_usd: float | None = None
    ) -> SpendHold | None:
        """A hold of ``max_cost_usd``, or of what the limits have left if that is at least
        ``min_cost_usd`` (default: all or nothing); ``None`` when not even that fits."""


@dataclass(frozen=True, slots=True)
class FreeHold:
    """A hold that keeps no money anywhere (no limit, or a call that costs nothing)."""

    granted_usd: float

    async def settle(self, cost_usd: float) -> None:
        return None


class NoSpendLimit:
    """The guard of a turn with no budget: every call is granted, nothing is stored."""

    async def reserve(
        self, max_cost_usd: float, min_cost_usd: float | None = None
    ) -> SpendHold | None:
        return FreeHold(max_cost_usd)


@dataclass(frozen=True, slots=True)
class CallCost:
    """A call's price bounds: its prompt's cost and how much answer it may buy."""

    prompt_usd: float
    reply_tokens: int  # the most the call may answer
    output_price_per_mtok: float

    @property
    def max_usd(self) -> float:
        return self.prompt_usd + self.reply_tokens * self.output_price_per_mtok / 1_000_000

    @property
    def floor_usd(self) -> float:
        """The least a hold must cover for the call to start."""
        reply = min(self.reply_tokens, MIN_REPLY_TOKENS)
        return self.prompt_usd + reply * self.output_price_per_mtok / 1_000_000

    def affordable_reply(self, granted_usd: float) -> int | None:
        """``max_tokens`` for a hold of ``granted_usd``; ``None`` when it covers the most."""
        if self.output_price_per_mtok <= 0 or granted_usd >= self.max_usd:
            return None
        tokens = int((granted_usd - self.prompt_usd) * 1_000_000 / self.output_price_per_mtok)
        return max(1, min(self.reply_tokens, tokens))


def call_cost(request: LLMRequest, alias: ModelAlias) -> CallCost:
    """The price bounds of ``request`` on ``alias`` (see the module docstring)."""
    prompt = estimate_messages(request.messages) + sum(
        estimate_tokens(t.name + t.description + str(t.parameters)) for t in request.tools
    )
    window = alias.context_window
    reply = request.max_tokens
    if reply is None:
        reply = max(window - prompt, window // 8)
    prompt_usd = prompt * alias.input_price_per_mtok / 1_000_000
    return CallCost(prompt_usd, reply, alias.output_price_per_mtok)


def max_cost_usd(request: LLMRequest, alias: ModelAlias) -> float:
    """The most ``request`` can cost on ``alias``."""
    return call_cost(request, alias).max_usd


def spends_money(snapshot: TurnSnapshot, registry: ModelRegistry) -> bool:
    """Whether the turn may call a priced alias: its agents' models or the manager's (which
    also writes history summaries). A turn that cannot spend is never refused a budget."""
    for name in {agent.model for agent in snapshot.roster} | {snapshot.manager_model}:
        try:
            alias = registry.get(name)
        except UnknownModel:
            continue  # the call fails on its own, for free
        if alias.input_price_per_mtok > 0 or alias.output_price_per_mtok > 0:
            return True
    return False
