#!/usr/bin/env python3
"""JSON Schema oracle for the schema validator's differential test, using Python's
`jsonschema` package, an implementation independent of ours: Draft202012Validator,
Draft201909Validator or Draft7Validator, chosen by the schema's `$schema` (draft 2020-12
without one).

Usage: python3 schema_oracle.py FILE  (or JSONL on standard input)
Each input line is {"schema": ..., "instance": ..., "mode": ...}; "mode" is "validate"
(the default) or "check" (the meta-schema check alone, no instance). Each output line:
  true          the instance is valid
  false         the instance is invalid
  valid_schema  (mode "check") the schema is valid against its draft's meta-schema
  schema_error  the schema is not valid against its draft's meta-schema
  error: ...    validation raised (e.g. an unresolvable $ref or endless recursion)
`format` stays an annotation (no format checker), as the drafts specify by default.

Two of `jsonschema`'s choices are not the ones the drafts make, and are replaced here:
- `pattern`, `patternProperties` (and `additionalProperties` beside it): ECMA-262
  regular expressions, while `jsonschema` hands them to Python's `re` as they are. The
  corpus keeps to patterns both read alike, except for three documented differences that
  the oracle translates: Python's `$` also matches before a final newline (ECMA-262's
  only at the end: read as `\\Z`), Python's `.` matches `\\r`, U+2028 and U+2029 (ECMA-262's
  does not), and Python's `\\d`, `\\w`, `\\b` are Unicode-wide (ECMA-262's are ASCII: the
  re.ASCII flag).
- `multipleOf`: `jsonschema` divides doubles (so `0.0075` is not a multiple of `0.0001`,
  and `1e300 % 3` is the remainder of the double nearest 1e300). The drafts speak of the
  numbers as written; the oracle decides divisibility exactly, with fractions, on the
  shortest decimal that reads back to each double (Python's repr, the spelling the
  corpus writes).
"""
from decimal import Decimal
from fractions import Fraction
import functools
import json
import re
import sys
import types
import warnings

import jsonschema
from jsonschema import Draft7Validator, Draft201909Validator, Draft202012Validator
from jsonschema import _keywords, _legacy_keywords, _utils, validators
from jsonschema.exceptions import SchemaError, ValidationError

warnings.simplefilter("ignore")

DRAFTS = {
    "http://json-schema.org/draft-07/schema#": Draft7Validator,
    "http://json-schema.org/draft-07/schema": Draft7Validator,
    "https://json-schema.org/draft/2019-09/schema": Draft201909Validator,
    "https://json-schema.org/draft/2019-09/schema#": Draft201909Validator,
    "https://json-schema.org/draft/2020-12/schema": Draft202012Validator,
    "https://json-schema.org/draft/2020-12/schema#": Draft202012Validator,
}


@functools.lru_cache(maxsize=None)
def ecma(pattern):
    """The Python spelling of an ECMA-262 pattern (see the module docs)."""
    out = []
    in_class = False
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and i + 1 < len(pattern):
            out.append(pattern[i : i + 2])
            i += 2
            continue
        if in_class:
            in_class = c != "]"
            out.append(c)
        elif c == "[":
            in_class = True
            out.append(c)
        elif c == "$":
            out.append(r"\Z")
        elif c == ".":
            out.append("[^\n\r\u2028\u2029]")
        else:
            out.append(c)
        i += 1
    return re.compile("".join(out), re.ASCII)


def ecma_search(pattern, string, *_flags):
    return ecma(pattern).search(string)


# The modules of `jsonschema` that search patterns see this `re`.
_shim = types.SimpleNamespace(**{k: getattr(re, k) for k in dir(re) if not k.startswith("__")})
_shim.search = ecma_search
for _module in (_keywords, _legacy_keywords, _utils):
    _module.re = _shim


def exact(number):
    return Fraction(Decimal(repr(number)))


def multiple_of(validator, divisor, instance, schema):
    if not validator.is_type(instance, "number"):
        return
    if (exact(instance) / exact(divisor)).denominator != 1:
        yield ValidationError(f"{instance!r} is not a multiple of {divisor}")


def with_exact_multiple_of(cls):
    return validators.extend(cls, {"multipleOf": multiple_of})


VALIDATORS = {cls: with_exact_multiple_of(cls) for cls in set(DRAFTS.values())}


def validator_class(schema):
    uri = schema.get("$schema") if isinstance(schema, dict) else None
    return DRAFTS.get(uri, Draft202012Validator)


def verdicts(lines):
    validators_by_key = {}  # schema text -> validator (or None when the schema is refused)
    for line in lines:
        if not line.strip():
            continue
        case = json.loads(line)
        schema = case["schema"]
        cls = validator_class(schema)
        key = json.dumps(schema, sort_keys=True)
        if key not in validators_by_key:
            try:
                cls.check_schema(schema)
                validators_by_key[key] = VALIDATORS[cls](schema)
            except SchemaError:
                validators_by_key[key] = None
        validator = validators_by_key[key]
        if validator is None:
            yield "schema_error"
            continue
        if case.get("mode") == "check":
            yield "valid_schema"
            continue
        try:
            yield "true" if validator.is_valid(case["instance"]) else "false"
        except Exception as e:  # noqa: BLE001 -- any failure is a verdict to report
            yield "error: " + type(e).__name__ + ": " + str(e).replace("\n", " ")[:200]


def main():
    # Bytes split on "\n" only: a "\r" is insignificant white space inside a line, which
    # text mode would take for a line end.
    if len(sys.argv) > 1:
        with open(sys.argv[1], "rb") as f:
            data = f.read()
    else:
        data = sys.stdin.buffer.read()
    sys.setrecursionlimit(10000)
    out = verdicts(data.decode("utf-8").split("\n"))
    sys.stdout.write("".join(v + "\n" for v in out))


if __name__ == "__main__":
    main()
