"""House rules for error codes (issue 22): one ``ErrorCode`` enum, each code with its
sentence, served by ``GET /v1/error-codes``; no code as a string literal elsewhere in the
package, and no copy of the sentences in the web page."""

from __future__ import annotations

import re
from pathlib import Path

import httpx

from pantheon.engine.speakers import user_safe_message
from pantheon.error_codes import ErrorCode, event_sentence
from pantheon.server.web import WEB_DIR

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "apps" / "api" / "pantheon"
ENUM_MODULE = PACKAGE / "error_codes.py"
# ``code = "x"``, ``code="x"``, ``error_code == "x"``, ``code: str = "x"``, the tuples of
# ``status, error_code = "error", "x"``, ``code or "x"`` and ``.get("code", "x")``.
CODE_LITERAL = re.compile(
    r'\b(?:code|error_code)\b(?:\s*:\s*[\w |]+)?\s*(?:==|!=|=)\s*(?:"[^"]*",\s*)?"(\w+)"'
    r'|\b(?:code|error_code)\b[^"\n]*\bor\s+"(\w+)"'
    r'|\.get\("(?:error_)?code",\s*"(\w+)"'
)


def _code_literals(line: str) -> list[str]:
    values = {code.value for code in ErrorCode}
    found = (value for groups in CODE_LITERAL.findall(line) for value in groups if value)
    return [value for value in found if value in values]


def test_every_code_has_a_sentence_for_a_person() -> None:
    assert len(ErrorCode) >= 10
    for code in ErrorCode:
        assert re.fullmatch(r"[a-z]+(?:_[a-z]+)*", code.value), code
        for sentence in (code.sentence, code.event_sentence or code.sentence):
            assert sentence.strip(), code
            assert sentence.endswith("."), code


def test_agent_failures_keep_their_recorded_text() -> None:
    """``agent_failed.error`` is recorded: its text per code must not drift."""
    assert user_safe_message(ErrorCode.RATE_LIMITED) == (
        "The model provider is rate limiting requests; try again later."
    )
    assert user_safe_message("timeout") == "The model did not answer in time."
    assert user_safe_message("bad_request", "no such tool") == (
        "The model provider refused the request as invalid: no such tool"
    )
    assert event_sentence("interrupted") == "The model call failed."  # no agent sentence
    assert event_sentence("from_a_newer_version") == "The model call failed."


async def test_the_error_codes_route_serves_every_code(client: httpx.AsyncClient) -> None:
    response = await client.get("/v1/error-codes")
    assert response.status_code == 200
    body = response.json()
    assert body["total"] == len(ErrorCode) == len(body["items"])
    assert (body["limit"], body["offset"]) == (len(ErrorCode), 0)
    served = {item["code"]: item["sentence"] for item in body["items"]}
    assert served == {code.value: code.sentence for code in ErrorCode}
    assert served["empty_answer"].startswith("The model answered with no text.")


def test_no_error_code_literal_outside_the_enum() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{number}: {value}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if path != ENUM_MODULE
        for number, line in enumerate(path.read_text().splitlines(), start=1)
        for value in _code_literals(line)
    ]
    assert found == [], f"use pantheon.error_codes.ErrorCode: {found}"


def test_the_code_literal_rule_catches_what_it_should() -> None:
    lines = (
        '    code = "rate_limited"',
        'ErrorEvent(turn_id=t, code="persistence_failed", message=m)',
        'if call.error_code == "deadline_exceeded":',
        '    code: str = "budget_exceeded"',
        'outcome.status, outcome.error_code = "error", "internal_error"',
        'code = outcome.error_code or "llm_error"',
        'return (calls[-1].error_code if calls else None) or "summary_failed"',
        'str(event.get("code", "internal_error"))',
    )
    assert [_code_literals(line) for line in lines] == [
        ["rate_limited"],
        ["persistence_failed"],
        ["deadline_exceeded"],
        ["budget_exceeded"],
        ["internal_error"],
        ["llm_error"],
        ["summary_failed"],
        ["internal_error"],
    ]
    assert _code_literals('code = "not_found"') == []  # an HTTP code, not a turn's
    assert _code_literals("code = ErrorCode.TIMEOUT") == []


def test_the_page_keeps_no_copy_of_the_sentences() -> None:
    sentences = {code.sentence for code in ErrorCode} | {
        code.event_sentence for code in ErrorCode if code.event_sentence
    }
    copies = [
        f"{path.relative_to(WEB_DIR)}: {sentence}"
        for path in sorted((WEB_DIR / "js").rglob("*.js"))
        for sentence in sentences
        if sentence in path.read_text()
    ]
    assert copies == [], "the page reads them from GET /v1/error-codes"
    assert 'request("GET", "/v1/error-codes")' in (WEB_DIR / "js" / "core" / "api.js").read_text()
    assert "setErrorCodes(" in (WEB_DIR / "js" / "app.js").read_text()
