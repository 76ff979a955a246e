"""`validate`: core's JSON Schema validator."""

from __future__ import annotations

import pytest

import agentloop


def test_violations_name_the_path_and_what_was_wrong() -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"type": "integer"}, "tags": {"type": "array", "items": {"type": "string"}}},
        "required": ["a"],
    }
    assert agentloop.validate(schema, {"a": 1, "tags": ["x"]}) == []
    found = agentloop.validate(schema, {"a": "2", "tags": ["x", 3]})
    assert [(v.path, v.message) for v in found] == [
        ("$.a", "expected type integer, got string"),
        ("$.tags[1]", "expected type string, got integer"),
    ]
    assert str(found[0]) == "$.a: expected type integer, got string"


def test_a_schema_the_validator_cannot_honour_is_refused() -> None:
    with pytest.raises(agentloop.SchemaError):
        agentloop.validate({"$ref": "https://example.invalid/elsewhere"}, {})
    with pytest.raises(agentloop.EncodeError):
        agentloop.validate({"type": "object"}, {"x": float("nan")})
