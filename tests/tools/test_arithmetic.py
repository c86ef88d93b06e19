"""The calculator's evaluator: the grammar it accepts and every hostile input it refuses."""

from __future__ import annotations

import pytest

from pantheon.engine.tooling import ToolError
from pantheon.tools.arithmetic import MAX_EXPRESSION_CHARS, evaluate, format_number


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("1 + 2 * 3", 7),
        ("(1 + 2) * 3", 9),
        ("7 / 2", 3.5),
        ("7 // 2", 3),
        ("-7 // 2", -4),
        ("7 % 3", 1),
        ("2 ** 10", 1024),
        ("2 ** -1", 0.5),
        ("-(3)", -3),
        ("+4", 4),
        ("--4", 4),
        ("1.5e3 + 0.5", 1500.5),
        ("  2*3  ", 6),
        ("10 ** 100", 10**100),
    ],
)
def test_evaluates_arithmetic(expression: str, expected: float) -> None:
    assert evaluate(expression) == expected


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        ("1 / 0", "division by zero"),
        ("1 // 0", "division by zero"),
        ("1 % 0", "division by zero"),
        ("0 ** -1", "division by zero"),
        ("2 ** 100000", "exponent"),
        ("10 ** 10 ** 10", "exponent"),
        ("9 ** 999", "larger than 1e100"),
        ("10 ** 101", "larger than 1e100"),
        ("1" * 102, "larger than 1e100"),
        ("1e308 * 10", "larger than 1e100"),
        ("(-8) ** 0.5", "not a real number"),
        ("", "empty"),
        ("   ", "empty"),
        ("1 +", "not an arithmetic expression"),
        ("1 + x", "unsupported syntax Name"),
        ("__import__('os').system('true')", "unsupported syntax Call"),
        ("(1).__class__", "unsupported syntax Attribute"),
        ("(lambda: 1)()", "unsupported syntax Call"),
        ("lambda: 1", "unsupported syntax Lambda"),
        ("[1, 2]", "unsupported syntax List"),
        ("1 if 1 else 2", "unsupported syntax IfExp"),
        ("1 < 2", "unsupported syntax Compare"),
        ("1 << 100", "unsupported syntax BinOp"),
        ("~1", "unsupported syntax UnaryOp"),
        ("not 1", "unsupported syntax UnaryOp"),
        ("'a' * 3", "unsupported value 'a'"),
        ("True + 1", "unsupported value True"),
        ("1j * 2", "unsupported value 1j"),
        ("x := 3", "not an arithmetic expression"),
        ("import os", "not an arithmetic expression"),
    ],
)
def test_refuses_with_a_clear_message(expression: str, message: str) -> None:
    with pytest.raises(ToolError, match=message):
        evaluate(expression)


def test_refuses_expressions_that_are_too_long() -> None:
    with pytest.raises(ToolError, match=f"longer than {MAX_EXPRESSION_CHARS}"):
        evaluate("1+" * MAX_EXPRESSION_CHARS + "1")


def test_refuses_deep_nesting() -> None:
    # Within the length limit but past the nesting bound: nested sums and unary chains.
    with pytest.raises(ToolError, match="nested deeper"):
        evaluate("(1+" * 100 + "1" + ")" * 100)
    with pytest.raises(ToolError, match="nested deeper"):
        evaluate("-" * 400 + "1")


def test_redundant_parentheses_are_not_nesting() -> None:
    assert evaluate("(" * 100 + "1" + ")" * 100) == 1


def test_formats_numbers() -> None:
    assert format_number(4.0) == "4"
    assert format_number(0.1 + 0.2) == "0.30000000000000004"
    assert format_number(10**20) == "100000000000000000000"
    assert format_number(1e20) == "1e+20"
