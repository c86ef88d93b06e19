"""One eval case as data: a message or a short conversation, expected facts, and checks.

Every model forbids unknown fields and validates what it can up front (a regular
expression compiles on RE2, a JSON schema is a valid schema whose patterns do too), so a bad
dataset is refused whole with the field named, before any turn runs.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from jsonschema.exceptions import SchemaError
from pydantic import ConfigDict, Field, ValidationInfo, field_validator, model_validator

from pantheon.evals.patterns import PatternError, check_schema, compiled
from pantheon.schemas import RequestBody

MAX_TEXT = 20_000
MAX_ITEMS = 20
# Validation context of a case read back from the database: its patterns were checked when it
# was stored (by the rules of that day; a pattern RE2 refuses then fails its check, saying so).
STORED = {"stored": True}


def _stored(info: ValidationInfo) -> bool:
    return bool(info.context and info.context.get("stored"))


class Strict(RequestBody):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, populate_by_name=True)


class ContainsCheck(Strict):
    type: Literal["contains"]
    value: str = Field(min_length=1, max_length=2000)
    case_sensitive: bool = False


class NotContainsCheck(Strict):
    type: Literal["not_contains"]
    value: str = Field(min_length=1, max_length=2000)
    case_sensitive: bool = False


class RegexCheck(Strict):
    type: Literal["regex"]
    pattern: str = Field(min_length=1, max_length=2000)

    @field_validator("pattern")
    @classmethod
    def _compiles(cls, pattern: str, info: ValidationInfo) -> str:
        if _stored(info):
            return pattern
        try:
            compiled(pattern)
        except PatternError as exc:
            raise ValueError(f"not a valid regular expression: {exc}") from exc
        return pattern


class JsonSchemaCheck(Strict):
    """The answer (or the first JSON object in it) must validate against ``schema``."""

    type: Literal["json_schema"]
    json_schema: dict[str, Any] = Field(alias="schema")

    @field_validator("json_schema")
    @classmethod
    def _valid_schema(cls, schema: dict[str, Any], info: ValidationInfo) -> dict[str, Any]:
        if _stored(info):
            return schema
        try:
            check_schema(schema)
        except SchemaError as exc:
            raise ValueError(f"not a valid JSON schema: {exc.message}") from exc
        return schema


class ToolCalledCheck(Strict):
    """Some agent called tool ``name``; with ``arguments``, with at least those values."""

    type: Literal["tool_called"]
    name: str = Field(min_length=1, max_length=200)
    arguments: dict[str, Any] | None = None


class MaxCostCheck(Strict):
    type: Literal["max_cost"]
    usd: float = Field(ge=0)


class MaxLatencyCheck(Strict):
    type: Literal["max_latency"]
    ms: int = Field(ge=1)


class JudgeCheck(Strict):
    """A model (an alias; default: the server's default model) grades the answer against
    ``rubric`` with a 0-10 score."""

    type: Literal["judge"]
    model: str | None = Field(default=None, min_length=1, max_length=100)
    rubric: str = Field(min_length=1, max_length=MAX_TEXT)
    min_score: float = Field(default=7.0, ge=0, le=10)


Check = Annotated[
    ContainsCheck
    | NotContainsCheck
    | RegexCheck
    | JsonSchemaCheck
    | ToolCalledCheck
    | MaxCostCheck
    | MaxLatencyCheck
    | JudgeCheck,
    Field(discriminator="type"),
]


class ConversationMessage(Strict):
    role: Literal["user", "assistant"]
    content: str = Field(min_length=1, max_length=MAX_TEXT)


class Case(Strict):
    """``message`` or ``conversation`` (ending with the user's message); ``facts`` must
    each appear in the answer (case-insensitive) and are given to any judge."""

    id: str = Field(min_length=1, max_length=200)
    message: str | None = Field(default=None, min_length=1, max_length=MAX_TEXT)
    conversation: list[ConversationMessage] | None = Field(
        default=None, min_length=1, max_length=MAX_ITEMS
    )
    facts: list[Annotated[str, Field(min_length=1, max_length=2000)]] = Field(
        default_factory=list, max_length=MAX_ITEMS
    )
    checks: list[Check] = Field(default_factory=list, max_length=MAX_ITEMS)

    @model_validator(mode="after")
    def _one_question(self) -> Case:
        if (self.message is None) == (self.conversation is None):
            raise ValueError("give exactly one of 'message' and 'conversation'")
        if self.conversation is not None and self.conversation[-1].role != "user":
            raise ValueError("a conversation must end with a 'user' message")
        if not self.facts and not self.checks:
            raise ValueError("a case needs at least one fact or check")
        return self

    @property
    def question(self) -> str:
        """The message the turn is run with (a conversation's last)."""
        if self.conversation is not None:
            return self.conversation[-1].content
        assert self.message is not None
        return self.message

    def judges(self) -> list[JudgeCheck]:
        return [check for check in self.checks if isinstance(check, JudgeCheck)]
