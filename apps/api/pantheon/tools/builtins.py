"""The built-in tools every deployment has: ``calculator`` and ``current_time``.

``search_knowledge`` is built-in too, but it needs the database, so the knowledge package
registers it at startup (see ``pantheon.tools.registry``).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import Field

from pantheon.engine.tooling import ToolError
from pantheon.tools.arithmetic import MAX_EXPRESSION_CHARS, evaluate, format_number
from pantheon.tools.registry import ToolSpec, tool


@tool
async def calculator(
    expression: Annotated[
        str,
        Field(
            description="Arithmetic with numbers, + - * / // % ** and parentheses, e.g. "
            "'(2 + 3) * 4.5'",
            max_length=MAX_EXPRESSION_CHARS,
        ),
    ],
) -> str:
    """Evaluate an arithmetic expression exactly and return its value."""
    return format_number(evaluate(expression))


@tool
async def current_time(
    timezone: Annotated[
        str,
        Field(description="IANA time zone such as 'Europe/Paris'", max_length=64),
    ] = "UTC",
) -> dict[str, str]:
    """The current date and time in a time zone (UTC unless one is given)."""
    try:
        zone = ZoneInfo(timezone)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        message = f"unknown time zone {timezone!r}; use an IANA name like 'Europe/Paris'"
        raise ToolError(message) from None
    now = datetime.now(UTC).astimezone(zone)
    return {"timezone": timezone, "iso": now.isoformat(), "weekday": now.strftime("%A")}


BUILTINS: tuple[ToolSpec, ...] = (calculator, current_time)
