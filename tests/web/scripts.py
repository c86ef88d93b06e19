"""Scripted LLM behaviour for the browser tests: slow, concurrent specialists."""

from __future__ import annotations

from pantheon.llm.providers.scripted import ScriptedProvider

SYNTHESIS = "**Synthesis**: the team agrees.\n\n- first point\n- second point"


def answer(key: str, words: int) -> str:
    """``words`` distinct words ending in a marker the test can wait for."""
    return " ".join(f"{key}-word{i}" for i in range(1, words)) + f" {key}-END"


def script_orchestrator(
    scripted: ScriptedProvider,
    keys: tuple[str, str, str],
    *,
    words: int = 12,
    chunk_delay_s: float = 0.12,
) -> None:
    """Round 1 routes to the first two keys (concurrently), round 2 to the third.

    The manager continues after round 1; with max_depth=2 round 2 is the last, then the
    synthesis streams. Specialists stream one word per ``chunk_delay_s``.
    """
    first, second, third = keys
    scripted.script(f'{{"agents": ["{third}"]}}', purpose="route")
    scripted.script(f'{{"agents": ["{first}", "{second}"]}}', purpose="route", times=1)
    scripted.script('{"continue": false}', purpose="evaluate")
    scripted.script('{"continue": true}', purpose="evaluate", times=1)
    for key in keys:
        scripted.script(answer(key, words), agent=key, chunk_delay_s=chunk_delay_s)
    scripted.script(SYNTHESIS, purpose="synthesis", chunk_delay_s=0.03)
