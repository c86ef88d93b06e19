"""Every setting is documented: each environment variable the Settings model reads
(``PANTHEON_X`` and, nested, ``PANTHEON_X__Y``) appears in README.md or a guide in docs/
(ADRs do not count). A new
setting fails here until a doc names it.

A doc names a variable in full (``PANTHEON_LLM__READ_TIMEOUT_S``), as ``__READ_TIMEOUT_S``
on a line that names another of its section, or as ``READ_TIMEOUT_S`` in the first cell of
a table whose header row or heading names the section (``PANTHEON_LLM__...``)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from pydantic import BaseModel

from pantheon.settings import Settings

ROOT = Path(__file__).resolve().parents[1]
PREFIX = Settings.model_config.get("env_prefix", "")
NESTED = Settings.model_config.get("env_nested_delimiter") or "__"
_FULL = re.compile(r"PANTHEON_[A-Z0-9_]*[A-Z0-9](?![A-Z0-9_])")
_SECTION = re.compile(r"(PANTHEON_[A-Z0-9]+(?:_[A-Z0-9]+)*__)")
_TICKED = re.compile(r"`([^`]*)`")
_NAME = re.compile(r"^(?:__)?[A-Z][A-Z0-9_]*$")


def setting_names(model: type[BaseModel] = Settings, prefix: str = PREFIX) -> Iterator[str]:
    """The environment variable of every leaf setting, nested models walked."""
    for name, field in model.model_fields.items():
        kind = field.annotation
        if isinstance(kind, type) and issubclass(kind, BaseModel):
            yield from setting_names(kind, f"{prefix}{name.upper()}{NESTED}")
        else:
            yield f"{prefix}{name.upper()}"


def _names_in(cell: str) -> list[str]:
    ticked = [n.strip() for chunk in _TICKED.findall(cell) for n in chunk.split(",")]
    return [n for n in ticked if _NAME.match(n)]


def documented(text: str) -> set[str]:
    """The variables ``text`` (Markdown) names, in any of the three forms above."""
    found: set[str] = set()
    heading_scope: str | None = None
    table_scope: str | None = None
    in_table = False
    for line in text.splitlines():
        found.update(_FULL.findall(line))
        sections = _SECTION.findall(line)
        if line.startswith("#"):
            heading_scope = sections[0] if sections else None
        if sections:  # `__FIELD` beside a full name of its section
            found.update(sections[0] + n[2:] for n in _names_in(line) if n.startswith("__"))
        if not line.startswith("|"):
            in_table = False
        elif not in_table:  # a table's header row
            in_table = True
            table_scope = sections[0] if sections else heading_scope
            continue
        if in_table and table_scope:
            first = line.split("|")[1]
            found.update(table_scope + n.removeprefix("__") for n in _names_in(first))
    return found


def test_every_setting_is_documented_in_the_readme_or_docs() -> None:
    # ADRs record why, at a date; the reference for operators is the README and the guides.
    guides = [p for p in sorted((ROOT / "docs").rglob("*.md")) if "adr" not in p.parts]
    docs = [ROOT / "README.md", *guides]
    named = set().union(*(documented(path.read_text()) for path in docs))
    missing = [name for name in setting_names() if name not in named]
    assert missing == [], f"settings documented nowhere (README.md, docs/*.md): {missing}"


def test_the_walk_reaches_nested_settings_and_the_forms_are_read() -> None:
    names = set(setting_names())
    assert {"PANTHEON_DATABASE_URL", "PANTHEON_LLM__READ_TIMEOUT_S"} <= names
    text = (
        "| `PANTHEON_LLM__A`, `__B` | 1 |\n\n"
        "## Limits (`PANTHEON_TOOLS__*`)\n\n| setting | default |\n|---|---|\n| `C`, `D` | 2 |\n\n"
        "| setting (`PANTHEON_REDIS__...`) | default |\n|---|---|\n| `E` | 3 |\n"
    )
    assert documented(text) == {
        "PANTHEON_LLM__A", "PANTHEON_LLM__B", "PANTHEON_TOOLS__C", "PANTHEON_TOOLS__D",
        "PANTHEON_REDIS__E",
    }  # fmt: skip
