"""Regular expressions from datasets, on RE2: linear time, so no pattern can stall the server.

A dataset's ``regex`` check and its JSON schemas' ``pattern`` / ``patternProperties`` are
written by users and matched against a model's answer. Python's ``re`` backtracks (``^(a+)+$``
on 27 a's and a ``!`` holds the GIL for most of a minute); RE2 cannot. So every user pattern
is compiled by RE2, when the dataset is stored (a pattern RE2 cannot compile, such as a
backreference or a lookaround, is a 422) and again when it is matched; jsonschema's keywords
that search with ``re`` are replaced by RE2 ones (ADR 0031).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from functools import lru_cache
from typing import Any

import re2
from jsonschema import FormatChecker, ValidationError
from jsonschema.exceptions import SchemaError
from jsonschema.protocols import Validator
from jsonschema.validators import extend, validator_for

_OPTIONS = re2.Options()
_OPTIONS.log_errors = False  # a refused pattern is the user's 422, not a line on stderr


class PatternError(ValueError):
    """A user's pattern that RE2 cannot compile."""


@lru_cache(maxsize=512)
def compiled(pattern: str) -> re2._Regexp[str]:
    """``pattern`` compiled by RE2, or a ``PatternError`` saying why not."""
    try:
        return re2.compile(pattern, _OPTIONS)
    except re2.error as exc:
        reason = exc.args[0].decode() if exc.args and isinstance(exc.args[0], bytes) else exc
        raise PatternError(f"/{pattern}/ is not an RE2 regular expression ({reason})") from exc


def found(pattern: str, text: str) -> bool:
    """Whether ``pattern`` matches somewhere in ``text`` (``re.search``'s meaning)."""
    return compiled(pattern).search(text) is not None


def _any_found(patterns: Mapping[str, Any], text: str) -> bool:
    return any(found(pattern, text) for pattern in patterns)


def _pattern(
    validator: Any, pattern: str, instance: Any, schema: Mapping[str, Any]
) -> Iterator[ValidationError]:
    if validator.is_type(instance, "string") and not found(pattern, instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def _pattern_properties(
    validator: Any, patterns: Mapping[str, Any], instance: Any, schema: Mapping[str, Any]
) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        for key, value in instance.items():
            if found(pattern, key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _additional_properties(
    validator: Any, allowed: Any, instance: Any, schema: Mapping[str, Any]
) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    properties, patterns = schema.get("properties", {}), schema.get("patternProperties", {})
    extras = sorted(
        (k for k in instance if k not in properties and not _any_found(patterns, k)), key=str
    )
    if validator.is_type(allowed, "object"):
        for extra in extras:
            yield from validator.descend(instance[extra], allowed, path=extra)
    elif not allowed and extras:
        listed = ", ".join(repr(extra) for extra in extras)
        if patterns:
            regexes = ", ".join(repr(p) for p in sorted(patterns))
            yield ValidationError(f"{listed} do not match any of the regexes: {regexes}")
        else:
            yield ValidationError(f"Additional properties are not allowed ({listed} unexpected)")


def _re2_format(instance: object) -> bool:
    if isinstance(instance, str):
        compiled(instance)
    return True


# jsonschema evaluates these keywords with ``re``; these evaluate them with RE2.
_KEYWORDS = {
    "pattern": _pattern,
    "patternProperties": _pattern_properties,
    "additionalProperties": _additional_properties,
}


def _nodes(node: object) -> Iterator[dict[str, Any]]:
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from _nodes(value)
    elif isinstance(node, list):
        for item in node:
            yield from _nodes(item)


def check_schema(schema: dict[str, Any]) -> None:
    """A ``SchemaError`` unless ``schema`` is a valid JSON schema whose patterns RE2 compiles."""
    cls = validator_for(schema)
    # The meta-schema marks where patterns are (format "regex"); its draft's checks, on RE2.
    formats = FormatChecker(formats=())
    formats.checkers = {**cls.FORMAT_CHECKER.checkers, "regex": (_re2_format, PatternError)}
    try:
        meta = validator_for(cls.META_SCHEMA, default=cls)(cls.META_SCHEMA, format_checker=formats)
        for error in meta.iter_errors(schema):
            raise SchemaError.create_from(error)
        nodes = list(_nodes(schema))
        for node in nodes:  # drafts 3 and 4 do not mark patternProperties' keys
            if isinstance(node.get("patternProperties"), dict):
                for pattern in node["patternProperties"]:
                    compiled(pattern)
    except SchemaError as exc:
        if isinstance(exc.cause, PatternError):
            raise SchemaError(str(exc.cause)) from exc
        raise
    except PatternError as exc:
        raise SchemaError(str(exc)) from exc
    keys = {key for node in nodes for key in node}
    if "unevaluatedProperties" in keys and "patternProperties" in keys:
        # jsonschema's unevaluatedProperties searches patternProperties with ``re``.
        raise SchemaError("unevaluatedProperties cannot be combined with patternProperties")


@lru_cache(maxsize=16)
def _on_re2(base: type[Validator]) -> type[Validator]:
    keywords = {k: f for k, f in _KEYWORDS.items() if k in base.VALIDATORS}
    on_re2: type[Validator] = extend(base, validators=keywords)  # type: ignore[no-untyped-call]
    return on_re2


def schema_validator(schema: dict[str, Any]) -> Validator:
    """A validator for ``schema`` (of its own draft) whose patterns run on RE2."""
    return _on_re2(validator_for(schema))(schema)
