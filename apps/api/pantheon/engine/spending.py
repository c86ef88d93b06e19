"""The engine's view of spend limits: a guard asked before every LLM call.

Promises:
- ``max_cost_usd`` is an upper bound of what a call can cost: its prompt (estimated) at
  the alias's input price plus the most it may answer at the output price, that is its
  ``max_tokens`` or, without one, what is left of the alias's context window (at least an
  eighth of it, because the prompt size is an estimate).
- A ``SpendGuard`` either grants a ``SpendHold`` for that amount (atomically, against
  every limit that applies) or refuses (``None``). Every hold granted is settled exactly
  once with what the call really cost (0 when it failed before any work), however the
  call ended. Where the money is kept is the guard's business (``pantheon.budgets``);
  the engine never sees a database.
"""

from __future__ import annotations

from typing import Protocol

from pantheon.llm.tokens import estimate_messages, estimate_tokens
from pantheon.llm.types import LLMRequest, ModelAlias

BUDGET_EXCEEDED = "budget_exceeded"  # the code of a call the guard refused


class SpendHold(Protocol):
    """Money set aside for one call until it is settled."""

    async def settle(self, cost_usd: float) -> None:
        """Replace the reservation by the call's actual cost (0 releases it)."""


class SpendGuard(Protocol):
    """Grants or refuses the money for one LLM call of a turn."""

    async def reserve(self, max_cost_usd: float) -> SpendHold | None:
        """A hold of ``max_cost_usd``, or ``None`` when a limit would be exceeded."""


class _FreeHold:
    async def settle(self, cost_usd: float) -> None:
        return None


class NoSpendLimit:
    """The guard of a turn with no budget: every call is granted, nothing is stored."""

    _hold = _FreeHold()

    async def reserve(self, max_cost_usd: float) -> SpendHold | None:
        return self._hold


def max_cost_usd(request: LLMRequest, alias: ModelAlias) -> float:
    """The most ``request`` can cost on ``alias`` (see the module docstring)."""
    prompt = estimate_messages(request.messages) + sum(
        estimate_tokens(t.name + t.description + str(t.parameters)) for t in request.tools
    )
    window = alias.context_window
    reply = request.max_tokens
    if reply is None:
        reply = max(window - prompt, window // 8)
    return (prompt * alias.input_price_per_mtok + reply * alias.output_price_per_mtok) / 1_000_000
