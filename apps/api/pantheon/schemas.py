"""Schemas shared by every domain: the paginated list envelope and its query parameters."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, Generic, TypeVar

from fastapi import Depends, Query
from pydantic import BaseModel, ConfigDict, model_validator

from pantheon.text import clean_json

# Pagination bounds: past a 32-bit offset no list has rows, and larger integers overflow
# the databases' LIMIT/OFFSET parameters.
MAX_OFFSET = 2**31 - 1


class RequestBody(BaseModel):
    """Base of every JSON request body: text that cannot be stored (NUL, lone surrogates)
    is replaced before validation, the rest kept (``pantheon.text``); a non-finite number
    (``NaN``, ``Infinity``, ``1e400``) is refused, as no JSON encoder could answer it."""

    model_config = ConfigDict(allow_inf_nan=False)

    @model_validator(mode="before")
    @classmethod
    def _clean_text(cls, data: Any) -> Any:
        return clean_json(data)


class ReadSchema(BaseModel):
    model_config = ConfigDict(from_attributes=True)


T = TypeVar("T")


class Page(BaseModel, Generic[T]):
    items: list[T]
    total: int
    limit: int
    offset: int


class PageParams(BaseModel):
    limit: int
    offset: int


def _page_params(
    limit: Annotated[int, Query(ge=1, le=200, description="Page size")] = 50,
    offset: Annotated[int, Query(ge=0, le=MAX_OFFSET, description="Rows to skip")] = 0,
) -> PageParams:
    return PageParams(limit=limit, offset=offset)


PageDep = Annotated[PageParams, Depends(_page_params)]


def page_of(schema: type[T], rows: Sequence[object], total: int, params: PageParams) -> Page[T]:
    """Validate ORM rows into ``schema`` and wrap them in the list envelope."""
    validate = getattr(schema, "model_validate")  # noqa: B009 - T is a pydantic model
    items = [validate(row) for row in rows]
    return Page[T](items=items, total=total, limit=params.limit, offset=params.offset)
