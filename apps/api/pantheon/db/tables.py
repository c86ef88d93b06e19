"""The whole schema: importing this module registers every model module's tables on
``Base.metadata``, so Alembic (``alembic/env.py``) and the migration tests read one list.
A new model module is added here, and only here."""

from __future__ import annotations

from pantheon.db import (  # noqa: F401  (imported for their tables)
    eval_models,
    invite_models,
    mcp_connection_models,
    models,
    oidc_models,
    share_models,
    sharing_models,
    tool_pin_models,
)
from pantheon.db.base import Base

METADATA = Base.metadata
