"""Earlier messages of the session as a prompt gives them: whole exchanges, newest first,
while they fit (``pantheon.engine.prompting`` puts them between system and task).

An orchestrator turn makes ~15 calls over one history; each exchange's messages and token
cost are made once per turn and speaker and kept for the turn's next calls (with a long
session this was ~200 µs per call, issue 28).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

from pantheon.engine.snapshot import HistoryEntry
from pantheon.llm.tokenizers import ESTIMATOR, TokenCounter
from pantheon.llm.tokens import MESSAGE_OVERHEAD_TOKENS, estimate_tokens
from pantheon.llm.types import ChatMessage

_LABEL_TOKENS = 2  # ": " and the blank line around a labelled answer
# Histories prompted lately, (history, counter, exchanges) per speaker: room for the
# speakers of a few concurrent turns; each entry keeps a history (at most
# ``turns.history_messages`` messages) alive a little longer than its turn.
_RECENT_SIZE = 32
_RECENT: OrderedDict[
    tuple[int, str | None, int], tuple[Sequence[HistoryEntry], TokenCounter, tuple[_Prompted, ...]]
] = OrderedDict()


def group_exchanges(history: Sequence[HistoryEntry]) -> list[list[HistoryEntry]]:
    """History as whole exchanges: a user message and the answers to it, oldest first."""
    groups: list[list[HistoryEntry]] = []
    for entry in history:
        if entry.role == "user" or not groups:
            groups.append([])
        groups[-1].append(entry)
    return groups


def exchange_tokens(exchange: Sequence[HistoryEntry], counter: TokenCounter) -> int:
    """What ``exchange`` takes in a prompt (texts counted once each, then cached)."""
    answers = [e for e in exchange if e.role != "user"]
    cost = sum(
        counter.count(e.content) + MESSAGE_OVERHEAD_TOKENS for e in exchange if e.role == "user"
    )
    if answers:
        labels = sum(estimate_tokens(_speaker(a)) + _LABEL_TOKENS for a in answers)
        cost += MESSAGE_OVERHEAD_TOKENS + labels + sum(counter.count(a.content) for a in answers)
    return cost


def history_messages(
    history: Sequence[HistoryEntry],
    budget_tokens: int,
    *,
    own_key: str | None = None,
    counter: TokenCounter = ESTIMATOR,
) -> list[ChatMessage]:
    """Whole exchanges (a user message and the answers to it), newest kept first."""
    kept: list[tuple[ChatMessage, ...]] = []
    used = 0
    for exchange in reversed(_prompted(history, own_key, counter)):
        if used + exchange.cost > budget_tokens:
            break
        kept.append(exchange.messages)
        used += exchange.cost
    return [message for messages in reversed(kept) for message in messages]


@dataclass(frozen=True, slots=True)
class _Prompted:
    """One exchange as a prompt gives it: its messages and what they take."""

    cost: int
    messages: tuple[ChatMessage, ...]


def _prompted(
    history: Sequence[HistoryEntry], own_key: str | None, counter: TokenCounter
) -> tuple[_Prompted, ...]:
    """``history``'s exchanges as prompted for ``own_key``, made once per turn and speaker:
    a turn's calls share one history tuple (``TurnSnapshot.history``)."""
    key = (id(history), own_key, id(counter))
    hit = _RECENT.get(key)
    # The entry holds history and counter, so their ids cannot pass to other objects.
    if hit is not None and hit[0] is history and hit[1] is counter:
        _RECENT.move_to_end(key)
        return hit[2]
    made = tuple(
        _Prompted(exchange_tokens(e, counter), tuple(_exchange_messages(e, own_key)))
        for e in group_exchanges(history)
    )
    if isinstance(history, tuple):  # a list could change under the same id
        _RECENT[key] = (history, counter, made)
        if len(_RECENT) > _RECENT_SIZE:
            _RECENT.popitem(last=False)
    return made


def _exchange_messages(exchange: Sequence[HistoryEntry], own_key: str | None) -> list[ChatMessage]:
    messages = [ChatMessage("user", e.content) for e in exchange if e.role == "user"]
    answers = [e for e in exchange if e.role != "user"]
    if answers:
        messages.append(ChatMessage("assistant", _answers_text(answers, own_key)))
    return messages


def _answers_text(answers: Sequence[HistoryEntry], own_key: str | None) -> str:
    if len(answers) == 1 and own_key is not None and answers[0].agent_key == own_key:
        return answers[0].content
    return "\n\n".join(f"{_speaker(a)}: {a.content}" for a in answers)


def _speaker(entry: HistoryEntry) -> str:
    if entry.role == "manager":
        return entry.agent_name or "Manager"
    return entry.agent_name or entry.agent_key or "Assistant"
