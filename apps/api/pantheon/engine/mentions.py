"""@mentions for manual (tag) mode.

Promise: ``parse_mentions`` returns the roster agents mentioned as ``@key`` in the
message, matched case-insensitively, each agent once, in order of first mention; unknown
tags are ignored. A mention starts with ``@`` that does not follow a word character or
``.+-@/`` (so ``a@b.com`` and ``x.@b`` are not mentions) and ends at the end of the key,
which must be followed by the end of the text or a non-word character, not ``-word``
(``@data-team`` does not mention ``data``). Trailing punctuation is fine: ``@alice,``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pantheon.engine.errors import BrokenPrecondition
from pantheon.engine.snapshot import AgentSnapshot


class NoValidMention(BrokenPrecondition):
    """The message mentions no agent of the room; ``keys`` are the room's keys."""

    def __init__(self, keys: Sequence[str]) -> None:
        self.keys = list(keys)
        listed = ", ".join(f"@{k}" for k in self.keys) or "(the room has no agents)"
        super().__init__(f"mention at least one agent of the room: {listed}")


def parse_mentions(message: str, roster: Sequence[AgentSnapshot]) -> list[AgentSnapshot]:
    """The mentioned roster agents, in mention order, each once."""
    if not roster:
        return []
    by_key = {agent.key.lower(): agent for agent in roster}
    # Longest first so that "@data-team" prefers the key "data-team" over "data".
    alternatives = "|".join(re.escape(k) for k in sorted(by_key, key=len, reverse=True))
    pattern = re.compile(rf"(?<![\w.+\-@/])@({alternatives})(?!\w|-\w)", re.IGNORECASE)
    found: list[AgentSnapshot] = []
    for match in pattern.finditer(message):
        agent = by_key[match.group(1).lower()]
        if agent not in found:
            found.append(agent)
    return found


def require_mentions(message: str, roster: Sequence[AgentSnapshot]) -> list[AgentSnapshot]:
    """``parse_mentions`` or ``NoValidMention`` naming the room's keys when none is valid."""
    found = parse_mentions(message, roster)
    if not found:
        ordered = sorted(roster, key=lambda a: (a.position, a.key))
        raise NoValidMention([agent.key for agent in ordered])
    return found
