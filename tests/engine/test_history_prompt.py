"""A turn's calls share the prompted history: each exchange is counted and labelled once
per turn and speaker, and every call still gets what fits its own budget."""

from __future__ import annotations

from pantheon.engine.history_prompt import exchange_tokens, history_messages
from pantheon.engine.snapshot import HistoryEntry
from pantheon.llm.tokenizers import TokenCounter

HISTORY = (
    HistoryEntry("user", "first question"),
    HistoryEntry("assistant", "alpha's first answer", "alpha", "Alpha"),
    HistoryEntry("assistant", "beta's first answer", "beta", "Beta"),
    HistoryEntry("user", "second question"),
    HistoryEntry("assistant", "alpha's second answer", "alpha", "Alpha"),
)


class _Counting(TokenCounter):
    """A word counter that notes every text it is asked about."""

    def __init__(self) -> None:
        super().__init__("words", lambda text: len(text.split()))
        self.asked: list[str] = []

    def count(self, text: str) -> int:
        self.asked.append(text)
        return super().count(text)


def _counting() -> tuple[TokenCounter, list[str]]:
    counter = _Counting()
    return counter, counter.asked


def test_the_calls_of_a_turn_count_the_history_once_per_speaker() -> None:
    counter, counted = _counting()
    history = tuple(HISTORY)
    first = history_messages(history, 10_000, own_key="alpha", counter=counter)
    asked = len(counted)
    again = history_messages(history, 10_000, own_key="alpha", counter=counter)
    assert again == first
    assert len(counted) == asked  # nothing counted twice...
    assert [m.role for m in first] == ["user", "assistant", "user", "assistant"]
    assert first[-1].content == "alpha's second answer"  # its own answer, unlabelled
    other = history_messages(history, 10_000, own_key="beta", counter=counter)
    assert other[-1].content == "Alpha: alpha's second answer"  # ...another speaker's label


def test_each_call_keeps_what_fits_its_own_budget() -> None:
    counter, _ = _counting()
    history = tuple(HISTORY)
    whole = history_messages(history, 10_000, counter=counter)
    newest_cost = exchange_tokens(HISTORY[3:], counter)
    newest = history_messages(history, newest_cost, counter=counter)
    assert history_messages(history, newest_cost - 1, counter=counter) == []
    nothing = history_messages(history, 0, counter=counter)
    assert len(whole) == 4
    assert [m.content for m in newest] == [m.content for m in whole[2:]]
    assert nothing == []


def test_a_history_that_can_change_is_read_afresh() -> None:
    counter, _ = _counting()
    history = list(HISTORY[:3])
    before = history_messages(history, 10_000, counter=counter)
    history.extend(HISTORY[3:])
    after = history_messages(history, 10_000, counter=counter)
    assert len(before) == 2
    assert len(after) == 4
