"""Session tests with two people: ``users`` (alice, bob, root and an anonymous client, in
``keys`` mode, on SQLite and PostgreSQL) comes from tests/auth."""

from __future__ import annotations

from tests.auth.conftest import keys_settings, make_clients, users  # noqa: F401  (fixtures)
