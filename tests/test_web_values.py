"""The page's one list of people values (apps/web/js/people/values.js) names exactly the
server's: account roles and statuses, room member roles, room access levels, budget
periods and the OIDC sign-in error codes. The server lists them at no route, so the page
keeps a copy; this test is what keeps the copy from drifting."""

from __future__ import annotations

import re
from pathlib import Path

from pantheon.db.models import ROOM_ROLES, USER_ROLES, USER_STATUSES
from pantheon.engine.values import BUDGET_PERIODS
from pantheon.rooms.access import ACCESS_LEVELS
from pantheon.users.oidc_errors import SigninError

VALUES_JS = Path(__file__).resolve().parents[1] / "apps/web/js/people/values.js"


def _block(name: str) -> str:
    source = VALUES_JS.read_text()
    match = re.search(
        rf"(?:export )?const {name} = Object\.freeze\(([\[{{].*?[\]}}])\);", source, re.S
    )
    assert match, f"{name} not found in {VALUES_JS}"
    return match[1]


def _values(name: str) -> set[str]:
    return set(re.findall(r'value: "([^"]+)"', _block(name)))


def _keys(name: str) -> set[str]:
    return set(re.findall(r"^\s*(\w+):", _block(name), re.M))


def test_account_and_member_values_are_the_servers() -> None:
    assert _values("ROLES") == set(USER_ROLES)
    assert _values("STATUSES") == set(USER_STATUSES)
    assert _values("MEMBER_ROLES") == set(ROOM_ROLES)
    assert _keys("ACCESS") == set(ACCESS_LEVELS)
    assert _values("BUDGET_PERIODS") == set(BUDGET_PERIODS)


def test_every_signin_error_code_has_its_sentence() -> None:
    assert _keys("SIGNIN_ERRORS") == {code.value for code in SigninError}
