"""schemathesis CLI hooks (``SCHEMATHESIS_HOOKS=tests.auth.st_hooks``): generated bodies
also carry non-finite numbers (``tests/auth/non_finite.py``)."""

from __future__ import annotations

from typing import Any

import schemathesis
from hypothesis import strategies as st

from tests.auth.non_finite import with_non_finite


@schemathesis.hook
def flatmap_body(context: Any, body: Any) -> st.SearchStrategy[Any]:
    """Every generated body goes through ``with_non_finite``."""
    return with_non_finite(context.operation, body)
