"""Log lines that name their turn, and never carry a secret (docs/observability.md).

``PANTHEON_LOG_FORMAT=json`` writes one JSON object per line: ``ts``, ``level``,
``logger``, ``message``, ``turn_id``, ``session_id``, ``trace_id`` (``null`` where there
is none) and ``exc`` for a traceback. The turn runner sets the turn's ids in context
variables (``turn_context``), so every line written on the turn's behalf carries them.
Both formats pass through ``redact``: Pantheon API keys, bearer tokens, URL passwords and
the values of secret-named environment variables (``*KEY*``, ``*TOKEN*``, ``*SECRET*``,
``*PASSWORD*``: the model aliases' ``api_key_env``) are masked.
"""

from __future__ import annotations

import contextvars
import json
import logging
import os
import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Literal

LogFormat = Literal["text", "json"]
TEXT_FORMAT = "%(levelname)s %(name)s: %(message)s"
REDACTED = "[redacted]"

turn_id_var: contextvars.ContextVar[str | None] = contextvars.ContextVar("turn_id", default=None)
session_id_var: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "session_id", default=None
)
# Set by tracing when a trace is active; nothing sets it without tracing.
trace_id_var: contextvars.ContextVar[str | None] = contextvars.ContextVar("trace_id", default=None)

_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD", re.IGNORECASE)
_PATTERNS = (
    (re.compile(r"(pk_[0-9a-f]{8})_[A-Za-z0-9_\-]+"), rf"\1_{REDACTED}"),
    (re.compile(r"(?i)(bearer\s+)[^\s\"',]+"), rf"\1{REDACTED}"),
    (re.compile(r"(://[^/\s:@]+:)[^/\s@]+@"), rf"\1{REDACTED}@"),
)
MIN_SECRET_CHARS = 8  # shorter values (flags, ports) would mask ordinary words


def secret_values(environ: Mapping[str, str]) -> list[str]:
    """The values of secret-named variables, longest first (so none masks part of another)."""
    found = {v for k, v in environ.items() if _SECRET_NAME.search(k) and len(v) >= MIN_SECRET_CHARS}
    return sorted(found, key=len, reverse=True)


class Redactor:
    """Masks key material in text."""

    def __init__(self, environ: Mapping[str, str]) -> None:
        values = secret_values(environ)
        self._literal = re.compile("|".join(map(re.escape, values))) if values else None

    def __call__(self, text: str) -> str:
        if self._literal is not None:
            text = self._literal.sub(REDACTED, text)
        for pattern, replacement in _PATTERNS:
            text = pattern.sub(replacement, text)
        return text


@contextmanager
def turn_context(turn_id: str, session_id: str) -> Iterator[None]:
    """Name the turn in every log line written inside the block (this task only)."""
    turn_token = turn_id_var.set(turn_id)
    session_token = session_id_var.set(session_id)
    try:
        yield
    finally:
        session_id_var.reset(session_token)
        turn_id_var.reset(turn_token)


class JsonFormatter(logging.Formatter):
    """One JSON object per record, with the turn's ids from the context."""

    def __init__(self, redactor: Redactor) -> None:
        super().__init__()
        self._redact = redactor

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, object] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": self._redact(record.getMessage()),
            "turn_id": turn_id_var.get(),
            "session_id": session_id_var.get(),
            "trace_id": trace_id_var.get(),
        }
        if record.exc_info:
            line["exc"] = self._redact(self.formatException(record.exc_info))
        return json.dumps(line, ensure_ascii=False, default=str)


class TextFormatter(logging.Formatter):
    """The plain format, redacted too."""

    def __init__(self, redactor: Redactor) -> None:
        super().__init__(TEXT_FORMAT)
        self._redact = redactor

    def format(self, record: logging.LogRecord) -> str:
        return self._redact(super().format(record))


def configure_logging(level: str, log_format: LogFormat) -> None:
    """Send every logger to stderr in ``log_format`` at ``level`` (uvicorn's too: the server
    is built with ``log_config=None``, so its loggers reach this handler). Like
    ``logging.basicConfig``, nothing changes when the root logger already has a handler."""
    redactor = Redactor(os.environ)
    handler = logging.StreamHandler()
    formatter = JsonFormatter(redactor) if log_format == "json" else TextFormatter(redactor)
    handler.setFormatter(formatter)
    logging.basicConfig(level=level, handlers=[handler])
