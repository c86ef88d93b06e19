"""Rules of ARCHITECTURE.md that a test can keep: one place commits, files stay small."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "apps" / "api" / "pantheon"
ALLOWED_COMMITTERS = {PACKAGE / "db" / "uow.py", PACKAGE / "turns" / "recorder.py"}
MAX_LINES = 400


def _python_files(*roots: Path) -> list[Path]:
    return sorted(p for root in roots for p in root.rglob("*.py"))


def test_only_the_unit_of_work_commits() -> None:
    pattern = re.compile(r"\.commit\(")
    offenders = [
        str(path.relative_to(ROOT))
        for path in _python_files(PACKAGE)
        if path not in ALLOWED_COMMITTERS and pattern.search(path.read_text())
    ]
    assert offenders == [], f".commit( outside the unit of work: {offenders}"


def test_files_stay_under_the_line_limit() -> None:
    too_long = {
        str(path.relative_to(ROOT)): n
        for path in _python_files(PACKAGE, ROOT / "tests")
        if (n := len(path.read_text().splitlines())) > MAX_LINES
    }
    assert too_long == {}, f"split these by responsibility: {too_long}"
