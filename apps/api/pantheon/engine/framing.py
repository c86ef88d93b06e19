"""Keep the prompt's framing markers out of what a model writes.

Prompts quote other agents' outputs (and conversations) between markers such as
``<<<BEGIN AGENT OUTPUTS>>>`` (``prompting``, ``summary_prompt``). Small models copy them
into their answers, often altered (``<<<END AGENT OUTPUTS>>``, ``<<<CONTINUING ADDITIONAL
AGENT OUTPUTS>>>``; issue 33 saw it in 4 of 9 syntheses on the bundled model). A marker is
three or more ``<``, upper-case words, one or more ``>``; ``FramingFilter`` removes them
from a streamed answer, delta by delta.

Promises: the filtered deltas join to ``strip_framing`` of the whole answer, however the
answer was split; a marker split over deltas never leaks, because a delta's end that
could still become a marker (``<<``, ``<<<END AGE``, even a whole marker that more ``>``
could follow) is held back until the next delta decides it, or the end of the answer;
text that is no marker passes unchanged and, past ``_LONGEST`` characters, is never
held. A marker alone on its line takes its line with it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pantheon.llm.types import ChatMessage

_LONGEST = 80  # the longest marker looked for, its trailing blanks included
_WORDS = r"[A-Z][A-Z0-9 _-]{0,60}"
_MARKER = re.compile(rf"<<<+[ \t]*{_WORDS}>+[ \t]*")
# A tail that is, or may still grow into, a marker.
_OPEN = re.compile(rf"<{{1,2}}|<<<+[ \t]*(?:{_WORDS}(?:>+[ \t]*\r?)?)?")
_FRAMED = re.compile(rf"<<<+[ \t]*{_WORDS}>>>")


def frames_data(messages: Sequence[ChatMessage]) -> bool:
    """Whether a prompt holds framing markers, so its answer may copy them."""
    return any(_FRAMED.search(m.content) for m in messages)


def strip_framing(text: str) -> str:
    """``text`` without markers; a marker alone on its line goes with its line break."""
    return _Stripper().feed(text, final=True)


class FramingFilter:
    """Removes markers from an answer streamed in deltas: ``feed`` each delta, then
    ``flush`` once it ended; each returns the text that may be shown now."""

    def __init__(self) -> None:
        self._held = ""
        self._stripper = _Stripper()

    def feed(self, delta: str) -> str:
        text = self._held + delta
        if "<" not in text:  # the common case: nothing to look at
            self._held = ""
            return self._stripper.feed(text, final=False)
        cut = _open_tail(text)
        self._held = text[cut:]
        return self._stripper.feed(text[:cut], final=False)

    def flush(self) -> str:
        text, self._held = self._held, ""
        return self._stripper.feed(text, final=True)


def _open_tail(text: str) -> int:
    """Where the tail that may still become a marker starts (``len(text)`` if none)."""
    start = text.rfind("<", max(0, len(text) - _LONGEST))
    if start < 0:
        return len(text)
    while start > 0 and text[start - 1] == "<" and len(text) - start < _LONGEST:
        start -= 1
    return start if _OPEN.fullmatch(text, start) else len(text)


class _Stripper:
    """Removes whole markers from consecutive pieces of one text. It remembers whether
    the text so far ends a line, so a marker alone on its line can take the line break
    that follows it, even when that break comes in the next piece."""

    def __init__(self) -> None:
        self._line_start = True
        self._eat_newline = False

    def feed(self, text: str, *, final: bool) -> str:
        if self._eat_newline and text:
            self._eat_newline = False
            text = text.removeprefix("\r\n").removeprefix("\n")
        if "<<<" not in text:
            return self._emit(text)
        out: list[str] = []
        pos = 0
        for match in _MARKER.finditer(text):
            before = text[pos : match.start()]
            out.append(before)
            alone = before.endswith("\n") if before else self._line_start_after(out)
            pos = match.end()
            if alone:
                rest = text[pos:]
                if rest.startswith(("\n", "\r\n")):
                    pos += 1 if rest.startswith("\n") else 2
                elif not rest and not final:
                    self._eat_newline = True
        out.append(text[pos:])
        return self._emit("".join(out))

    def _line_start_after(self, out: list[str]) -> bool:
        emitted = "".join(out)
        return emitted.endswith("\n") if emitted else self._line_start

    def _emit(self, text: str) -> str:
        if text:
            self._line_start = text.endswith("\n")
        return text
