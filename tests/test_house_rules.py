"""Rules of ARCHITECTURE.md that a test can keep: one place commits, files stay small.

Which package may import which (the floors, a pure engine, ``live/`` under ``turns/``, the
HTTP edge under every protocol) is the import-linter contract in pyproject.toml, checked by
``lint-imports`` in ``make lint`` (docs/adr/0036).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "apps" / "api" / "pantheon"
ALLOWED_COMMITTERS = {PACKAGE / "db" / "uow.py"}  # the recorder commits through it too
ENGINE = PACKAGE / "engine"
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


# The lifespan builds the services (main.py), deps.py hands them out (issue 22 part 4).
STATE_READERS = {PACKAGE / "server" / "main.py", PACKAGE / "deps.py"}


def _reads_app_state(path: Path) -> bool:
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Attribute) and node.attr == "state":
            owner = node.value
            name = owner.id if isinstance(owner, ast.Name) else getattr(owner, "attr", "")
            if name.endswith("app"):  # app.state, request.app.state, self._app.state
                return True
    return False


def test_only_the_lifespan_and_deps_touch_app_state() -> None:
    offenders = [
        str(path.relative_to(ROOT))
        for path in _python_files(PACKAGE)
        if path not in STATE_READERS and _reads_app_state(path)
    ]
    assert offenders == [], f"take Services through a dependency (deps.py): {offenders}"
    assert all(_reads_app_state(path) for path in STATE_READERS), "update STATE_READERS"


def test_every_json_body_cleans_unstorable_text() -> None:
    """Each route's JSON body model derives from ``RequestBody`` (docs/adr/0007)."""
    import importlib
    import pkgutil

    from fastapi import params
    from fastapi.routing import APIRoute
    from pydantic import BaseModel

    import pantheon
    from pantheon.schemas import RequestBody

    bodies: dict[str, type] = {}
    for module in pkgutil.walk_packages(pantheon.__path__, "pantheon."):
        if not module.name.endswith(".routes"):
            continue
        router = getattr(importlib.import_module(module.name), "router", None)
        for route in getattr(router, "routes", []):
            if isinstance(route, APIRoute) and route.body_field is not None:
                if isinstance(route.body_field.field_info, params.Form):
                    continue  # multipart uploads: the knowledge service cleans their names
                model = route.body_field.field_info.annotation
                if isinstance(model, type) and issubclass(model, BaseModel):
                    bodies[f"{route.methods} {route.path}"] = model
    assert len(bodies) >= 6  # rooms, agents, roster, sessions, turns ...
    offenders = {r: m.__name__ for r, m in bodies.items() if not issubclass(m, RequestBody)}
    assert offenders == {}, f"derive these from pantheon.schemas.RequestBody: {offenders}"


MODE_NAME = re.compile(r'"(standalone|manual|roundtable|orchestrator|pipeline|review)"')
MODES_PACKAGE = ENGINE / "modes"
MAX_MODE_LITERALS = 10  # issue 22: read the mode's spec instead of branching on its name


def test_code_reads_mode_specs_instead_of_mode_names() -> None:
    lines = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in _python_files(PACKAGE)
        if MODES_PACKAGE not in path.parents
        for number, line in enumerate(path.read_text().splitlines(), start=1)
        if MODE_NAME.search(line)
    ]
    assert len(lines) <= MAX_MODE_LITERALS, f"mode names as literals: {lines}"


def test_the_turn_api_stays_small() -> None:
    modules = [p for p in (PACKAGE / "turns").glob("*.py") if p.name != "__init__.py"]
    assert len(modules) <= 12, (
        f"turns/ is the turn API and its use cases: {sorted(p.name for p in modules)}"
    )
