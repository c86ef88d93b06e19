"""Scripted provider answers shared by the protocol tests (facade, A2A): one orchestrator
turn whose every call is known in advance."""

from __future__ import annotations

from pantheon.llm.errors import Unavailable
from pantheon.llm.providers.scripted import ScriptedProvider


def script_orchestrator(scripted: ScriptedProvider) -> None:
    """Route alpha and beta ("a", "b"), stop after one round, synthesise "the final answer"."""
    scripted.script('{"agents": ["alpha", "beta"]}', purpose="route")
    scripted.script("a", agent="alpha")
    scripted.script("b", agent="beta")
    scripted.script('{"continue": false}', purpose="evaluate")
    scripted.script("the final answer", purpose="synthesis")


FALLBACK_ANSWER = "alpha's whole answer"


def script_unreachable_manager(scripted: ScriptedProvider) -> None:
    """The manager's model cannot be reached (route, evaluate and synthesis fail), so
    alpha, the first roster agent, runs alone and answers in full: the turn's answer is
    alpha's (``FALLBACK_ANSWER``), the synthesis' fallback."""
    scripted.script(error=Unavailable("cannot connect"), agent="manager")
    scripted.script(FALLBACK_ANSWER, agent="alpha")
