"""Python values as JSON: exact, or refused with core's sentence and the JSON path."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import agentloop


def test_canonical_matches_the_rfc_8785_vectors(vectors: Path) -> None:
    data = vectors / "jcs" / "testdata"
    names = sorted(p.name for p in (data / "input").iterdir())
    assert names, "no RFC 8785 vectors"
    for name in names:
        text = (data / "input" / name).read_bytes()
        expected = (data / "output" / name).read_bytes()
        assert agentloop.canonical(json.loads(text)) == expected, name
        assert agentloop.canonical(agentloop.parse(text)) == expected, name


@pytest.mark.parametrize(
    "value, sentence",
    [
        ({"x": [float("nan")]}, "NaN and infinite numbers have no JSON encoding at $.x[0]"),
        ([float("inf")], "NaN and infinite numbers have no JSON encoding at $[0]"),
        ({1: 2}, "a map key must be a string, not an integer at $"),
        ({"k": b"x"}, "a bytes has no JSON form: decode it to a str (or base64-encode it) first at $.k"),
        ({"s": {1, 2}}, "a Python set has no JSON form (JSON has null, bool, int, float, str, list, tuple and dict with str keys) at $.s"),
        (
            2**53 + 1,
            "the integer 9007199254740993 would become 9007199254740992 as a JSON number "
            "(a double: integers are exact up to 2^53 in magnitude); send it as a string at $",
        ),
    ],
)
def test_values_with_no_json_form_are_refused_with_their_path(value: object, sentence: str) -> None:
    with pytest.raises(agentloop.EncodeError) as raised:
        agentloop.canonical(value)  # type: ignore[arg-type]
    assert str(raised.value) == sentence
    assert isinstance(raised.value, agentloop.Error)


def test_integers_are_exact_or_refused() -> None:
    assert agentloop.canonical(2**53) == b"9007199254740992"
    assert agentloop.canonical(-(2**53)) == b"-9007199254740992"
    # 10^21 is a double exactly, and its ECMAScript spelling names it.
    assert agentloop.canonical(10**21) == b"1e+21"
    with pytest.raises(agentloop.EncodeError, match="beyond 128 bits"):
        agentloop.canonical(10**50 + 1)
    with pytest.raises(agentloop.EncodeError, match="would become"):
        agentloop.canonical(2**60)


def test_nesting_deeper_than_the_parser_reads_is_refused() -> None:
    deep: list = []
    for _ in range(200):
        deep = [deep]
    with pytest.raises(agentloop.EncodeError, match="nest deeper than 128"):
        agentloop.canonical(deep)


def test_parse_round_trips_and_refuses_what_is_not_i_json() -> None:
    value = agentloop.parse(b'{"b":[1,2.5,null,true],"a":"\\u00e9"}')
    assert value == {"a": "é", "b": [1, 2.5, None, True]}
    assert isinstance(value["b"][0], int)
    with pytest.raises(agentloop.ParseError, match="line 1, column"):
        agentloop.parse('{"a":1,"a":2}')
    with pytest.raises(TypeError):
        agentloop.parse(42)  # type: ignore[arg-type]
