"""The small error hierarchy every provider failure maps to.

``code`` is a short, user-safe string that ends up in events and ``llm_calls`` rows;
``retryable`` tells the gateway whether another attempt may help. ``refusal`` is set
only when the upstream refused the request as invalid: its reason (cleaned, at most a few
hundred characters), which the agent's failure shows, so a person can fix the request.
"""

from __future__ import annotations

from pantheon.error_codes import ErrorCode


class LLMError(Exception):
    code = ErrorCode.LLM_ERROR
    retryable = False
    retries = 0  # set by the gateway: failed attempts retried before this error

    def __init__(
        self, message: str, *, retry_after_s: float | None = None, refusal: str | None = None
    ) -> None:
        super().__init__(message)
        self.message = message
        self.retry_after_s = retry_after_s
        self.refusal = refusal


class RateLimited(LLMError):
    code = ErrorCode.RATE_LIMITED
    retryable = True


class Unavailable(LLMError):
    code = ErrorCode.UNAVAILABLE
    retryable = True


class UpstreamError(Unavailable):
    """The upstream answered, with a 5xx: it is there but failing (not unreachable)."""

    code = ErrorCode.UPSTREAM_ERROR


class Timeout(LLMError):
    code = ErrorCode.TIMEOUT
    retryable = True


class BadRequest(LLMError):
    code = ErrorCode.BAD_REQUEST


class UnknownModel(BadRequest):
    code = ErrorCode.UNKNOWN_MODEL


class CallTimedOut(Timeout):
    """The call used up its whole time budget (``call_timeout_s``): no retry can help."""

    retryable = False


class DeadlineExceeded(CallTimedOut):
    """The turn the call belongs to reached its deadline."""

    code = ErrorCode.DEADLINE_EXCEEDED
