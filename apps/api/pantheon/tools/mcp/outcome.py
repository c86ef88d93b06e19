"""The hand-off between a caller and the request it started in a supervisor's task group."""

from __future__ import annotations

from typing import Generic, TypeVar

import anyio

T = TypeVar("T")


class Outcome(Generic[T]):
    """Set once, by the request task (value or error) or by the waiting caller (timeout)."""

    def __init__(self) -> None:
        self._done = anyio.Event()
        self.value: T | None = None
        self.error: str | None = None

    def succeed(self, value: T) -> None:
        if not self._done.is_set():
            self.value = value
            self._done.set()

    def fail(self, error: str) -> None:
        if not self._done.is_set():
            self.error = error
            self._done.set()

    async def wait(self, timeout_s: float) -> None:
        """Wait until set; after ``timeout_s`` it is failed with a message saying so."""
        with anyio.move_on_after(timeout_s):
            await self._done.wait()
        self.fail(f"no answer within {timeout_s:g}s")


def describe_error(exc: BaseException) -> str:
    """A one-line reason, looking inside exception groups for the first real error."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
