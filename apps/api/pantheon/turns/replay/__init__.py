"""Replaying a recorded turn (docs/replay.md): the plan, the changes a caller asks for,
and the tool runner that answers from the record."""
