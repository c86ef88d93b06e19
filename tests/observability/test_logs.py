"""Structured logs: each JSON line names its turn, and no line carries key material."""

from __future__ import annotations

import json
import logging
import sys

from pantheon.observability.logs import (
    REDACTED,
    JsonFormatter,
    Redactor,
    TextFormatter,
    turn_context,
)

UPSTREAM_KEY = "sk-upstream-0123456789abcdef"
PANTHEON_KEY = "pk_1a2b3c4d_" + "S" * 43


def _record(message: str, *args: object) -> logging.LogRecord:
    return logging.LogRecord("pantheon.test", logging.WARNING, __file__, 1, message, args, None)


def test_a_json_line_names_the_turn_and_session_inside_the_turn_only() -> None:
    formatter = JsonFormatter(Redactor({}))
    with turn_context("turn-1", "session-1"):
        inside = json.loads(formatter.format(_record("calling %s", "alpha")))
    outside = json.loads(formatter.format(_record("idle")))
    assert inside["message"] == "calling alpha"
    assert (inside["turn_id"], inside["session_id"]) == ("turn-1", "session-1")
    assert inside["level"] == "WARNING"
    assert inside["logger"] == "pantheon.test"
    assert (outside["turn_id"], outside["session_id"], outside["trace_id"]) == (None, None, None)


def test_key_material_is_masked_in_both_formats_and_in_tracebacks() -> None:
    redactor = Redactor({"OPENAI_API_KEY": UPSTREAM_KEY, "PANTHEON_LOG_LEVEL": "DEBUG"})
    text = (
        f"upstream key {UPSTREAM_KEY}, header Authorization: Bearer {PANTHEON_KEY}, "
        f"key {PANTHEON_KEY}, db postgresql://app:hunter2secret@db/x"
    )
    try:
        raise RuntimeError(text)
    except RuntimeError:
        record = _record("%s", text)
        record.exc_info = sys.exc_info()
    for formatter in (JsonFormatter(redactor), TextFormatter(redactor)):
        line = formatter.format(record)
        for secret in (UPSTREAM_KEY, PANTHEON_KEY, "S" * 43, "hunter2secret"):
            assert secret not in line
        assert REDACTED in line
        assert "pk_1a2b3c4d" in line  # the prefix is no secret: listings show it
    assert "DEBUG" in redactor("level DEBUG")  # short, non-secret values stay


def test_short_or_unnamed_values_are_not_taken_for_secrets() -> None:
    redactor = Redactor({"API_KEY": "short", "HOME": "/home/someone-long-path"})
    assert redactor("short /home/someone-long-path") == "short /home/someone-long-path"
