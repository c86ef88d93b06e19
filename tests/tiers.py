"""The suite's three tiers, given to each test at collection (tests/conftest.py), from
what it uses rather than by hand:

- ``system``: real processes (a ``pantheon serve``, replicas, a Redis, node running an
  outside suite), a browser, the local model, the pgvector server;
- ``api``: the app in this process (the ``client``/``app``/``app_with`` fixtures, a
  database, or ``create_app`` in the module);
- ``unit``: neither.

``make check`` runs the unit and api tiers on SQLite; ``make test`` runs everything.
"""

from __future__ import annotations

import inspect
import re
from types import ModuleType
from typing import Any

import pytest

TIERS = {
    "unit": "no app: pure functions, the engine, parsers (make check)",
    "api": "the app in process, on a database (make check runs it on SQLite)",
    "system": "real processes, a browser, replicas, outside suites (make test only)",
}
SYSTEM_MARKERS = ("browser", "local_model", "redis", "pgvector", "oidc")
API_FIXTURES = {"app", "client", "app_with", "started_app", "settings", "db_url", "migrated_db_url"}
API_NAMES = {"create_app", "running_app", "running_client"}
_STARTS_PROCESS = re.compile(r"create_subprocess_exec|subprocess\.(?:run|Popen|check_\w+)\(")


def configure(config: pytest.Config) -> None:
    for name, meaning in TIERS.items():
        config.addinivalue_line("markers", f"{name}: {meaning}")


_seen: dict[int, bool] = {}


def _starts_process(thing: Any) -> bool:
    """``thing``'s source (a module, class or function) starts a process."""
    if id(thing) not in _seen:
        try:
            _seen[id(thing)] = bool(_STARTS_PROCESS.search(inspect.getsource(thing)))
        except (OSError, TypeError):
            _seen[id(thing)] = False
    return _seen[id(thing)]


def _module_starts_processes(module: ModuleType) -> bool:
    """The test module starts a process itself, or imports a test helper that does."""
    if _starts_process(module):
        return True
    helpers = (
        v for v in vars(module).values()
        if (inspect.isfunction(v) or inspect.isclass(v))
        and getattr(v, "__module__", "").startswith("tests.")
        and v.__module__ != module.__name__
    )  # fmt: skip
    return any(_starts_process(helper) for helper in helpers)


def _fixture_starts_process(item: pytest.Item) -> bool:
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return False
    return any(
        _starts_process(definition.func)
        for definitions in info.name2fixturedefs.values()
        for definition in definitions
    )


def tier(item: pytest.Item) -> str:
    """The tier of ``item``: an explicit tier marker wins, else what the test uses."""
    for name in TIERS:
        if item.get_closest_marker(name):
            return name
    module = getattr(item, "module", None)
    if (
        any(item.get_closest_marker(m) for m in SYSTEM_MARKERS)
        or (module is not None and _module_starts_processes(module))
        or _fixture_starts_process(item)
    ):
        return "system"
    fixtures = set(getattr(item, "fixturenames", ()))
    if fixtures & API_FIXTURES or (module is not None and API_NAMES & set(vars(module))):
        return "api"
    return "unit"


def assign(items: list[pytest.Item]) -> None:
    for item in items:
        item.add_marker(getattr(pytest.mark, tier(item)))
