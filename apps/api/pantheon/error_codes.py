"""The one list of machine error codes a turn can carry, each with its sentences.

A code is what ``agent_failed.code``, ``error.code``, ``summary.code``,
``turn_completed.error_code`` and the ``error_code`` of messages, turns and LLM calls hold.
Each member has ``sentence``, what the web page shows a person (served by
``GET /v1/error-codes``; the page keeps no copy), and, for codes an agent can fail with,
``event_sentence``, the fixed text of ``agent_failed.error`` (provider text never reaches
users). The two differ where the page says more than the recorded event; recorded events
keep their text. The HTTP error bodies that mean the same thing (a spend limit, a rate
limit ...) reuse these members; their other codes belong to ``pantheon.errors``.

No imports: the pure engine, the LLM layer and the database layer all read it.
"""

from __future__ import annotations

from enum import StrEnum


class ErrorCode(StrEnum):
    """A machine error code; its value is the string on the wire and in the database."""

    sentence: str
    event_sentence: str | None

    def __new__(cls, value: str, sentence: str, event_sentence: str | None = None) -> ErrorCode:
        member = str.__new__(cls, value)
        member._value_ = value
        member.sentence = sentence
        member.event_sentence = event_sentence
        return member

    # What a model call ended with (llm/errors.py, engine/calls.py).
    LLM_ERROR = ("llm_error", "The model call failed.")
    RATE_LIMITED = (
        "rate_limited",
        "The model provider is limiting requests. Wait a minute and try again.",
        "The model provider is rate limiting requests; try again later.",
    )
    UNAVAILABLE = (
        "unavailable",
        "The model provider could not be reached. Try again in a moment.",
        "The model provider is unavailable right now.",
    )
    UPSTREAM_ERROR = (
        "upstream_error",
        "The model provider answered with a server error. Try again in a moment.",
        "The model provider answered with a server error.",
    )
    TIMEOUT = (
        "timeout",
        "The model took too long to answer.",
        "The model did not answer in time.",
    )
    DEADLINE_EXCEEDED = (
        "deadline_exceeded",
        "The model call ran out of time for this turn.",
        "The model call ran out of time for this turn.",
    )
    BAD_REQUEST = (
        "bad_request",
        "The model provider refused the request.",
        "The model provider rejected the request.",
    )
    UNKNOWN_MODEL = (
        "unknown_model",
        "This agent's model is not set up on the server. Pick another model in the "
        "agent's settings.",
        "This agent's model alias is not configured.",
    )
    INTERNAL_ERROR = (
        "internal_error",
        "Something went wrong inside Pantheon while this agent answered.",
        "The agent failed unexpectedly.",
    )
    BUDGET_EXCEEDED = (
        "budget_exceeded",
        "The spending limit was reached, so this agent was skipped.",
        "The spending limit was reached, so this agent was skipped.",
    )
    # The calls ended with no text at all (engine/agent_loop.py).
    EMPTY_ANSWER = (
        "empty_answer",
        "The model answered with no text. Try again, or pick a stronger model for this agent.",
        "The model answered with no text.",
    )
    # The manager answered, but not with the decision asked for (routing, evaluation).
    BAD_JSON = (
        "bad_json",
        "The manager model's answer could not be read as the decision it was asked for.",
    )
    # How a whole turn ended early (``error`` events, ``turn_completed.error_code``).
    INTERRUPTED = (
        "interrupted",
        "The server stopped while this turn was running, so it did not finish.",
    )
    PERSISTENCE_FAILED = (
        "persistence_failed",
        "The answers could not be saved, so this turn was lost.",
    )
    # Why the session's older history could not be summarised (``summary`` events).
    EMPTY_SUMMARY = (
        "empty_summary",
        "The model wrote an empty summary, so older messages were left out of this turn.",
    )
    SUMMARY_FAILED = (
        "summary_failed",
        "The earlier conversation could not be summarised, so older messages were left "
        "out of this turn.",
    )


def event_sentence(code: str) -> str:
    """The fixed ``agent_failed.error`` text for ``code``; a code without one (or one this
    version does not know) gets ``llm_error``'s sentence."""
    known = ErrorCode._value2member_map_.get(code)
    text = known.event_sentence if isinstance(known, ErrorCode) else None
    return text or ErrorCode.LLM_ERROR.sentence
