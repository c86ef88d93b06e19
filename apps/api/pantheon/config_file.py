"""The operator's TOML config file (``settings.resolved_config_file``), read in one place.

Its sections belong to five readers, each taking its own from here: ``[models.*]``
(``llm/registry.py``), ``[mcp_servers.*]`` (``tools/mcp/config.py``), ``[embedders.*]``
(``knowledge/embedders/config.py``), ``[a2a_agents.*]``
(``llm/providers/a2a_remote_config.py``) and ``[oidc.*]`` (``users/oidc_config.py``).
Every error is a ``ValueError`` naming the file and the problem, raised at startup. A
parse is kept per version of the file (path, size, modification time): the readers at
startup share one parse, an edited file is read again.
"""

from __future__ import annotations

import copy
import functools
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any, TypeVar, cast

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class ConfigFile:
    """The parsed file; ``path`` is ``None`` when no file is configured (no sections)."""

    path: Path | None
    data: MappingProxyType[str, Any]

    def section(self, name: str) -> dict[str, object]:
        """The ``[name.KEY]`` entries by key (a copy; empty without the section)."""
        value = self.data.get(name, {})
        if not isinstance(value, dict):
            raise self.error(f"'{name}' must be a table of [{name}.NAME]")
        return copy.deepcopy(cast(dict[str, object], value))

    def tables(self, name: str, parse: Callable[[str, dict[str, Any]], T]) -> dict[str, T]:
        """Each ``[name.KEY]`` table parsed by ``parse(KEY, table)``; a value that is not a
        table, or a ``ValueError`` from ``parse``, becomes an error naming the file and
        the entry."""
        parsed: dict[str, T] = {}
        for key, table in self.section(name).items():
            if not isinstance(table, dict):
                raise self.error(f"{name}.{key} must be a table")
            try:
                parsed[key] = parse(key, cast(dict[str, Any], table))
            except ValueError as exc:
                raise self.error(f"{name}.{key}: {exc}") from None
        return parsed

    def error(self, problem: str) -> ValueError:
        """A ``ValueError`` naming this file and ``problem``."""
        return ValueError(f"config file {self.path}: {problem}")


NO_FILE = ConfigFile(None, MappingProxyType({}))


def read_config_file(path: Path | None) -> ConfigFile:
    """The parsed file at ``path`` (``NO_FILE`` for ``None``); ``ValueError`` naming the
    file when it cannot be read or is not valid TOML."""
    if path is None:
        return NO_FILE
    try:
        stat = path.stat()
    except OSError as exc:
        raise _unreadable(path, exc.strerror or str(exc)) from exc
    return _parse(path, stat.st_size, stat.st_mtime_ns)


@functools.lru_cache(maxsize=8)
def _parse(path: Path, _size: int, _mtime_ns: int) -> ConfigFile:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise _unreadable(path, exc.strerror or str(exc)) from exc
    except UnicodeDecodeError as exc:
        raise _unreadable(path, f"not UTF-8: {exc.reason} at byte {exc.start}") from exc
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise _unreadable(path, f"invalid TOML: {exc}") from exc
    return ConfigFile(path, MappingProxyType(data))


def _unreadable(path: Path, reason: str) -> ValueError:
    return ValueError(f"config file {path}: cannot read ({reason})")
