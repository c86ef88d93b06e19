from __future__ import annotations

import pytest

from pantheon.engine.mentions import NoValidMention, parse_mentions, require_mentions
from tests.engine.conftest import ALICE, BOB, CAROL, ROSTER, agent


def keys(message: str) -> list[str]:
    return [a.key for a in parse_mentions(message, ROSTER)]


def test_mention_order_not_roster_order() -> None:
    assert keys("@carol then @alice please") == ["carol", "alice"]


def test_repeats_count_once_at_first_mention() -> None:
    assert keys("@bob @alice @bob @ALICE") == ["bob", "alice"]


def test_case_insensitive() -> None:
    assert parse_mentions("hey @Carol and @BOB", ROSTER) == [CAROL, BOB]


def test_unknown_tags_are_ignored() -> None:
    assert keys("@zed @alice @nobody") == ["alice"]


def test_punctuation_ends_a_mention() -> None:
    assert keys("(@alice), @bob: and @carol.") == ["alice", "bob", "carol"]


@pytest.mark.parametrize(
    "message",
    ["mail alice@bob.com", "me@alice", "@alicex", "@alice_2", "@@alice", "x.@alice", "@ alice"],
)
def test_not_mentions(message: str) -> None:
    assert keys(message) == []


def test_hyphenated_keys_prefer_the_longest() -> None:
    data, data_team = agent("data", 0), agent("data-team", 1)
    assert parse_mentions("@data-team and @data", [data, data_team]) == [data_team, data]
    assert parse_mentions("@data-teams", [data]) == []


def test_require_mentions_names_the_room_keys_in_position_order() -> None:
    with pytest.raises(NoValidMention) as info:
        require_mentions("hello @zed, mail a@alice.com", [BOB, ALICE])
    assert info.value.keys == ["alice", "bob"]
    assert "@alice" in str(info.value)


def test_require_mentions_returns_the_agents() -> None:
    assert require_mentions("@bob", ROSTER) == [BOB]
