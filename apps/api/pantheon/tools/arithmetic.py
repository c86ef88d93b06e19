"""Safe arithmetic over Python's ``ast``: numbers and + - * / // % ** only, never ``eval``.

Every way to make the process work hard is bounded: the expression's length, its nesting,
the size of an exponent and the magnitude of every intermediate value. Anything outside
the grammar, and every arithmetic failure, is a ``ToolError`` whose message the model reads.
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable

from pantheon.engine.tooling import ToolError

MAX_EXPRESSION_CHARS = 500
MAX_DEPTH = 50
MAX_EXPONENT = 1000
MAX_MAGNITUDE = 10**100

Number = int | float

_BINARY: dict[type[ast.operator], Callable[[Number, Number], Number]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_UNARY: dict[type[ast.unaryop], Callable[[Number], Number]] = {
    ast.UAdd: operator.pos,
    ast.USub: operator.neg,
}


def evaluate(expression: str) -> Number:
    """The value of an arithmetic expression such as ``(2 + 3) * 4 ** 2 / 7``."""
    if len(expression) > MAX_EXPRESSION_CHARS:
        raise ToolError(f"expression is longer than {MAX_EXPRESSION_CHARS} characters")
    if not expression.strip():
        raise ToolError("expression is empty")
    try:
        tree = ast.parse(expression.strip(), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        raise ToolError(f"not an arithmetic expression: {expression!r}") from None
    return _eval(tree.body, 0)


def _eval(node: ast.expr, depth: int) -> Number:
    if depth > MAX_DEPTH:
        raise ToolError(f"expression is nested deeper than {MAX_DEPTH} levels")
    if isinstance(node, ast.Constant):
        return _number(node.value)
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _checked(_UNARY[type(node.op)](_eval(node.operand, depth + 1)))
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left = _eval(node.left, depth + 1)
        right = _eval(node.right, depth + 1)
        return _apply(node.op, left, right)
    raise ToolError(f"unsupported syntax {type(node).__name__}: only numbers, + - * / // % ** ()")


def _number(value: object) -> Number:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ToolError(f"unsupported value {value!r}: only integers and decimals")
    return _checked(value)


def _apply(op: ast.operator, left: Number, right: Number) -> Number:
    if isinstance(op, ast.Pow) and abs(right) > MAX_EXPONENT:
        raise ToolError(f"exponent {right} is larger than {MAX_EXPONENT}")
    if isinstance(op, ast.Div | ast.FloorDiv | ast.Mod) and right == 0:
        raise ToolError("division by zero")
    if isinstance(op, ast.Pow) and left == 0 and right < 0:
        raise ToolError("division by zero (zero to a negative power)")
    try:
        result = _BINARY[type(op)](left, right)
    except (OverflowError, ZeroDivisionError, ValueError) as exc:
        raise ToolError(f"arithmetic error: {exc}") from None
    if isinstance(result, complex):
        raise ToolError("the result is not a real number")
    return _checked(result)


def _checked(value: Number) -> Number:
    if isinstance(value, float) and not math.isfinite(value):
        raise ToolError("the result is not a finite number")
    if abs(value) > MAX_MAGNITUDE:
        raise ToolError("the result is larger than 1e100")
    return value


def format_number(value: Number) -> str:
    """Integers exactly; decimals in their shortest round-tripping form."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e16:
        return str(int(value))
    return repr(value)
