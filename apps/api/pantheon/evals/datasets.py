"""Reading a dataset from JSONL text: one case per non-blank line, errors by line and field.

The CLI and ``POST /v1/evals/datasets`` (``jsonl``) share this parser, so a file is
refused the same way wherever it is sent.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from pydantic import ValidationError

from pantheon.evals.cases import Case

MAX_CASES = 500


class DatasetError(ValueError):
    """A dataset that cannot be used; the message names the line (or case) and field."""


def describe(exc: ValidationError, where: str) -> str:
    """The first errors of ``exc`` as ``where: field.path: message`` lines."""
    lines = []
    for error in exc.errors()[:5]:
        path = ".".join(str(part) for part in error["loc"]) or "(case)"
        lines.append(f"{where}: {path}: {error['msg']}")
    return "; ".join(lines)


def parse_jsonl(text: str) -> list[Case]:
    """The cases of a JSONL text; ``DatasetError`` at the first bad line."""
    cases: list[Case] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise DatasetError(f"line {number}: not JSON: {exc.msg}") from exc
        if not isinstance(data, dict):
            raise DatasetError(f"line {number}: a case is a JSON object")
        try:
            cases.append(Case.model_validate(data))
        except ValidationError as exc:
            raise DatasetError(describe(exc, f"line {number}")) from exc
        if len(cases) > MAX_CASES:
            raise DatasetError(f"line {number}: a dataset holds at most {MAX_CASES} cases")
    check_cases(cases)
    return cases


def check_cases(cases: Sequence[Case]) -> None:
    """Rules over the whole list: not empty, case ids unique."""
    if not cases:
        raise DatasetError("the dataset has no cases")
    seen: set[str] = set()
    for index, case in enumerate(cases):
        if case.id in seen:
            raise DatasetError(f"case {index} ('{case.id}'): id '{case.id}' is used twice")
        seen.add(case.id)
