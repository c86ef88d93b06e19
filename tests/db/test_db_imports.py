"""House rule (ARCHITECTURE.md, issue 22): ``db/`` imports no domain package.

The database layer sits under every domain: it may read the settings, the HTTP errors its
base repository raises, the error codes, the closed value sets (``engine/values.py``, the
one source its column comments name) and text helpers, and nothing above it.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DB = ROOT / "apps" / "api" / "pantheon" / "db"
ALLOWED = (
    "pantheon.db",
    "pantheon.settings",
    "pantheon.errors",
    "pantheon.error_codes",
    "pantheon.engine.values",
    "pantheon.text",
)


def _pantheon_imports(source: str) -> set[str]:
    """Every ``pantheon.*`` module a source imports (``from pantheon import x`` as
    ``pantheon.x``); relative imports stay inside the package they are in."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module is not None and not node.level:
            if node.module == "pantheon":
                names.update(f"pantheon.{alias.name}" for alias in node.names)
            else:
                names.add(node.module)
    return {name for name in names if name == "pantheon" or name.startswith("pantheon.")}


def _upward(module: str) -> bool:
    return not any(module == a or module.startswith(a + ".") for a in ALLOWED)


def test_db_imports_no_domain_package() -> None:
    files = sorted(DB.rglob("*.py"))
    assert files, "the db package moved; update DB"
    offenders = {
        str(path.relative_to(ROOT)): sorted(filter(_upward, _pantheon_imports(path.read_text())))
        for path in files
    }
    assert {k: v for k, v in offenders.items() if v} == {}, "db/ must not import upward"


def test_the_db_import_rule_catches_what_it_should() -> None:
    source = (
        "import pantheon.turns.runner\n"
        "from pantheon.budgets.periods import BUDGET_PERIODS\n"
        "from pantheon import rooms\n"
        "from pantheon.engine.values import MODES\n"
        "from pantheon.db.base import Base\n"
        "from sqlalchemy import select\n"
    )
    assert sorted(filter(_upward, _pantheon_imports(source))) == [
        "pantheon.budgets.periods",
        "pantheon.rooms",
        "pantheon.turns.runner",
    ]
    assert not _upward("pantheon.engine.values")
    assert _upward("pantheon.engine.events")
