"""Tool schemas derived from Python signatures and docstrings, and validated tool calls."""

from __future__ import annotations

from typing import Literal

import pytest

from agentgauge.agents import FunctionTool, parse_docstring


def get_weather(city: str, unit: Literal["c", "f"] = "c", days: int = 1) -> dict[str, object]:
    """Get the weather forecast for a city.

    Args:
        city: Name of the city,
            e.g. Paris.
        unit (str): Temperature unit.
        days: How many days.

    Returns:
        The forecast.
    """
    return {"city": city, "unit": unit, "days": days}


async def add(a: float, b: float) -> float:
    """Add two numbers.

    :param a: first addend
    :param b: second addend
    """
    return a + b


def test_schema_from_signature_and_google_docstring() -> None:
    tool = FunctionTool.from_function(get_weather)
    assert tool.description == "Get the weather forecast for a city."
    assert tool.parameters == {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "city": {"type": "string", "description": "Name of the city, e.g. Paris."},
            "unit": {"enum": ["c", "f"], "type": "string", "default": "c", "description": "Temperature unit."},
            "days": {"type": "integer", "default": 1, "description": "How many days."},
        },
        "required": ["city"],
    }
    assert tool.openai_schema()["function"]["name"] == "get_weather"


def test_sphinx_docstring() -> None:
    assert parse_docstring(add.__doc__) == ("Add two numbers.", {"a": "first addend", "b": "second addend"})


async def test_calls_validate_and_coerce_arguments() -> None:
    assert await FunctionTool.from_function(add).call({"a": 2, "b": "3.5"}) == 5.5
    assert await FunctionTool.from_function(get_weather).call({"city": "Oslo"}) == {
        "city": "Oslo",
        "unit": "c",
        "days": 1,
    }


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({}, "invalid arguments for get_weather: city: Field required"),
        ({"city": "x", "unit": "k"}, "unit: Input should be 'c' or 'f'"),
        ({"city": "x", "extra": 1}, "extra: Extra inputs are not permitted"),
    ],
)
async def test_bad_arguments_are_reported(arguments: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        await FunctionTool.from_function(get_weather).call(arguments)


def test_var_args_are_rejected() -> None:
    def bad(*args: int) -> None:
        """Nope."""

    with pytest.raises(TypeError, match="cannot be described"):
        FunctionTool.from_function(bad)
