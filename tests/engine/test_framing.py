"""Framing markers a model copies from its prompt are removed from its answer, whole or
streamed, however the deltas split them (issue 33, item 26)."""

from __future__ import annotations

import itertools

import pytest

from pantheon.engine.events import DeltaEvent, SynthesisCompletedEvent
from pantheon.engine.framing import FramingFilter, frames_data, strip_framing
from pantheon.engine.prompting import BEGIN_DATA, END_DATA
from pantheon.llm.gateway import LLMGateway
from pantheon.llm.providers.scripted import ScriptedProvider
from pantheon.llm.types import ChatMessage
from tests.engine.conftest import ALICE, collect, snapshot

# What the bundled model wrote in issue 33, and variations of it.
ECHOES = [
    "<<<CONTINUING ADDITIONAL AGENT OUTPUTS>>>\nAll in all: fine.\n<<<END AGENT OUTPUTS>>",
    f"{BEGIN_DATA}\n--- Alice (@alice) ---\nThe sum is 4.\n{END_DATA}\n\nSo: 4.",
    "The answer is 4. <<<END AGENT OUTPUTS>>> Anything else?",
    "<<< END AGENT OUTPUTS >>>\r\nDone.",
    "<<<<END AGENT OUTPUTS>>>>",
]
# Text that looks a little like a marker but is none: it must pass unchanged.
NOT_MARKERS = [
    "a << b >> c",
    "cat <<< EOF",
    "x <<<lowercase>>> y",
    "html <b>bold</b> and <<",
    "<<<NO END",
    "<",
    "",
]


def _streamed(pieces: list[str]) -> tuple[str, list[str]]:
    framing = FramingFilter()
    shown = [framing.feed(p) for p in pieces] + [framing.flush()]
    return "".join(shown), shown


def _splits(text: str, parts: int) -> list[list[str]]:
    cuts = itertools.combinations(range(1, len(text)), parts - 1)
    return [[text[i:j] for i, j in zip((0, *c), (*c, len(text)), strict=True)] for c in cuts]


def test_whole_answers_lose_their_markers() -> None:
    assert strip_framing(ECHOES[0]) == "All in all: fine.\n"
    assert strip_framing(ECHOES[1]) == "--- Alice (@alice) ---\nThe sum is 4.\n\nSo: 4."
    assert strip_framing(ECHOES[2]) == "The answer is 4. Anything else?"
    assert strip_framing(ECHOES[3]) == "Done."
    assert strip_framing(ECHOES[4]) == ""


@pytest.mark.parametrize("text", NOT_MARKERS)
def test_text_that_is_no_marker_passes_unchanged(text: str) -> None:
    assert strip_framing(text) == text
    for pieces in [*_splits(text, 2), [text]]:
        assert _streamed(pieces)[0] == text


@pytest.mark.parametrize("text", ECHOES)
def test_every_split_over_two_or_three_deltas_gives_the_whole_answer(text: str) -> None:
    expected = strip_framing(text)
    for pieces in _splits(text, 2) + _splits(text, 3):
        joined, shown = _streamed(pieces)
        assert joined == expected, pieces
        assert not any("<<" in s or ">>" in s for s in shown), (pieces, shown)


def test_a_marker_one_character_per_delta_never_leaks() -> None:
    joined, shown = _streamed(list(ECHOES[0]))
    assert joined == "All in all: fine.\n"
    assert not any(s in "<>" for s in shown if s)


def test_a_long_upper_case_tail_is_not_held_forever() -> None:
    framing = FramingFilter()
    shouted = "<<<" + "A" * 200
    assert framing.feed(shouted) + framing.feed(" and more") == shouted + " and more"


def test_only_prompts_with_markers_are_filtered() -> None:
    quoted = ChatMessage("user", f"Specialist outputs:\n{BEGIN_DATA}\nx\n{END_DATA}")
    assert frames_data([ChatMessage("system", "be brief"), quoted])
    assert not frames_data([ChatMessage("user", "what does cat <<< EOF do?")])


async def test_an_orchestrator_synthesis_that_echoes_the_delimiters_shows_none(
    gateway: LLMGateway, provider: ScriptedProvider
) -> None:
    # One word per delta: the markers arrive in pieces ("<<<END ", "AGENT ", "OUTPUTS>>").
    provider.script('{"agents": ["alice"], "instructions": {}}', purpose="route")
    provider.script("Four.", agent="alice")
    provider.script(ECHOES[0], purpose="synthesis")
    events, record = await collect(snapshot("orchestrator", "2+2?"), gateway)
    deltas = [e.text for e in events if isinstance(e, DeltaEvent) and e.agent_key == "manager"]
    assert "".join(deltas) == "All in all: fine.\n"
    assert not any("<" in d or ">" in d for d in deltas)
    assert [e.text for e in events if isinstance(e, SynthesisCompletedEvent)] == [
        "All in all: fine.\n"
    ]
    assert record.messages[-1].content == "All in all: fine.\n"
    assert BEGIN_DATA in provider.calls(purpose="synthesis")[0].request.messages[-1].content


async def test_an_agent_whose_prompt_quotes_nothing_keeps_its_text(
    gateway: LLMGateway, provider: ScriptedProvider
) -> None:
    provider.script("literally <<<END AGENT OUTPUTS>>>", agent="alice")
    _, record = await collect(snapshot("standalone", "quote it", roster=[ALICE]), gateway)
    assert record.messages[0].content == "literally <<<END AGENT OUTPUTS>>>"
