"""Usage tests run on the priced ``metered`` alias of the budget tests."""

from tests.budgets.conftest import settings

__all__ = ["settings"]
