"""Scripted provider answers shared by the protocol tests (facade, A2A): one orchestrator
turn whose every call is known in advance."""

from __future__ import annotations

from pantheon.llm.providers.scripted import ScriptedProvider


def script_orchestrator(scripted: ScriptedProvider) -> None:
    """Route alpha and beta ("a", "b"), stop after one round, synthesise "the final answer"."""
    scripted.script('{"agents": ["alpha", "beta"]}', purpose="route")
    scripted.script("a", agent="alpha")
    scripted.script("b", agent="beta")
    scripted.script('{"continue": false}', purpose="evaluate")
    scripted.script("the final answer", purpose="synthesis")
